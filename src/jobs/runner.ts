import { writeTransaction, type Db } from "../../db/client";
import type { Job } from "../../db/schema";
import { lanesOf, type Lane } from "./lanes";
import { claimJobs, freeDueJobs, giveLeaseBack, holdRunnerLease, recordFailure, recordSuccess, releaseRunnerLease, renewLeases } from "./rows";
import { DEFAULT_LANE, JOB_LEASE_MS, LANES, RUNNER_LEASE_MS, scheduleJob, settledWithin, UNHEALTHY_AFTER_FAILED_PASSES, type JobDeps, type JobKind, type ScheduleOptions } from "./index";
import { loggable, loggableMessage } from "../../db/faults";
import { troubleKind } from "../operations/startup";

/**
 * The job runner (src/jobs/index.ts says what jobs are): it takes due jobs lane by lane, each lane
 * within its places in this process, runs each attempt within its time limit, records how it
 * went (src/jobs/rows.ts), and, in the server, loops: holding the runner lease, setting the lanes
 * draining, keeping the leases of attempts that overran, and saying when it cannot work.
 */

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
  private readonly lanes: Lane[] = lanesOf(LANES);

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
    const due = await freeDueJobs(this.db, this.now(), keys, known);
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

  /** Takes up to `limit` due jobs of these kinds (all known ones by default), or with these ids, with a lease. */
  private claim(limit: number, which: { kinds?: string[]; ids?: string[] }): Promise<Job[]> {
    return claimJobs(this.db, this.now(), limit, { kinds: which.kinds ?? [...this.kinds.keys()], ids: which.ids, excluded: [...this.overrunning.keys()] });
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
        await (endedWell ? this.recordSuccess(job, kind) : giveLeaseBack(this.db, job));
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

  private recordSuccess(job: Job, kind: JobKind<never>) {
    return recordSuccess(this.db, this.now(), job, kind);
  }

  private recordFailure(job: Job, kind: JobKind<never>, message: string, keepLease: boolean) {
    return recordFailure(this.db, this.now(), job, kind, message, keepLease);
  }

  /**
   * Renews the leases of the attempts still running past their limit, so that no runner (of
   * this process or another) starts their jobs again while they run. A crash ends them, and
   * their leases then lapse as any.
   */
  private keepOverrunningLeases() {
    return renewLeases(this.db, [...this.overrunning.values()], this.now() + JOB_LEASE_MS);
  }

  private noteTrouble(err: unknown) {
    console.error(`job runner: ${loggable(err)}`);
    this.trouble ??= { error: err };
  }

  /**
   * Takes the runner lease if it is free or has lapsed, or renews it if this runner holds it, in
   * one statement (so two processes never both get it). True while this runner holds it.
   */
  holdLease(): Promise<boolean> {
    return holdRunnerLease(this.db, this.holder, this.now());
  }

  /** Gives the runner lease up, so another process takes over at once rather than when it lapses. */
  releaseLease() {
    return releaseRunnerLease(this.db, this.holder);
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
