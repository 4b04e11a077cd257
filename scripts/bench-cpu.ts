/**
 * `bun scripts/bench-cpu.ts DIR [mix...]`: the app's own CPU time per request, in one process,
 * without a network or a load generator (decision 0053, "How it was measured"): a database of
 * 10,000 generated activities, the demo and 100 signed-in people, made in DIR the first time and
 * used again after; then for each mix, `process.cpuUsage()` around `app.handle` for each request
 * of a random person and page, with a browser's Accept-Encoding, the body read to its end.
 * Mixes: uniform (every listed activity), zipf (s = 1), first200, browse80, browseall, when (the
 * bench's browse by when: 5 cities × 3 dates × 3 times of day).
 * BENCH_CPU_N sets the requests per mix (default 2,000). Prints one line per mix: its CPU time
 * and body size (as sent) per request; with BENCH_CPU_MEMORY=1, the memory after each.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { and, desc, eq, isNull } from "drizzle-orm";
import { one, openDb, migrate, writeTransaction, type Db } from "../db/client";
import { activities, users } from "../db/schema";
import { DEMO_GUEST_EMAIL, demoCities } from "../src/demo/demo-data";
import { seedDemo, seedGeneratedActivities } from "../src/demo/seed";
import { createSession } from "../src/auth/service";
import { categories } from "../src/activities/categories";
import { PAGE_SIZE } from "../src/activities/input";
import { encodeCursor } from "../src/activities/queries";
import { loadConfig } from "../src/config";
import { loadSecrets } from "../src/operations/secrets";
import { loadManifest } from "../lib/manifest";
import { createApp } from "../src/app";
import { whenPaths } from "./bench-when";

const dir = process.argv[2] ?? "/tmp/offline-bench-cpu";
const mixes = process.argv.slice(3).length ? process.argv.slice(3) : ["uniform", "zipf", "first200", "browse80", "browseall"];
const N = Number(process.env.BENCH_CPU_N ?? 2000);
mkdirSync(dir, { recursive: true });
const file = join(dir, "offline.db");
const fresh = !existsSync(file);
const db: Db = openDb(file);
await migrate(db);
type Listed = { id: string; createdAt: number; city: string; category: string };
if (fresh) {
  await seedDemo(db);
  await seedGeneratedActivities(db, 10_000);
  const guest = (await one(db.select().from(users).where(eq(users.email, DEMO_GUEST_EMAIL))))!;
  const people = Array.from({ length: 100 }, (_, i) => ({ ...guest, id: crypto.randomUUID(), email: `crowd${i + 1}@offline.test`, username: `crowd${i + 1}`, firstName: `Crowd${i + 1}` }));
  await writeTransaction(db, (tx) => tx.insert(users).values(people));
  const tokens: string[] = [];
  for (const person of people) tokens.push((await createSession(db, person.id)).token);
  const catalogue: Listed[] = await db
    .select({ id: activities.id, createdAt: activities.createdAt, city: activities.city, category: activities.category })
    .from(activities)
    .where(and(eq(activities.active, true), isNull(activities.archivedAt), isNull(activities.hiddenAt)))
    .orderBy(desc(activities.createdAt), desc(activities.id));
  writeFileSync(join(dir, "crowd.json"), JSON.stringify({ tokens, catalogue }));
}
const { tokens, catalogue } = JSON.parse(readFileSync(join(dir, "crowd.json"), "utf8")) as { tokens: string[]; catalogue: Listed[] };
const config = loadConfig({ DATA_DIR: dir, PUBLIC_URL: "http://127.0.0.1:3000", DEMO_DATA: "false", NODE_ENV: "production" });
const { app, deps } = createApp({ config, db, secrets: await loadSecrets(config), assets: await loadManifest() });
const cookie = (t: string) => `${deps.cookies.session}=${t}`;

const activityPaths = catalogue.map((a) => `/activity/${a.id}`);
const shuffledPaths = [...activityPaths].sort(() => Math.random() - 0.5);
const first200 = demoCities.flatMap(({ city }) => catalogue.filter((a) => a.city === city).slice(0, 40)).map((a) => `/activity/${a.id}`);
const filters = demoCities.flatMap(({ city }) => ["", ...categories].map((c) => `/browse?city=${encodeURIComponent(city)}${c ? `&category=${c}` : ""}`));
const browseAll: string[] = [];
for (const { city } of demoCities) {
  for (const category of ["", ...categories]) {
    const matching = catalogue.filter((a) => a.city === city && (!category || a.category === category));
    const path = `/browse?city=${encodeURIComponent(city)}${category ? `&category=${category}` : ""}`;
    browseAll.push(path);
    for (let i = PAGE_SIZE; i < matching.length; i += PAGE_SIZE) browseAll.push(`${path}&cursor=${encodeCursor(matching[i - 1]!)}`);
  }
}
// Zipf (s = 1): rank r drawn with weight 1/r.
const harmonic: number[] = [];
let sum = 0;
for (let r = 1; r <= shuffledPaths.length; r++) harmonic.push((sum += 1 / r));
const zipf = () => {
  const x = Math.random() * sum;
  let lo = 0;
  let hi = harmonic.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (harmonic[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return shuffledPaths[lo]!;
};
const pick = (list: string[]) => () => list[Math.floor(Math.random() * list.length)]!;
const draws: Record<string, () => string> = { uniform: pick(activityPaths), zipf, first200: pick(first200), browse80: pick(filters), browseall: pick(browseAll), when: pick(whenPaths()) };

async function ask(path: string) {
  const res = await app.handle(new Request(`http://127.0.0.1:3000${path}`, { headers: { cookie: cookie(tokens[Math.floor(Math.random() * tokens.length)]!), "accept-encoding": "br, gzip, deflate" } }));
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
  wire += (await res.arrayBuffer()).byteLength;
}
let wire = 0;
const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`;
const memory = (when: string) => {
  const m = process.memoryUsage();
  console.log(`${when}: rss ${mb(m.rss)}, heap ${mb(m.heapUsed)}, array buffers ${mb(m.arrayBuffers)}, external ${mb(m.external)}`);
};
if (process.env.BENCH_CPU_MEMORY) memory("before the mixes");
for (const mix of mixes) {
  const draw = draws[mix];
  if (!draw) throw new Error(`unknown mix ${mix}`);
  for (let i = 0; i < 200; i++) await ask(draw());
  (globalThis as { __sqlStats?: Map<string, unknown> }).__sqlStats?.clear();
  wire = 0;
  const before = process.cpuUsage();
  for (let i = 0; i < N; i++) await ask(draw());
  const used = process.cpuUsage(before);
  console.log(`${mix} ${Math.round((used.user + used.system) / N)} µs, ${(wire / N / 1024).toFixed(1)} KB`);
  (globalThis as { __dumpSql?: (n: number) => void }).__dumpSql?.(N);
  if (process.env.BENCH_CPU_MEMORY) memory(`after ${mix}`);
}
memory("after the mixes");
Bun.gc(true);
memory("after a full collection");
if (process.env.BENCH_CPU_MEMORY) {
  await Bun.sleep(5000);
  memory("5 s later");
}
process.exit(0);
