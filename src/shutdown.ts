import type { Server } from "bun";
import type { Deps } from "./deps";
import { settledWithin } from "./jobs";

/**
 * How long a stop waits in all for requests under way, the work that follows their commits and
 * a job pass: under the 10 s Docker (and most process managers) give after SIGTERM before they
 * kill, so the lease is handed over and the process exits by itself.
 */
export const SHUTDOWN_GRACE_MS = 8_000;

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
