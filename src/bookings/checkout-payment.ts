import { and, eq, isNull } from "drizzle-orm";
import { writeTransaction, one } from "../../db/client";
import { bookings, type Booking, type BookingClaim } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError, isDomainError } from "../../lib/domain-error";
import { loggable } from "../../db/faults";
import { PaymentError, type PaymentIntent } from "../ports/payments";
import { beingFinished, claimIsUnderWay, claimSettled, claimUnderWay, PAYMENT_RECOVERY_MS, refusedForSure, rollBackClaim } from "./claims";
import { recoverJob, schedule } from "./jobs";
import { jobKeys, movementKey } from "./keys";
import { isPaid, paymentAuthorised } from "./requests";
import { currentBooking } from "./service";
import { endAwaitingPayment } from "./transitions";

/**
 * Paying for a held booking on the checkout page, through a claim (docs/decisions/0046), as every
 * change that moves a booking's money (`claims.ts`): the claim (`claimPayment`), the provider's
 * confirmation of the card, the record (`paymentAuthorised`, `requests.ts`), and the recovery
 * job's look at what the provider shows (`recoverPayment`).
 */

/** How long a payment waits for another change of the booking (a cancellation's release) to end. */
const WAIT_FOR_CHANGE_MS = 10_000;

/** What paying for a held booking at checkout came to. */
export type CheckoutPayment<Confirmed> =
  /** A request now (or already), with this payment. */
  | { kind: "paid" }
  /** The booking could not take it (it ended meanwhile, its time was taken): the card was let go. */
  | { kind: "released" }
  /** The card is not authorised for this booking; `confirmed`: what the provider answered when asked to confirm it. */
  | { kind: "notAuthorised"; confirmed: Confirmed | null }
  /** The provider did not answer: the claim stays, and its recovery finishes the booking from what the provider shows. */
  | { kind: "unconfirmed" };

/**
 * The checkout page's payment of a booking awaiting payment, through a claim like every change
 * that moves a booking's money (docs/decisions/0028):
 * 1. **claim**: one transaction marks the payment with `intentId` as under way, if no other
 *    change is, and schedules its recovery job `PAYMENT_RECOVERY_MS` on;
 * 2. **call**: `confirm`, the provider confirming the card (the test provider's card form); null
 *    when the browser confirmed it already (Stripe.js, a return from authentication);
 * 3. **record**: `paymentAuthorised`, from the provider's own copy of the intent, which clears the
 *    claim; a card the provider did not authorise, or a record the provider refused for sure
 *    (a 4xx), rolls the claim back.
 * A crash between the provider holding the card and the record leaves the claim: the guest's
 * retry (the payment posted again, the return address) records what the provider shows at once,
 * and the recovery job does if the guest never comes back. A payment of this intent claimed
 * already (a retry, a second tab, a process that died) is never claimed twice: this one records
 * it too, and the record is the same whoever makes it.
 */
export async function payAwaitingBooking<Confirmed extends { status: PaymentIntent["status"] }>(
  deps: Deps,
  bookingId: string,
  intentId: string,
  confirm: (() => Promise<Confirmed>) | null,
  waitForAcceptMs: number,
): Promise<CheckoutPayment<Confirmed>> {
  const key = await claimPayment(deps, bookingId, intentId);
  try {
    let confirmed: Confirmed | null = null;
    try {
      if (confirm) confirmed = await confirm();
    } catch (err) {
      if (!refusedForSure(err)) return unconfirmed(bookingId, err);
      if (key) await rollBackPayment(deps, bookingId, key);
      throw err;
    }
    if (confirmed && confirmed.status !== "requires_capture") {
      if (key) await rollBackPayment(deps, bookingId, key);
      return { kind: "notAuthorised", confirmed };
    }
    let outcome: Awaited<ReturnType<typeof paymentAuthorised>>;
    try {
      outcome = await paymentAuthorised(deps, bookingId, intentId, waitForAcceptMs);
    } catch (err) {
      if (err instanceof PaymentError && !refusedForSure(err)) return unconfirmed(bookingId, err);
      // Refused for sure (the provider would not read the intent, or release a stray): nothing
      // was recorded with this payment, and its recovery would only meet the same refusal.
      if (key && recordRefused(err)) await letGo(deps, bookingId, key);
      throw err;
    }
    if (isPaid(outcome)) return { kind: "paid" };
    // Nothing recorded with this payment: its claim, if still this one, is let go.
    if (key) await rollBackPayment(deps, bookingId, key);
    return outcome === "released" ? { kind: "released" } : { kind: "notAuthorised", confirmed: null };
  } finally {
    // Whatever is left of the claim now is its recovery's, not this request's.
    if (key) claimSettled(key);
  }
}

/** The record of a payment failed for sure: the provider refused (4xx), not left unanswered or the database failing. */
const recordRefused = (err: unknown) => refusedForSure(err) || (isDomainError(err) && err.status < 500);

/** Lets a claimed payment go after a refusal. Should that fail too, the claim is left to its recovery: the guest is answered with the refusal. */
async function letGo(deps: Deps, bookingId: string, key: string) {
  await rollBackPayment(deps, bookingId, key).catch((err: unknown) => console.error(`the payment of booking ${bookingId} could not be let go; its recovery does it: ${loggable(err)}`));
}

function unconfirmed(bookingId: string, err: unknown): { kind: "unconfirmed" } {
  console.error(`the payment of booking ${bookingId} got no answer; its recovery finishes it: ${loggable(err)}`);
  return { kind: "unconfirmed" };
}

/**
 * Step 1: claims the payment of a held booking with `intentId`. Answers the claim's key, or null
 * when there is nothing to claim: this very payment is claimed already (the caller records it
 * all the same), or the booking no longer awaits payment (the record says how it ended). Another
 * change under way here (a cancellation's release, another payment) is waited for, up to
 * `WAIT_FOR_CHANGE_MS`, past which the booking is "being updated"; one left to its recovery is
 * answered at once as being finished, as `attempt` does (docs/decisions/0047).
 */
async function claimPayment(deps: Deps, bookingId: string, intentId: string): Promise<string | null> {
  const deadline = performance.now() + WAIT_FOR_CHANGE_MS;
  for (;;) {
    const now = deps.now();
    let made: string | undefined;
    const claimed = await writeTransaction(deps.db, async (tx): Promise<{ key: string | null } | { busy: Booking }> => {
      const row = await one(tx.select().from(bookings).where(eq(bookings.id, bookingId)));
      if (!row || row.status !== "awaiting_payment") return { key: null };
      if (row.claim) return row.claim.movement === "authorize" && row.claim.intentId === intentId ? { key: null } : { busy: row };
      const attempt = row.claims + 1;
      const claim: BookingClaim = { movement: "authorize", key: movementKey(row.id, "authorize", attempt), intentId, from: "awaiting_payment", to: "pending", canceledBy: null, message: null, senderId: null };
      // Known as under way here before its commit, as `move`'s claims are: a cancellation meanwhile waits for it.
      claimUnderWay((made = claim.key));
      const updated = await one(tx
        .update(bookings)
        .set({ claim, claimedAt: now, claims: attempt, updatedAt: now })
        .where(and(eq(bookings.id, row.id), eq(bookings.status, "awaiting_payment"), isNull(bookings.claim)))
        .returning({ id: bookings.id }));
      if (!updated) return { busy: row };
      await schedule(tx, recoverJob, { bookingId: row.id }, { at: now + PAYMENT_RECOVERY_MS, key: jobKeys.recover(row.id, attempt) });
      return { key: claim.key };
    }).catch((err: unknown) => {
      if (made) claimSettled(made);
      throw err;
    });
    if (made && !("key" in claimed && claimed.key === made)) claimSettled(made);
    if ("key" in claimed) return claimed.key;
    // Another change under way here ends within moments; one left to its recovery (or another
    // process's) is not waited for: the guest is told at once that the booking is being finished.
    const other = claimed.busy.claim;
    if (other && !claimIsUnderWay(other.key)) throw beingFinished(deps, claimed.busy);
    if (performance.now() > deadline) throw new DomainError("booking.busy", 409);
    await Bun.sleep(20);
  }
}

/**
 * The claimed payment was not made: the claim is let go. A booking whose hold lapsed meanwhile
 * ends now: its hold job may have come and gone while the claim stood.
 */
async function rollBackPayment(deps: Deps, bookingId: string, key: string) {
  await rollBackClaim(deps, bookingId, key);
  const b = await currentBooking(deps, bookingId);
  if (b?.status === "awaiting_payment" && !b.claim && (b.holdUntil ?? 0) <= deps.now()) await endAwaitingPayment(deps, b.id, "expired", null);
}

/**
 * Step 4, the recovery of a checkout's claimed payment (its job, due `PAYMENT_RECOVERY_MS` after
 * the claim, or the sweep): what the provider shows is recorded once. A card it holds makes the
 * request (or, the booking's time taken meanwhile, is released as the booking ends); a card it
 * does not hold, or a read the provider refuses for sure, rolls the claim back. No answer throws,
 * and the job is retried.
 */
export async function recoverPayment(deps: Deps, bookingId: string, c: BookingClaim): Promise<"recorded" | "rolled back"> {
  let outcome: Awaited<ReturnType<typeof paymentAuthorised>>;
  try {
    const intent = await deps.payments.getIntent(c.intentId);
    outcome = intent?.status === "requires_capture" ? await paymentAuthorised(deps, bookingId, intent.id) : "ignored";
  } catch (err) {
    if (!recordRefused(err)) throw err;
    // The provider refuses for sure (an intent it will not read): asking again would meet the
    // same refusal for as long as the job is retried, the booking held meanwhile.
    console.error(`the payment of booking ${bookingId} was refused by the provider; it is let go: ${loggable(err, { stack: false })}`);
    await rollBackPayment(deps, bookingId, c.key);
    return "rolled back";
  }
  // Whatever it came to, the claim ends here (the record above cleared it when it made one).
  await rollBackPayment(deps, bookingId, c.key);
  return outcome === "ignored" ? "rolled back" : "recorded";
}
