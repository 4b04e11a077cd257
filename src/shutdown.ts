import type { Server } from "bun";
import { dlopen, FFIType } from "bun:ffi";
import type { Deps } from "./deps";
import { settledWithin } from "./jobs";

/**
 * How long a stop waits in all for requests under way, the work that follows their commits and
 * a job pass: under the 10 s Docker (and most process managers) give after SIGTERM before they
 * kill, so the lease is handed over and the process exits by itself.
 */
export const SHUTDOWN_GRACE_MS = 8_000;

/**
 * However a stop goes, the process is gone this long after the signal: the 10 s Docker (and most
 * process managers) give before they kill, so that it ends by itself rather than by their SIGKILL.
 */
export const STOP_DEADLINE_MS = 10_000;

/**
 * Makes sure the process ends by `deadlineMs` from now, whatever the stop's own steps do:
 *   - one second before it, a timer logs what is happening and exits with 1: a step that waits
 *     on something that never answers (a database that hangs: nothing fails, nothing ends);
 *   - at the deadline, on Linux, the kernel's alarm (`alarm(2)`) ends the process with SIGALRM,
 *     whose default action is to terminate. It needs nothing from the process: it also ends one
 *     whose exit itself hangs (as one did once after "Stopped.", under heavy load) or whose event
 *     loop is blocked, when no timer of its own can run any more.
 */
export function exitBy(deadlineMs: number, log: (line: string) => void = (line) => console.log(line)) {
  const timer = setTimeout(() => {
    log(`The stop did not end within ${(deadlineMs - 1000) / 1000} s (something it waits for does not answer): exiting now.`);
    process.exit(1);
  }, deadlineMs - 1000);
  timer.unref();
  armAlarm(Math.ceil(deadlineMs / 1000));
}

/** `alarm(seconds)` of the C library, where there is one to call; without it the timer above is the deadline. */
function armAlarm(seconds: number) {
  if (process.platform !== "linux") return;
  try {
    const libc = dlopen("libc.so.6", { alarm: { args: [FFIType.u32], returns: FFIType.u32 } });
    libc.symbols.alarm(seconds);
  } catch {
    // Not glibc (musl, a static build): the timer alone ends the process.
  }
}

/**
 * Stops serving without cutting work short, each step within what is left of `graceMs`:
 *   1. the listening socket closes at once (new connections are refused); requests under way
 *      finish and idle keep-alive connections close; live sockets are closed (the chat
 *      reconnects elsewhere or later), since an open one would hold the stop for as long as it
 *      lasts. Requests still running at the deadline are cut.
 *   2. the job loop takes no new pass, and the pass under way ends; then the runner lease is
 *      handed over, so another process runs the jobs at once.
 *   3. the work that follows a commit (domain events: live frames, notifications) ends, including
 *      that of the requests that finished in step 1.
 *   4. the link to the other processes (Redis) closes.
 * Resolves true when everything finished in time. The database is left open: the caller exits.
 */
export async function shutDown(
  server: Server<unknown> | null | undefined,
  deps: Pick<Deps, "jobs" | "events" | "live">,
  options: { graceMs?: number; log?: (line: string) => void } = {},
): Promise<boolean> {
  const graceMs = options.graceMs ?? SHUTDOWN_GRACE_MS;
  const log = options.log ?? ((line: string) => console.log(line));
  const deadline = performance.now() + graceMs;
  const left = () => deadline - performance.now();
  let finished = true;

  const requests = server ? server.stop(false) : Promise.resolve();
  deps.live.closeSockets();
  const jobs = deps.jobs.stop(graceMs);
  if (server && !(await settledWithin(requests, left()))) {
    finished = false;
    log(`Requests still under way after ${graceMs / 1000} s were cut.`);
    await server.stop(true);
  }
  // Started before the deadline, the job runner's wait ends by it too.
  await jobs;
  if (!(await settledWithin(deps.events.idle(), left()))) {
    finished = false;
    log("Work that follows a change (notifications, live updates) was still under way and was cut.");
  }
  deps.live.close();
  return finished;
}
