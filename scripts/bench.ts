/**
 * `bun run bench`: measures the pages guests load most against a database with 10,000
 * activities, and checks the budgets: first HTML of a page at most 14 KB compressed, browse
 * answered from indexes. Exits non-zero when a budget is missed.
 *   --activities N   how many generated activities (default 10000)
 *   --runs N         requests per page (default 200)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { migrate, openDb } from "../db/client";
import { DEMO_GUEST_EMAIL, DEMO_PASSWORD } from "../db/demo-data";
import { seedDemo, seedGeneratedActivities } from "../db/seed";
import { createApp } from "../src/app";
import { loadConfig } from "../src/config";
import { loadManifest } from "../src/lib/manifest";
import { loadSecrets } from "../src/lib/secrets";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const ACTIVITIES = arg("activities", 10_000);
const RUNS = arg("runs", 200);
const HTML_BUDGET = 14 * 1024;

const dataDir = mkdtempSync(join(tmpdir(), "offline-bench-"));
const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: "http://localhost", DEMO_DATA: "false" });
const db = openDb(join(dataDir, "offline.db"));
await migrate(db);
await seedDemo(db);
await seedGeneratedActivities(db, ACTIVITIES);
const { app } = createApp({ config, db, secrets: await loadSecrets(config), assets: await loadManifest() });

const login = await app.handle(
  new Request("http://localhost/api/login", {
    method: "POST",
    headers: { "content-type": "application/json", origin: "http://localhost" },
    body: JSON.stringify({ email: DEMO_GUEST_EMAIL, password: DEMO_PASSWORD }),
  }),
);
const cookie = login.headers.getSetCookie()[0]!.split(";")[0]!;

async function measure(name: string, path: string, signedIn: boolean) {
  const times: number[] = [];
  let body = "";
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const res = await app.handle(new Request(`http://localhost${path}`, { headers: signedIn ? { cookie } : {} }));
    body = await res.text();
    times.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  }
  times.sort((a, b) => a - b);
  const gz = gzipSync(body).length;
  const ok = gz <= HTML_BUDGET;
  console.log(
    `${name.padEnd(22)} median ${times[Math.floor(RUNS / 2)]!.toFixed(2).padStart(6)} ms   p95 ${times[Math.floor(RUNS * 0.95)]!.toFixed(2).padStart(6)} ms   ` +
      `html ${(body.length / 1024).toFixed(1).padStart(5)} KB, gzip ${(gz / 1024).toFixed(1).padStart(4)} KB ${ok ? "ok" : `OVER ${HTML_BUDGET / 1024} KB`}`,
  );
  return ok;
}

function usesIndex(sql: string) {
  const plan = (db.$client.query(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join("; ");
  const ok = !/SCAN activities(?! USING)/.test(plan);
  console.log(`query plan: ${plan}${ok ? "" : "  <- FULL SCAN"}`);
  return ok;
}

console.log(`Offline bench: ${ACTIVITIES} generated activities + demo, ${RUNS} requests per page\n`);
const someActivity = db.$client.query("SELECT id FROM activities WHERE city = 'New York' ORDER BY created_at DESC LIMIT 1").get() as { id: string };
const results = [
  await measure("landing (signed out)", "/", false),
  await measure("sign-in page", "/api/login", false),
  await measure("browse New York", "/", true),
  await measure("browse Paris, food", "/browse?city=Paris&category=food", true),
  await measure("activity page", `/activity/${someActivity.id}`, true),
  usesIndex("SELECT * FROM activities WHERE city = 'New York' AND active = 1 AND archived_at IS NULL ORDER BY created_at DESC LIMIT 24"),
  usesIndex("SELECT * FROM activities WHERE city = 'Paris' AND category = 'food' AND active = 1 AND archived_at IS NULL ORDER BY created_at DESC LIMIT 24"),
  usesIndex("SELECT * FROM activities WHERE city = 'Tokyo' AND active = 1 AND archived_at IS NULL AND (created_at < 1 OR (created_at = 1 AND id < 'x')) ORDER BY created_at DESC, id DESC LIMIT 21"),
];
rmSync(dataDir, { recursive: true, force: true });
if (results.includes(false)) {
  console.log("\nA budget was missed.");
  process.exit(1);
}
console.log("\nAll budgets met.");
