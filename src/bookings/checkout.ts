import { and, desc, eq, gt, inArray, isNotNull, isNull } from "drizzle-orm";
import { writeTransaction, type WriteTx, one, written } from "../../db/client";
import { activities, bookings, type Activity, type Booking, type BookingClaim, type BookingStatus, type User } from "../../db/schema";
import type { Deps } from "../deps";
import { cancelJob } from "../jobs";
import { decimalFromCents } from "../lib/money";
import { priceFor, type Price } from "../../shared/pricing";
import { DomainError, isDomainError } from "../lib/domain-error";
import { loggable } from "../lib/faults";
import { uuidLike } from "../lib/validation";
import { PaymentError, type PaymentIntent } from "../payments/provider";
import { guestBusy, hostBusy, checkSlotOpen } from "./availability";
import { expireJob, holdJob, instantAcceptJob, instantUnansweredJob, reconcileJob, recoverJob, schedule } from "./jobs";
import { bookingCallKeys, jobKeys, movementKey } from "./keys";
import { getSelection, saveSelection } from "./selection";
import {
  ABANDONED_HOLD_PAUSE_MS,
  bookableActivity,
  bookingMessage,
  FREE_ABANDONED_HOLDS,
  checkAmount,
  currentBooking,
  CURRENCY,
  HOLD_MS,
  providerCall,
  RECONCILE_MS,
  respondByOf,
  slotOrThrow,
} from "./service";
import type { Amount } from "./input";
import type { Slot } from "./times";
import { acceptInstantlyNow, announce, beingFinished, claimIsUnderWay, claimSettled, claimUnderWay, endAwaitingPayment, INSTANT_ANSWER_MS, instantUnansweredAt, ledger, PAYMENT_RECOVERY_MS, refusedForSure, rollBackClaim, suspendedSide, systemMessage } from "./transitions";

/**
 * The three ways a guest pays for a request (spec §7): the date-time screen (an intent for a
 * slot, then the booking once the card is held), the booking dialog (a booking holding the slot
 * while the provider's hosted page takes the card) and the checkout page (the card form for a
 * booking awaiting payment). A booking becomes a request (pending) only with an authorised card.
 *
 * Both places that make a request pending (`createBooking`, `paymentAuthorised`) do it through
 * `recordRequest` inside their transaction and `requestMade` after its commit.
 */

/**
 * What makes a booking a request, inside the transaction that makes it pending: the
 * authorisation's ledger row, the request's system message, its answer window and, for an
 * activity that books instantly (docs/decisions/0037), its accept, due at once. Answers the
 * system message, for `requestMade` to announce.
 */
async function recordRequest(tx: WriteTx, deps: Deps, booking: Booking, intentId: string, instant: boolean, now: number) {
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
async function requestMade(deps: Deps, booking: Booking, from: BookingStatus | null, request: Awaited<ReturnType<typeof recordRequest>>, instant: boolean, waitMs: number): Promise<Booking> {
  announce(deps, booking, from, request);
  if (!instant) return booking;
  return (await acceptInstantlyNow(deps, booking.id, waitMs)) ?? booking;
}

function intentMetadata(guest: User, activity: Activity, slot: Slot, extra: Record<string, string> = {}) {
  return {
    activityId: activity.id,
    guestId: guest.id,
    date: slot.date,
    time: slot.time,
    duration: String(slot.durationMinutes / 60),
    ...extra,
  };
}

/** Releases an intent that pays for no booking (a lost race, a second payment), with its own key. */
function releaseStray(deps: Deps, intentId: string) {
  return providerCall(() => deps.payments.release(intentId, bookingCallKeys.releaseStray(intentId)));
}

// ---------------------------------------------------------------------------------------------
// Date-time flow: a payment intent for a slot, then the booking once the card is authorised.

/**
 * `POST /api/create-payment-intent` with `amount` and `metadata {activityId, date, time,
 * duration}`: a manual-capture intent for the server's price. Nothing is held yet: the booking
 * (and the hold on the host's time) is made once the card is authorised.
 */
export async function intentForSlot(deps: Deps, guest: User, input: { activityId: string; date: string; time: string; durationMinutes: number; amount: Amount; nonce?: string }) {
  const activity = await bookableActivity(deps, guest, input.activityId);
  const slot = slotOrThrow(activity, input, "datetime", deps.now());
  const price = priceFor(activity.hourlyRateCents, slot.durationMinutes);
  checkAmount(input.amount, price);
  await checkSlotOpen(deps, activity, slot, guest.id);
  const key = `intent:${guest.id}:${activity.id}:${slot.startsAtLocal}:${slot.durationMinutes}:${price.totalCents}:${input.nonce ?? crypto.randomUUID()}`;
  const create = (k: string) =>
    providerCall(() =>
      deps.payments.createIntent({ amountCents: price.totalCents, currency: CURRENCY, metadata: intentMetadata(guest, activity, slot, { flow: "datetime" }), description: activity.title }, k),
    );
  let intent = await create(key);
  // The intent this choice had was released (a lost race, a lapsed hold): a new one.
  if (intent.status === "canceled" || intent.status === "succeeded") intent = await create(`${key}:${crypto.randomUUID()}`);
  await writeTransaction(deps.db, (tx) => schedule(tx, reconcileJob, { intentId: intent.id }, { at: deps.now() + RECONCILE_MS, key: jobKeys.reconcileIntent(intent.id) }));
  return { intent, activity, slot, price };
}

/**
 * The date-time screen's `POST /api/create-payment-intent`: for the choice the guest saved, the
 * intent is keyed by that choice's nonce, so asking again gives the same one.
 */
export async function intentForSavedChoice(deps: Deps, guest: User, input: { activityId: string; date: string; time: string; durationMinutes: number; amount: Amount }) {
  const selection = await getSelection(deps, guest.id, input.activityId);
  const same = selection && selection.date === input.date && selection.time === input.time && selection.durationMinutes === input.durationMinutes;
  return intentForSlot(deps, guest, { ...input, nonce: same ? selection.nonce : undefined });
}

/** The date-time screen's choice, checked against the rules and saved for the payment screen. */
export async function saveChoice(deps: Deps, guest: User, activity: Activity, pick: { date: string; time: string; durationMinutes?: number }) {
  await bookableActivity(deps, guest, activity.id);
  const slot = slotOrThrow(activity, { date: pick.date, time: pick.time, durationMinutes: pick.durationMinutes }, "datetime", deps.now());
  await checkSlotOpen(deps, activity, slot, guest.id);
  return saveSelection(deps, guest.id, activity.id, slot);
}

/**
 * The booking dialog's first step: the choice checked against the rules (bookable, a message, a
 * slot the host and the guest both have free) before the guest is sent to pay; its price.
 */
export async function quoteRequest(deps: Deps, guest: User, activity: Activity, choice: { message: string; date: string; time: string; hours: number }): Promise<Price> {
  await bookableActivity(deps, guest, activity.id);
  bookingMessage(choice.message, { required: true });
  const slot = slotOrThrow(activity, { date: choice.date, time: choice.time, durationMinutes: choice.hours * 60 }, "dialog", deps.now());
  await checkSlotOpen(deps, activity, slot, guest.id);
  return priceFor(activity.hourlyRateCents, slot.durationMinutes);
}

/** The row of a new booking of a slot, with the server's prices; the caller sets its status. */
function newBooking(
  deps: Deps,
  b: { guest: { id: string }; activity: Pick<Activity, "id" | "hostId" | "hourlyRateCents">; slot: Slot; price: Price; message: string | null; now: number },
) {
  return {
    id: crypto.randomUUID(),
    guestId: b.guest.id,
    hostId: b.activity.hostId,
    activityId: b.activity.id,
    startsAtLocal: b.slot.startsAtLocal,
    timeZone: b.slot.timeZone,
    startsAt: b.slot.startsAt,
    endsAt: b.slot.endsAt,
    durationMinutes: b.slot.durationMinutes,
    hourlyRateCents: b.activity.hourlyRateCents,
    ...b.price,
    currency: CURRENCY,
    message: b.message,
    paymentProvider: deps.payments.name,
    respondBy: respondByOf(b.now, b.slot.startsAt),
    createdAt: b.now,
    updatedAt: b.now,
  };
}

const byIntent = async (deps: Deps, intentId: string) => await one(deps.db.select().from(bookings).where(eq(bookings.paymentIntentId, intentId)));

/**
 * `POST /api/bookings`: the request, made once the card is authorised. The intent must be the
 * guest's, for this activity and slot, for the server's price, and authorised. The booking is
 * inserted in one write transaction that first looks for the booking this intent already made
 * (the same request sent twice at once gets that one), then checks nothing holds the host's time;
 * when the slot was taken meanwhile, the authorisation is released at once and the guest told.
 */
export async function createBooking(
  deps: Deps,
  guest: User,
  input: { activityId: string; date: string; time: string; durationMinutes: number; priceTotal: Amount; paymentIntentId?: string; message?: string },
): Promise<{ booking: Booking; created: boolean }> {
  const activity = await bookableActivity(deps, guest, input.activityId);
  // Checked before the provider is asked anything: a refused message leaves the card as it was.
  const message = bookingMessage(input.message, { required: false });
  const intentId = input.paymentIntentId?.trim();
  if (!intentId || input.paymentIntentId!.length > 200) throw new DomainError("booking.paymentRequired", 400);
  const already = await byIntent(deps, intentId);
  if (already) {
    if (already.guestId !== guest.id) throw new DomainError("booking.paymentNotFound", 404);
    return { booking: already, created: false };
  }
  const slot = slotOrThrow(activity, input, "datetime", deps.now());
  const price = priceFor(activity.hourlyRateCents, slot.durationMinutes);
  const intent = await providerCall(() => deps.payments.getIntent(intentId));
  if (!intent || intent.metadata.guestId !== guest.id) throw new DomainError("booking.paymentNotFound", 404);
  if (intent.metadata.activityId !== activity.id || intent.amountCents !== price.totalCents || intent.metadata.date !== slot.date || intent.metadata.time !== slot.time || intent.metadata.duration !== String(slot.durationMinutes / 60)) {
    if (intent.status === "requires_capture" && !(await byIntent(deps, intent.id))) await releaseStray(deps, intent.id);
    throw new DomainError("booking.paymentMismatch", 409, { extra: { priceTotal: decimalFromCents(price.totalCents) } });
  }
  try {
    checkAmount(input.priceTotal, price);
  } catch (err) {
    if (isDomainError(err) && err.status === 409 && intent.status === "requires_capture" && !(await byIntent(deps, intent.id))) await releaseStray(deps, intent.id);
    throw err;
  }
  // The provider's words for it ("Your card was declined.") go with it, for the card form to show.
  if (intent.status !== "requires_capture") throw new DomainError("booking.paymentNotAuthorised", 402, intent.lastError ? { said: intent.lastError } : {});

  const now = deps.now();
  const made = await writeTransaction(deps.db, async (tx) => {
    // The same authorisation sent twice at once: the first one made the booking, and it is the
    // answer, never a reason to release the card it holds.
    const first = await one(tx.select().from(bookings).where(eq(bookings.paymentIntentId, intent.id)));
    if (first) return { made: false as const, booking: first };
    if (await hostBusy(tx, activity.hostId, slot.startsAt, slot.endsAt, now)) return "hostBusy" as const;
    if (await guestBusy(tx, guest.id, slot.startsAt, slot.endsAt, now)) return "guestBusy" as const;
    const row = await written(tx
      .insert(bookings)
      .values({ ...newBooking(deps, { guest, activity, slot, price, message, now }), status: "pending", paymentIntentId: intent.id })
      .returning());
    const request = await recordRequest(tx, deps, row, intent.id, activity.instantBooking, now);
    return { made: true as const, booking: row, request };
  });
  if (typeof made === "string") {
    // Taken meanwhile, by someone else or by another booking of the guest's: the hold goes at once
    // (a crash before it does leaves it to the intent's reconciliation job).
    await releaseStray(deps, intent.id);
    throw new DomainError(made === "hostBusy" ? "booking.slotTakenReleased" : "booking.guestBusyReleased", 409);
  }
  if (!made.made) {
    if (made.booking.guestId !== guest.id) throw new DomainError("booking.paymentNotFound", 404);
    return { booking: made.booking, created: false };
  }
  // The guest is waiting for this answer: it waits (briefly) for an instant accept.
  return { booking: await requestMade(deps, made.booking, null, made.request, activity.instantBooking, INSTANT_ANSWER_MS), created: true };
}

// ---------------------------------------------------------------------------------------------
// Booking dialog and checkout page: the booking exists first, holding the slot while the guest pays.

/**
 * The dialog's `POST /api/create-payment-intent`: an awaiting-payment booking holding the slot
 * for 15 minutes, and a hosted checkout session for it, which sends the guest back to
 * `/bookings?success=true` or `?canceled=true` on `returnTo`. Asking again for the same choice while
 * the hold lasts gives the same booking and session.
 */
export async function startCheckout(
  deps: Deps,
  guest: User,
  input: { activityId: string; date: string; time: string; durationMinutes: number; amount?: Amount; message?: string },
  /** The origin the provider's page sends the guest back to (`returnBase`). */
  returnTo: string,
) {
  const activity = await bookableActivity(deps, guest, input.activityId);
  const message = bookingMessage(input.message, { required: true })!;
  const slot = slotOrThrow(activity, input, "dialog", deps.now());
  const price = priceFor(activity.hourlyRateCents, slot.durationMinutes);
  checkAmount(input.amount, price);
  const now = deps.now();

  const booking = await writeTransaction(deps.db, async (tx) => {
    const mine = await one(tx
      .select()
      .from(bookings)
      .where(and(eq(bookings.guestId, guest.id), eq(bookings.activityId, activity.id), eq(bookings.status, "awaiting_payment"), eq(bookings.startsAt, slot.startsAt), eq(bookings.durationMinutes, slot.durationMinutes), gt(bookings.holdUntil, now))));
    if (mine) {
      if (mine.message !== message) await tx.update(bookings).set({ message, updatedAt: now }).where(eq(bookings.id, mine.id));
      return mine;
    }
    // Holding a host's time costs something (docs/decisions/0030): one unpaid hold per person at
    // a time, and a pause once several were left unpaid within the hour.
    if (await one(tx.select({ id: bookings.id }).from(bookings).where(and(eq(bookings.guestId, guest.id), eq(bookings.status, "awaiting_payment"), gt(bookings.holdUntil, now))))) return "holding" as const;
    const wait = await abandonedHoldPause(tx, guest.id, now);
    if (wait > 0) return { pause: wait };
    if (await hostBusy(tx, activity.hostId, slot.startsAt, slot.endsAt, now)) return "hostBusy" as const;
    if (await guestBusy(tx, guest.id, slot.startsAt, slot.endsAt, now)) return "guestBusy" as const;
    const row = await written(tx
      .insert(bookings)
      .values({ ...newBooking(deps, { guest, activity, slot, price, message, now }), status: "awaiting_payment", holdUntil: now + HOLD_MS })
      .returning());
    await schedule(tx, holdJob, { bookingId: row.id }, { at: row.holdUntil!, key: jobKeys.hold(row.id) });
    return row;
  });
  if (booking === "hostBusy") throw new DomainError("booking.slotTaken", 409);
  if (booking === "guestBusy") throw new DomainError("booking.guestBusy", 409);
  if (booking === "holding") throw new DomainError("booking.holdElsewhere", 409);
  if ("pause" in booking) throw new DomainError("booking.tooManyAbandoned", 429, { extra: { retryAfterSeconds: Math.ceil(booking.pause / 1000) }, retryAfterMs: booking.pause });

  const session = await providerCall(() =>
    deps.payments.createCheckoutSession(
      {
        amountCents: booking.totalCents,
        currency: CURRENCY,
        metadata: { bookingId: booking.id, ...intentMetadata(guest, activity, slot, { flow: "dialog" }) },
        description: activity.title,
        successUrl: `${returnTo}/bookings?success=true`,
        cancelUrl: `${returnTo}/bookings?canceled=true`,
      },
      bookingCallKeys.checkout(booking.id),
    ),
  );
  await writeTransaction(deps.db, (tx) => tx
    .update(bookings)
    .set({ checkoutSessionId: session.id, paymentIntentId: session.paymentIntentId ?? booking.paymentIntentId, updatedAt: deps.now() })
    .where(and(eq(bookings.id, booking.id), eq(bookings.status, "awaiting_payment"))));
  const intentId = session.paymentIntentId;
  if (intentId) await writeTransaction(deps.db, (tx) => schedule(tx, reconcileJob, { intentId }, { at: now + RECONCILE_MS, key: jobKeys.reconcileIntent(intentId) }));
  return { booking, session };
}

/**
 * How long a guest waits before a new hold, from the holds they left unpaid in the last hour
 * (ended as expired or cancelled while still awaiting payment: a paid one loses its `holdUntil`):
 * none for the first `FREE_ABANDONED_HOLDS`, then `ABANDONED_HOLD_PAUSE_MS` after the last one,
 * doubling with each further one, up to the hour.
 */
async function abandonedHoldPause(tx: WriteTx, guestId: string, now: number): Promise<number> {
  const abandoned = await tx
    .select({ endedAt: bookings.updatedAt })
    .from(bookings)
    .where(and(eq(bookings.guestId, guestId), inArray(bookings.status, ["expired", "canceled"]), isNotNull(bookings.holdUntil), gt(bookings.updatedAt, now - HOUR_MS)))
    .orderBy(desc(bookings.updatedAt));
  if (abandoned.length < FREE_ABANDONED_HOLDS) return 0;
  const pause = Math.min(ABANDONED_HOLD_PAUSE_MS * 2 ** (abandoned.length - FREE_ABANDONED_HOLDS), HOUR_MS);
  return Math.max(abandoned[0]!.endedAt + pause - now, 0);
}

const HOUR_MS = 60 * 60 * 1000;

/** A booking its guest may pay for now (the checkout page), or null. */
export async function payableBooking(deps: Deps, guestId: string, bookingId: unknown): Promise<Booking | null> {
  if (!uuidLike(bookingId)) return null;
  const b = await currentBooking(deps, bookingId);
  if (!b || b.guestId !== guestId || b.status !== "awaiting_payment" || (b.holdUntil ?? 0) <= deps.now()) return null;
  return b;
}

/** The existing-booking `POST /api/create-payment-intent` (`bookingId`, `amount`): its intent. */
export async function intentForBooking(deps: Deps, guest: User, input: { bookingId: string; amount: Amount }): Promise<{ booking: Booking; intent: PaymentIntent }> {
  const booking = await payableBooking(deps, guest.id, input.bookingId);
  if (!booking) throw new DomainError("booking.notFound", 404);
  checkAmount(input.amount, booking);
  if (booking.paymentIntentId) {
    const existing = await providerCall(() => deps.payments.getIntent(booking.paymentIntentId!));
    if (existing && existing.status !== "canceled") return { booking, intent: existing };
  }
  const intent = await providerCall(() =>
    deps.payments.createIntent(
      {
        amountCents: booking.totalCents,
        currency: CURRENCY,
        metadata: { bookingId: booking.id, activityId: booking.activityId, guestId: guest.id, date: booking.startsAtLocal.slice(0, 10), time: booking.startsAtLocal.slice(11, 16), duration: String(booking.durationMinutes / 60), flow: "checkout" },
      },
      bookingCallKeys.intent(booking.id),
    ),
  );
  await writeTransaction(deps.db, (tx) => tx.update(bookings).set({ paymentIntentId: intent.id, updatedAt: deps.now() }).where(and(eq(bookings.id, booking.id), eq(bookings.status, "awaiting_payment"))));
  await writeTransaction(deps.db, (tx) => schedule(tx, reconcileJob, { intentId: intent.id }, { at: deps.now() + RECONCILE_MS, key: jobKeys.reconcileIntent(intent.id) }));
  return { booking: { ...booking, paymentIntentId: intent.id }, intent };
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
    const slotStillFree = async () =>
      current.startsAt > now && !(await hostBusy(tx, current.hostId, current.startsAt, current.endsAt, now, current.id)) && !(await guestBusy(tx, current.guestId, current.startsAt, current.endsAt, now, current.id));
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

const isPaid = (outcome: Awaited<ReturnType<typeof paymentAuthorised>>) => outcome === "advanced" || outcome === "already";

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

// ---------------------------------------------------------------------------------------------
// Paying for a held booking on the checkout page, through a claim (docs/decisions/0046).

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
