/**
 * The browser files the app serves (build/, made by scripts/build.ts): `npm test` builds them
 * before any test runs, but a test file run alone on a fresh clone (`bun test tests/x.test.ts`)
 * finds none. The test apps, the server processes and the files that read build/ themselves
 * call `ensureBuilt()`, which builds once when they are missing.
 *
 * Several test processes may ask at the same moment (`npm test` runs files side by side, and
 * so may anyone): one builds while holding a lock folder (.tmp/build.lock, with its pid), the
 * others wait for it and then use what it built. A lock whose process has died is taken over.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const manifest = join(root, "build/manifest.json");
const binary = join(root, "dist/offline");
const lock = join(root, ".tmp/build.lock");
/** How long a process waits for another's build before giving up. */
const WAIT_MS = 180_000;
/** A lock folder without its pid file yet is its maker's for this long. */
const PID_GRACE_MS = 10_000;

let ensured: Promise<void> | undefined;

/** Builds the browser files unless build/ holds a finished build (its manifest is written last). */
export function ensureBuilt(): Promise<void> {
  if (existsSync(manifest)) return Promise.resolve();
  ensured ??= underLock(() => existsSync(manifest), []).catch((err) => {
    ensured = undefined;
    throw err;
  });
  return ensured;
}

/**
 * Builds again, now, with the single binary too (`--compile`): for the binary's own tests, which
 * must run what the checkout holds. Rebuilding replaces build/, so it waits for any other build.
 */
export function buildWithBinary(): Promise<void> {
  const started = Date.now();
  // Done when a build that began after this call has made the binary (another process's counts).
  return underLock(() => existsSync(binary) && statSync(binary).mtimeMs >= started && existsSync(manifest), ["--compile"]);
}

async function underLock(done: () => boolean, args: string[]) {
  mkdirSync(join(root, ".tmp"), { recursive: true });
  const deadline = Date.now() + WAIT_MS;
  while (!take()) {
    if (done()) return;
    if (Date.now() > deadline) throw new Error(`waited ${WAIT_MS / 1000} s for another process's build (${lock})`);
    await Bun.sleep(100);
  }
  try {
    if (done()) return;
    // As `npm test` builds: without the NODE_ENV=test that `bun test` sets.
    const { NODE_ENV: _, ...env } = process.env;
    const build = Bun.spawn([process.execPath, "scripts/build.ts", ...args], { cwd: root, stdout: "ignore", stderr: "pipe", env });
    const [code, stderr] = await Promise.all([build.exited, new Response(build.stderr).text()]);
    if (code !== 0) throw new Error(`bun scripts/build.ts ${args.join(" ")} failed (exit ${code}):\n${stderr}`);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Takes the lock, or takes over one whose process is gone; false while another holds it. */
function take(): boolean {
  try {
    mkdirSync(lock);
    writeFileSync(join(lock, "pid"), String(process.pid));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  let pid = 0;
  try {
    pid = Number(readFileSync(join(lock, "pid"), "utf8"));
  } catch {
    // Just made, its pid not written yet; or left empty by a process that died at that moment.
    if (Date.now() - lockMadeAt() < PID_GRACE_MS) return false;
  }
  if (pid && alive(pid)) return false;
  rmSync(lock, { recursive: true, force: true });
  return false; // the next round takes it, unless another process is quicker
}

function lockMadeAt() {
  try {
    return statSync(lock).mtimeMs;
  } catch {
    return 0;
  }
}

function alive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
