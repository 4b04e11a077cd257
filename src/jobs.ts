import { and, eq, inArray, isNull, lt, lte, notInArray, or, sql } from "drizzle-orm";
import { writeTransaction, type Db, type WriteTx } from "../db/client";
import { jobs, leases, type Job } from "../db/schema";
import { loggable, loggableMessage } from "./lib/faults";
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
 * Jobs run in lanes (docs/decisions/0045): money, email, outside calendars, push and the rest,
 * each bounded in how many of its attempts run at once, so work that waits on someone else's
 * server never holds up the release of a card hold. Every attempt has a time limit.
 *
 * Several processes may serve one database (see the README): each claims jobs with a lease, so
 * no job runs twice at once anyway, but only the holder of the runner lease (a row in `leases`)
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
const DEFAULT_MAX_ATTEMPTS = 8;
const DEFAULT_LANE: LaneName = "other";

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

/** A lane's places in this process: how many of its attempts may run at once, and who waits for one. */
class Places {
  private used = 0;
  private waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  /** Resolves once a place is ours; places are handed out in the order they were asked for. */
  take(): Promise<void> {
    if (!this.waiting.length && this.used < this.size) {
      this.used++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Takes up to `n` more places if they are free and nobody waits for one; answers how many. */
  takeFree(n: number): number {
    if (this.waiting.length) return 0;
    const taken = Math.max(0, Math.min(n, this.size - this.used));
    this.used += taken;
    return taken;
  }

  /** Gives `n` places back, each to whoever has waited longest, if anyone waits. */
  give(n = 1) {
    for (let i = 0; i < n; i++) {
      const next = this.waiting.shift();
      if (next) next();
      else this.used--;
    }
  }
}

interface Lane {
  name: LaneName;
  places: Places;
  /** The lane's drain under way, if any. */
  draining: Promise<number> | null;
  /** Wake a drain that waits for its attempts, so it looks for work that became due meanwhile. */
  wakers: Set<() => void>;
}

type Outcome = { ended: true; error?: undefined } | { ended: true; error: { cause: unknown } } | { ended: false };

/** How `work` went within `ms`: ended well, ended with an error, or not ended yet (it goes on). */
async function outcomeWithin(work: Promise<void>, ms: number): Promise<Outcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<Outcome>((resolve) => (timer = setTimeout(() => resolve({ ended: false }), ms)));
  try {
    return await Promise.race([work.then((): Outcome => ({ ended: true }), (cause: unknown): Outcome => ({ ended: true, error: { cause } })), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** How many jobs one claim takes at most (a lane's free places bound it first). */
const CLAIM_BATCH = 20;

export class JobRunner {
  private kinds = new Map<string, JobKind<never>>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** The loop's pass under way, if any (`start`). */
  private pass: Promise<void> | null = null;
  private failedPasses = 0;
  private lastFailure: unknown = null;
  /** The runner's own work that failed between passes (a claim or a record not written): the next pass fails with it. */
  private trouble: { error: unknown } | null = null;
  /** Set by `stop`: the lanes take no more jobs. */
  private stopping = false;
  /** Set while the loop runs without the runner lease: another process looks for due jobs. */
  private leaseLost = false;
  /** `runNow`'s work under way (its claim, then its attempt): `stop` waits for it as for the lanes'. */
  private runningNow = new Set<Promise<boolean>>();
  /** Attempts of this process past their limit and not ended yet, by job id: they keep their jobs' leases. */
  private overrunning = new Map<string, Job>();
  private readonly lanes: Lane[] = (Object.keys(LANES) as LaneName[]).map((name) => ({ name, places: new Places(LANES[name].concurrency), draining: null, wakers: new Set() }));

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
   * chores get their one row, if they have none, before the next run (`runDue`). Refuses a kind
   * whose time limit would outlast its lease: another run could then take the job over while
   * this one still runs it.
   */
  register(...kinds: JobKind<never>[]) {
    for (const kind of kinds) {
      const limit = this.limitOf(kind);
      if (!(limit > 0 && limit < JOB_LEASE_MS)) throw new Error(`Job kind ${kind.kind}: its time limit (${limit} ms) must be under its lease (${JOB_LEASE_MS} ms)`);
      this.kinds.set(kind.kind, kind);
      if (kind.every) this.recurringToSchedule.push({ kind, at: this.now() + kind.every });
    }
  }

  private limitOf(kind: JobKind<never>) {
    return kind.timeLimitMs ?? LANES[kind.lane ?? DEFAULT_LANE].timeLimitMs;
  }

  private laneOf(kind: string): Lane {
    const name = this.kinds.get(kind)?.lane ?? DEFAULT_LANE;
    return this.lanes.find((lane) => lane.name === name)!;
  }

  private kindsIn(lane: Lane) {
    return [...this.kinds.values()].filter((kind) => (kind.lane ?? DEFAULT_LANE) === lane.name).map((kind) => kind.kind);
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

  /**
   * Runs every job that is due now, in every lane at once, and waits for them all; returns how
   * many ran. A lane already draining (the loop's, another caller's) is waited for, not doubled.
   */
  async runDue(batch = CLAIM_BATCH): Promise<number> {
    await this.scheduleRecurring();
    const ran = await Promise.all(this.lanes.map((lane) => this.drainLane(lane, batch)));
    return ran.reduce((sum, n) => sum + n, 0);
  }

  private drainLane(lane: Lane, batch: number): Promise<number> {
    lane.draining ??= this.drain(lane, batch).finally(() => (lane.draining = null));
    return lane.draining;
  }

  /** Whether the lanes may take more jobs: not once stopping, nor while the loop is without the runner lease. */
  private mayTakeJobs() {
    return !this.stopping && !this.leaseLost;
  }

  /**
   * Takes the lane's due jobs, oldest first, as its places free up, until none is due and none of
   * its attempts runs. Rejects when the runner itself cannot work (a claim or a record that
   * cannot be written), once its attempts under way have ended.
   */
  private async drain(lane: Lane, batch: number): Promise<number> {
    let ran = 0;
    const attempts = new Set<Promise<void>>();
    /** What the runner could not write about an attempt: the drain stops and rejects with it. */
    const failures: unknown[] = [];
    try {
      while (this.mayTakeJobs() && !failures.length) {
        // One place, waiting for it while the lane is full; then as many more as are free.
        await lane.places.take();
        const places = 1 + lane.places.takeFree(Math.max(batch, 1) - 1);
        let claimed: Job[] = [];
        try {
          if (this.mayTakeJobs()) claimed = await this.claim(places, { kinds: this.kindsIn(lane) });
        } finally {
          lane.places.give(places - claimed.length);
        }
        for (const job of claimed) {
          const attempt: Promise<void> = this.attempt(job)
            .catch((error: unknown) => void failures.push(error))
            .finally(() => {
              ran++;
              attempts.delete(attempt);
              lane.places.give();
            });
          attempts.add(attempt);
        }
        if (claimed.length === places) continue;
        // Nothing more is due now: look again once an attempt ends or the loop passes.
        if (!attempts.size) break;
        let wake = () => {};
        const woken = new Promise<void>((resolve) => (wake = resolve));
        lane.wakers.add(wake);
        await Promise.race([...attempts, woken]);
        lane.wakers.delete(wake);
      }
    } finally {
      await Promise.allSettled(attempts);
    }
    if (failures.length) throw failures[0];
    return ran;
  }

  /**
   * Runs the jobs with these keys now if they are due and nobody holds them: work that was made
   * durable first (so a crash does not lose it) and is wanted at once, such as a push
   * notification. They run one after another (by due time, then in the order asked), each in a
   * place of its lane, waiting for one while the lane is full. A job another runner has claimed
   * is left to it; a failure is retried as usual. Once the runner is stopping, no more are
   * claimed (one claimed then would be cut at the exit and held for its lease): they are left for
   * whoever runs the jobs next. A process without the runner lease still runs its own: their
   * claims are leased like any, and the work was asked for at once.
   */
  async runNow(keys: string[]): Promise<number> {
    const known = [...this.kinds.keys()];
    if (!keys.length || !known.length) return 0;
    const now = this.now();
    const due = await this.db
      .select({ id: jobs.id, kind: jobs.kind, key: jobs.key, runAt: jobs.runAt })
      .from(jobs)
      .where(and(inArray(jobs.key, keys), inArray(jobs.kind, known), isNull(jobs.failedAt), lte(jobs.runAt, now), or(isNull(jobs.leaseUntil), lt(jobs.leaseUntil, now))));
    const asked = new Map(keys.map((key, i) => [key, i]));
    due.sort((a, b) => a.runAt - b.runAt || (asked.get(a.key ?? "") ?? 0) - (asked.get(b.key ?? "") ?? 0));
    let ran = 0;
    for (const { id, kind } of due) {
      const lane = this.laneOf(kind);
      await lane.places.take();
      try {
        // Claimed only once a place is ours (a job waiting for a place holds no lease), and not
        // once stopping. Known to `stop` from this check on, in the same step.
        if (this.stopping) break;
        const work = (async () => {
          const [job] = await this.claim(1, { ids: [id] });
          if (!job) return false;
          await this.attempt(job);
          return true;
        })();
        this.runningNow.add(work);
        try {
          if (await work) ran++;
        } finally {
          this.runningNow.delete(work);
        }
      } finally {
        lane.places.give();
      }
    }
    return ran;
  }

  /**
   * Takes up to `limit` due jobs (of these kinds, or with these ids) with a lease, in one
   * statement, so two runners never share one.
   */
  private async claim(limit: number, which: { kinds?: string[]; ids?: string[] }): Promise<Job[]> {
    const now = this.now();
    const known = which.kinds ?? [...this.kinds.keys()];
    if (!known.length || limit < 1) return [];
    const due = this.db
      .select({ id: jobs.id })
      .from(jobs)
      .where(
        and(
          isNull(jobs.failedAt),
          lte(jobs.runAt, now),
          or(isNull(jobs.leaseUntil), lt(jobs.leaseUntil, now)),
          inArray(jobs.kind, known),
          which.ids ? inArray(jobs.id, which.ids) : undefined,
          // An attempt of ours still running past its limit keeps its job, even in the moment
          // between its lease lapsing and the loop renewing it (a process paused that long).
          this.overrunning.size ? notInArray(jobs.id, [...this.overrunning.keys()]) : undefined,
        ),
      )
      .orderBy(jobs.runAt)
      .limit(limit);
    const claimed = await writeTransaction(this.db, (tx) => tx
      .update(jobs)
      .set({ leaseUntil: now + JOB_LEASE_MS, attempts: sql`${jobs.attempts} + 1` })
      .where(and(inArray(jobs.id, due), or(isNull(jobs.leaseUntil), lt(jobs.leaseUntil, now))))
      .returning());
    // RETURNING promises no order (PostgreSQL's follows the table's pages): jobs start by their time.
    return claimed.sort((a, b) => a.runAt - b.runAt);
  }

  /** The row is still this attempt's: nobody has claimed the job again since (after its lease lapsed). */
  private ours(job: Job) {
    return and(eq(jobs.id, job.id), eq(jobs.attempts, job.attempts));
  }

  /**
   * Runs one claimed job within its time limit and records how it went. Resolves once the attempt
   * has ended or its limit has passed, whichever is first, so a lane's place is never held
   * longer. Rejects only when the record cannot be written.
   */
  private async attempt(job: Job): Promise<void> {
    const kind = this.kinds.get(job.kind)!;
    const limitMs = this.limitOf(kind);
    const abort = new AbortController();
    const run = (async () => kind.run(job.payload as never, { deps: this.deps, job, signal: abort.signal }))();
    const outcome = await outcomeWithin(run, limitMs);
    if (!outcome.ended) {
      const message = `took longer than its limit of ${limitMs / 1000} s`;
      abort.abort(new Error(`job ${job.kind} ${message}`));
      console.error(`job ${job.kind} (${job.id}) ${message}, attempt ${job.attempts}`);
      // It may go on (a call that cannot be cut short): the job keeps its lease, renewed by the
      // loop, until the attempt has ended, so it is not started again meanwhile. Ending well, it
      // did the work after all.
      this.overrunning.set(job.id, job);
      const recorded = this.recordFailure(job, kind, message, true);
      void (async () => {
        const endedWell = await run.then(() => true, () => false);
        this.overrunning.delete(job.id);
        // After the failure is written (whose trouble is the caller's), never before it.
        await recorded.catch(() => {});
        await (endedWell ? this.recordSuccess(job, kind) : this.giveLeaseBack(job));
      })().catch((err: unknown) => this.noteTrouble(err));
      await recorded;
      return;
    }
    if (outcome.error) {
      const err = outcome.error.cause;
      console.error(`job ${job.kind} (${job.id}) failed, attempt ${job.attempts}: ${loggable(err)}`);
      await this.recordFailure(job, kind, loggableMessage(err), false);
      return;
    }
    await this.recordSuccess(job, kind);
  }

  private async recordSuccess(job: Job, kind: JobKind<never>) {
    const every = kind.every;
    if (every) {
      await writeTransaction(this.db, (tx) => tx.update(jobs).set({ leaseUntil: null, attempts: 0, lastError: null, failedAt: null, runAt: this.now() + every }).where(this.ours(job)));
    } else {
      await writeTransaction(this.db, (tx) => tx.delete(jobs).where(this.ours(job)));
    }
  }

  /**
   * A failed attempt: retried after the back-off (a chore at its next time), or kept as failed
   * after the last attempt. The lease is kept while the attempt still runs (`keepLease`).
   */
  private async recordFailure(job: Job, kind: JobKind<never>, message: string, keepLease: boolean) {
    const maxAttempts = kind.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    const giveUp = !kind.every && job.attempts >= maxAttempts;
    await writeTransaction(this.db, (tx) => tx
      .update(jobs)
      .set({
        ...(keepLease ? {} : { leaseUntil: null }),
        lastError: message.slice(0, 2000),
        runAt: this.now() + (kind.every ? kind.every : retryDelay(job.attempts)),
        failedAt: giveUp ? this.now() : null,
      })
      .where(this.ours(job)));
  }

  /**
   * Renews the leases of the attempts still running past their limit, so that no runner (of
   * this process or another) starts their jobs again while they run. A crash ends them, and
   * their leases then lapse as any.
   */
  private async keepOverrunningLeases() {
    const overrunning = [...this.overrunning.values()];
    if (!overrunning.length) return;
    const until = this.now() + JOB_LEASE_MS;
    await writeTransaction(this.db, async (tx) => {
      for (const job of overrunning) await tx.update(jobs).set({ leaseUntil: until }).where(this.ours(job));
    });
  }

  /** An attempt cut at its limit has ended (failing): its job may be taken again once its retry is due. */
  private async giveLeaseBack(job: Job) {
    await writeTransaction(this.db, (tx) => tx.update(jobs).set({ leaseUntil: null }).where(this.ours(job)));
  }

  private noteTrouble(err: unknown) {
    console.error(`job runner: ${loggable(err)}`);
    this.trouble ??= { error: err };
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
   * holds it, sets every idle lane draining its due jobs, money first, and wakes the busy ones
   * to look again. A pass waits for no job: a lane stuck on a mail server must keep neither the
   * lease from being renewed (another process would take the jobs over) nor the money lane from
   * being looked at. A process without the lease only keeps asking for it, so it takes over
   * within `RUNNER_LEASE_MS` of the holder stopping.
   *
   * A pass fails when the runner itself cannot work (the database is read-only, full, locked),
   * there or in its lanes since the pass before: a job whose handler throws or overruns its
   * limit does not fail the pass, it is retried on its own and stays visible as a failed job.
   * After `UNHEALTHY_AFTER_FAILED_PASSES` failed passes in a row, `health()` says so (and
   * `/health` answers 503) until a pass succeeds.
   */
  start(intervalMs = 5_000) {
    this.stopping = false;
    let holding = false;
    const tick = () => {
      this.pass = Promise.resolve()
        .then(async () => {
          await this.keepOverrunningLeases();
          const held = await this.holdLease();
          if (held !== holding) console.log(held ? `This process (${process.pid}) runs the durable jobs.` : `Another process runs the durable jobs now.`);
          holding = held;
          this.leaseLost = !held;
          if (held) {
            await this.scheduleRecurring();
            for (const lane of this.lanes) {
              for (const wake of lane.wakers) wake();
              if (!lane.draining) void this.drainLane(lane, CLAIM_BATCH).catch((err: unknown) => this.noteTrouble(err));
            }
          }
          const trouble = this.trouble;
          this.trouble = null;
          if (trouble) throw trouble.error;
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
    console.error(`job runner failed: ${loggable(err)}`);
    if (this.failedPasses === UNHEALTHY_AFTER_FAILED_PASSES) console.error(`The job runner failed ${this.failedPasses} passes in a row: /health answers 503 until one succeeds.`);
  }

  /** Whether the loop works: not after `UNHEALTHY_AFTER_FAILED_PASSES` failed passes in a row. */
  health(): RunnerHealth {
    if (this.failedPasses < UNHEALTHY_AFTER_FAILED_PASSES) return { ok: true };
    return { ok: false, reason: `the job runner failed its last ${this.failedPasses} passes: ${troubleKind(this.lastFailure)}` };
  }

  /**
   * Stops the loop: the lanes and `runNow` take no more jobs, and the pass and the attempts under
   * way (the lanes' and `runNow`'s) are waited for (at most `waitMs`: an attempt cut short is run
   * again by whoever runs the jobs next, since delivery is at least once). Then the runner lease
   * is handed over so that another process takes over at once.
   */
  async stop(waitMs = 10_000) {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.stopping = true;
    for (const lane of this.lanes) for (const wake of lane.wakers) wake();
    const underWay = [this.pass, ...this.lanes.map((lane) => lane.draining), ...this.runningNow].filter((work) => work !== null);
    if (underWay.length && !(await settledWithin(Promise.allSettled(underWay), waitMs))) console.error(`Jobs were still under way after ${waitMs} ms; they run again once their lease lapses.`);
    try {
      await this.releaseLease();
    } catch (err) {
      console.error(`The runner lease could not be handed over; it lapses within ${RUNNER_LEASE_MS / 1000} s: ${loggable(err)}`);
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
