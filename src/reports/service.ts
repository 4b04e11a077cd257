import { one, writeTransaction } from "../../db/client";
import { eq } from "drizzle-orm";
import { activities, reports, users, type Report, type ReportReason } from "../../db/schema";
import type { Deps } from "../deps";
import type { MessageKey } from "../../lib/i18n";
import { DomainError } from "../../lib/domain-error";
import { uuidLike } from "../../lib/validation";
import type { ReportInput } from "./input";

/**
 * Reports (spec §3 Report, docs/decisions/0024): anyone signed in reports a person or an
 * activity with a reason from the list and optional notes; the report waits (`pending`) for an
 * operator. One open report per reporter and target, a few per hour, never about oneself.
 */
export const reasonLabel = (reason: ReportReason): MessageKey => `reports.reason.${reason}`;

/**
 * Files a report, its input checked (`reportInput`); refusals are `DomainError`s (404 unknown
 * target, 400 oneself, 409 already open, 429 too many).
 */
export async function fileReport(deps: Deps, reporterId: string, input: ReportInput): Promise<Report> {
  const now = deps.now();
  // Counted before the report is written (reports sent together are no more than the limit), and
  // given back when it is refused: only reports filed count.
  const wait = await deps.limits.reportsByUser.take(reporterId, now);
  if (wait > 0) throw new DomainError("reports.tooMany", 429, { retryAfterMs: wait });
  try {
    return await writeReport(deps, reporterId, input, now);
  } catch (err) {
    await deps.limits.reportsByUser.refund(reporterId, now);
    throw err;
  }
}

/** The report's target is checked and the report written; its refusals are `fileReport`'s. */
async function writeReport(deps: Deps, reporterId: string, input: ReportInput, now: number): Promise<Report> {
  let targetUserId: string | null = null;
  let targetActivityId: string | null = null;
  const { target } = input;
  if (target.kind === "user") {
    const user = uuidLike(target.id) ? await one(deps.db.select({ id: users.id }).from(users).where(eq(users.id, target.id))) : undefined;
    if (!user) throw new DomainError("reports.targetNotFound", 404);
    if (user.id === reporterId) throw new DomainError("reports.notYourself", 400);
    targetUserId = user.id;
  } else {
    const activity = uuidLike(target.id)
      ? await one(deps.db.select({ id: activities.id, hostId: activities.hostId }).from(activities).where(eq(activities.id, target.id)))
      : undefined;
    if (!activity) throw new DomainError("reports.targetNotFound", 404);
    if (activity.hostId === reporterId) throw new DomainError("reports.notYourself", 400);
    targetActivityId = activity.id;
  }

  // The partial unique indexes keep one open report per reporter and target, also under concurrency.
  const report = await one(writeTransaction(deps.db, (tx) => tx
    .insert(reports)
    .values({ id: crypto.randomUUID(), reporterId, targetUserId, targetActivityId, reason: input.reason, notes: input.notes, status: "pending", createdAt: now })
    .onConflictDoNothing()
    .returning()));
  if (!report) throw new DomainError("reports.alreadyOpen", 409);
  return report;
}

/** What the reporter is shown of their own report. */
export function reportView(report: Report) {
  return {
    id: report.id,
    targetUserId: report.targetUserId,
    targetActivityId: report.targetActivityId,
    reason: report.reason,
    notes: report.notes,
    status: report.status,
    createdAt: report.createdAt,
  };
}
