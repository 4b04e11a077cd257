import type { ClaimedMovement, LedgerKind } from "../../db/schema";

/**
 * Every key a booking's work is known by, built in one place: durable jobs (a job's key makes
 * scheduling it twice a no-op, and cancelling it possible), ledger rows (one row per kind and
 * booking), and the idempotency keys of provider calls (one per attempt of a movement).
 */
export const jobKeys = {
  /** The 15-minute hold of an awaiting-payment booking. */
  hold: (bookingId: string) => `booking.hold:${bookingId}`,
  /** A pending request's answer window. */
  expire: (bookingId: string) => `booking.expire:${bookingId}`,
  /** The same window looked at again when it was moved later. */
  expireLater: (bookingId: string) => `booking.expire:${bookingId}:later`,
  autoComplete: (bookingId: string) => `booking.autocomplete:${bookingId}`,
  /** The instant accept of a request (docs/decisions/0037): one per booking, whichever flow made it pending. */
  instantAccept: (bookingId: string) => `booking:${bookingId}:instant-accept`,
  instantUnanswered: (bookingId: string) => `booking:${bookingId}:instant-unanswered`,
  payout: (bookingId: string) => `booking.payout:${bookingId}`,
  /** A group session's minimum, counted at `deadline` (a deadline the host moved gets its own job). */
  sessionMinimum: (activityId: string, startsAt: number, deadline: number) => `booking.session-minimum:${activityId}:${startsAt}:${deadline}`,
  /** Finishes claim number `attempt` if nobody recorded its answer (docs/decisions/0028). */
  recover: (bookingId: string, attempt: number) => `booking.recover:${bookingId}:${attempt}`,
  /** An intent with no booking is released after a while. */
  reconcileIntent: (intentId: string) => `payments.reconcile:${intentId}`,
  reconcileIntentLater: (intentId: string) => `payments.reconcile:${intentId}:later`,
} as const;

/** A ledger row's key: each kind of movement is written once per booking. */
export const ledgerKey = (bookingId: string, kind: LedgerKind) => `booking:${bookingId}:${kind}`;

/**
 * The ledger rows of one part of a payment given back (docs/decisions/0051): a booking has as
 * many as it has partial refunds, each keyed by its refund's own call key and the kind.
 */
export const refundPartLedgerKey = (refundKey: string, kind: LedgerKind) => `${refundKey}:${kind}`;

/**
 * A debt of the host's settled by a payout (docs/decisions/0051): the rows of one transfer claim
 * (`transferKey`) settling the debt of booking `owingBookingId`, one on each booking, written once.
 */
export const settlementKey = (transferKey: string, owingBookingId: string, kind: "debt_settled" | "owed_settled") => `${transferKey}:${kind}:${owingBookingId}`;

/** Taking the host's part of a refund back from the booking's transfer: its own call, keyed by the refund's. */
export const reversalKey = (refundKey: string) => `${refundKey}:reverse`;

/**
 * The provider call of claim number `attempt`: `booking:{id}:capture` the first time, then
 * `booking:{id}:capture:2` ... so a later attempt is never answered with an earlier one's refusal.
 */
export const movementKey = (bookingId: string, movement: ClaimedMovement, attempt: number) =>
  attempt <= 1 ? `booking:${bookingId}:${movement}` : `booking:${bookingId}:${movement}:${attempt}`;

/** Provider calls about a booking that are not movements of its own money. */
export const bookingCallKeys = {
  checkout: (bookingId: string) => `booking:${bookingId}:checkout`,
  /** Closing the booking's hosted checkout session when its hold ends unpaid. */
  expireCheckout: (bookingId: string) => `booking:${bookingId}:checkout:expire`,
  intent: (bookingId: string) => `booking:${bookingId}:intent`,
  /** Releasing an intent that pays for no booking (a second payment, a lost race). */
  releaseStray: (intentId: string) => `intent:${intentId}:release`,
  /** Where a booking's transfers are grouped at the provider; the reconciliation finds them by it. */
  transferGroup: (bookingId: string) => `booking:${bookingId}`,
} as const;
