import { z } from "zod";
import { MAX_BLOCK_NOTE } from "../../shared/limits";
import { nextSchema } from "../../lib/validation";

/**
 * A day off or a blocked time, as the Availability screen's form sends it (a plain form, no
 * JavaScript needed): `kind` "day" with `date` and an optional `endDate`, or "time" with `date`,
 * `from` and `to` (HH:MM); an optional note. Checked for shape here; what the values mean (a
 * real date, a range that ends after it starts) is checked by `readBlock`.
 */
export const blockInput = z.object({
  kind: z.enum(["day", "time"], { error: "availability.blockKindRequired" }),
  date: z.string({ error: "availability.dateRequired" }).trim().min(1, "availability.dateRequired"),
  endDate: z.string().trim().optional(),
  from: z.string().trim().optional(),
  to: z.string().trim().optional(),
  note: z.string().trim().max(MAX_BLOCK_NOTE, "availability.noteTooLong").optional(),
});
export type BlockInput = z.infer<typeof blockInput>;

const nextPage = nextSchema("/settings");

/** The calendar feed's buttons (`POST /settings/calendar-feed`): turn it on, give it a new link, or turn it off. */
export const calendarFeedInput = z.object({
  action: z.enum(["on", "reset", "off"], { error: "error.badRequest" }),
  next: nextPage,
});

/**
 * The outside busy calendar's form: `action` "save" (the default) with the address, or
 * "remove"; saving an empty address removes it too. Length and address rules are checked when
 * it is saved (`setBusyCalendar`).
 */
export const busyCalendarInput = z.object({
  url: z.string({ error: "availability.busy.invalid" }).optional().transform((url) => url ?? ""),
  action: z.enum(["save", "remove"], { error: "error.badRequest" }).optional(),
  next: nextPage,
});
