import { z } from "zod";
import { reportReasons } from "../../db/schema";
import { REPORT_NOTES_MAX } from "../../shared/limits";
import { safeNext } from "../../lib/http";
import { userText } from "../../lib/text";
import type { ModerationAction } from "./moderation";

const given = (v: unknown) => v !== undefined && v !== null && v !== "";

/** Exactly one target: a person or an activity. An id that is not text finds nothing (404). */
const targetSchema = z.object({ user: z.unknown(), activity: z.unknown() }).transform((v, ctx) => {
  if (given(v.user) === given(v.activity)) {
    ctx.addIssue({ code: "custom", message: "reports.targetRequired" });
    return z.NEVER;
  }
  return given(v.user) ? { kind: "user" as const, id: String(v.user) } : { kind: "activity" as const, id: String(v.activity) };
});

const notesSchema = userText({
  kind: "multiline",
  invalid: "reports.notesInvalid",
  characters: "reports.notesCharacters",
  max: { length: REPORT_NOTES_MAX, message: "reports.notesTooLong" },
}).transform((v) => v || null);

/** What a report is: its target, its reason and its notes, each checked in that order. */
const reportFields = z.object({
  target: targetSchema,
  reason: z.enum(reportReasons, { message: "reports.reasonRequired" }),
  notes: notesSchema.nullable().transform((v) => v ?? null),
});
export type ReportInput = z.infer<typeof reportFields>;

/** A field as sent, whatever it holds: the report's own schema judges it. */
const sent = z.unknown().optional();

/**
 * What `POST /api/reports` and the report form send (`targetUserId` or `targetActivityId`,
 * `reason`, optional `notes`), checked in that order, each refusal with its own message.
 */
export const reportInput = z
  .object({ targetUserId: sent, targetActivityId: sent, reason: sent, notes: sent }, { message: "reports.targetRequired" })
  .transform((b) => ({ target: { user: b.targetUserId, activity: b.targetActivityId }, reason: b.reason, notes: given(b.notes) ? b.notes : null }))
  .pipe(reportFields);

/**
 * The page the report form comes back to, with its confirmation or its refusal: `next`, a path
 * of our own site, else the home page (whatever else was sent, or not).
 */
export const reportFormPage = z
  .object({ next: sent })
  .catch({ next: undefined })
  .transform(({ next }) => safeNext(next, "/"));

/**
 * What `POST /api/reports` declares: the report (`reportInput`, each refusal with its own message)
 * and the page a plain form comes back to (`reportFormPage`).
 */
export const reportBody = z.unknown().transform((body, ctx) => {
  const report = reportInput.safeParse(body);
  if (!report.success) {
    for (const issue of report.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
    return z.NEVER;
  }
  return { report: report.data, page: reportFormPage.parse(body) };
});

const MODERATION_ACTIONS: readonly ModerationAction[] = ["dismiss", "hide", "suspend"];

/**
 * An operator's action's address, `/admin/reports/:id/:action`: the action, or undefined for one
 * that does not exist (answered as an unknown address, after the operator check, like any other).
 */
export const moderationParams = z.object({
  id: z.string(),
  action: z.string().transform((a) => MODERATION_ACTIONS.find((known) => known === a)),
});
