import { and, eq, isNull } from "drizzle-orm";
import type { Db, WriteTx } from "../../db/client";
import { jobs, type Job } from "../../db/schema";

/**
 * Durable jobs: timed work that survives restarts. A job is a row in `jobs`; the runner claims
 * due rows with a lease, runs their handler, and deletes them when done. Delivery is at least
 * once (a crash after the work but before the delete runs it again), so every handler must be
 * idempotent: check the state it is about to change, and use idempotency keys for outside calls.
 *
 * Each feature declares its job kinds next to its rules with `defineJob` and registers them from
 * its `index.ts` plugin (`deps.jobs.register(...)`); the server starts the runner, tests call
 * `runDue()` with the injected clock.
 *
 * Jobs run in lanes (docs/decisions/0045): money, email, outside calendars, push and the rest,
 * each bounded in how many of its attempts run at once, so work that waits on someone else's
 * server never holds up the release of a card hold. Every attempt has a time limit.
 *
 * Several processes may serve one database (see the README): each claims jobs with a lease, so
 * no job runs twice at once anyway, but only the holder of the runner lease (a row in `leases`)
 * looks for due jobs, so one process does the timed work and the others never contend for it.
 *
 * This module is what features use: the job kinds, the lanes, scheduling and cancelling. The
 * runner is src/jobs/runner.ts, with its lanes' places (src/jobs/lanes.ts) and its statements on
 * the `jobs` and `leases` rows (src/jobs/rows.ts).
 */

/**
 * What a job's handler receives as `deps`: the app's dependencies (src/deps.ts fills this in by
 * extending it), of which the runner itself reads only the database and the clock. Declared here
 * so this module needs nothing of the app's.
 */
export interface JobDeps {
  db: Db;
  now: () => number;
}

const MINUTE = 60 * 1000;

/**
 * The lanes, in the order the runner looks at them: money first. `concurrency` is how many of a
 * lane's attempts run at once in one process; `timeLimitMs` how long one attempt may take, unless
 * its kind says otherwise. A lane whose work is stuck (a mail server that never answers) fills
 * its own places and no other lane's.
 */
export const LANES = {
  /**
   * Card holds, captures, payouts, claims' recovery, reconciliation. A provider movement lasts at
   * most about two minutes (two requests of three 20-second tries, docs/decisions/0028).
   */
  money: { concurrency: 4, timeLimitMs: 3 * MINUTE },
  /** Sending email: as many at once as the SMTP pool has connections (src/email/mailer.ts). */
  email: { concurrency: 2, timeLimitMs: 90_000 },
  /** Reading hosts' outside calendars. */
  calendar: { concurrency: 2, timeLimitMs: MINUTE },
  /** Push notifications, each to a browser's push service. */
  push: { concurrency: 4, timeLimitMs: MINUTE },
  /** Everything else: cleanup chores, reviews published, reminders. */
  other: { concurrency: 2, timeLimitMs: 3 * MINUTE },
} as const satisfies Record<string, { concurrency: number; timeLimitMs: number }>;

export type LaneName = keyof typeof LANES;

export interface JobKind<Payload> {
  kind: string;
  /**
   * `signal` (the runner always gives one) is aborted when the attempt passes its time limit: a
   * handler that hands it to its outside calls stops then; one that does not is counted as
   * failed all the same.
   */
  run(payload: Payload, context: { deps: JobDeps; job: Job; signal?: AbortSignal }): Promise<void> | void;
  /** A chore repeated every so many milliseconds, for as long as the app runs (one row, rescheduled). */
  every?: number;
  /** Attempts before the job gives up and stays as failed (default 8). */
  maxAttempts?: number;
  /** The lane its attempts run in (default `other`). */
  lane?: LaneName;
  /** How long one attempt may take (default: its lane's); less than `JOB_LEASE_MS`. */
  timeLimitMs?: number;
}

export const defineJob = <Payload = Record<string, never>>(kind: JobKind<Payload>) => kind;

/**
 * How long a claimed job is ours before another run may take it over (a crashed run). Every
 * attempt's time limit is shorter, so a live attempt always holds its job.
 */
export const JOB_LEASE_MS = 5 * MINUTE;
/** Attempts before a job gives up, unless its kind says otherwise. */
export const DEFAULT_MAX_ATTEMPTS = 8;
/** The lane of a kind that names none. */
export const DEFAULT_LANE: LaneName = "other";

/** How long the runner lease lasts unless renewed; the loop renews it on every pass, well within. */
export const RUNNER_LEASE_MS = 30_000;

/** Waits 30 s, 1 min, 2 min ... up to an hour between attempts. */
export const retryDelay = (attempts: number) => Math.min(30_000 * 2 ** Math.max(attempts - 1, 0), 60 * 60 * 1000);

export interface ScheduleOptions {
  /** When the job is due (epoch ms). */
  at: number;
  /** The job's identity: scheduling a key that is already waiting changes nothing. */
  key?: string;
}

/**
 * Adds a job, inside the transaction of the state change that needs it (a booking and its
 * expiry are written together).
 */
export async function scheduleJob<Payload>(tx: WriteTx, kind: JobKind<Payload>, payload: Payload, options: ScheduleOptions) {
  await tx
    .insert(jobs)
    .values({ id: crypto.randomUUID(), kind: kind.kind, key: options.key ?? null, payload, runAt: options.at })
    .onConflictDoNothing({ target: jobs.key });
}

/** Removes a waiting job by its key (the work it would do is no longer needed), inside a transaction. */
export async function cancelJob(tx: WriteTx, key: string) {
  await tx.delete(jobs).where(and(eq(jobs.key, key), isNull(jobs.leaseUntil)));
}

/** Failed passes in a row after which the runner says it is unhealthy (about 10 s at the server's pace). */
export const UNHEALTHY_AFTER_FAILED_PASSES = 3;

/** Resolves true once `work` has settled, or false after `ms` if it has not (it goes on). */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(ms, 0))));
  try {
    return await Promise.race([work.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
