import { z } from "zod";
import { asRecord, safeNext } from "../../lib/http";
import type { MessageKey } from "../../lib/i18n";
import { DomainError } from "../../lib/domain-error";
import { MAX_BOOKING_MESSAGE, MAX_REFUND_REASON, PAYMENT_INTENT_ID_MAX } from "../../shared/limits";
import { userText } from "../../lib/text";
import type { Action } from "./service";
import { textOrNone } from "../../lib/validation";
import { readDecimal } from "../../lib/money";


/** What the request dialog holds: the message, the date, the start time and the hours chosen; a group session's spots. */
export interface RequestChoice {
  message: string;
  date: string;
  time: string;
  hours: number;
  spots: number;
  privateGroup: boolean;
}

/**
 * The shapes of the bookings' inputs (spec §7), declared on their routes. Values are checked for
 * type and size here, and read into what the rules take: decimals, minutes, a date and a time. The
 * rules themselves (dates, times, durations, prices) are the service's, so both forms and JSON
 * get the same. A wrong shape is "booking.badInput"; an amount that is no number,
 * "booking.amountInvalid" (its decimals are checked against the activity's currency).
 */
const BAD_INPUT: MessageKey = "booking.badInput";
const text = (max: number) => z.string(BAD_INPUT).max(max, BAD_INPUT);

/** A JSON body or a form, read as an object: anything else reads as empty (every field missing). */
const asObject = <S extends z.ZodType>(shape: S) => z.preprocess(asRecord, shape);

/**
 * A client's amount (a number or a decimal string) as the decimal it wrote (`readDecimal`): its
 * minor units are the activity's currency's, which the price check reads it in (`checkAmount`).
 * One that is no number (or none at all) is refused as such.
 */
function decimalOf(value: unknown, ctx: z.RefinementCtx): string {
  const decimal = readDecimal(value);
  if (decimal !== null) return decimal;
  ctx.addIssue({ code: "custom", message: "booking.amountInvalid" });
  return z.NEVER;
}

/**
 * A client's amount, for the price check (`checkAmount`): the server's price is the price, the
 * client's figure only has to agree with it.
 */
const amount = z.union([z.number(), text(32)], BAD_INPUT).transform(decimalOf);

/** Hours (the API's durations, 0.5 steps) as minutes; NaN when not a number, which no flow offers. */
function hoursToMinutes(value: number | string): number {
  const n = typeof value === "number" ? value : value.trim() !== "" ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? Math.round(n * 60 * 1000) / 1000 : Number.NaN;
}

/** A duration sent in hours, as minutes (the slot's rules say which are offered). */
const hours = z.union([z.number(), text(8)], BAD_INPUT);
const minutes = hours.transform(hoursToMinutes);

/** Splits the spec's proposedDatetime ('YYYY-MM-DDTHH:MM:00') into date and time ("invalid" when it does not read). */
function splitProposed(value: string): { date: string; time: string } {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::00)?$/.exec(value.trim());
  return m ? { date: m[1]!, time: m[2]! } : { date: value.trim() ? "invalid" : "", time: value.trim() ? "invalid" : "" };
}

/**
 * A group session's spots (docs/decisions/0049), as a number or a string of digits; anything else
 * is NaN, which no bounds accept (the rules, `readSpots`, say which are). Absent: undefined.
 */
const spots = z
  .union([z.number(), text(8)], BAD_INPUT)
  .optional()
  .transform((v) => (v === undefined || v === "" ? undefined : typeof v === "number" ? v : /^\s*\d+\s*$/.test(v) ? Number(v) : Number.NaN));

/** A private group asked for: `true` (JSON), "true", "on" or "1" (a form's box); anything else is not. */
const privateGroup = z.union([z.boolean(), text(8)], BAD_INPUT).optional().transform((v) => v === true || v === "true" || v === "on" || v === "1");

// Its one limit and its cleaning are the service's (`bookingMessage`); the body limit bounds it here.
const message = z.string(BAD_INPUT).optional();

/**
 * The date-time screen's `POST /api/create-payment-intent`: an intent for a slot (`amount`,
 * `metadata {activityId, date, time, duration, spots, privateGroup}`). A group session's length is
 * the activity's: its duration may be left out, as on `POST /api/bookings` (the rules read it).
 */
const slotIntentInput = z
  .object({ amount, metadata: z.object({ activityId: text(64), date: text(16), time: text(8), duration: minutes.optional(), spots, privateGroup }, BAD_INPUT) })
  .transform(({ amount, metadata: m }) => ({ kind: "slot" as const, activityId: m.activityId, date: m.date, time: m.time, durationMinutes: m.duration, spots: m.spots, privateGroup: m.privateGroup, amount }));

/** The checkout page's `POST /api/create-payment-intent`: the intent of a booking awaiting payment (`bookingId`, `amount`). */
const bookingIntentInput = z
  .object({ bookingId: text(64), amount })
  .transform(({ bookingId, amount }) => ({ kind: "booking" as const, bookingId, amount }));

/** The booking dialog's `POST /api/create-payment-intent`: a held booking and its hosted checkout. */
const dialogIntentInput = z
  .object({ activityId: text(64), hours: minutes, amount, proposedDate: text(16), proposedTime: text(8), message, spots, privateGroup })
  .transform((b) => ({ kind: "dialog" as const, activityId: b.activityId, date: b.proposedDate, time: b.proposedTime, durationMinutes: b.hours, spots: b.spots, privateGroup: b.privateGroup, amount: b.amount, message: b.message }));

/** Reads `value` with `schema` inside another schema's transform, its issues kept where they were. */
function readWith<S extends z.ZodType>(schema: S, value: unknown, ctx: z.RefinementCtx): z.output<S> {
  const read = schema.safeParse(value);
  if (read.success) return read.data;
  for (const issue of read.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path as (string | number)[] });
  return z.NEVER;
}

/**
 * `POST /api/create-payment-intent`: one call, three shapes (spec §7), told apart by what is sent,
 * in this order: a booking awaiting payment (`bookingId`), the date-time screen's choice
 * (`metadata`), the dialog's (`activityId`). Anything else is "booking.badInput".
 */
export const paymentIntentBody = z.unknown().transform((value, ctx) => {
  const body = asRecord(value);
  if (body.bookingId !== undefined) return readWith(bookingIntentInput, body, ctx);
  if (body.metadata !== undefined) return readWith(slotIntentInput, body, ctx);
  if (body.activityId !== undefined) return readWith(dialogIntentInput, body, ctx);
  ctx.addIssue({ code: "custom", message: BAD_INPUT });
  return z.NEVER;
});

/** `POST /api/bookings`: the request, once the card is authorised (`proposedDatetime` read as a date and a time). */
export const createBookingBody = asObject(
  z
    .object({ activityId: text(64), proposedDatetime: text(32), durationHours: minutes.optional(), priceTotal: amount, paymentIntentId: text(PAYMENT_INTENT_ID_MAX), message, spots, privateGroup })
    .transform((b) => ({
      activityId: b.activityId,
      ...splitProposed(b.proposedDatetime),
      // A group session's length is the activity's: its duration may be left out (the rules read it).
      durationMinutes: b.durationHours,
      priceTotal: b.priceTotal,
      paymentIntentId: b.paymentIntentId,
      message: b.message,
      spots: b.spots,
      privateGroup: b.privateGroup,
    })),
);

/**
 * The date-time screen's form, read leniently: a body that does not read is no choice at all
 * (the screen says what is missing). An empty duration is none chosen.
 */
export const selectionBody = asObject(z.object({ date: text(16).optional(), time: text(8).optional(), duration: hours.optional(), spots, privateGroup }).catch({ spots: undefined, privateGroup: false })).transform((s) => ({
  date: s.date ?? "",
  time: s.time ?? "",
  durationMinutes: s.duration === undefined || s.duration === "" ? undefined : hoursToMinutes(s.duration),
  spots: s.spots,
  privateGroup: s.privateGroup,
}));
export type SelectionInput = z.output<typeof selectionBody>;

/**
 * The card form of the payment and checkout screens: the test provider's fields, the client's
 * amount, or the intent Stripe's card form confirmed (its length is the service's rule, refused
 * with its own message).
 */
export const cardBody = asObject(
  z.object({
    cardNumber: text(40).optional(),
    expiry: text(10).optional(),
    cvc: text(8).optional(),
    amount: amount.optional(),
    paymentIntentId: z.string(BAD_INPUT).optional(),
  }),
);
export type CardPost = z.output<typeof cardBody>;

/** The card's fields as typed, shown again on the form. */
export interface CardValues {
  cardNumber?: string;
  expiry?: string;
  cvc?: string;
}

/**
 * The dialog's fields, read leniently: the step is shown again as typed when the rules refuse it
 * (a message too long, say), so a field of the wrong type is empty and text is bounded.
 */
export function requestChoiceOf(body: Record<string, unknown>, maxText: number): RequestChoice {
  const str = (k: string) => (typeof body[k] === "string" ? (body[k] as string).slice(0, maxText) : "");
  const hours = Number(str("hours") || "1");
  const spots = str("spots").trim();
  const privateGroup = body.privateGroup;
  return {
    message: str("message"),
    date: str("proposedDate"),
    time: str("proposedTime"),
    hours: Number.isFinite(hours) ? hours : 1,
    spots: spots === "" ? 1 : /^\d{1,3}$/.test(spots) ? Number(spots) : Number.NaN,
    privateGroup: privateGroup === true || privateGroup === "true" || privateGroup === "on" || privateGroup === "1",
  };
}

/** How much of each of the dialog's fields is kept to be shown again: more than any rule allows. */
const SHOWN_AGAIN = 2 * MAX_BOOKING_MESSAGE;

/** The request dialog's first step (`/activity/{id}/request`): its choice, read leniently to be shown again as typed. */
export const requestChoiceBody = z.unknown().transform((value) => requestChoiceOf(asRecord(value), SHOWN_AGAIN));

/** The dialog's payment step (`/activity/{id}/request/pay`): its choice and the amount it showed. */
export const requestPayBody = z.unknown().transform((value, ctx) => {
  const body = asRecord(value);
  return { choice: requestChoiceOf(body, SHOWN_AGAIN), amount: decimalOf(body.amount, ctx) };
});

/** The booking actions of `POST /api/bookings/{id}/{action}` (spec §4). */
const bookingAction = z.enum(["accept", "reject", "complete", "cancel"]);

/** The action its address names: one that is none of them is no address of ours (404). */
export function bookingActionOf(name: string): Action {
  const read = bookingAction.safeParse(name);
  if (!read.success) throw new DomainError("error.notFound", 404);
  return read.data;
}

/**
 * A page's action button sends where to go back to (`next`, our own paths only); the cancel
 * confirmation also sends the refund it showed (`refundCents`, docs/decisions/0050), checked again
 * when the cancellation is made. Anything unreadable there is as if not sent.
 */
export const actionButtonBody = z.unknown().transform((value) => {
  const sent = asRecord(value);
  const refund = typeof sent.refundCents === "string" && /^\d{1,12}$/.test(sent.refundCents) ? Number(sent.refundCents) : typeof sent.refundCents === "number" && Number.isSafeInteger(sent.refundCents) && sent.refundCents >= 0 ? sent.refundCents : undefined;
  return { next: safeNext(sent.next, "/bookings"), ...(refund === undefined ? {} : { refundCents: refund }) };
});

/** A value of an address's query read as text, or nothing (anything else is none). */
const queryText = textOrNone;

/** The date-time screen's address: `?date=…` opens the calendar on it. */
export const dateTimeQuery = z.object({ date: queryText });

/** The success screen's address: `?booking=…`, the guest's booking just made. */
export const successQuery = z.object({ booking: queryText });

/** Back from the card's authentication: `?payment_intent=…`, the intent to read again ("" when none). */
export const paymentReturnQuery = z.object({ payment_intent: z.unknown().optional().transform((v) => (typeof v === "string" && v.length <= PAYMENT_INTENT_ID_MAX ? v : "")) });

const AMOUNT_TEXT = /^\s*\d{1,12}(?:[.,]\d+)?\s*$/;
const readsAsAmount = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0) || (typeof v === "string" && v.length <= 32 && AMOUNT_TEXT.test(v));

/**
 * `POST /api/bookings/{id}/refunds` and the conversation's refund form (docs/decisions/0051): the
 * amount as sent (a number or a decimal string, read in the booking's currency by the service,
 * `amountToMinor`), and the reason the guest reads, cleaned like other user text.
 */
export const refundBody = asObject(z.object({
  // Something that reads as an amount, so that the form says so beside the field with the reason's
  // own message; its decimals are checked against the booking's currency by the service.
  amount: z.unknown().refine(readsAsAmount, { message: "refunds.amountInvalid" }).transform((v) => v as number | string),
  reason: userText({ kind: "multiline", invalid: "refunds.reasonInvalid", required: "refunds.reasonBlank", max: { length: MAX_REFUND_REASON, message: "refunds.reasonTooLong" }, characters: "refunds.reasonCharacters" }),
}));
export type RefundInput = z.infer<typeof refundBody>;
