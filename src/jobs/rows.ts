import { and, eq, inArray, isNull, lt, lte, notInArray, or, sql } from "drizzle-orm";
import { writeTransaction, type Db } from "../../db/client";
import { jobs, leases, type Job } from "../../db/schema";
import { DEFAULT_MAX_ATTEMPTS, JOB_LEASE_MS, retryDelay, RUNNER_LEASE_MS, type JobKind } from "./index";

/**
 * The job runner's statements (src/jobs/runner.ts): claiming due jobs with a lease, recording how
 * an attempt went, keeping and giving back leases, and the runner lease that says which process
 * looks for due jobs. Each is one statement in one write transaction, so two runners, in this
 * process or another, never share a job or the runner lease.
 */

const RUNNER_LEASE = "jobs";

export interface ClaimFilter {
  /** Only jobs of these kinds (the runner's known kinds, or one lane's). */
  kinds: string[];
  /** Only jobs with these ids. */
  ids?: string[];
  /** Never these jobs: attempts of ours still running past their limit keep them. */
  excluded?: string[];
}

/**
 * Takes up to `limit` due jobs (of these kinds, or with these ids) with a lease, in one
 * statement, so two runners never share one. The jobs come by their due time.
 */
export async function claimJobs(db: Db, now: number, limit: number, which: ClaimFilter): Promise<Job[]> {
  if (!which.kinds.length || limit < 1) return [];
  const due = db
    .select({ id: jobs.id })
    .from(jobs)
    .where(
      and(
        isNull(jobs.failedAt),
        lte(jobs.runAt, now),
        or(isNull(jobs.leaseUntil), lt(jobs.leaseUntil, now)),
        inArray(jobs.kind, which.kinds),
        which.ids ? inArray(jobs.id, which.ids) : undefined,
        // An attempt of ours still running past its limit keeps its job, even in the moment
        // between its lease lapsing and the loop renewing it (a process paused that long).
        which.excluded?.length ? notInArray(jobs.id, which.excluded) : undefined,
      ),
    )
    .orderBy(jobs.runAt)
    .limit(limit);
  const claimed = await writeTransaction(
    db,
    (tx) => tx
      .update(jobs)
      .set({ leaseUntil: now + JOB_LEASE_MS, attempts: sql`${jobs.attempts} + 1` })
      .where(and(inArray(jobs.id, due), or(isNull(jobs.leaseUntil), lt(jobs.leaseUntil, now))))
      .returning(),
    { keptReadsStay: true },
  );
  // RETURNING promises no order (PostgreSQL's follows the table's pages): jobs start by their time.
  return claimed.sort((a, b) => a.runAt - b.runAt);
}

/**
 * The jobs with these keys (of these kinds) that are due and that nobody holds, by due time, then
 * in the order the keys were asked in. Not claimed: `claimJobs` takes each when it may run.
 */
export async function freeDueJobs(db: Db, now: number, keys: string[], kinds: string[]) {
  const due = await db
    .select({ id: jobs.id, kind: jobs.kind, key: jobs.key, runAt: jobs.runAt })
    .from(jobs)
    .where(and(inArray(jobs.key, keys), inArray(jobs.kind, kinds), isNull(jobs.failedAt), lte(jobs.runAt, now), or(isNull(jobs.leaseUntil), lt(jobs.leaseUntil, now))));
  const asked = new Map(keys.map((key, i) => [key, i]));
  return due.sort((a, b) => a.runAt - b.runAt || (asked.get(a.key ?? "") ?? 0) - (asked.get(b.key ?? "") ?? 0));
}

/** The row is still this attempt's: nobody has claimed the job again since (after its lease lapsed). */
const ours = (job: Job) => and(eq(jobs.id, job.id), eq(jobs.attempts, job.attempts));

/** A successful attempt: the job is done (deleted), or a chore waits for its next time. */
export async function recordSuccess(db: Db, now: number, job: Job, kind: JobKind<never>) {
  const every = kind.every;
  if (every) {
    await writeTransaction(db, (tx) => tx.update(jobs).set({ leaseUntil: null, attempts: 0, lastError: null, failedAt: null, runAt: now + every }).where(ours(job)));
  } else {
    await writeTransaction(db, (tx) => tx.delete(jobs).where(ours(job)));
  }
}

/**
 * A failed attempt: retried after the back-off (a chore at its next time), or kept as failed
 * after the last attempt. The lease is kept while the attempt still runs (`keepLease`).
 */
export async function recordFailure(db: Db, now: number, job: Job, kind: JobKind<never>, message: string, keepLease: boolean) {
  const maxAttempts = kind.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const giveUp = !kind.every && job.attempts >= maxAttempts;
  await writeTransaction(db, (tx) => tx
    .update(jobs)
    .set({
      ...(keepLease ? {} : { leaseUntil: null }),
      lastError: message.slice(0, 2000),
      runAt: now + (kind.every ? kind.every : retryDelay(job.attempts)),
      failedAt: giveUp ? now : null,
    })
    .where(ours(job)));
}

/** Renews these attempts' leases until `until`, so that no runner starts their jobs again meanwhile. */
export async function renewLeases(db: Db, held: readonly Job[], until: number) {
  if (!held.length) return;
  await writeTransaction(
    db,
    async (tx) => {
      for (const job of held) await tx.update(jobs).set({ leaseUntil: until }).where(ours(job));
    },
    { keptReadsStay: true },
  );
}

/** An attempt cut at its limit has ended (failing): its job may be taken again once its retry is due. */
export async function giveLeaseBack(db: Db, job: Job) {
  await writeTransaction(db, (tx) => tx.update(jobs).set({ leaseUntil: null }).where(ours(job)));
}

/**
 * Takes the runner lease if it is free or has lapsed, or renews it if `holder` holds it, in one
 * statement (so two processes never both get it). True while `holder` holds it.
 */
export async function holdRunnerLease(db: Db, holder: string, now: number): Promise<boolean> {
  const until = now + RUNNER_LEASE_MS;
  const held = await writeTransaction(
    db,
    (tx) => tx
      .insert(leases)
      .values({ name: RUNNER_LEASE, holder, until })
      .onConflictDoUpdate({
        target: leases.name,
        set: { holder, until },
        setWhere: or(eq(leases.holder, holder), lt(leases.until, now)),
      })
      .returning({ holder: leases.holder }),
    { keptReadsStay: true },
  );
  return held.length > 0;
}

/** Gives the runner lease up, if `holder` holds it. */
export async function releaseRunnerLease(db: Db, holder: string) {
  await writeTransaction(db, (tx) => tx.delete(leases).where(and(eq(leases.name, RUNNER_LEASE), eq(leases.holder, holder))));
}
