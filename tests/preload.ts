/**
 * Loaded by `bun test` before any test file (bunfig.toml, `[test] preload`): how long a test (or
 * a hook) may take by default, instead of Bun's 5 s: 20 s for the suites (tests/*.test.ts, which
 * start servers and processes on a busy machine), 60 s for the browser tests (tests/e2e/*.e2e.ts).
 *
 * Bun 1.4 reads no `timeout` in bunfig.toml (the key is silently ignored), and a
 * `setDefaultTimeout` call lasts for one file only: Bun puts the default back before each next
 * file, so a call made here would reach only the first file of a run. So each test file, as it
 * is loaded, gets the call put in front of its first line (same line, so line numbers in errors
 * stay right). `bun test --timeout <ms>` on the command line still wins.
 */
import { plugin } from "bun";
import { afterAll } from "bun:test";
import { readFileSync } from "node:fs";

export const UNIT_TIMEOUT_MS = 20_000;
export const BROWSER_TIMEOUT_MS = 60_000;

/** The command line as started: Bun hands its own flags to no one, so it is read from /proc. */
function commandLine(): string[] {
  try {
    return readFileSync("/proc/self/cmdline", "utf8").split("\0");
  } catch {
    return [];
  }
}

const timeoutGiven = commandLine().some((arg) => arg === "--timeout" || arg.startsWith("--timeout="));

if (!timeoutGiven) {
  plugin({
    name: "default test timeout",
    setup(build) {
      build.onLoad({ filter: /\.(test|e2e)\.ts$/ }, async ({ path }) => {
        const ms = path.endsWith(".e2e.ts") ? BROWSER_TIMEOUT_MS : UNIT_TIMEOUT_MS;
        return {
          contents: `import { setDefaultTimeout as __setDefaultTimeout } from "bun:test"; __setDefaultTimeout(${ms}); ${await Bun.file(path).text()}`,
          loader: "ts",
        };
      });
    },
  });
}

// `TEST_DATABASE=postgres` runs the suites on PostgreSQL (docs/decisions/0038): a throwaway
// cluster for this test process, named by DATABASE_URL before any test file picks the engine
// (db/engine.ts); each test app gets a database of its own in it (tests/helpers.ts).
// The engine is fixed as db/engine.ts is first read; the variable is then taken back, so the
// servers that suites start as processes of their own run on their SQLite files as before.
if (process.env.TEST_DATABASE === "postgres") {
  // Set before anything reads it: starting the cluster loads the test helpers, and the app with them.
  process.env.DATABASE_URL = "postgres://test-cluster";
  const { engine } = await import("../db/engine");
  if (engine !== "postgres") throw new Error("db/engine.ts was read before TEST_DATABASE could choose PostgreSQL");
  const { startPostgres } = await import("./postgres");
  const cluster = await startPostgres();
  delete process.env.DATABASE_URL;
  globalThis.testPostgresCluster = cluster.url;
  afterAll(() => cluster.stop());
}

/** Set by tests/e2e/harness.ts when a browser test file has launched the process's shared Chromium. */
declare global {
  var closeSharedBrowser: (() => Promise<void>) | undefined;
  /** The throwaway PostgreSQL cluster's URL, with `TEST_DATABASE=postgres`. */
  var testPostgresCluster: string | undefined;
}

// Registered here, this runs once, after the last test file of the process: the shared Chromium
// is closed (and its processes waited for) rather than left to notice its parent is gone.
afterAll(async () => {
  await globalThis.closeSharedBrowser?.();
});
