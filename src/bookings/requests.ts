import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { writeTransaction, type WriteTx, one } from "../../db/client";
import { activities, bookings, type Booking, type BookingStatus } from "../../db/schema";
import type { Deps } from "../deps";
import { cancelJob } from "../jobs";
import { uuidLike } from "../../lib/validation";
import { guestBusy, slotRefusal } from "./availability";
import { announce, ledger, systemMessage } from "./claims";
import { acceptInstantlyNow, INSTANT_ANSWER_MS, instantUnansweredAt } from "./instant";
import { expireJob, instantAcceptJob, instantUnansweredJob, reconcileJob, schedule } from "./jobs";
import { bookingCallKeys, jobKeys } from "./keys";
import { currentBooking, providerCall, RECONCILE_MS, respondByOf } from "./service";
import { endAwaitingPayment, suspendedSide } from "./transitions";

/**
 * How a booking becomes a request (pending): only with an authorised card. Both places that make
 * one (`createBooking` in `checkout.ts`, and `paymentAuthorised` here for a booking that awaited
 * payment) do it through `recordRequest` inside their transaction and `requestMade` after its
 * commit. A booking awaiting payment that was paid after all (the provider's news lost, the
 * hosted page closed) becomes one when its hold lapses or its checkout ends; otherwise it ends.
 */

/**
 * What makes a booking a request, inside the transaction that makes it pending: the
 * authorisation's ledger row, the request's system message, its answer window and, for an
 * activity that books instantly (docs/decisions/0037), its accept, due at once. Answers the
 * system message, for `requestMade` to announce.
 */
export async function recordRequest(tx: WriteTx, deps: Deps, booking: Booking, intentId: string, instant: boolean, now: number) {
  await ledger(tx, deps, booking, "authorize", booking.totalCents, intentId);
  const request = await systemMessage(tx, deps, booking.id, "booking_request", booking.guestId);
  await schedule(tx, expireJob, { bookingId: booking.id }, { at: booking.respondBy, key: jobKeys.expire(booking.id) });
  if (instant) {
    await schedule(tx, instantAcceptJob, { bookingId: booking.id }, { at: now, key: jobKeys.instantAccept(booking.id) });
    await schedule(tx, instantUnansweredJob, { bookingId: booking.id }, { at: instantUnansweredAt(booking, now), key: jobKeys.instantUnanswered(booking.id) });
  }
  return request;
}

/**
 * After the commit that made a request: it is announced and, for an instant activity, its accept
 * runs now; `waitMs` is how long the answer waits for it (a guest's answer waits, a webhook does
 * not). Answers the booking as it is then.
 */
export async function requestMade(deps: Deps, booking: Booking, from: BookingStatus | null, request: Awaited<ReturnType<typeof recordRequest>>, instant: boolean, waitMs: number): Promise<Booking> {
  announce(deps, booking, from, request);
  if (!instant) return booking;
  return (await acceptInstantlyNow(deps, booking.id, waitMs)) ?? booking;
}

/** Releases an intent that pays for no booking (a lost race, a second payment), with its own key. */
export function releaseStray(deps: Deps, intentId: string) {
  return providerCall(() => deps.payments.release(intentId, bookingCallKeys.releaseStray(intentId)));
}

/**
 * An awaiting-payment booking whose card is now authorised becomes a request (pending). Called
 * by the checkout page (and its recovery), the provider's events and the hold job; idempotent. A
 * booking whose hold lapsed is revived when its slot is still free; when it is not (someone else
 * booked that time, or it has begun), the booking can never be paid, and it ends here as expired
 * with its payment released. A booking claimed by a release (the guest cancelled, the hold
 * lapsed) is not revived. The checkout's own claim of this payment (`payAwaitingBooking`) is
 * settled by this record, whoever learns of the payment first.
 *
 * For an activity that books instantly, the request's accept is scheduled with it and run at
 * once; `waitForAcceptMs` is how long to wait for it (a guest's answer waits, a webhook does not).
 */
export async function paymentAuthorised(deps: Deps, bookingId: string, intentId: string, waitForAcceptMs = 0): Promise<"advanced" | "already" | "released" | "ignored"> {
  const booking = await currentBooking(deps, bookingId);
  if (!booking) return "ignored";
  // The provider's news of this payment made the request first: the guest waits for its instant accept all the same.
  const already = async () => {
    if (waitForAcceptMs > 0) await acceptInstantlyNow(deps, bookingId, waitForAcceptMs);
    return "already" as const;
  };
  if (booking.status !== "awaiting_payment" && booking.paymentIntentId === intentId && booking.status !== "expired") return already();
  const intent = await deps.payments.getIntent(intentId);
  if (!intent || intent.metadata.bookingId !== booking.id || intent.status !== "requires_capture") return "ignored";
  if (intent.amountCents !== booking.totalCents) {
    await releaseStray(deps, intent.id);
    return "released";
  }
  const now = deps.now();
  const result = await writeTransaction(deps.db, async (tx) => {
    const current = (await one(tx.select().from(bookings).where(eq(bookings.id, booking.id))))!;
    // A payment the booking will not take, and does not know (the hosted page's, whose intent
    // only the news names): released below, and by its reconciliation job if the app dies first.
    const stray = async <T>(answer: T) => {
      if (intent.id !== current.paymentIntentId) await schedule(tx, reconcileJob, { intentId: intent.id }, { at: now + RECONCILE_MS, key: jobKeys.reconcileIntent(intent.id) });
      return answer;
    };
    // Paid already, with this intent (its accept may be under way); a second one (the hosted page
    // and the checkout screen both paid) is released.
    if (current.status === "pending" || current.status === "accepted" || current.status === "completed") return current.paymentIntentId === intent.id ? "already" : await stray("lost" as const);
    const ownClaim = current.claim?.movement === "authorize" && current.claim.intentId === intent.id;
    // A release under way ends the booking: this payment goes with it.
    if (current.claim && !ownClaim) return await stray("lost" as const);
    // A suspended guest or host takes no request: the booking ends as the suspension ends it, its card released.
    const suspended = await suspendedSide(tx, current);
    if (suspended) {
      if (ownClaim) await settleClaim(tx, current, now);
      return await stray(current.status === "awaiting_payment" ? { unpayable: current.paymentIntentId, suspended } : ("lost" as const));
    }
    // Past its hold, the slot may have been taken meanwhile: a late payment makes a request only
    // while nothing else holds that time (the hold lapsed, whether or not its job has run yet).
    // A group booking's session must still have its spots (`slotRefusal` counts them, this booking aside).
    const slotStillFree = async () => {
      if (current.startsAt <= now) return false;
      const activity = await one(tx.select().from(activities).where(eq(activities.id, current.activityId)));
      if (!activity || (await slotRefusal(tx, activity, current, { spots: current.spots, privateGroup: current.privateGroup }, now, current.id))) return false;
      return !(await guestBusy(tx, current.guestId, current.startsAt, current.endsAt, now, current.id));
    };
    const lapsed = current.holdUntil !== null && current.holdUntil <= now;
    const payable = current.status === "awaiting_payment" ? !lapsed || (await slotStillFree()) : current.status === "expired" && current.holdUntil !== null && (await slotStillFree());
    if (!payable) {
      if (ownClaim) await settleClaim(tx, current, now);
      // Still awaiting payment, and it never can be paid now: it ends (below), whatever told us.
      return await stray(current.status === "awaiting_payment" ? { unpayable: current.paymentIntentId, suspended: null } : ("lost" as const));
    }
    const respondBy = respondByOf(now, current.startsAt);
    const changed = await one(tx
      .update(bookings)
      .set({ status: "pending", paymentIntentId: intent.id, respondBy, holdUntil: null, claim: null, claimedAt: null, updatedAt: now })
      .where(and(eq(bookings.id, current.id), eq(bookings.status, current.status), eq(bookings.claims, current.claims), ownClaim ? isNotNull(bookings.claim) : isNull(bookings.claim)))
      .returning());
    if (!changed) return await stray("lost" as const);
    if (ownClaim) await cancelJob(tx, jobKeys.recover(changed.id, current.claims));
    await cancelJob(tx, jobKeys.hold(changed.id));
    const instant = (await one(tx.select({ on: activities.instantBooking }).from(activities).where(eq(activities.id, changed.activityId))))?.on ?? false;
    const request = await recordRequest(tx, deps, changed, intent.id, instant, now);
    return { changed, from: current.status, request, instant };
  });
  if (result === "lost") {
    await releaseStray(deps, intent.id);
    return "released";
  }
  if (result === "already") return already();
  if ("unpayable" in result) {
    // The booking's own payment is released with it, through the release's claim and the
    // booking's key; a payment it does not know (a hosted page's) is a stray, released with its own.
    await endAwaitingPayment(deps, booking.id, result.suspended ? "canceled" : "expired", result.suspended ?? null);
    if (result.unpayable !== intent.id) await releaseStray(deps, intent.id);
    return "released";
  }
  await requestMade(deps, result.changed, result.from, result.request, result.instant, waitForAcceptMs);
  return "advanced";
}

/** Clears the checkout's claim of a payment inside the transaction that settles it, with its recovery job. */
async function settleClaim(tx: WriteTx, booking: Booking, now: number) {
  await tx.update(bookings).set({ claim: null, claimedAt: null, updatedAt: now }).where(eq(bookings.id, booking.id));
  await cancelJob(tx, jobKeys.recover(booking.id, booking.claims));
}

/**
 * The hold of an awaiting-payment booking lapsed (job). Paid in time but the news was lost (on
 * the provider's hosted page or the checkout page), it becomes a request after all (or, its time
 * taken meanwhile, ends with the card released); otherwise it ends as expired, its hosted page
 * closed at the provider and its payment, if any, released. The job ends only once the booking
 * no longer awaits payment or a release of it is under way (which ends it): while its payment is
 * being claimed at checkout, or when another change got in the way, this throws and the job looks
 * again later, so no booking is left awaiting payment with nothing to end it.
 */
export async function lapseHold(deps: Deps, bookingId: string) {
  const booking = await currentBooking(deps, bookingId);
  if (!booking || booking.status !== "awaiting_payment" || booking.claim?.movement === "release") return;
  if (!booking.claim) {
    // Paid on the provider's hosted page, the news lost: a request after all. Its page is closed first.
    if (booking.checkoutSessionId && (await paidOnHostedPage(deps, booking, booking.checkoutSessionId))) return;
    if (booking.paymentIntentId) {
      const intent = await deps.payments.getIntent(booking.paymentIntentId);
      // Paid in time but the news was lost: it becomes a request after all.
      if (intent?.status === "requires_capture" && isPaid(await paymentAuthorised(deps, booking.id, intent.id))) return;
    }
    await endAwaitingPayment(deps, booking.id, "expired", null);
  }
  const left = await currentBooking(deps, booking.id);
  if (left?.status === "awaiting_payment" && left.claim?.movement !== "release") {
    throw new Error(`booking ${booking.id} still awaits payment after its hold lapsed (${left.claim ? `a ${left.claim.movement} claim is under way` : "it changed meanwhile"}); the job looks again`);
  }
}

export const isPaid = (outcome: Awaited<ReturnType<typeof paymentAuthorised>>) => outcome === "advanced" || outcome === "already";

/**
 * The hold job asks the provider about the booking's hosted checkout before the booking ends, as
 * the provider's news of a payment on it may never come (a webhook lost, or cut short by a crash),
 * and with Stripe the booking knows the session's intent only from that news:
 * - a session still open is expired first, with its own key, so nobody can pay on it once the
 *   booking has ended; the provider refuses to expire one paid meanwhile, and answers it as it is;
 * - a card held on the session goes to `paymentAuthorised`, the same record the news uses: the
 *   request is made, or, its time taken meanwhile, the booking ends and the card is released.
 * Answers whether the booking is a request now. No answer from the provider throws, and the job
 * looks again later: the booking does not end while its page may still take a payment.
 */
async function paidOnHostedPage(deps: Deps, booking: Booking, sessionId: string): Promise<boolean> {
  let session = await deps.payments.getCheckoutSession(sessionId);
  if (!session) return false;
  if (session.status === "open") session = await deps.payments.expireCheckoutSession(session.id, bookingCallKeys.expireCheckout(booking.id));
  if (!session.paymentIntentId) return false;
  const intent = await deps.payments.getIntent(session.paymentIntentId);
  return intent?.status === "requires_capture" && isPaid(await paymentAuthorised(deps, booking.id, intent.id));
}

/**
 * The guest left the hosted checkout page without paying (the test provider's cancel button), or
 * the provider expired the session: the hold ends now rather than when it lapses, and the
 * authorisation, if any, is released through a claim (docs/decisions/0028). Paid after all (the
 * news crossed): it becomes a request instead. Idempotent.
 */
export async function checkoutEnded(deps: Deps, bookingId: string, sessionId: string): Promise<"ended" | "paid" | "ignored"> {
  const booking = uuidLike(bookingId) ? await currentBooking(deps, bookingId) : undefined;
  if (!booking || booking.status !== "awaiting_payment" || booking.checkoutSessionId !== sessionId) return "ignored";
  if (booking.paymentIntentId) {
    const intent = await deps.payments.getIntent(booking.paymentIntentId);
    if (intent?.status === "requires_capture" && isPaid(await paymentAuthorised(deps, booking.id, intent.id))) return "paid";
  }
  if (await endAwaitingPayment(deps, booking.id, "expired", null)) return "ended";
  return (await currentBooking(deps, booking.id))?.status === "awaiting_payment" ? "ignored" : "ended";
}

/**
 * The guest's own booking, back from the hosted checkout (`/bookings?success=true&booking={id}`):
 * a payment the provider's news has not recorded yet is recorded now, and an instant accept is
 * waited for as a guest's answer waits (`INSTANT_ANSWER_MS`), so an instant booking is told as
 * booked. Null for an address that names no booking of theirs.
 */
export async function returnedFromCheckout(deps: Deps, guestId: string, bookingId: string | undefined): Promise<Booking | null> {
  if (!bookingId || !uuidLike(bookingId)) return null;
  const booking = await currentBooking(deps, bookingId);
  if (!booking || booking.guestId !== guestId) return null;
  if (booking.status === "awaiting_payment" && booking.paymentIntentId) await paymentAuthorised(deps, booking.id, booking.paymentIntentId, INSTANT_ANSWER_MS).catch((err: unknown) => console.error(`booking ${booking.id}: the payment back from the hosted checkout is left to the provider's news: ${String(err)}`));
  else if (booking.status === "pending") await acceptInstantlyNow(deps, booking.id, INSTANT_ANSWER_MS);
  return (await currentBooking(deps, booking.id)) ?? null;
}
