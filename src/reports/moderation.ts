import { and, count, desc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { uuidLike } from "../../lib/validation";
import { alias } from "drizzle-orm/sqlite-core";
import { writeTransaction, type WriteTx, one } from "../../db/client";
import { activities, reports, sessions, users, type ReportReason, type ReportResolution, type User } from "../../db/schema";
import { endBookingsOfSuspended } from "../bookings/transitions";
import type { Deps } from "../deps";
import { defineJob, scheduleJob } from "../jobs";
import { DomainError } from "../../lib/domain-error";
import { loggable } from "../../db/faults";

/**
 * Moderation (docs/decisions/0024): operators are the people whose email is in `ADMIN_EMAILS`,
 * once that address is verified (docs/decisions/0034): signing up with a listed address gives
 * nothing until its mailbox confirms it. They read pending reports and dismiss them, hide the
 * activity, or suspend the person; every action resolves the report with who did it and when.
 */
export function isOperator(deps: Pick<Deps, "config">, user: Pick<User, "email" | "emailVerified"> | null): boolean {
  return !!user?.emailVerified && listedOperator(deps, user);
}

/** A listed address that is not verified yet: told to verify it, rather than shown a 404. */
export function awaitsOperatorVerification(deps: Pick<Deps, "config">, user: Pick<User, "email" | "emailVerified"> | null): boolean {
  return !!user && !user.emailVerified && listedOperator(deps, user);
}

function listedOperator(deps: Pick<Deps, "config">, user: Pick<User, "email">): boolean {
  const email = user.email?.trim().toLowerCase();
  return !!email && deps.config.adminEmails.includes(email);
}

/** A person as the operator sees them: enough to recognise and reach them. */
export interface ModeratedPerson {
  id: string;
  name: string | null;
  username: string | null;
  email: string | null;
  suspended: boolean;
}

export interface PendingReport {
  id: string;
  reason: ReportReason;
  notes: string | null;
  createdAt: number;
  reporter: ModeratedPerson;
  /** The person reported, or the activity's host. */
  person: ModeratedPerson | null;
  activity: { id: string; title: string; hidden: boolean } | null;
  /** Reports about the same target: still open, and in all. */
  counts: { pending: number; total: number };
}

export interface HandledReport {
  id: string;
  reason: ReportReason;
  resolution: ReportResolution;
  reviewedAt: number;
  operator: string;
  target: string;
}

const reporter = alias(users, "reporter");
const reported = alias(users, "reported");
const operator = alias(users, "operator");

const personOf = (u: { id: string; name: string | null; username: string | null; email: string | null; suspendedAt: number | null } | null): ModeratedPerson | null =>
  u ? { id: u.id, name: u.name, username: u.username, email: u.email, suspended: u.suspendedAt !== null } : null;


/** Pending reports, newest first, with their target and context. */
export async function pendingReports(deps: Deps, limit = 100): Promise<PendingReport[]> {
  const rows = await deps.db
    .select({
      report: reports,
      reporter: { id: reporter.id, name: reporter.name, username: reporter.username, email: reporter.email, suspendedAt: reporter.suspendedAt },
      person: { id: reported.id, name: reported.name, username: reported.username, email: reported.email, suspendedAt: reported.suspendedAt },
      activity: { id: activities.id, title: activities.title, hiddenAt: activities.hiddenAt },
    })
    .from(reports)
    .innerJoin(reporter, eq(reporter.id, reports.reporterId))
    .leftJoin(activities, eq(activities.id, reports.targetActivityId))
    // The person reported, or else the host of the activity reported.
    .leftJoin(reported, eq(reported.id, sql`coalesce(${reports.targetUserId}, ${activities.hostId})`))
    .where(eq(reports.status, "pending"))
    .orderBy(desc(reports.createdAt), desc(reports.id))
    .limit(limit);
  const countsOf = async (column: typeof reports.targetUserId | typeof reports.targetActivityId, ids: string[]) => {
    if (!ids.length) return new Map<string, { pending: number; total: number }>();
    const counted = await deps.db
      .select({ id: column, total: count(), pending: sql<number>`sum(CASE WHEN ${reports.status} = 'pending' THEN 1 ELSE 0 END)`.mapWith(Number) })
      .from(reports)
      .where(inArray(column, ids))
      .groupBy(column);
    return new Map(counted.map((c) => [c.id!, { pending: Number(c.pending), total: c.total }]));
  };
  const byUser = await countsOf(reports.targetUserId, rows.flatMap((r) => (r.report.targetUserId ? [r.report.targetUserId] : [])));
  const byActivity = await countsOf(reports.targetActivityId, rows.flatMap((r) => (r.report.targetActivityId ? [r.report.targetActivityId] : [])));
  return rows.map(({ report, reporter: by, person, activity }) => ({
    id: report.id,
    reason: report.reason,
    notes: report.notes,
    createdAt: report.createdAt,
    reporter: personOf(by)!,
    person: personOf(person),
    activity: activity ? { id: activity.id, title: activity.title, hidden: activity.hiddenAt !== null } : null,
    counts: (report.targetUserId ? byUser.get(report.targetUserId) : byActivity.get(report.targetActivityId ?? "")) ?? { pending: 1, total: 1 },
  }));
}

/** The reports handled last, newest first: what was done, by whom, when. */
export async function handledReports(deps: Deps, limit = 20): Promise<HandledReport[]> {
  return (await deps.db
    .select({ report: reports, operator: { name: operator.name, email: operator.email }, activityTitle: activities.title, personName: reported.name })
    .from(reports)
    .leftJoin(operator, eq(operator.id, reports.reviewedBy))
    .leftJoin(activities, eq(activities.id, reports.targetActivityId))
    .leftJoin(reported, eq(reported.id, reports.targetUserId))
    .where(eq(reports.status, "resolved"))
    .orderBy(desc(reports.reviewedAt))
    .limit(limit))
    .map((r) => ({
      id: r.report.id,
      reason: r.report.reason,
      resolution: r.report.resolution!,
      reviewedAt: r.report.reviewedAt!,
      operator: r.operator?.name || r.operator?.email || "",
      target: r.activityTitle ?? r.personName ?? "",
    }));
}

export type ModerationAction = "dismiss" | "hide" | "suspend";

/** Resolves pending reports matching `which` as `resolution`, by the operator, now. */
async function resolve(tx: WriteTx, which: ReturnType<typeof and>, resolution: ReportResolution, operatorId: string, now: number) {
  return await tx
    .update(reports)
    .set({ status: "resolved", resolution, reviewedBy: operatorId, reviewedAt: now })
    .where(and(eq(reports.status, "pending"), which))
    .returning({ id: reports.id });
}

/**
 * An operator acts on a pending report:
 * - dismiss: the report is resolved, nothing else changes;
 * - hide: the activity reported leaves browse and its page (`hidden_at`), and every open report
 *   about it is resolved;
 * - suspend: the person reported (or the activity's host) can no longer sign in, their sessions
 *   end, their activities are hidden, every open report about them or their activities is
 *   resolved, and their open bookings are released through the booking rules (a durable job,
 *   also run at once).
 * Each resolved report records the operator and the time.
 */
export async function moderate(deps: Deps, operatorUser: User, reportId: string, action: ModerationAction): Promise<void> {
  const report = uuidLike(reportId) ? await one(deps.db.select().from(reports).where(eq(reports.id, reportId))) : undefined;
  if (!report) throw new DomainError("moderation.reportNotFound", 404);
  if (report.status !== "pending") throw new DomainError("moderation.alreadyHandled", 409);
  const now = deps.now();

  if (action === "dismiss") {
    const done = await writeTransaction(deps.db, (tx) => resolve(tx, eq(reports.id, report.id), "dismissed", operatorUser.id, now));
    if (!done.length) throw new DomainError("moderation.alreadyHandled", 409);
    return;
  }

  if (action === "hide") {
    if (!report.targetActivityId) throw new DomainError("moderation.notAnActivity", 400);
    const activityId = report.targetActivityId;
    const done = await writeTransaction(deps.db, async (tx) => {
      if (!(await resolve(tx, eq(reports.id, report.id), "activity_hidden", operatorUser.id, now)).length) return false;
      await tx.update(activities).set({ hiddenAt: now, updatedAt: now }).where(and(eq(activities.id, activityId), isNull(activities.hiddenAt)));
      await resolve(tx, eq(reports.targetActivityId, activityId), "activity_hidden", operatorUser.id, now);
      return true;
    });
    if (!done) throw new DomainError("moderation.alreadyHandled", 409);
    return;
  }

  const userId =
    report.targetUserId ??
    (await one(deps.db.select({ hostId: activities.hostId }).from(activities).where(eq(activities.id, report.targetActivityId ?? ""))))?.hostId;
  if (!userId) throw new DomainError("moderation.reportNotFound", 404);
  if (userId === operatorUser.id) throw new DomainError("moderation.notYourself", 400);
  const done = await writeTransaction(deps.db, async (tx) => {
    if (!(await resolve(tx, eq(reports.id, report.id), "user_suspended", operatorUser.id, now)).length) return false;
    await tx.update(users).set({ suspendedAt: now, updatedAt: now }).where(and(eq(users.id, userId), isNull(users.suspendedAt)));
    await tx.update(activities).set({ hiddenAt: now, updatedAt: now }).where(and(eq(activities.hostId, userId), isNull(activities.hiddenAt)));
    const theirActivities = tx.select({ id: activities.id }).from(activities).where(eq(activities.hostId, userId));
    await resolve(tx, or(eq(reports.targetUserId, userId), inArray(reports.targetActivityId, theirActivities)), "user_suspended", operatorUser.id, now);
    await tx.delete(sessions).where(eq(sessions.userId, userId));
    await scheduleJob(tx, releaseSuspendedJob, { userId }, { at: now, key: `moderation.release:${userId}` });
    return true;
  });
  if (!done) throw new DomainError("moderation.alreadyHandled", 409);
  deps.events.emit({ type: "sessions.ended", userId, sessionIds: "all" });
  await endBookingsOfSuspended(deps, userId).catch((err) => console.error(`releasing the bookings of suspended ${userId} failed; the job retries: ${loggable(err)}`));
}

/**
 * A suspended person's open bookings are released (idempotent; retried while a provider call
 * fails): card holds released and payments refunded, so it runs in the money lane.
 */
export const releaseSuspendedJob = defineJob<{ userId: string }>({
  kind: "moderation.release",
  lane: "money",
  run: async ({ userId }, { deps }) => {
    await endBookingsOfSuspended(deps, userId);
  },
});
