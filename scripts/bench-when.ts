/**
 * Browse with a date and a time of day (decision 0054), for `bun run bench`: the crowd's paths,
 * the query plans of its statements, and what a page costs when nothing is kept (every read a
 * miss of the filtered pages' cache).
 *
 * `bun scripts/bench-when.ts [--activities N] [--postgres]` alone: seeds a temporary database of
 * N generated activities (default 100,000) plus the demo, prints the plans and the cold timings.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDb, type Db } from "../db/client";
import { engine } from "../db/engine";
import { candidateSql, type CandidateFilter } from "../src/activities/queries";
import { readBrowseFilters } from "../src/activities/filters";
import { busySql, readFound } from "../src/bookings/find";
import { users } from "../db/schema";
import { demoCities } from "../src/demo/demo-data";
import { seedDemo, seedGeneratedActivities } from "../src/demo/seed";
import { openBenchDb } from "./bench-db";

export const WHEN_DATES = ["today", "tomorrow", "weekend"] as const;
export const WHEN_TIMES = ["morning", "afternoon", "evening"] as const;

/** The crowd's browse by when: every demo city × today, tomorrow, this weekend × morning, afternoon, evening. */
export function whenPaths(): string[] {
  return demoCities.flatMap(({ city }) => WHEN_DATES.flatMap((date) => WHEN_TIMES.map((time) => `/browse?city=${encodeURIComponent(city)}&date=${date}&timeOfDay=${time}`)));
}

/**
 * The plans of the statements a browse by when runs, one line each: its candidates (in creation
 * order, by price, by rating) and its hosts' busy times. On SQLite the candidates in creation
 * order must walk the browse index without a sort.
 */
export async function whenPlans(db: Db): Promise<{ name: string; plan: string; ok: boolean }[]> {
  // This weekend's mornings, for two, under 60: every narrowing SQL does.
  const base: CandidateFilter = { city: "New York", sort: "recommended", firstDayOffset: 2, noticeAtMost: 3000, people: 2, maxPriceCents: 6000, hours: { weekdays: [5, 6], window: [0, 720] } };
  const hosts = (await db.select({ id: users.id }).from(users).limit(20)).map((u) => u.id);
  const now = Date.now();
  const statements: [string, { sql: string; params: unknown[] }][] = [
    ["candidates, recommended", candidateSql(db, base)],
    ["candidates, by price", candidateSql(db, { ...base, sort: "price" })],
    ["candidates, by rating", candidateSql(db, { ...base, sort: "rating" })],
    // A batch's hosts' busy times over the next four days.
    ...busySql(db, hosts, now, now + 4 * 86_400_000, now).map(({ name, ...q }): [string, { sql: string; params: unknown[] }] => [`busy times, ${name}`, q]),
  ];
  const out: { name: string; plan: string; ok: boolean }[] = [];
  for (const [name, q] of statements) {
    let plan: string;
    if (engine === "sqlite") {
      const statement = db.$client.prepare(`EXPLAIN QUERY PLAN ${q.sql}`);
      plan = (statement.all(...(q.params as never[])) as { detail: string }[]).map((r) => r.detail).join("; ");
      statement.finalize();
    } else {
      const client = (db as unknown as { $client: { unsafe(sql: string, params: unknown[]): Promise<{ "QUERY PLAN": string }[]> } }).$client;
      plan = (await client.unsafe(`EXPLAIN ${q.sql}`, q.params)).map((r) => r["QUERY PLAN"].trim()).join("; ");
    }
    // In creation order, the browse index gives the order: no sort, no scan of the table; busy
    // times are read by host on their indexes.
    const ok =
      engine !== "sqlite" ||
      (name === "candidates, recommended" ? /USING INDEX activities_browse/.test(plan) && !/TEMP B-TREE|SCAN activities/.test(plan) : name.startsWith("busy") ? /USING INDEX (bookings_host|host_blocks_host|external_busy_host) \(host_id=\?/.test(plan) : true);
    out.push({ name, plan, ok });
  }
  return out;
}

/**
 * A browse by when with nothing kept: each path of `whenPaths` read `runs` times afresh, in this
 * process (no server, no HTTP). Returns the median and the slowest, in milliseconds.
 */
export async function whenCold(db: Db, runs = 3): Promise<{ median: number; max: number; reads: number }> {
  const times: number[] = [];
  const now = Date.now();
  for (let run = 0; run < runs; run++) {
    for (const path of whenPaths()) {
      const query = Object.fromEntries(new URL(path, "http://x").searchParams);
      const { filters } = readBrowseFilters(query, query.city!, now);
      const started = performance.now();
      await readFound(db, { city: query.city!, limit: 20, filters }, now);
      times.push(performance.now() - started);
    }
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)]!, max: times[times.length - 1]!, reads: times.length };
}

if (import.meta.main) {
  if (process.argv.includes("--postgres") && !process.env.DATABASE_URL) {
    const { startPostgres } = await import("../tests/postgres");
    const cluster = await startPostgres();
    let code = 1;
    try {
      const url = await cluster.createDatabase("offline_bench_when");
      const child = Bun.spawn([process.execPath, ...process.argv.slice(1).filter((a) => a !== "--postgres")], { env: { ...process.env, DATABASE_URL: url }, stdout: "inherit", stderr: "inherit" });
      code = await child.exited;
    } finally {
      await cluster.stop();
    }
    process.exit(code);
  }
  const i = process.argv.indexOf("--activities");
  const count = i >= 0 ? Number(process.argv[i + 1]) : 100_000;
  const dataDir = mkdtempSync(join(tmpdir(), "offline-bench-when-"));
  try {
    const db = await openBenchDb(dataDir);
    const started = performance.now();
    await seedDemo(db);
    await seedGeneratedActivities(db, count);
    console.log(`seeded ${count} generated activities + the demo in ${((performance.now() - started) / 1000).toFixed(1)} s (${engine})`);
    for (const { name, plan, ok } of await whenPlans(db)) console.log(`${ok ? "PASS" : "FAIL"}  plan ${name}: ${plan}`);
    const cold = await whenCold(db);
    console.log(`browse by when, nothing kept: median ${cold.median.toFixed(1)} ms, slowest ${cold.max.toFixed(1)} ms over ${cold.reads} reads`);
    await closeDb(db);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
