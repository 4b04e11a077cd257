import { and, asc, eq } from "drizzle-orm";
import { one } from "../../db/client";
import { bookingRefunds, ledgerEntries, type Booking, type BookingRefund, type User } from "../../db/schema";
import { DomainError } from "../../lib/domain-error";
import type { MessageKey } from "../../lib/i18n";
import { decimalFromCents, minorFromDecimal, readDecimal } from "../../lib/money";
import type { Deps } from "../deps";
import { attempt, move } from "./claims";
import type { RefundInput } from "./input";
import { movementKey } from "./keys";
import { refundable } from "./refund-parts";
import { bookingFor } from "./service";

/**
 * Partial refunds by the host (docs/decisions/0051): from an accepted or completed booking, its
 * host gives back any amount up to what remains, with a reason the guest reads. Each refund is a
 * claim of its own (`claims.ts`: claim, call, record, recover) with its own idempotency key, so
 * refunds made at once run one after the other and never give back more than was paid; the
 * booking keeps its status. How the refund divides between the platform and the host, and how
 * the host's part is taken from their payout, is `refund-parts.ts`.
 */

/** The statuses a booking can be partly refunded in: charged, and not cancelled. */
const REFUNDABLE = new Set<Booking["status"]>(["accepted", "completed"]);


/**
 * An amount as a person or a client sends it (a number, or a decimal string: "12.5", "12,50")
 * read in `currency`'s minor unit; NaN when it is no amount of that currency (a negative, too
 * many decimals, not a number).
 */
export function amountToMinor(value: number | string, currency: string): number {
  const decimal = readDecimal(value);
  return decimal === null ? Number.NaN : minorFromDecimal(decimal, currency);
}

const amountRefused = (key: MessageKey, status = 400, params?: Record<string, string>) => new DomainError(key, status, { fields: { amount: key }, ...(params ? { params } : {}) });

/** Throws why `b` cannot give back `amountCents` now; nothing when it can. */
function checkRefund(b: Booking, amountCents: number) {
  if (!REFUNDABLE.has(b.status) || !b.paymentIntentId) throw new DomainError("refunds.notRefundable", 409);
  if (refundable(b) <= 0) throw new DomainError("refunds.nothingLeft", 409);
  if (amountCents > refundable(b)) throw amountRefused("refunds.amountTooMuch", 400, { remaining: decimalFromCents(refundable(b), b.currency) });
}

/**
 * The host gives `input.amount` of booking `bookingId`'s payment back, with their reason. 404 for
 * anyone but its two sides, 403 for the guest; a refusal changes nothing. Answers the booking as
 * it is after, and the refund recorded.
 */
export async function refundPart(deps: Deps, user: User, bookingId: string, input: RefundInput): Promise<{ booking: Booking; refund: BookingRefund | null }> {
  const { booking, role } = await bookingFor(deps, user.id, bookingId);
  if (role !== "host") throw new DomainError("booking.hostOnly", 403);
  const amountCents = amountToMinor(input.amount, booking.currency);
  if (Number.isNaN(amountCents)) throw amountRefused("refunds.amountInvalid");
  if (amountCents <= 0) throw amountRefused("refunds.amountZero");
  const after = await attempt(deps, booking.id, {
    // Every request is a refund of its own: two sent at once are two refunds, never one answer twice.
    done: () => false,
    check: (b) => checkRefund(b, amountCents),
    run: (b) => move(deps, b, b.status, b.paymentIntentId!, { movement: "refund", to: b.status, canceledBy: null, message: "booking_refunded", senderId: user.id, amountCents, reason: input.reason }),
  });
  // The record that cleared this refund's claim left the booking with its attempt's count.
  const key = movementKey(after.id, "refund", after.claims);
  const refund = (await deps.db.select().from(bookingRefunds).where(eq(bookingRefunds.key, key)))[0] ?? null;
  return { booking: after, refund };
}

/** The refunds of a booking, oldest first, for either side of it (404 for anyone else). */
export async function refundsOf(deps: Deps, userId: string, bookingId: string): Promise<{ booking: Booking; refunds: BookingRefund[] }> {
  const { booking } = await bookingFor(deps, userId, bookingId);
  return { booking, refunds: await refundsOfBooking(deps, booking.id) };
}

export async function refundsOfBooking(deps: Pick<Deps, "db">, bookingId: string): Promise<BookingRefund[]> {
  return await deps.db.select().from(bookingRefunds).where(eq(bookingRefunds.bookingId, bookingId)).orderBy(asc(bookingRefunds.createdAt));
}

/** What the API shows of a refund (an allow-list, the same for both sides): the amount as a decimal string in its currency. */
export interface RefundView {
  id: string;
  amount: string;
  currency: string;
  reason: string | null;
  createdAt: string;
}

export const REFUND_VIEW_KEYS = ["id", "amount", "currency", "reason", "createdAt"] as const satisfies readonly (keyof RefundView)[];

export const refundView = (r: BookingRefund): RefundView => ({ id: r.id, amount: decimalFromCents(r.amountCents, r.currency), currency: r.currency, reason: r.reason, createdAt: new Date(r.createdAt).toISOString() });

/** Whether the booking's host share was already sent: a refund then takes their part back from that transfer. */
export async function paidOut(deps: Pick<Deps, "db">, bookingId: string): Promise<boolean> {
  return !!(await one(deps.db.select({ id: ledgerEntries.id }).from(ledgerEntries).where(and(eq(ledgerEntries.bookingId, bookingId), eq(ledgerEntries.kind, "transfer")))));
}
