import { z } from "zod";
import { reportReasons } from "../../db/schema";
import { REPORT_NOTES_MAX } from "../../shared/limits";
import { asRecord } from "../lib/http";
import { userText } from "../lib/text";

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

/**
 * What `POST /api/reports` and the report form send (`targetUserId` or `targetActivityId`,
 * `reason`, optional `notes`), checked in that order, each refusal with its own message.
 */
export const reportInput = z.preprocess(
  (body) => {
    const b = asRecord(body);
    return { target: { user: b.targetUserId, activity: b.targetActivityId }, reason: b.reason, notes: given(b.notes) ? b.notes : null };
  },
  z.object({
    target: targetSchema,
    reason: z.enum(reportReasons, { message: "reports.reasonRequired" }),
    notes: notesSchema.nullable().transform((v) => v ?? null),
  }),
);
export type ReportInput = z.infer<typeof reportInput>;
