import { z } from "zod";
import { parseBody } from "../lib/validation";
import type { RequestChoice } from "../../views/bookings/Request";

/**
 * The shapes of the bookings' inputs (spec §7). Values are checked for type and size here; the
 * rules (dates, times, durations, prices) are the service's, so both forms and JSON get the same.
 */
const text = (max: number) => z.string().max(max);
const amount = z.union([z.number(), text(32)]);
const hours = z.union([z.number(), text(8)]);

export const dateTimeIntentInput = z.object({
  amount,
  metadata: z.object({ activityId: text(64), date: text(16), time: text(8), duration: hours }),
});

export const existingBookingIntentInput = z.object({ bookingId: text(64), amount });

export const dialogIntentInput = z.object({
  activityId: text(64),
  hours,
  amount,
  proposedDate: text(16),
  proposedTime: text(8),
  // Its one limit and its cleaning are the service's (`bookingMessage`); the body limit bounds it here.
  message: z.string().optional(),
});

export const createBookingInput = z.object({
  activityId: text(64),
  proposedDatetime: text(32),
  durationHours: hours,
  priceTotal: amount,
  paymentIntentId: text(200),
  // Its one limit and its cleaning are the service's (`bookingMessage`); the body limit bounds it here.
  message: z.string().optional(),
});

export const selectionInput = z.object({ date: text(16).optional(), time: text(8).optional(), duration: hours.optional() });

/**
 * The card form of the payment and checkout screens: the test provider's fields, or the intent
 * Stripe's card form confirmed (its length is the service's rule, refused with its own message).
 */
export const cardInput = z.object({
  cardNumber: text(40).optional(),
  expiry: text(10).optional(),
  cvc: text(8).optional(),
  amount: amount.optional(),
  paymentIntentId: z.string().optional(),
});

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
  return { message: str("message"), date: str("proposedDate"), time: str("proposedTime"), hours: Number.isFinite(hours) ? hours : 1 };
}

export type Amount = z.infer<typeof amount>;

/** Reads a body with one of these shapes; a wrong shape is a clear 400 ("booking.badInput"). */
export const parseInput = <T extends z.ZodType>(schema: T, body: unknown): z.output<T> => parseBody(schema, body, "booking.badInput");

/** An amount as a form posts it, for the price check (anything else is refused there as unreadable). */
export const amountOf = (value: unknown): Amount | undefined => (typeof value === "string" || typeof value === "number" ? value : undefined);

/** The booking actions of `POST /api/bookings/{id}/{action}` (spec §4). */
export const bookingAction = z.enum(["accept", "reject", "complete", "cancel"]);
