import { one } from "../../db/client";
import { eq } from "drizzle-orm";
import { bookings, type Activity, type Booking, type User } from "../../db/schema";
import { findListedActivity } from "../activities/queries";
import type { Deps } from "../deps";
import { DomainError } from "../../lib/domain-error";
import { decimalFromCents, minorFromDecimal, minorPerMajor, minorUnits } from "../../lib/money";
import type { Price } from "../../shared/pricing";
import { cleanText, hasDisallowedCharacters } from "../../lib/text";
import { uuidLike } from "../../lib/validation";
import { PaymentError } from "../ports/payments";
import { MAX_BOOKING_MESSAGE } from "../../shared/limits";

/**
 * What every part of the booking rules shares (ARCHITECTURE decisions 4, 5, 7, 8, 11): the time
 * limits, the provider's refusals as the person reads them, and who a booking belongs to. The rules themselves live by
 * concept: `availability` (what holds a host's time), `checkout` (the three ways to pay),
 * `requests` (a paid booking becomes a request), `checkout-payment` (the checkout page's payment,
 * through a claim), `claims` (how money moves: claim, call, record), `transitions` (the state
 * machine), `instant` (instant booking), `payouts` and `reconciliation`.
 */
export const HOLD_MS = 15 * 60 * 1000;
export const ANSWER_WINDOW_MS = 24 * 60 * 60 * 1000;
export const AUTO_COMPLETE_MS = 48 * 60 * 60 * 1000;
export const RECONCILE_MS = 30 * 60 * 1000;
/** Unpaid holds a guest may abandon in an hour before a new hold waits (`ABANDONED_HOLD_PAUSE_MS`, doubling). */
export const FREE_ABANDONED_HOLDS = 3;
export const ABANDONED_HOLD_PAUSE_MS = 2 * 60 * 1000;

export type Action = "accept" | "reject" | "complete" | "cancel";
export type Role = "guest" | "host";
export type SystemMessageType = "booking_request" | "booking_accepted" | "booking_declined" | "booking_expired" | "booking_canceled" | "booking_completed" | "session_not_running" | "booking_refunded";

/**
 * The server's price is the price, in the activity's currency: a client's figure (a decimal as its
 * input schema read it, `readDecimal`; none: the server's own) is read in that currency's minor
 * units. A fraction of a currency without one ("3000.5" yen) is no amount (400); otherwise a figure
 * more than half a minor unit away (a client's float rounding stays within it) is refused with
 * the price (409).
 */
export function checkAmount(amount: string | undefined, price: Pick<Price, "totalCents">, currency: string) {
  if (amount === undefined) return;
  if (minorUnits(currency) === 0 && Number.isNaN(minorFromDecimal(amount, currency))) throw new DomainError("booking.amountInvalid", 400);
  if (Math.abs(Number(amount) * minorPerMajor(currency) - price.totalCents) > 0.5) {
    const total = decimalFromCents(price.totalCents, currency);
    throw new DomainError("booking.priceChanged", 409, { extra: { priceTotal: total, amount: total, currency } });
  }
}

/** The activity a guest wants to book: listed, and not their own. */
export async function bookableActivity(deps: Deps, guest: User, activityId: string): Promise<Activity> {
  const activity = uuidLike(activityId) ? await findListedActivity(deps, activityId) : undefined;
  if (!activity) throw new DomainError("activity.notFound", 404);
  if (activity.hostId === guest.id) throw new DomainError("booking.ownActivity", 400);
  return activity;
}

/**
 * The message of a request, cleaned by the one text normaliser (lib/text.ts): NFC, trimmed of
 * whitespace and invisible characters, line breaks kept, control, bidi-override and escape
 * characters refused. Null when optional and empty. One limit, refused (never cut) beyond it.
 */
export function bookingMessage(value: string | null | undefined, opts: { required: boolean }): string | null {
  const text = cleanText(typeof value === "string" ? value : "", "multiline");
  if (!text) {
    if (opts.required) throw new DomainError("booking.messageRequired", 400);
    return null;
  }
  if (text.length > MAX_BOOKING_MESSAGE) throw new DomainError("booking.messageTooLong", 400);
  if (hasDisallowedCharacters(text, "multiline") || /[\u202A-\u202E\u2066-\u2069]/u.test(text)) throw new DomainError("booking.messageCharacters", 400);
  return text;
}

/** A pending request expires 24 hours after it was sent, or at the start, whichever is first. */
export const respondByOf = (now: number, startsAt: number) => Math.min(now + ANSWER_WINDOW_MS, startsAt);

/**
 * The provider's refusal as the person's: its own words ("Your card was declined.") with the
 * status the caller gets (409 by default, 404 for what it does not know, 502 when it did not answer).
 */
export function providerRefusal(err: PaymentError, status = err.status >= 500 ? 502 : err.status === 404 ? 404 : 409): DomainError {
  return new DomainError("booking.paymentProblem", status, { said: err.message || undefined, log: err.message });
}

/** A provider refusal as the person's refusal (checkout calls, which move no booking's money). */
export async function providerCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof PaymentError) throw providerRefusal(err);
    throw err;
  }
}

/** The booking as it is now in the database. */
export async function currentBooking(deps: Pick<Deps, "db">, bookingId: string): Promise<Booking | undefined> {
  return await one(deps.db.select().from(bookings).where(eq(bookings.id, bookingId)));
}

/** A booking and the side `userId` is on, or null for anyone else and for ids that are not a booking's. */
export async function participantBooking(deps: Deps, userId: string, bookingId: string | undefined): Promise<{ booking: Booking; role: Role } | null> {
  const booking = uuidLike(bookingId) ? await currentBooking(deps, bookingId) : undefined;
  if (!booking || (booking.guestId !== userId && booking.hostId !== userId)) return null;
  return { booking, role: booking.guestId === userId ? "guest" : "host" };
}

/**
 * A booking as one of its two sides sees it; anyone else gets 404 (ARCHITECTURE decision 11).
 * Routes hand it the id their schema read: text, or nothing (no booking).
 */
export async function bookingFor(deps: Deps, userId: string, bookingId: string | undefined): Promise<{ booking: Booking; role: Role }> {
  const found = await participantBooking(deps, userId, bookingId);
  if (!found) throw new DomainError("booking.notFound", 404);
  return found;
}
