/**
 * `npm test`: type-check, scan the views for unescaped content, build the browser files, run
 * the bun test suites, then the browser tests in Chromium. Stops at the first failing step and
 * ends with one summary line.
 *
 * The checks run side by side; the test files are spread over several `bun test` processes at
 * once (each file runs whole in one process, files balanced by how long each took when last
 * measured: tests/timings.json, written by this runner after each run; see `balance`).
 * Every test file starts its own app, servers and data directories on free ports, so files may
 * run at the same time, in any order.
 *
 *   bun scripts/test.ts                   everything (what `npm test` runs)
 *   bun scripts/test.ts --only unit       only the bun test suites (tests/*.test.ts), after the build
 *   bun scripts/test.ts --only postgres   only the bun test suites on PostgreSQL (TEST_DATABASE=postgres);
 *                                         with e2e, the browser tests where the engine matters
 *                                         (E2E_ON_POSTGRES) on PostgreSQL too
 *   bun scripts/test.ts --only e2e        only the browser tests, after the build
 *   bun scripts/test.ts --only checks     only the type-checks, xss-scan and build (side by side)
 *   bun scripts/test.ts --jobs 3          three test processes at once (default: cores + 1 for the
 *                                         suites, two for the browser tests)
 *   bun scripts/test.ts --only unit,e2e   parts may be combined
 */
import { Glob } from "bun";
import { availableParallelism } from "node:os";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { postgresBin } from "../tests/postgres-bin";

const root = new URL("..", import.meta.url).pathname;
const bin = (name: string) => `${root}node_modules/.bin/${name}`;
let passed = 0;
let failed = 0;

const PARTS = ["checks", "unit", "postgres", "e2e"] as const;
type Part = (typeof PARTS)[number];
function flag(name: string): string | undefined {
  const args = process.argv.slice(2);
  const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return undefined;
  return args[i]!.includes("=") ? args[i]!.slice(name.length + 1) : args[i + 1];
}
const only = flag("--only")?.split(",").map((p) => p.trim()) ?? [...PARTS];
for (const part of only) {
  if (!PARTS.includes(part as Part)) {
    console.log(`--only takes ${PARTS.join(", ")} (comma-separated), not "${part}"`);
    process.exit(2);
  }
}
const runs = (part: Part) => only.includes(part);
/**
 * Processes at once for the suites (`--jobs`; the browser tests take it only when given). The
 * suites wait on servers, sockets and sleeps as much as they compute, so one process more than
 * the cores keeps them busy.
 */
const jobs = Math.max(1, Number(flag("--jobs") ?? availableParallelism() + 1) || 1);
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);
// The suites choose their databases themselves: a DATABASE_URL of the shell must not reach the servers they start.
const env = { ...process.env, FORCE_COLOR: "0", DATABASE_URL: "" };

async function step(name: string, cmd: string[]) {
  const started = performance.now();
  console.log(`\n▶ ${name}`);
  const proc = Bun.spawn(cmd, { cwd: root, stdout: "inherit", stderr: "inherit", env });
  const code = await proc.exited;
  console.log(`◀ ${name}: ${code === 0 ? "ok" : `failed (exit ${code})`} in ${seconds(started)} s`);
  if (code !== 0) stop(code);
}

/** Ends the run after a failed step, with the summary line. */
function stop(code: number): never {
  console.log(`\ntests: ${passed} passed, ${Math.max(failed, 1)} failed`);
  process.exit(code || 1);
}

/** How long output is still read after a command ends (its last lines may be in flight). */
const PIPE_GRACE_MS = 5_000;

/** Runs a command with its output (stdout and stderr together) kept, not shown. */
async function captured(cmd: string[], extraEnv: Record<string, string> = {}, onLine?: (line: string) => void) {
  const started = performance.now();
  const proc = Bun.spawn(cmd, { cwd: root, stdout: "pipe", stderr: "pipe", env: { ...env, ...extraEnv } });
  let output = "";
  const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    readers.push(reader);
    let partial = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      output += text;
      if (!onLine) continue;
      const lines = (partial + text).split("\n");
      partial = lines.pop()!;
      for (const line of lines) onLine(line);
    }
  };
  const pumped = Promise.all([pump(proc.stdout), pump(proc.stderr)]);
  const code = await proc.exited;
  // A process the command started and left running (a server whose test timed out before its
  // afterAll) keeps the pipes open after the command ends: reading stops after a grace period
  // rather than waiting on it for ever.
  const drained = await Promise.race([pumped.then(() => true), Bun.sleep(PIPE_GRACE_MS).then(() => false)]);
  if (!drained) {
    await Promise.all(readers.map((r) => r.cancel().catch(() => {})));
    output += `\n(the command ended, but a process it started still held its output open ${PIPE_GRACE_MS / 1000} s later, and was left running)\n`;
  }
  return { code, output, seconds: seconds(started) };
}

/** Runs at most `limit` of `work` at a time, in order. */
async function pooled<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Independent checks side by side (one per core); each one's output is shown whole when it ends. */
async function sideBySide(steps: { name: string; cmd: string[] }[]) {
  const started = performance.now();
  const slots = Math.min(jobs, availableParallelism());
  console.log(`\n▶ ${steps.map((s) => s.name).join(", ")} (${Math.min(slots, steps.length)} at a time)`);
  const results = await pooled(steps, slots, async (s) => {
    const result = await captured(s.cmd);
    if (result.output.trim()) process.stdout.write(`── ${s.name}:\n${result.output}${result.output.endsWith("\n") ? "" : "\n"}`);
    console.log(`◀ ${s.name}: ${result.code === 0 ? "ok" : `failed (exit ${result.code})`} in ${result.seconds} s`);
    return result;
  });
  console.log(`◀ ${steps.length} steps: ${results.every((r) => r.code === 0) ? "ok" : "failed"} in ${seconds(started)} s`);
  const bad = results.find((r) => r.code !== 0);
  if (bad) stop(bad.code);
}

/**
 * How long each test file took, in seconds, per kind of run (the suites or the browser tests, on
 * SQLite or PostgreSQL): measured by this runner as the files ran side by side (bun's JUnit
 * report of each process gives each file's time, its hooks included) and kept in
 * tests/timings.json, which is committed, so a fresh clone balances its first run too. Only
 * used to spread the files evenly over the test processes.
 *
 * A time is rewritten only when it moved by half again or a third down, and by more than two
 * seconds (a busy machine easily makes a file a quarter slower), and the file is written with
 * sorted keys and tenths of a second: a run leaves it as it was unless a file really got slower
 * or faster. Files that no longer exist are dropped.
 */
const TIMINGS_FILE = `${root}tests/timings.json`;
type Kind = "unit" | "unit-postgres" | "e2e" | "e2e-postgres";
type Timings = Partial<Record<Kind, Record<string, number>>>;

function readTimings(): Timings {
  try {
    return JSON.parse(readFileSync(TIMINGS_FILE, "utf8")) as Timings;
  } catch {
    return {};
  }
}

/** A file's last measured time; one never measured counts as the median of its kind (1 s when none is known). */
function estimator(kind: Kind) {
  const known = readTimings()[kind] ?? {};
  const times = Object.values(known).sort((a, b) => a - b);
  const median = times.length ? times[Math.floor(times.length / 2)]! : 1;
  return (file: string) => known[file] ?? median;
}

/** Keeps the measured times of `kind`, changing only those that moved much (see TIMINGS_FILE). */
function recordTimings(kind: Kind, measured: Map<string, number>) {
  const timings = readTimings();
  const kept: Record<string, number> = { ...timings[kind] };
  for (const [file, secs] of measured) {
    const old = kept[file];
    const moved = old === undefined || ((secs > old * 1.5 || secs < old / 1.5) && Math.abs(secs - old) > 2);
    if (moved) kept[file] = Math.round(secs * 10) / 10;
  }
  for (const file of Object.keys(kept)) if (!existsSync(`${root}${file}`)) delete kept[file];
  timings[kind] = kept;
  const sorted = Object.fromEntries(
    (Object.keys(timings) as Kind[]).sort().map((k) => [k, Object.fromEntries(Object.entries(timings[k]!).sort(([a], [b]) => (a < b ? -1 : 1)))]),
  );
  const text = `${JSON.stringify(sorted, null, 2)}\n`;
  if (existsSync(TIMINGS_FILE) && readFileSync(TIMINGS_FILE, "utf8") === text) return;
  // Whole or not at all, should two runs end together.
  const temporary = `${TIMINGS_FILE}.${process.pid}`;
  writeFileSync(temporary, text);
  renameSync(temporary, TIMINGS_FILE);
}

/** Each file's time in a JUnit report of `bun test` (its top-level suites are the files). */
function junitTimes(report: string): Map<string, number> {
  const times = new Map<string, number>();
  for (const m of report.matchAll(/<testsuite name="([^"]+)" file="([^"]+)"[^>]*? time="([\d.]+)"/g)) {
    if (m[1] !== m[2]) continue; // a describe block, inside its file
    times.set(m[2]!.replace(/^\.\//, ""), Number(m[3]));
  }
  return times;
}

/** Splits the files into `count` groups of about equal time: longest first, each to the group with the least so far. */
function balance(files: string[], count: number, kind: Kind) {
  const estimated = estimator(kind);
  const shards = Array.from({ length: Math.min(count, files.length) }, () => ({ files: [] as string[], estimate: 0 }));
  const estimates = new Map(files.map((file) => [file, estimated(file)]));
  // Longest first; equal times by name, so the same timings always make the same groups.
  for (const file of [...files].sort((a, b) => estimates.get(b)! - estimates.get(a)! || (a < b ? -1 : 1))) {
    const lightest = shards.reduce((a, b) => (b.estimate < a.estimate ? b : a));
    lightest.files.push(file);
    lightest.estimate += estimates.get(file)!;
  }
  return shards;
}

/**
 * Runs test files as `jobs` `bun test` processes at once, sums their counts, and names every
 * failure with the process (and so the files) it came from.
 */
async function testFiles(name: string, kind: Kind, files: string[], extraEnv: Record<string, string> = {}, processes = jobs) {
  const started = performance.now();
  const shards = balance(files, processes, kind);
  console.log(`\n▶ ${name}: ${files.length} files in ${shards.length} processes`);
  const reports = `${root}.tmp/junit`;
  mkdirSync(reports, { recursive: true });
  const results = await Promise.all(
    shards.map(async (shard, i) => {
      const label = `[${i + 1}/${shards.length}]`;
      const report = `${reports}/${kind}-${i + 1}.xml`;
      rmSync(report, { force: true });
      // Progress as bun writes it (in chunks when piped): each file and each failure; the whole output at the end.
      const cmd = [process.execPath, "test", "--reporter=junit", `--reporter-outfile=${report}`, ...shard.files.map((f) => `./${f}`)];
      const result = await captured(cmd, extraEnv, (line) => {
        if (/^tests\/\S+\.ts:$/.test(line) || line.startsWith("(fail)")) console.log(`  ${label} ${line}`);
      });
      const pass = Number(/^\s*(\d+) pass$/m.exec(result.output)?.[1] ?? 0);
      const fail = Number(/^\s*(\d+) fail$/m.exec(result.output)?.[1] ?? 0);
      const times = existsSync(report) ? junitTimes(readFileSync(report, "utf8")) : new Map<string, number>();
      return { ...shard, label, ...result, pass, fail, times };
    }),
  );
  // The times of the processes that passed (a failure's may be a timeout's).
  recordTimings(kind, new Map(results.filter((r) => r.code === 0).flatMap((r) => [...r.times])));
  const slowest = results.flatMap((r) => [...r.times]).sort((a, b) => b[1] - a[1])[0];
  for (const r of results) {
    console.log(`\n── ${name} ${r.label}: ${r.files.join(" ")} (${r.seconds} s)`);
    process.stdout.write(r.output.endsWith("\n") ? r.output : `${r.output}\n`);
  }
  const shardPassed = results.reduce((n, r) => n + r.pass, 0);
  const shardFailed = results.reduce((n, r) => n + r.fail, 0);
  passed += shardPassed;
  failed += shardFailed;
  const bad = results.filter((r) => r.code !== 0);
  for (const r of bad) {
    const lines = r.output.split("\n");
    const fails = [...new Set(lines.filter((l) => l.startsWith("(fail)")))];
    // An error outside any test (a file that does not load, a hook that throws) names no test.
    const errors = [...new Set(lines.filter((l) => /^(error|SyntaxError|TypeError|ReferenceError)\b/.test(l)))].slice(0, 10);
    console.log(`\n✗ ${name} ${r.label} (${r.files.join(" ")}) exited ${r.code}:`);
    for (const line of [...fails, ...errors]) console.log(`  ${line}`);
  }
  console.log(`◀ ${name}: ${bad.length ? "failed" : "ok"}: ${shardPassed} passed, ${shardFailed} failed, in ${seconds(started)} s (${results.map((r) => `${r.label} ${r.seconds} s`).join(", ")}; slowest file ${slowest ? `${slowest[0]} ${slowest[1].toFixed(1)} s` : "unknown"})`);
  if (bad.length) stop(bad[0]!.code);
}

/**
 * The Debian packages the tests drive (Chromium for the browser tests, redis-server for the tests
 * of several processes, PostgreSQL for the second engine's tests) are installed when missing, as
 * a newcomer runs this and not `.ci/run`.
 */
function ensureDebianPackages() {
  const installed = (path: string) => Bun.file(path).size > 0;
  const wanted = [
    { pkg: "chromium", present: () => installed(process.env.CHROMIUM_PATH ?? "/usr/bin/chromium") },
    { pkg: "redis-server", present: () => installed(process.env.REDIS_SERVER_PATH ?? "/usr/bin/redis-server") },
    { pkg: "postgresql", present: () => postgresBin() !== undefined },
  ];
  const missing = wanted.filter((w) => !w.present()).map((w) => w.pkg);
  if (!missing.length) return;
  console.log(`\n▶ installing Debian's ${missing.join(" ")} for the tests`);
  const sudo = process.getuid?.() === 0 ? [] : ["sudo"];
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const cmd of [[...sudo, "apt-get", "update", "-qq"], [...sudo, "apt-get", "install", "-y", "-qq", ...missing]]) {
    const run = Bun.spawnSync(cmd, { stdout: "inherit", stderr: "inherit", env });
    if (run.exitCode !== 0) {
      console.log(`\nCould not install ${missing.join(" ")} (${cmd.join(" ")} exited ${run.exitCode}): install them, or set CHROMIUM_PATH / REDIS_SERVER_PATH / POSTGRES_BIN.`);
      process.exit(1);
    }
  }
}

/**
 * `tsc --noEmit` on one project, remembering what it checked (.tmp/tsc/, ignored by git): a run
 * after a small change re-checks only what the change touches, the first run everything.
 */
const typeCheck = (name: string, project: string) => ({
  name,
  cmd: [bin("tsc"), "--noEmit", "-p", project, "--incremental", "--tsBuildInfoFile", `${root}.tmp/tsc/${project.replace(/\W+/g, "_")}.tsbuildinfo`],
});

const started = performance.now();
ensureDebianPackages();
// The browser tests include the single binary (tests/e2e/binary.e2e.ts): it is built here, once,
// as building it again (which rebuilds build/) under servers of other test files would pull
// their files from under them.
const build = { name: "build", cmd: [process.execPath, "scripts/build.ts", ...(runs("e2e") ? ["--compile"] : [])] };
if (runs("checks")) {
  // Longest first, so the pool ends together.
  await sideBySide([
    typeCheck("type-check", "."),
    // Every query is asynchronous: a promise nobody waits for is a write that may not have happened.
    { name: "awaited promises", cmd: [process.execPath, "scripts/check-promises.ts"] },
    { name: "xss-scan", cmd: [bin("xss-scan"), "-s"] },
    // Imports run one way (docs/architecture.md, "Layers"): the rules are .dependency-cruiser.cjs.
    { name: "imports run one way", cmd: [process.execPath, "node_modules/dependency-cruiser/bin/dependency-cruiser.mjs", "--config", ".dependency-cruiser.cjs", "src", "lib", "views", "islands", "db", "shared", "scripts"] },
    typeCheck("type-check islands", "islands"),
    build,
    typeCheck("type-check service worker", "islands/worker"),
  ]);
} else {
  await step(build.name, build.cmd);
}
/**
 * Suites left out of the run on PostgreSQL: each starts PostgreSQL itself (the copy command, the
 * dialect, the two schemas, two machines, a cluster restarted or hanging under the server), or
 * its subject is SQLite's own file: its pragmas and query plans, the backup of DATA_DIR's
 * database, a full disk or read-only folder.
 */
const SQLITE_ONLY = new Set(["tests/to-postgres.test.ts", "tests/dialect.test.ts", "tests/schema-engines.test.ts", "tests/two-machines.test.ts", "tests/db.test.ts", "tests/browse-scale.test.ts", "tests/operations.test.ts", "tests/operations-faults.test.ts", "tests/postgres-faults.test.ts"]);
if (runs("unit") || runs("postgres")) {
  const unit: string[] = [];
  for await (const file of new Glob("tests/*.test.ts").scan(root)) unit.push(file);
  if (runs("unit")) await testFiles("bun test", "unit", unit.sort());
  // The same suites on PostgreSQL (docs/decisions/0038): a throwaway cluster per test process.
  if (runs("postgres")) await testFiles("bun test on PostgreSQL", "unit-postgres", unit.filter((f) => !SQLITE_ONLY.has(f)).sort(), { TEST_DATABASE: "postgres" });
}
/**
 * The browser tests run again with their servers on PostgreSQL only where the engine can change
 * what the browser shows: money moved and recorded by transactions, and the order in which
 * people see what was written. Everything else the engine decides is checked by the bun suites,
 * which all run on both engines; the other browser tests check screens, scripts and the browser
 * itself, the same whichever engine the server uses. Each file's reason is beside it.
 */
const E2E_ON_POSTGRES: Record<string, string> = {
  "tests/e2e/bookings.e2e.ts":
    "money: a card held and the request made, the dialog's hosted checkout holding the time until it is paid, the host's acceptance capturing it; times other bookings hold shown as taken",
  "tests/e2e/cancellation.e2e.ts":
    "money: a charged booking cancelled under its policy, half refunded through a claim, in euros; what comes back previewed first",
  "tests/e2e/chat.e2e.ts":
    "money and order: the host accepts and completes (the card captured, the host's share recorded) as the guest watches live; messages in the place each took in its writing transaction",
  "tests/e2e/group-sessions.e2e.ts":
    "money and spots: two guests pay for 3 and 2 of a session's 6 spots through the hosted checkout, each counted in the transaction that holds it; the third is refused before paying",
  "tests/e2e/inbox.e2e.ts":
    "money: a paid request accepted and completed through plain forms; the inbox's cards sorted, and following each status change",
  "tests/e2e/partial-refunds.e2e.ts":
    "money: a host gives part of a charged booking back through a claim, the guest's conversation told live",
  "tests/e2e/payments.e2e.ts":
    "money: the operators' reconciliation lists the bookings that differ from the provider and the timed work that gave up; marking one handled changes the next page",
};
if (runs("e2e")) {
  const e2e: string[] = [];
  for await (const file of new Glob("tests/e2e/*.e2e.ts").scan(root)) e2e.push(file);
  // Two browser-test processes unless --jobs says otherwise: each spends much of its time waiting
  // on its server and Chromium, so two keep two cores busy; more made timing-sensitive waits slow.
  if (e2e.length) await testFiles("browser tests", "e2e", e2e.sort(), { OFFLINE_BINARY_BUILT: "1" }, flag("--jobs") ? jobs : 2);
  // And with the servers on PostgreSQL, when the suites run there too: the files where the engine matters.
  const onPostgres = e2e.filter((f) => f in E2E_ON_POSTGRES).sort();
  for (const file of Object.keys(E2E_ON_POSTGRES)) if (!e2e.includes(file)) throw new Error(`E2E_ON_POSTGRES names ${file}, which does not exist`);
  if (onPostgres.length && runs("postgres")) await testFiles("browser tests on PostgreSQL", "e2e-postgres", onPostgres, { OFFLINE_BINARY_BUILT: "1", TEST_DATABASE: "postgres" }, flag("--jobs") ? jobs : 2);
}
console.log(`\ntests: ${passed} passed, ${failed} failed (${seconds(started)} s)`);
