/**
 * `npm test`: type-check, scan the views for unescaped content, build the browser files, run
 * the bun test suites, then the browser tests in Chromium. Stops at the first failing step and
 * ends with one summary line.
 *
 * The checks run side by side; the test files are spread over several `bun test` processes at
 * once (each file runs whole in one process, files balanced by how long each takes: `jobs`).
 * Every test file starts its own app, servers and data directories on free ports, so files may
 * run at the same time, in any order.
 *
 *   bun scripts/test.ts                   everything (what `npm test` runs)
 *   bun scripts/test.ts --only unit       only the bun test suites (tests/*.test.ts), after the build
 *   bun scripts/test.ts --only postgres   only the bun test suites on PostgreSQL (TEST_DATABASE=postgres);
 *                                         with e2e, the browser tests on PostgreSQL too
 *   bun scripts/test.ts --only e2e        only the browser tests, after the build
 *   bun scripts/test.ts --only checks     only the type-checks, xss-scan and build (side by side)
 *   bun scripts/test.ts --jobs 3          three test processes at once (default: cores + 1 for the
 *                                         suites, two for the browser tests)
 *   bun scripts/test.ts --only unit,e2e   parts may be combined
 */
import { Glob } from "bun";
import { availableParallelism } from "node:os";
import { statSync } from "node:fs";
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
 * Seconds each test file took run alone on a 2-core machine (`bun test <file>`, wall clock), by
 * name without `.test.ts` (without `.ts` for the browser tests); a file not listed is guessed
 * from its size. Only used to spread the files evenly over the test processes: refresh it when
 * a file grows much slower.
 */
const MEASURED_SECONDS: Record<string, number> = {
  "operations": 10.9, "live-redis": 10.3, "two-machines": 6.0, "notifications": 9.9, "push-destinations": 7.7,
  "email-account": 6.8, "money-races-test-provider": 6.4, "money-crash": 5.6, "attacks": 5.2,
  "money-races-stripe": 5.2, "uploads-bucket": 3.3, "screens-audit": 2.8, "profiles": 2.7,
  "email-bookings": 2.7, "uploads": 2.6, "live": 2.5, "payments-stripe": 2.5, "messages": 2.3,
  "private-fields": 2.3, "bookings": 2.2, "hardening": 2.0, "activities": 1.9,
  "bookings-stripe": 1.6, "browse-scale": 1.5, "robustness": 1.5, "reports": 1.4,
  "reconciliation": 1.3, "booking-abuse": 1.1, "reviews": 1.1, "shell": 1.1, "escaping": 1.1,
  "auth": 1.1, "oauth": 1.0, "text": 0.9, "limits": 0.9, "db": 0.9, "jobs": 0.9, "redirects": 0.9,
  "file-requests": 0.9, "service-worker": 0.8, "compression": 0.8, "access": 0.8,
  "payments-test-provider": 0.7, "access-matrix": 0.7, "transactions": 0.6, "serializers": 0.1,
  "config": 0.1, "fragments": 0.1, "chat-state": 0.1, "time": 0.1, "pricing": 0.1,
  "instant-booking-stripe": 8, "schema-engines": 4.5, "to-postgres": 4, "dialect": 2, "instant-booking": 2.2, "availability-feeds": 1.3, "availability": 1,
  "activity-availability": 0.8, "kept-parts": 0.5,
  // The browser tests (tests/e2e/*.e2e.ts), as they run two at a time.
  "phone.e2e": 77, "screens-audit.e2e": 68, "inbox.e2e": 51, "bookings.e2e": 48, "push.e2e": 42,
  "profiles.e2e": 36, "activities.e2e": 35, "signup.e2e": 35, "email.e2e": 33, "reviews.e2e": 25,
  "shell.e2e": 24, "chat.e2e": 21, "unsubscribe.e2e": 18, "binary.e2e": 16, "address.e2e": 14,
  "payments.e2e": 13, "availability.e2e": 11, "hardening.e2e": 7,
};

function estimatedSeconds(file: string) {
  const name = file.split("/").pop()!.replace(/(\.test)?\.ts$/, "");
  return MEASURED_SECONDS[name] ?? statSync(`${root}${file}`).size / 10_000;
}

/** Splits the files into `count` groups of about equal time: longest first, each to the group with the least so far. */
function balance(files: string[], count: number) {
  const shards = Array.from({ length: Math.min(count, files.length) }, () => ({ files: [] as string[], estimate: 0 }));
  const estimates = new Map(files.map((file) => [file, estimatedSeconds(file)]));
  for (const file of [...files].sort((a, b) => estimates.get(b)! - estimates.get(a)!)) {
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
async function testFiles(name: string, files: string[], extraEnv: Record<string, string> = {}, processes = jobs) {
  const started = performance.now();
  const shards = balance(files, processes);
  console.log(`\n▶ ${name}: ${files.length} files in ${shards.length} processes`);
  const results = await Promise.all(
    shards.map(async (shard, i) => {
      const label = `[${i + 1}/${shards.length}]`;
      // Progress as bun writes it (in chunks when piped): each file and each failure; the whole output at the end.
      const result = await captured([process.execPath, "test", ...shard.files.map((f) => `./${f}`)], extraEnv, (line) => {
        if (/^tests\/\S+\.ts:$/.test(line) || line.startsWith("(fail)")) console.log(`  ${label} ${line}`);
      });
      const pass = Number(/^\s*(\d+) pass$/m.exec(result.output)?.[1] ?? 0);
      const fail = Number(/^\s*(\d+) fail$/m.exec(result.output)?.[1] ?? 0);
      return { ...shard, label, ...result, pass, fail };
    }),
  );
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
  console.log(`◀ ${name}: ${bad.length ? "failed" : "ok"}: ${shardPassed} passed, ${shardFailed} failed, in ${seconds(started)} s (${results.map((r) => `${r.label} ${r.seconds} s`).join(", ")})`);
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
  if (runs("unit")) await testFiles("bun test", unit.sort());
  // The same suites on PostgreSQL (docs/decisions/0038): a throwaway cluster per test process.
  if (runs("postgres")) await testFiles("bun test on PostgreSQL", unit.filter((f) => !SQLITE_ONLY.has(f)).sort(), { TEST_DATABASE: "postgres" });
}
if (runs("e2e")) {
  const e2e: string[] = [];
  for await (const file of new Glob("tests/e2e/*.e2e.ts").scan(root)) e2e.push(file);
  // Two browser-test processes unless --jobs says otherwise: each spends much of its time waiting
  // on its server and Chromium, so two keep two cores busy; more made timing-sensitive waits slow.
  if (e2e.length) await testFiles("browser tests", e2e.sort(), { OFFLINE_BINARY_BUILT: "1" }, flag("--jobs") ? jobs : 2);
  // And with the servers on PostgreSQL, when the suites run there too.
  if (e2e.length && runs("postgres")) await testFiles("browser tests on PostgreSQL", e2e.sort(), { OFFLINE_BINARY_BUILT: "1", TEST_DATABASE: "postgres" }, flag("--jobs") ? jobs : 2);
}
console.log(`\ntests: ${passed} passed, ${failed} failed (${seconds(started)} s)`);
