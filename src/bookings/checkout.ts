import { and, desc, eq, gt, inArray, isNotNull } from "drizzle-orm";
import { writeTransaction, type WriteTx, one, written } from "../../db/client";
import { bookings, type Activity, type Booking, type User } from "../../db/schema";
import type { Deps } from "../deps";
import { decimalFromCents } from "../../lib/money";
import type { Price } from "../../shared/pricing";
import { PAYMENT_INTENT_ID_MAX } from "../../shared/limits";
import { DomainError } from "../../lib/domain-error";
import { uuidLike } from "../../lib/validation";
import type { PaymentIntent } from "../ports/payments";
import { guestBusy, checkSlotOpen, slotRefusal } from "./availability";
import { bookingPrice, bookingSeats, readSpots, seatsRefused, type SeatsRefusal, type SpotsChoice } from "./sessions";
import { INSTANT_ANSWER_MS } from "./instant";
import { holdJob, reconcileJob, schedule } from "./jobs";
import { scheduleMinimum } from "./minimum";
import { bookingCallKeys, jobKeys } from "./keys";
import { recordRequest, releaseStray, requestMade } from "./requests";
import { getSelection, saveSelection } from "./selection";
import {
  ABANDONED_HOLD_PAUSE_MS,
  bookableActivity,
  bookingMessage,
  FREE_ABANDONED_HOLDS,
  checkAmount,
  currentBooking,
  HOLD_MS,
  providerCall,
  RECONCILE_MS,
  respondByOf,
} from "./service";
import { readSlot, type Slot } from "./times";

/**
 * The three ways a guest pays for a request (spec §7): the date-time screen (an intent for a
 * slot, then the booking once the card is held), the booking dialog (a booking holding the slot
 * while the provider's hosted page takes the card) and the checkout page (the card form for a
 * booking awaiting payment). A booking becomes a request (pending) only with an authorised card.
 *
 * How a request is made, and how a held booking's payment becomes one: `requests.ts`; paying for
 * a held booking on the checkout page, through a claim: `checkout-payment.ts`.
 */

/**
 * A slot as a guest chooses it: the activity, a date, a start time and a duration (the rules read
 * it: `readSlot`); for a group session, the spots and whether it is taken whole (`readSpots`).
 */
export interface SlotChoice {
  activityId: string;
  date: string;
  time: string;
  /** Minutes; none sent reads as the session's length for a group, and is refused for a private activity. */
  durationMinutes: number | undefined;
  spots?: number;
  privateGroup?: boolean;
}

function intentMetadata(guest: User, activity: Activity, slot: Slot, choice: SpotsChoice, extra: Record<string, string> = {}) {
  return {
    activityId: activity.id,
    guestId: guest.id,
    date: slot.date,
    time: slot.time,
    duration: String(slot.durationMinutes / 60),
    spots: String(choice.spots),
    ...(choice.privateGroup ? { privateGroup: "true" } : {}),
    ...extra,
  };
}

// ---------------------------------------------------------------------------------------------
// Date-time flow: a payment intent for a slot, then the booking once the card is authorised.

/**
 * `POST /api/create-payment-intent` with `amount` and `metadata {activityId, date, time,
 * duration}`: a manual-capture intent for the server's price. Nothing is held yet: the booking
 * (and the hold on the host's time) is made once the card is authorised.
 */
/** `amount`: the client's figure, a decimal in the activity's currency (none: the server's own price). */
export async function intentForSlot(deps: Deps, guest: User, input: SlotChoice & { amount: string | undefined; nonce?: string }) {
  const activity = await bookableActivity(deps, guest, input.activityId);
  const slot = readSlot(activity, input, "datetime", deps.now());
  const choice = readSpots(activity, input);
  const price = bookingPrice(activity, slot, choice);
  checkAmount(input.amount, price, activity.currency);
  await checkSlotOpen(deps, activity, slot, guest.id, choice);
  const seats = choice.privateGroup ? `${choice.spots}p` : String(choice.spots);
  const key = `intent:${guest.id}:${activity.id}:${slot.startsAtLocal}:${slot.durationMinutes}:${seats}:${price.totalCents}:${input.nonce ?? crypto.randomUUID()}`;
  const create = (k: string) =>
    providerCall(() =>
      deps.payments.createIntent({ amountCents: price.totalCents, currency: activity.currency, metadata: intentMetadata(guest, activity, slot, choice, { flow: "datetime" }), description: activity.title }, k),
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
export async function intentForSavedChoice(deps: Deps, guest: User, input: SlotChoice & { amount: string | undefined }) {
  const selection = await getSelection(deps, guest.id, input.activityId);
  const same =
    selection &&
    selection.date === input.date &&
    selection.time === input.time &&
    selection.durationMinutes === (input.durationMinutes ?? selection.durationMinutes) &&
    selection.spots === (input.spots ?? selection.spots) &&
    selection.privateGroup === (input.privateGroup ?? false);
  return intentForSlot(deps, guest, { ...input, nonce: same ? selection.nonce : undefined });
}

/** The date-time screen's choice, checked against the rules and saved for the payment screen. */
export async function saveChoice(deps: Deps, guest: User, activity: Activity, pick: { date: string; time: string; durationMinutes: number | undefined; spots?: number; privateGroup?: boolean }) {
  await bookableActivity(deps, guest, activity.id);
  const slot = readSlot(activity, pick, "datetime", deps.now());
  const choice = readSpots(activity, pick);
  await checkSlotOpen(deps, activity, slot, guest.id, choice);
  return saveSelection(deps, guest.id, activity.id, slot, choice);
}

/**
 * The booking dialog's first step: the choice checked against the rules (bookable, a message, a
 * slot the host and the guest both have free) before the guest is sent to pay; its price.
 */
export async function quoteRequest(deps: Deps, guest: User, activity: Activity, choice: { message: string; date: string; time: string; hours: number; spots?: number; privateGroup?: boolean }): Promise<Price> {
  await bookableActivity(deps, guest, activity.id);
  bookingMessage(choice.message, { required: true });
  const slot = readSlot(activity, { date: choice.date, time: choice.time, durationMinutes: choice.hours * 60 }, "dialog", deps.now());
  const seats = readSpots(activity, choice);
  await checkSlotOpen(deps, activity, slot, guest.id, seats);
  return bookingPrice(activity, slot, seats);
}

/** The row of a new booking of a slot, with the server's prices; the caller sets its status. */
function newBooking(
  deps: Deps,
  b: { guest: { id: string }; activity: Activity; slot: Slot; choice: SpotsChoice; price: Price; message: string | null; now: number },
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
    ...bookingSeats(b.activity, b.choice),
    // Its activity's currency, kept for ever: every amount of the booking is in it.
    currency: b.activity.currency,
    // The policy the guest was shown: later edits of the activity never change it (docs/decisions/0050).
    cancellationPolicy: b.activity.cancellationPolicy,
    message: b.message,
    paymentProvider: deps.payments.name,
    respondBy: respondByOf(b.now, b.slot.startsAt),
    createdAt: b.now,
    updatedAt: b.now,
  };
}

/**
 * Why a slot was refused inside the transaction that would have made its booking, as the guest
 * reads it; `released`: the card held for it was let go.
 */
function slotRefused(refusal: SlotRefusal, released: boolean): DomainError {
  if (refusal.key === "hostBusy") return new DomainError(released ? "booking.slotTakenReleased" : "booking.slotTaken", 409);
  if (refusal.key === "guestBusy") return new DomainError(released ? "booking.guestBusyReleased" : "booking.guestBusy", 409);
  return seatsRefused(refusal, released);
}

type SlotRefusal = SeatsRefusal | { key: "hostBusy" } | { key: "guestBusy" };

const byIntent = async (deps: Deps, intentId: string) => await one(deps.db.select().from(bookings).where(eq(bookings.paymentIntentId, intentId)));

/**
 * `POST /api/bookings`: the request, made once the card is authorised. Each step is one check
 * that refuses on its own: the activity is bookable, the message reads, an intent is named; a
 * booking this intent made already is the answer; the slot keeps the rules; the intent is the
 * guest's, for this activity, slot and price, and authorised. The request is then inserted
 * (`insertRequest`); when its time was taken meanwhile, the authorisation is released at once
 * and the guest told.
 */
export async function createBooking(deps: Deps, guest: User, input: SlotChoice & { priceTotal: string | undefined; paymentIntentId?: string; message?: string }): Promise<{ booking: Booking; created: boolean }> {
  const activity = await bookableActivity(deps, guest, input.activityId);
  // Checked before the provider is asked anything: a refused message leaves the card as it was.
  const message = bookingMessage(input.message, { required: false });
  const intentId = namedIntent(input.paymentIntentId);
  const already = await byIntent(deps, intentId);
  if (already) return { booking: guestsOwn(already, guest), created: false };
  const slot = readSlot(activity, input, "datetime", deps.now());
  const choice = readSpots(activity, input);
  const price = bookingPrice(activity, slot, choice);
  const intent = await guestsIntent(deps, guest, intentId);
  await checkIntentPaysFor(deps, intent, activity, slot, choice, price);
  await checkPriceTotal(deps, intent, input.priceTotal, price, activity.currency);
  checkAuthorised(intent);
  const made = await insertRequest(deps, guest, activity, slot, choice, price, message, intent);
  if (!made.made) return { booking: guestsOwn(made.booking, guest), created: false };
  // The guest is waiting for this answer: it waits (briefly) for an instant accept.
  return { booking: await requestMade(deps, made.booking, null, made.request, activity.instantBooking, INSTANT_ANSWER_MS), created: true };
}

/** The intent a request names (Stripe's card form names it): required, and no longer than an intent's id. */
export function namedIntent(sent: string | undefined): string {
  const intentId = sent?.trim();
  if (!intentId || sent!.length > PAYMENT_INTENT_ID_MAX) throw new DomainError("booking.paymentRequired", 400);
  return intentId;
}

/** A booking its intent made already is the answer to the guest who made it; to anyone else, no payment of theirs. */
function guestsOwn(booking: Booking, guest: User): Booking {
  if (booking.guestId !== guest.id) throw new DomainError("booking.paymentNotFound", 404);
  return booking;
}

/** The intent as the provider has it: it must be the guest's. */
async function guestsIntent(deps: Deps, guest: User, intentId: string): Promise<PaymentIntent> {
  const intent = await providerCall(() => deps.payments.getIntent(intentId));
  if (!intent || intent.metadata.guestId !== guest.id) throw new DomainError("booking.paymentNotFound", 404);
  return intent;
}

/** A held card of a refused request that pays for no booking is let go at once (else its reconciliation job does it). */
async function releaseIfStray(deps: Deps, intent: PaymentIntent) {
  if (intent.status === "requires_capture" && !(await byIntent(deps, intent.id))) await releaseStray(deps, intent.id);
}

/** The intent must pay for this activity, slot and spots at the server's price: one made for another choice is refused (409). */
async function checkIntentPaysFor(deps: Deps, intent: PaymentIntent, activity: Activity, slot: Slot, choice: SpotsChoice, price: Price) {
  const m = intent.metadata;
  const sameSeats = (m.spots ?? "1") === String(choice.spots) && (m.privateGroup === "true") === choice.privateGroup;
  if (m.activityId !== activity.id || intent.amountCents !== price.totalCents || intent.currency !== activity.currency || m.date !== slot.date || m.time !== slot.time || m.duration !== String(slot.durationMinutes / 60) || !sameSeats) {
    await releaseIfStray(deps, intent);
    throw new DomainError("booking.paymentMismatch", 409, { extra: { priceTotal: decimalFromCents(price.totalCents, activity.currency), currency: activity.currency } });
  }
}

/** The guest's total must agree with the server's price (`checkAmount`, 409). */
async function checkPriceTotal(deps: Deps, intent: PaymentIntent, total: string | undefined, price: Price, currency: string) {
  try {
    checkAmount(total, price, currency);
  } catch (err) {
    await releaseIfStray(deps, intent);
    throw err;
  }
}

/** The card must be held; the provider's words for why not ("Your card was declined.") go with the refusal, for the card form to show. */
function checkAuthorised(intent: PaymentIntent) {
  if (intent.status !== "requires_capture") throw new DomainError("booking.paymentNotAuthorised", 402, intent.lastError ? { said: intent.lastError } : {});
}

/**
 * The request, inserted in one write transaction that first looks for the booking this intent
 * already made (the same request sent twice at once gets that one), then checks nothing holds the
 * host's time or the guest's. Taken meanwhile, by someone else or by another booking of the
 * guest's: the hold goes at once (a crash before it does leaves it to the intent's reconciliation
 * job) and the guest is told (409).
 */
async function insertRequest(deps: Deps, guest: User, activity: Activity, slot: Slot, choice: SpotsChoice, price: Price, message: string | null, intent: PaymentIntent) {
  const now = deps.now();
  const made = await writeTransaction(deps.db, async (tx) => {
    // The same authorisation sent twice at once: the first one made the booking, and it is the
    // answer, never a reason to release the card it holds.
    const first = await one(tx.select().from(bookings).where(eq(bookings.paymentIntentId, intent.id)));
    if (first) return { made: false as const, booking: first };
    const refused: SlotRefusal | null = (await slotRefusal(tx, activity, slot, choice, now)) ?? ((await guestBusy(tx, guest.id, slot.startsAt, slot.endsAt, now)) ? { key: "guestBusy" } : null);
    if (refused) return { refused };
    const row = await written(tx
      .insert(bookings)
      .values({ ...newBooking(deps, { guest, activity, slot, choice, price, message, now }), status: "pending", paymentIntentId: intent.id })
      .returning());
    const request = await recordRequest(tx, deps, row, intent.id, activity.instantBooking, now);
    await scheduleMinimum(tx, activity, row);
    return { made: true as const, booking: row, request };
  });
  if ("refused" in made && made.refused) {
    await releaseStray(deps, intent.id);
    throw slotRefused(made.refused, true);
  }
  return made;
}

// ---------------------------------------------------------------------------------------------
// Booking dialog and checkout page: the booking exists first, holding the slot while the guest pays.

/**
 * The dialog's `POST /api/create-payment-intent`: an awaiting-payment booking holding the slot
 * for 15 minutes, and a hosted checkout session for it, which sends the guest back to
 * `/bookings?success=true&booking={id}` or `?canceled=true` on `returnTo`. Asking again for the same choice while
 * the hold lasts gives the same booking and session.
 */
export async function startCheckout(
  deps: Deps,
  guest: User,
  input: SlotChoice & { amount: string | undefined; message?: string },
  /** The origin the provider's page sends the guest back to (`returnBase`). */
  returnTo: string,
) {
  const activity = await bookableActivity(deps, guest, input.activityId);
  const message = bookingMessage(input.message, { required: true })!;
  const slot = readSlot(activity, input, "dialog", deps.now());
  const choice = readSpots(activity, input);
  const price = bookingPrice(activity, slot, choice);
  checkAmount(input.amount, price, activity.currency);
  const now = deps.now();

  const booking = await writeTransaction(deps.db, async (tx) => {
    const mine = await one(tx
      .select()
      .from(bookings)
      .where(and(eq(bookings.guestId, guest.id), eq(bookings.activityId, activity.id), eq(bookings.status, "awaiting_payment"), eq(bookings.startsAt, slot.startsAt), eq(bookings.durationMinutes, slot.durationMinutes), eq(bookings.spots, choice.spots), eq(bookings.privateGroup, choice.privateGroup), gt(bookings.holdUntil, now))));
    if (mine) {
      if (mine.message !== message) await tx.update(bookings).set({ message, updatedAt: now }).where(eq(bookings.id, mine.id));
      return mine;
    }
    // Holding a host's time costs something (docs/decisions/0030): one unpaid hold per person at
    // a time, and a pause once several were left unpaid within the hour.
    if (await one(tx.select({ id: bookings.id }).from(bookings).where(and(eq(bookings.guestId, guest.id), eq(bookings.status, "awaiting_payment"), gt(bookings.holdUntil, now))))) return "holding" as const;
    const wait = await abandonedHoldPause(tx, guest.id, now);
    if (wait > 0) return { pause: wait };
    const refused: SlotRefusal | null = (await slotRefusal(tx, activity, slot, choice, now)) ?? ((await guestBusy(tx, guest.id, slot.startsAt, slot.endsAt, now)) ? { key: "guestBusy" } : null);
    if (refused) return { refused };
    const row = await written(tx
      .insert(bookings)
      .values({ ...newBooking(deps, { guest, activity, slot, choice, price, message, now }), status: "awaiting_payment", holdUntil: now + HOLD_MS })
      .returning());
    await schedule(tx, holdJob, { bookingId: row.id }, { at: row.holdUntil!, key: jobKeys.hold(row.id) });
    await scheduleMinimum(tx, activity, row);
    return row;
  });
  if (booking === "holding") throw new DomainError("booking.holdElsewhere", 409);
  if ("pause" in booking && booking.pause !== undefined) throw new DomainError("booking.tooManyAbandoned", 429, { extra: { retryAfterSeconds: Math.ceil(booking.pause / 1000) }, retryAfterMs: booking.pause });
  if ("refused" in booking && booking.refused) throw slotRefused(booking.refused, false);

  const session = await providerCall(() =>
    deps.payments.createCheckoutSession(
      {
        amountCents: booking.totalCents,
        currency: booking.currency,
        metadata: { bookingId: booking.id, ...intentMetadata(guest, activity, slot, choice, { flow: "dialog" }) },
        description: activity.title,
        // The booking named on the way back: the guest is told "Booked" when it was accepted at once.
        successUrl: `${returnTo}/bookings?success=true&booking=${booking.id}`,
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
export async function payableBooking(deps: Deps, guestId: string, bookingId: string): Promise<Booking | null> {
  if (!uuidLike(bookingId)) return null;
  const b = await currentBooking(deps, bookingId);
  if (!b || b.guestId !== guestId || b.status !== "awaiting_payment" || (b.holdUntil ?? 0) <= deps.now()) return null;
  return b;
}

/** The existing-booking `POST /api/create-payment-intent` (`bookingId`, `amount`): its intent. */
export async function intentForBooking(deps: Deps, guest: User, input: { bookingId: string; amount: string | undefined }): Promise<{ booking: Booking; intent: PaymentIntent }> {
  const booking = await payableBooking(deps, guest.id, input.bookingId);
  if (!booking) throw new DomainError("booking.notFound", 404);
  checkAmount(input.amount, booking, booking.currency);
  if (booking.paymentIntentId) {
    const existing = await providerCall(() => deps.payments.getIntent(booking.paymentIntentId!));
    if (existing && existing.status !== "canceled") return { booking, intent: existing };
  }
  const intent = await providerCall(() =>
    deps.payments.createIntent(
      {
        amountCents: booking.totalCents,
        currency: booking.currency,
        metadata: { bookingId: booking.id, activityId: booking.activityId, guestId: guest.id, date: booking.startsAtLocal.slice(0, 10), time: booking.startsAtLocal.slice(11, 16), duration: String(booking.durationMinutes / 60), spots: String(booking.spots), ...(booking.privateGroup ? { privateGroup: "true" } : {}), flow: "checkout" },
      },
      bookingCallKeys.intent(booking.id),
    ),
  );
  await writeTransaction(deps.db, (tx) => tx.update(bookings).set({ paymentIntentId: intent.id, updatedAt: deps.now() }).where(and(eq(bookings.id, booking.id), eq(bookings.status, "awaiting_payment"))));
  await writeTransaction(deps.db, (tx) => schedule(tx, reconcileJob, { intentId: intent.id }, { at: deps.now() + RECONCILE_MS, key: jobKeys.reconcileIntent(intent.id) }));
  return { booking: { ...booking, paymentIntentId: intent.id }, intent };
}
