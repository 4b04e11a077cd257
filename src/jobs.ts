import { and, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import { writeTransaction, type Db, type WriteTx } from "../db/client";
import { jobs, leases, type Job } from "../db/schema";
import { troubleKind } from "./lib/startup";

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
 * Several processes may serve one database (see the README): each claims jobs one by one, so no
 * job runs twice at once anyway, but only the holder of the runner lease (a row in `leases`)
 * looks for due jobs, so one process does the timed work and the others never contend for it.
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

export interface JobKind<Payload> {
  kind: string;
  run(payload: Payload, context: { deps: JobDeps; job: Job }): Promise<void> | void;
  /** A chore repeated every so many milliseconds, for as long as the app runs (one row, rescheduled). */
  every?: number;
  /** Attempts before the job gives up and stays as failed (default 8). */
  maxAttempts?: number;
}

export const defineJob = <Payload = Record<string, never>>(kind: JobKind<Payload>) => kind;

/** How long a claimed job is ours before another run may take it over (a crashed run). */
export const JOB_LEASE_MS = 5 * 60 * 1000;
const DEFAULT_MAX_ATTEMPTS = 8;

/** How long the runner lease lasts unless renewed; the loop renews it on every pass, well within. */
export const RUNNER_LEASE_MS = 30_000;
const RUNNER_LEASE = "jobs";

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

export class JobRunner {
  private kinds = new Map<string, JobKind<never>>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running: Promise<number> | null = null;
  /** The loop's pass under way, if any (`start`). */
  private pass: Promise<void> | null = null;
  private failedPasses = 0;
  private lastFailure: unknown = null;

  private readonly db: Db;
  private readonly now: () => number;
  /** This runner's identity in the runner lease. */
  readonly holder = crypto.randomUUID();

  constructor(private readonly deps: JobDeps) {
    this.db = deps.db;
    this.now = deps.now;
  }

  /**
   * Makes job kinds runnable, as the app is put together (so it writes nothing yet): recurring
   * chores get their one row, if they have none, before the next run (`runDue`).
   */
  register(...kinds: JobKind<never>[]) {
    for (const kind of kinds) {
      this.kinds.set(kind.kind, kind);
      if (kind.every) this.recurringToSchedule.push({ kind, at: this.now() + kind.every });
    }
  }

  private recurringToSchedule: { kind: JobKind<never>; at: number }[] = [];

  /** Gives each registered recurring chore its row, if it has none yet. */
  private async scheduleRecurring() {
    const chores = this.recurringToSchedule.splice(0);
    if (!chores.length) return;
    try {
      await writeTransaction(this.db, async (tx) => {
        for (const { kind, at } of chores) await scheduleJob(tx, kind, {} as never, { at, key: `every:${kind.kind}` });
      });
    } catch (err) {
      // Written at the next run instead: a chore without its row would never run.
      this.recurringToSchedule.unshift(...chores);
      throw err;
    }
  }

  async schedule<Payload>(kind: JobKind<Payload>, payload: Payload, options: ScheduleOptions) {
    if (!this.kinds.has(kind.kind)) throw new Error(`Job kind ${kind.kind} is not registered`);
    await writeTransaction(this.db, (tx) => scheduleJob(tx, kind, payload, options));
  }

  /** Runs every job that is due now (one batch after another); returns how many ran. */
  runDue(batch = 20): Promise<number> {
    // One pass at a time per process; a second caller waits for the pass under way.
    this.running ??= this.drain(batch).finally(() => (this.running = null));
    return this.running;
  }

  private async drain(batch: number) {
    await this.scheduleRecurring();
    let ran = 0;
    for (;;) {
      const claimed = await this.claim(batch);
      if (!claimed.length) return ran;
      for (const job of claimed) {
        await this.runOne(job);
        ran++;
      }
    }
  }

  /**
   * Runs the jobs with these keys now if they are due and nobody holds them: work that was made
   * durable first (so a crash does not lose it) and is wanted at once, such as a push
   * notification. A job another runner has claimed is left to it; a failure is retried as usual.
   */
  async runNow(keys: string[]): Promise<number> {
    if (!keys.length) return 0;
    const claimed = await this.claim(keys.length, keys);
    for (const job of claimed) await this.runOne(job);
    return claimed.length;
  }

  /**
   * Takes up to `limit` due jobs (only those with `keys`, when given) with a lease, in one
   * statement, so two runners never share one.
   */
  private async claim(limit: number, keys?: string[]): Promise<Job[]> {
    const now = this.now();
    const known = [...this.kinds.keys()];
    if (!known.length) return [];
    const due = this.db
      .select({ id: jobs.id })
      .from(jobs)
      .where(
        and(
          isNull(jobs.failedAt),
          lte(jobs.runAt, now),
          or(isNull(jobs.leaseUntil), lt(jobs.leaseUntil, now)),
          inArray(jobs.kind, known),
          keys ? inArray(jobs.key, keys) : undefined,
        ),
      )
      .orderBy(jobs.runAt)
      .limit(limit);
    const claimed = await writeTransaction(this.db, (tx) => tx
      .update(jobs)
      .set({ leaseUntil: now + JOB_LEASE_MS, attempts: sql`${jobs.attempts} + 1` })
      .where(and(inArray(jobs.id, due), or(isNull(jobs.leaseUntil), lt(jobs.leaseUntil, now))))
      .returning());
    // RETURNING promises no order (PostgreSQL's follows the table's pages): jobs run by their time,
    // then in the order asked for (a change's push notifications arrive as they were written).
    const asked = new Map(keys?.map((key, i) => [key, i]));
    return claimed.sort((a, b) => a.runAt - b.runAt || (asked.get(a.key ?? "") ?? 0) - (asked.get(b.key ?? "") ?? 0));
  }

  private async runOne(job: Job) {
    const kind = this.kinds.get(job.kind)!;
    try {
      await kind.run(job.payload as never, { deps: this.deps, job });
    } catch (err) {
      const maxAttempts = kind.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
      const message = err instanceof Error ? err.message : String(err);
      console.error(`job ${job.kind} (${job.id}) failed, attempt ${job.attempts}:`, err);
      const giveUp = !kind.every && job.attempts >= maxAttempts;
      await writeTransaction(this.db, (tx) => tx
        .update(jobs)
        .set({
          leaseUntil: null,
          lastError: message.slice(0, 2000),
          runAt: this.now() + (kind.every ? kind.every : retryDelay(job.attempts)),
          failedAt: giveUp ? this.now() : null,
        })
        .where(eq(jobs.id, job.id)));
      return;
    }
    const every = kind.every;
    if (every) {
      await writeTransaction(this.db, (tx) => tx.update(jobs).set({ leaseUntil: null, attempts: 0, lastError: null, runAt: this.now() + every }).where(eq(jobs.id, job.id)));
    } else {
      await writeTransaction(this.db, (tx) => tx.delete(jobs).where(eq(jobs.id, job.id)));
    }
  }

  /**
   * Takes the runner lease if it is free or has lapsed, or renews it if this runner holds it, in
   * one statement (so two processes never both get it). True while this runner holds it.
   */
  async holdLease(): Promise<boolean> {
    const now = this.now();
    const until = now + RUNNER_LEASE_MS;
    const held = await writeTransaction(this.db, (tx) => tx
      .insert(leases)
      .values({ name: RUNNER_LEASE, holder: this.holder, until })
      .onConflictDoUpdate({
        target: leases.name,
        set: { holder: this.holder, until },
        setWhere: or(eq(leases.holder, this.holder), lt(leases.until, now)),
      })
      .returning({ holder: leases.holder }));
    return held.length > 0;
  }

  /** Gives the runner lease up, so another process takes over at once rather than when it lapses. */
  async releaseLease() {
    await writeTransaction(this.db, (tx) => tx.delete(leases).where(and(eq(leases.name, RUNNER_LEASE), eq(leases.holder, this.holder))));
  }

  /**
   * The server's loop: every `intervalMs`, holds (or waits for) the runner lease and, while it
   * holds it, runs the due jobs. A process without the lease only keeps asking for it, so it
   * takes over within `RUNNER_LEASE_MS` of the holder stopping.
   *
   * A pass fails when the runner itself cannot work (the database is read-only, full, locked):
   * a job whose handler throws does not fail the pass, it is retried on its own and stays
   * visible as a failed job. After `UNHEALTHY_AFTER_FAILED_PASSES` failed passes in a row,
   * `health()` says so (and `/health` answers 503) until a pass succeeds.
   */
  start(intervalMs = 5_000) {
    let holding = false;
    const tick = () => {
      this.pass = Promise.resolve()
        .then(async () => {
          const held = await this.holdLease();
          if (held !== holding) console.log(held ? `This process (${process.pid}) runs the durable jobs.` : `Another process runs the durable jobs now.`);
          holding = held;
          return held ? this.runDue() : 0;
        })
        .then(
          () => this.passSucceeded(),
          (err) => this.passFailed(err),
        )
        .finally(() => {
          this.pass = null;
          if (this.timer) this.timer = setTimeout(tick, intervalMs);
        });
    };
    this.timer = setTimeout(tick, 0);
  }

  private passSucceeded() {
    if (this.failedPasses >= UNHEALTHY_AFTER_FAILED_PASSES) console.log(`The job runner works again after ${this.failedPasses} failed passes.`);
    this.failedPasses = 0;
    this.lastFailure = null;
  }

  private passFailed(err: unknown) {
    this.failedPasses++;
    this.lastFailure = err;
    console.error("job runner failed", err);
    if (this.failedPasses === UNHEALTHY_AFTER_FAILED_PASSES) console.error(`The job runner failed ${this.failedPasses} passes in a row: /health answers 503 until one succeeds.`);
  }

  /** Whether the loop works: not after `UNHEALTHY_AFTER_FAILED_PASSES` failed passes in a row. */
  health(): RunnerHealth {
    if (this.failedPasses < UNHEALTHY_AFTER_FAILED_PASSES) return { ok: true };
    return { ok: false, reason: `the job runner failed its last ${this.failedPasses} passes: ${troubleKind(this.lastFailure)}` };
  }

  /**
   * Stops the loop, waits for a pass under way to end (at most `waitMs`: a pass cut short is
   * finished by whoever runs the jobs next, since delivery is at least once), and hands the
   * runner lease over so that another process takes over at once.
   */
  async stop(waitMs = 10_000) {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    if (this.pass && !(await settledWithin(this.pass, waitMs))) console.error(`A job runner pass was still under way after ${waitMs} ms; its jobs run again once their lease lapses.`);
    try {
      await this.releaseLease();
    } catch (err) {
      console.error(`The runner lease could not be handed over; it lapses within ${RUNNER_LEASE_MS / 1000} s:`, err);
    }
  }
}

export type RunnerHealth = { ok: true } | { ok: false; reason: string };

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
