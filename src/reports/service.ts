import { eq } from "drizzle-orm";
import { activities, reportReasons, reports, users, type Report, type ReportReason } from "../../db/schema";
import type { Deps } from "../deps";
import type { MessageKey } from "../texts";
import { userText } from "../lib/text";
import { firstIssue, uuidLike } from "../lib/validation";

/**
 * Reports (spec §3 Report, docs/decisions/0024): anyone signed in reports a person or an
 * activity with a reason from the list and optional notes; the report waits (`pending`) for an
 * operator. One open report per reporter and target, a few per hour, never about oneself.
 */
export const REPORT_NOTES_MAX = 500;

export class ReportError extends Error {
  constructor(
    readonly key: MessageKey,
    readonly status: number,
    readonly retryAfterMs = 0,
  ) {
    super(key);
  }
}

export const reasonLabel = (reason: ReportReason): MessageKey => `reports.reason.${reason}`;
export const isReason = (value: unknown): value is ReportReason => typeof value === "string" && (reportReasons as readonly string[]).includes(value);

const notesSchema = userText({
  kind: "multiline",
  invalid: "reports.notesInvalid",
  characters: "reports.notesCharacters",
  max: { length: REPORT_NOTES_MAX, message: "reports.notesTooLong" },
}).transform((v) => v || null);

const given = (v: unknown) => v !== undefined && v !== null && v !== "";

/** What `POST /api/reports` and the report form send. */
export interface ReportInput {
  targetUserId?: unknown;
  targetActivityId?: unknown;
  reason?: unknown;
  notes?: unknown;
}

/** Files a report; refusals are `ReportError`s (400 input, 404 unknown target, 409 already open, 429 too many). */
export function fileReport(deps: Deps, reporterId: string, input: ReportInput): Report {
  const now = deps.now();
  const wait = deps.limits.reportsByUser.retryAfter(reporterId, now);
  if (wait > 0) throw new ReportError("reports.tooMany", 429, wait);

  // Exactly one target: a person or an activity.
  if (given(input.targetUserId) === given(input.targetActivityId)) throw new ReportError("reports.targetRequired", 400);
  if (!isReason(input.reason)) throw new ReportError("reports.reasonRequired", 400);
  const notes = given(input.notes) ? notesSchema.safeParse(input.notes) : { success: true as const, data: null };
  if (!notes.success) throw new ReportError(firstIssue(notes.error), 400);

  let targetUserId: string | null = null;
  let targetActivityId: string | null = null;
  if (given(input.targetUserId)) {
    const user = uuidLike(input.targetUserId) ? deps.db.select({ id: users.id }).from(users).where(eq(users.id, input.targetUserId)).get() : undefined;
    if (!user) throw new ReportError("reports.targetNotFound", 404);
    if (user.id === reporterId) throw new ReportError("reports.notYourself", 400);
    targetUserId = user.id;
  } else {
    const activity = uuidLike(input.targetActivityId)
      ? deps.db.select({ id: activities.id, hostId: activities.hostId }).from(activities).where(eq(activities.id, input.targetActivityId)).get()
      : undefined;
    if (!activity) throw new ReportError("reports.targetNotFound", 404);
    if (activity.hostId === reporterId) throw new ReportError("reports.notYourself", 400);
    targetActivityId = activity.id;
  }

  // The partial unique indexes keep one open report per reporter and target, also under concurrency.
  const report = deps.db
    .insert(reports)
    .values({ id: crypto.randomUUID(), reporterId, targetUserId, targetActivityId, reason: input.reason, notes: notes.data, status: "pending", createdAt: now })
    .onConflictDoNothing()
    .returning()
    .get();
  if (!report) throw new ReportError("reports.alreadyOpen", 409);
  deps.limits.reportsByUser.hit(reporterId, now);
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
