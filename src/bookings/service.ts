import { decimalFromCents } from "../lib/money";
import { uuidLike } from "../lib/validation";
import { and, eq, gt, inArray, isNotNull, lt, or } from "drizzle-orm";
import { writeTransaction, type Db, type WriteTx } from "../../db/client";
import { bookings, ledgerEntries, messages, users, type Activity, type Booking, type BookingStatus, type LedgerKind, type User } from "../../db/schema";
import type { MessageRow } from "../lib/events";
import { findListedActivity } from "../activities/manage";
import type { Deps } from "../context";
import type { MessageKey } from "../lib/i18n";
import { cancelJob, scheduleJob } from "../lib/jobs";
import { priceFor, type Price } from "../lib/pricing";
import { PaymentError, type PaymentIntent } from "../payments/provider";
import { autoCompleteJob, expireJob, holdJob, payoutJob, reconcileJob } from "./jobs";
import { readSlot, type Flow, type Slot } from "./times";

/**
 * The booking rules (ARCHITECTURE decisions 4, 5, 7, 8, 11; docs/decisions/0010 and 0017).
 * Every transition: decide and key, call the provider outside any transaction with a key
 * derived from the booking and the action, then one write transaction with a compare-and-set on
 * the status, its ledger rows, its system message and its jobs.
 */
export const HOLD_MS = 15 * 60 * 1000;
export const ANSWER_WINDOW_MS = 24 * 60 * 60 * 1000;
export const AUTO_COMPLETE_MS = 48 * 60 * 60 * 1000;
export const RECONCILE_MS = 30 * 60 * 1000;
/** A guest cancels an accepted booking (full refund) up to this long before its start. */
export const GUEST_CANCEL_NOTICE_MS = 24 * 60 * 60 * 1000;
export const CURRENCY = "usd";

/** A refusal worded for the person: a catalogue key, an HTTP status, and extra fields for the API. */
export class BookingError extends Error {
  constructor(
    readonly key: MessageKey,
    readonly status: number,
    readonly extra: Record<string, unknown> = {},
    readonly detail?: string,
  ) {
    super(key);
  }
}

/** Statuses that hold the host's time (an awaiting-payment hold only while it lasts). */
export const HOLDING = ["pending", "accepted"] as const;


/** Bookings that hold a host's time from `from` on (for the picker and the overlap check). */
export function busyIntervals(deps: Deps, hostId: string, from: number) {
  const now = deps.now();
  return deps.db
    .select({ startsAt: bookings.startsAt, endsAt: bookings.endsAt })
    .from(bookings)
    .where(
      and(
        eq(bookings.hostId, hostId),
        gt(bookings.endsAt, from),
        or(inArray(bookings.status, [...HOLDING]), and(eq(bookings.status, "awaiting_payment"), gt(bookings.holdUntil, now))),
      ),
    )
    .all();
}

/**
 * Inside a write transaction: does the guest already have somewhere to be over [startsAt,
 * endsAt)? A request or booking of theirs, as a guest or as a host, that holds that time.
 */
function guestOverlaps(tx: WriteTx | Db, guestId: string, startsAt: number, endsAt: number, now: number, exceptId?: string) {
  const rows = tx
    .select({ id: bookings.id })
    .from(bookings)
    .where(
      and(
        or(eq(bookings.guestId, guestId), eq(bookings.hostId, guestId)),
        lt(bookings.startsAt, endsAt),
        gt(bookings.endsAt, startsAt),
        or(inArray(bookings.status, [...HOLDING]), and(eq(bookings.status, "awaiting_payment"), gt(bookings.holdUntil, now))),
      ),
    )
    .all();
  return rows.some((r) => r.id !== exceptId);
}

/** Inside a write transaction: does anything hold the host's time over [startsAt, endsAt)? */
function overlaps(tx: WriteTx, hostId: string, startsAt: number, endsAt: number, now: number, exceptId?: string) {
  const rows = tx
    .select({ id: bookings.id })
    .from(bookings)
    .where(
      and(
        eq(bookings.hostId, hostId),
        lt(bookings.startsAt, endsAt),
        gt(bookings.endsAt, startsAt),
        or(inArray(bookings.status, [...HOLDING]), and(eq(bookings.status, "awaiting_payment"), gt(bookings.holdUntil, now))),
      ),
    )
    .all();
  return rows.some((r) => r.id !== exceptId);
}

/** A client's amount in dollars (number or decimal string), as cents; NaN when unreadable. */
export function dollarsToCents(value: unknown): number {
  const n = typeof value === "number" ? value : typeof value === "string" && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN;
  return Number.isFinite(n) && n >= 0 ? n * 100 : Number.NaN;
}


/** The server's price is the price: a client figure more than half a cent away is refused (409). */
export function checkAmount(clientAmount: unknown, price: Price) {
  const cents = dollarsToCents(clientAmount);
  if (Number.isNaN(cents)) throw new BookingError("booking.amountInvalid", 400);
  if (Math.abs(cents - price.totalCents) > 0.5) {
    throw new BookingError("booking.priceChanged", 409, { priceTotal: decimalFromCents(price.totalCents), amount: decimalFromCents(price.totalCents) });
  }
}

/** The activity a guest wants to book: listed, and not their own. */
export async function bookableActivity(deps: Deps, guest: User, activityId: unknown): Promise<Activity> {
  const activity = uuidLike(activityId) ? await findListedActivity(deps, activityId) : undefined;
  if (!activity) throw new BookingError("activity.notFound", 404);
  if (activity.hostId === guest.id) throw new BookingError("booking.ownActivity", 400);
  return activity;
}

export function slotOrThrow(activity: Activity, input: { date: unknown; time: unknown; durationMinutes: unknown }, flow: Flow, now: number): Slot {
  const read = readSlot(activity, input, flow, now);
  if (!read.ok) throw new BookingError(read.error, 400);
  return read.slot;
}

export function slotFree(deps: Deps, activity: Activity, slot: Slot) {
  return !busyIntervals(deps, activity.hostId, slot.startsAt).some((b) => b.startsAt < slot.endsAt && b.endsAt > slot.startsAt);
}

/**
 * Before anything is held: the host's time must be free, and the guest must not already be
 * booked elsewhere then (nobody can be at two activities at once).
 */
export function checkSlotOpen(deps: Deps, activity: Activity, slot: Slot, guestId: string) {
  if (!slotFree(deps, activity, slot)) throw new BookingError("booking.slotTaken", 409);
  if (guestOverlaps(deps.db, guestId, slot.startsAt, slot.endsAt, deps.now())) throw new BookingError("booking.guestBusy", 409);
}

function ledger(tx: WriteTx, deps: Deps, booking: Pick<Booking, "id" | "currency">, kind: LedgerKind, amountCents: number, providerRef: string | null) {
  tx.insert(ledgerEntries)
    .values({
      id: crypto.randomUUID(),
      bookingId: booking.id,
      kind,
      amountCents,
      currency: booking.currency,
      provider: deps.payments.name,
      providerRef,
      idempotencyKey: `booking:${booking.id}:${kind}`,
      createdAt: deps.now(),
    })
    .onConflictDoNothing({ target: ledgerEntries.idempotencyKey })
    .run();
}

export type SystemMessageType = "booking_request" | "booking_accepted" | "booking_declined" | "booking_expired" | "booking_canceled" | "booking_completed";

function systemMessage(tx: WriteTx, deps: Deps, bookingId: string, type: SystemMessageType, senderId: string | null): MessageRow {
  return tx
    .insert(messages)
    .values({ id: crypto.randomUUID(), bookingId, senderId, content: type, isSystemMessage: true, systemMessageType: type, readBy: senderId ? [senderId] : [], createdAt: deps.now() })
    .returning()
    .get();
}

/** Tells the live channel and notifications, once committed, that a booking changed status. */
function announce(deps: Deps, booking: Booking, from: BookingStatus | null, message: MessageRow | null = null) {
  deps.events.emit({ type: "booking.changed", booking, from, message });
}

/** A pending request expires 24 hours after it was sent, or at the start, whichever is first. */
export const respondByOf = (now: number, startsAt: number) => Math.min(now + ANSWER_WINDOW_MS, startsAt);

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

async function providerCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof PaymentError) throw new BookingError("booking.paymentProblem", err.status >= 500 ? 502 : err.status === 404 ? 404 : 409, {}, err.message);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Date-time flow: a payment intent for a slot, then the booking once the card is authorised.

/**
 * `POST /api/create-payment-intent` with `amount` and `metadata {activityId, date, time,
 * duration}`: a manual-capture intent for the server's price. Nothing is held yet: the booking
 * (and the hold on the host's time) is made once the card is authorised.
 */
export async function intentForSlot(deps: Deps, guest: User, input: { activityId: unknown; date: unknown; time: unknown; durationMinutes: unknown; amount: unknown; nonce?: string }) {
  const activity = await bookableActivity(deps, guest, input.activityId);
  const slot = slotOrThrow(activity, input, "datetime", deps.now());
  const price = priceFor(activity.hourlyRateCents, slot.durationMinutes);
  checkAmount(input.amount, price);
  checkSlotOpen(deps, activity, slot, guest.id);
  const key = `intent:${guest.id}:${activity.id}:${slot.startsAtLocal}:${slot.durationMinutes}:${price.totalCents}:${input.nonce ?? crypto.randomUUID()}`;
  let intent = await providerCall(() =>
    deps.payments.createIntent({ amountCents: price.totalCents, currency: CURRENCY, metadata: intentMetadata(guest, activity, slot, { flow: "datetime" }), description: activity.title }, key),
  );
  if (intent.status === "canceled" || intent.status === "succeeded") {
    // The intent this choice had was released (a lost race, a lapsed hold): a new one.
    intent = await providerCall(() =>
      deps.payments.createIntent({ amountCents: price.totalCents, currency: CURRENCY, metadata: intentMetadata(guest, activity, slot, { flow: "datetime" }), description: activity.title }, `${key}:${crypto.randomUUID()}`),
    );
  }
  scheduleJob(deps.db, reconcileJob, { intentId: intent.id }, { at: deps.now() + RECONCILE_MS, key: `payments.reconcile:${intent.id}` });
  return { intent, activity, slot, price };
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

/**
 * `POST /api/bookings`: the request, made once the card is authorised. The intent must be the
 * guest's, for this activity and slot, for the server's price, and authorised. The booking is
 * inserted in one write transaction that first checks nothing holds the host's time; when the
 * slot was taken meanwhile, the authorisation is released at once and the guest told.
 */
export async function createBooking(
  deps: Deps,
  guest: User,
  input: { activityId: unknown; date: unknown; time: unknown; durationMinutes: unknown; priceTotal: unknown; paymentIntentId: unknown; message?: unknown },
): Promise<{ booking: Booking; created: boolean }> {
  const activity = await bookableActivity(deps, guest, input.activityId);
  if (typeof input.paymentIntentId !== "string" || !input.paymentIntentId.trim() || input.paymentIntentId.length > 200) throw new BookingError("booking.paymentRequired", 400);
  const intentId = input.paymentIntentId.trim();
  const already = deps.db.select().from(bookings).where(eq(bookings.paymentIntentId, intentId)).get();
  if (already) {
    if (already.guestId !== guest.id) throw new BookingError("booking.paymentNotFound", 404);
    return { booking: already, created: false };
  }
  const slot = slotOrThrow(activity, input, "datetime", deps.now());
  const price = priceFor(activity.hourlyRateCents, slot.durationMinutes);
  const intent = await providerCall(() => deps.payments.getIntent(intentId));
  if (!intent || intent.metadata.guestId !== guest.id) throw new BookingError("booking.paymentNotFound", 404);
  const release = () => providerCall(() => deps.payments.release(intent.id, `intent:${intent.id}:release`));
  if (intent.metadata.activityId !== activity.id || intent.amountCents !== price.totalCents || intent.metadata.date !== slot.date || intent.metadata.time !== slot.time || intent.metadata.duration !== String(slot.durationMinutes / 60)) {
    if (intent.status === "requires_capture") await release();
    throw new BookingError("booking.paymentMismatch", 409, { priceTotal: decimalFromCents(price.totalCents) });
  }
  try {
    checkAmount(input.priceTotal, price);
  } catch (err) {
    if (err instanceof BookingError && err.status === 409 && intent.status === "requires_capture") await release();
    throw err;
  }
  if (intent.status !== "requires_capture") throw new BookingError("booking.paymentNotAuthorised", 402, {}, intent.lastError ?? undefined);
  const message = typeof input.message === "string" ? input.message.trim().slice(0, 1000) || null : null;

  const now = deps.now();
  const bookingId = crypto.randomUUID();
  let made;
  try {
    made = writeTransaction(deps.db, (tx) => {
      if (overlaps(tx, activity.hostId, slot.startsAt, slot.endsAt, now)) return "hostBusy" as const;
      if (guestOverlaps(tx, guest.id, slot.startsAt, slot.endsAt, now)) return "guestBusy" as const;
      const row = tx
        .insert(bookings)
        .values({ ...newBooking(deps, { guest, activity, slot, price, message, now }), id: bookingId, status: "pending", paymentIntentId: intent.id })
        .returning()
        .get();
      ledger(tx, deps, row, "authorize", row.totalCents, intent.id);
      const request = systemMessage(tx, deps, row.id, "booking_request", guest.id);
      scheduleJob(tx, expireJob, { bookingId: row.id }, { at: row.respondBy, key: `booking.expire:${row.id}` });
      return { row, request };
    });
  } catch (err) {
    // The same authorisation sent twice at once: the first one made the booking.
    const first = deps.db.select().from(bookings).where(eq(bookings.paymentIntentId, intent.id)).get();
    if (first && first.guestId === guest.id) return { booking: first, created: false };
    await release().catch(() => undefined);
    throw err;
  }
  if (typeof made === "string") {
    // Taken meanwhile, by someone else or by another booking of the guest's: the hold goes at once.
    await release();
    throw new BookingError(made === "hostBusy" ? "booking.slotTakenReleased" : "booking.guestBusyReleased", 409);
  }
  announce(deps, made.row, null, made.request);
  return { booking: made.row, created: true };
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
  input: { activityId: unknown; date: unknown; time: unknown; durationMinutes: unknown; amount: unknown; message: unknown },
  /** The origin the provider's page sends the guest back to (`returnBase`). */
  returnTo: string,
) {
  const activity = await bookableActivity(deps, guest, input.activityId);
  const message = typeof input.message === "string" ? input.message.trim() : "";
  if (!message) throw new BookingError("booking.messageRequired", 400);
  if (message.length > 1000) throw new BookingError("booking.messageTooLong", 400);
  const slot = slotOrThrow(activity, input, "dialog", deps.now());
  const price = priceFor(activity.hourlyRateCents, slot.durationMinutes);
  checkAmount(input.amount, price);
  const now = deps.now();

  const booking = writeTransaction(deps.db, (tx) => {
    const mine = tx
      .select()
      .from(bookings)
      .where(and(eq(bookings.guestId, guest.id), eq(bookings.activityId, activity.id), eq(bookings.status, "awaiting_payment"), eq(bookings.startsAt, slot.startsAt), eq(bookings.durationMinutes, slot.durationMinutes), gt(bookings.holdUntil, now)))
      .get();
    if (mine) {
      if (mine.message !== message) tx.update(bookings).set({ message, updatedAt: now }).where(eq(bookings.id, mine.id)).run();
      return mine;
    }
    if (overlaps(tx, activity.hostId, slot.startsAt, slot.endsAt, now)) return "hostBusy" as const;
    if (guestOverlaps(tx, guest.id, slot.startsAt, slot.endsAt, now)) return "guestBusy" as const;
    const row = tx
      .insert(bookings)
      .values({ ...newBooking(deps, { guest, activity, slot, price, message, now }), status: "awaiting_payment", holdUntil: now + HOLD_MS })
      .returning()
      .get();
    scheduleJob(tx, holdJob, { bookingId: row.id }, { at: row.holdUntil!, key: `booking.hold:${row.id}` });
    return row;
  });
  if (booking === "hostBusy") throw new BookingError("booking.slotTaken", 409);
  if (booking === "guestBusy") throw new BookingError("booking.guestBusy", 409);

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
      `booking:${booking.id}:checkout`,
    ),
  );
  deps.db
    .update(bookings)
    .set({ checkoutSessionId: session.id, paymentIntentId: session.paymentIntentId ?? booking.paymentIntentId, updatedAt: deps.now() })
    .where(and(eq(bookings.id, booking.id), eq(bookings.status, "awaiting_payment")))
    .run();
  if (session.paymentIntentId) scheduleJob(deps.db, reconcileJob, { intentId: session.paymentIntentId }, { at: now + RECONCILE_MS, key: `payments.reconcile:${session.paymentIntentId}` });
  return { booking, session };
}

/** A booking its guest may pay for now (the checkout page), or null. */
export function payableBooking(deps: Deps, guestId: string, bookingId: unknown): Booking | null {
  if (!uuidLike(bookingId)) return null;
  const b = deps.db.select().from(bookings).where(eq(bookings.id, bookingId)).get();
  if (!b || b.guestId !== guestId || b.status !== "awaiting_payment" || (b.holdUntil ?? 0) <= deps.now()) return null;
  return b;
}

/** The existing-booking `POST /api/create-payment-intent` (`bookingId`, `amount`): its intent. */
export async function intentForBooking(deps: Deps, guest: User, input: { bookingId: unknown; amount: unknown }): Promise<{ booking: Booking; intent: PaymentIntent }> {
  const booking = payableBooking(deps, guest.id, input.bookingId);
  if (!booking) throw new BookingError("booking.notFound", 404);
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
      `booking:${booking.id}:intent`,
    ),
  );
  deps.db.update(bookings).set({ paymentIntentId: intent.id, updatedAt: deps.now() }).where(and(eq(bookings.id, booking.id), eq(bookings.status, "awaiting_payment"))).run();
  scheduleJob(deps.db, reconcileJob, { intentId: intent.id }, { at: deps.now() + RECONCILE_MS, key: `payments.reconcile:${intent.id}` });
  return { booking: { ...booking, paymentIntentId: intent.id }, intent };
}

/**
 * An awaiting-payment booking whose card is now authorised becomes a request (pending). Called
 * by the checkout page, the provider's events and the hold job; idempotent. A booking whose hold
 * lapsed is revived when its slot is still free; otherwise the authorisation is released.
 */
export async function paymentAuthorised(deps: Deps, bookingId: string, intentId: string): Promise<"advanced" | "already" | "released" | "ignored"> {
  const booking = deps.db.select().from(bookings).where(eq(bookings.id, bookingId)).get();
  if (!booking) return "ignored";
  if (booking.status !== "awaiting_payment" && booking.paymentIntentId === intentId && booking.status !== "expired") return "already";
  const intent = await deps.payments.getIntent(intentId);
  if (!intent || intent.metadata.bookingId !== booking.id || intent.status !== "requires_capture") return "ignored";
  // An intent that will not pay for this booking is released with a key of its own, so the
  // booking's own release (`booking:{id}:release`) stays free for the intent that does.
  const releaseThis = () => deps.payments.release(intent.id, `intent:${intent.id}:release`);
  if (intent.amountCents !== booking.totalCents) {
    await releaseThis();
    return "released";
  }
  const now = deps.now();
  const result = writeTransaction(deps.db, (tx) => {
    const current = tx.select().from(bookings).where(eq(bookings.id, booking.id)).get()!;
    const revivable =
      current.status === "expired" &&
      current.holdUntil !== null &&
      current.startsAt > now &&
      !overlaps(tx, current.hostId, current.startsAt, current.endsAt, now, current.id) &&
      !guestOverlaps(tx, current.guestId, current.startsAt, current.endsAt, now, current.id);
    if (current.status !== "awaiting_payment" && !revivable) {
      // Paid already, with this intent; a second one (the hosted page and the checkout screen
      // both paid) is released.
      const paid = current.status === "pending" || current.status === "accepted" || current.status === "completed";
      return paid && current.paymentIntentId === intent.id ? "already" : "lost";
    }
    const respondBy = respondByOf(now, current.startsAt);
    const changed = tx
      .update(bookings)
      .set({ status: "pending", paymentIntentId: intent.id, respondBy, holdUntil: null, updatedAt: now })
      .where(and(eq(bookings.id, current.id), eq(bookings.status, current.status)))
      .returning()
      .get();
    if (!changed) return "lost";
    ledger(tx, deps, changed, "authorize", changed.totalCents, intent.id);
    const request = systemMessage(tx, deps, changed.id, "booking_request", changed.guestId);
    cancelJob(tx, `booking.hold:${changed.id}`);
    scheduleJob(tx, expireJob, { bookingId: changed.id }, { at: respondBy, key: `booking.expire:${changed.id}` });
    return { changed, from: current.status, request };
  });
  if (result === "lost") {
    await releaseThis();
    return "released";
  }
  if (result === "already") return result;
  announce(deps, result.changed, result.from, result.request);
  return "advanced";
}

/** The hold of an awaiting-payment booking lapsed: the slot is freed and its payment stopped. */
export async function lapseHold(deps: Deps, bookingId: string) {
  const booking = deps.db.select().from(bookings).where(eq(bookings.id, bookingId)).get();
  if (!booking || booking.status !== "awaiting_payment") return;
  if (booking.paymentIntentId) {
    const intent = await deps.payments.getIntent(booking.paymentIntentId);
    // Paid in time but the news was lost: it becomes a request after all.
    if (intent?.status === "requires_capture" && (await paymentAuthorised(deps, booking.id, intent.id)) !== "ignored") return;
    if (intent && intent.status !== "canceled" && intent.status !== "succeeded") await deps.payments.release(intent.id, `booking:${booking.id}:release`);
  }
  const lapsed = deps.db
    .update(bookings)
    .set({ status: "expired", updatedAt: deps.now() })
    .where(and(eq(bookings.id, booking.id), eq(bookings.status, "awaiting_payment")))
    .returning()
    .get();
  if (lapsed) announce(deps, lapsed, "awaiting_payment");
}

/**
 * The guest left the hosted checkout page without paying (the test provider's cancel button), or
 * the provider expired the session: the hold ends now rather than when it lapses, and the
 * authorisation, if any, is released (decision 0010: release with the booking's key, then one
 * compare-and-set). Paid after all (the news crossed): it becomes a request instead. Idempotent.
 */
export async function checkoutEnded(deps: Deps, bookingId: string, sessionId: string): Promise<"ended" | "paid" | "ignored"> {
  const booking = uuidLike(bookingId) ? deps.db.select().from(bookings).where(eq(bookings.id, bookingId)).get() : undefined;
  if (!booking || booking.status !== "awaiting_payment" || booking.checkoutSessionId !== sessionId) return "ignored";
  if (booking.paymentIntentId) {
    const intent = await deps.payments.getIntent(booking.paymentIntentId);
    if (intent?.status === "requires_capture" && (await paymentAuthorised(deps, booking.id, intent.id)) !== "ignored") return "paid";
    if (intent && intent.status !== "canceled" && intent.status !== "succeeded") await deps.payments.release(intent.id, key(booking, "release"));
  }
  const out = settle(deps, booking, "awaiting_payment", { status: "expired" }, (tx, c) => cancelJob(tx, `booking.hold:${c.id}`));
  return "lost" in out ? "ignored" : "ended";
}

// ---------------------------------------------------------------------------------------------
// Answers and endings.

export type Action = "accept" | "reject" | "complete" | "cancel";
export type Role = "guest" | "host";

/** A booking and the side `userId` is on, or null for anyone else and for ids that are not a booking's. */
export function participantBooking(deps: Deps, userId: string, bookingId: unknown): { booking: Booking; role: Role } | null {
  const booking = uuidLike(bookingId) ? deps.db.select().from(bookings).where(eq(bookings.id, bookingId)).get() : undefined;
  if (!booking || (booking.guestId !== userId && booking.hostId !== userId)) return null;
  return { booking, role: booking.guestId === userId ? "guest" : "host" };
}

/** A booking as one of its two sides sees it; anyone else gets 404 (ARCHITECTURE decision 11). */
export function bookingFor(deps: Deps, userId: string, bookingId: unknown): { booking: Booking; role: Role } {
  const found = participantBooking(deps, userId, bookingId);
  if (!found) throw new BookingError("booking.notFound", 404);
  return found;
}

type Outcome = { booking: Booking } | { lost: true };

/**
 * Step 3 of decision 0010: the compare-and-set and everything that goes with it (`extra` returns
 * the system message it wrote, if any). Once committed, the change is announced.
 */
function settle(deps: Deps, booking: Booking, from: Booking["status"], change: Partial<typeof bookings.$inferInsert>, extra: (tx: WriteTx, b: Booking) => MessageRow | void): Outcome {
  const out = writeTransaction(deps.db, (tx) => {
    const changed = tx
      .update(bookings)
      .set({ ...change, updatedAt: deps.now() })
      .where(and(eq(bookings.id, booking.id), eq(bookings.status, from)))
      .returning()
      .get();
    if (!changed) return { lost: true as const };
    const message = extra(tx, changed) ?? null;
    return { booking: changed, message };
  });
  if ("lost" in out) return out;
  announce(deps, out.booking, from, out.message);
  return { booking: out.booking };
}

const key = (b: Booking, action: string) => `booking:${b.id}:${action}`;

function intentOf(b: Booking) {
  if (!b.paymentIntentId) throw new BookingError("booking.paymentNotFound", 409);
  return b.paymentIntentId;
}

async function accept(deps: Deps, b: Booking): Promise<Booking> {
  if (b.status !== "pending") throw new BookingError("booking.notPending", 409);
  const intent = await providerCall(() => deps.payments.capture(intentOf(b), key(b, "capture")));
  const now = deps.now();
  const out = settle(deps, b, "pending", { status: "accepted", respondedAt: now }, (tx, c) => {
    ledger(tx, deps, c, "capture", c.totalCents, intent.id);
    cancelJob(tx, `booking.expire:${c.id}`);
    scheduleJob(tx, autoCompleteJob, { bookingId: c.id }, { at: c.endsAt + AUTO_COMPLETE_MS, key: `booking.autocomplete:${c.id}` });
    return systemMessage(tx, deps, c.id, "booking_accepted", c.hostId);
  });
  if ("lost" in out) {
    // Charged, but the request ended meanwhile: the charge and its refund are both recorded.
    const refund = await providerCall(() => deps.payments.refund(intent.id, null, key(b, "refund")));
    writeTransaction(deps.db, (tx) => {
      ledger(tx, deps, b, "capture", b.totalCents, intent.id);
      ledger(tx, deps, b, "refund", b.totalCents, refund.id);
    });
    throw new BookingError("booking.notPending", 409);
  }
  return out.booking;
}

/** Releases a pending request's authorisation and ends it as `to` (declined, withdrawn, expired). */
async function endPending(deps: Deps, b: Booking, to: "rejected" | "canceled" | "expired", message: SystemMessageType, senderId: string | null): Promise<Booking> {
  if (b.status !== "pending") throw new BookingError("booking.notPending", 409);
  const intent = await providerCall(() => deps.payments.release(intentOf(b), key(b, "release")));
  const now = deps.now();
  const out = settle(deps, b, "pending", { status: to, respondedAt: to === "rejected" ? now : b.respondedAt, canceledBy: to === "canceled" ? "guest" : null }, (tx, c) => {
    ledger(tx, deps, c, "release", c.totalCents, intent.id);
    cancelJob(tx, `booking.expire:${c.id}`);
    return systemMessage(tx, deps, c.id, message, senderId);
  });
  if ("lost" in out) throw new BookingError("booking.notPending", 409);
  return out.booking;
}

/** Cancels an accepted booking with a full refund; `senderId` null when no person did (a suspension). */
async function cancelAccepted(deps: Deps, b: Booking, by: Role, senderId: string | null): Promise<Booking> {
  const refund = await providerCall(() => deps.payments.refund(intentOf(b), null, key(b, "refund")));
  const out = settle(deps, b, "accepted", { status: "canceled", canceledBy: by }, (tx, c) => {
    ledger(tx, deps, c, "refund", c.totalCents, refund.id);
    cancelJob(tx, `booking.autocomplete:${c.id}`);
    return systemMessage(tx, deps, c.id, "booking_canceled", senderId);
  });
  if ("lost" in out) throw new BookingError("booking.notAccepted", 409);
  return out.booking;
}

/**
 * Accepted → completed: the platform's part and the host's share are written to the ledger; the
 * share is sent to the host's payout account by a job (at once when they have one).
 */
export async function completeBooking(deps: Deps, b: Booking, by: string | null): Promise<Booking> {
  if (b.status !== "accepted") throw new BookingError("booking.notAccepted", 409);
  if (by && deps.now() < b.startsAt) throw new BookingError("booking.completeTooEarly", 409);
  const now = deps.now();
  const out = settle(deps, b, "accepted", { status: "completed", completedAt: now }, (tx, c) => {
    ledger(tx, deps, c, "platform_fee", c.totalCents - c.hostEarningsCents, null);
    ledger(tx, deps, c, "payout_pending", c.hostEarningsCents, null);
    cancelJob(tx, `booking.autocomplete:${c.id}`);
    scheduleJob(tx, payoutJob, { bookingId: c.id }, { at: now, key: `booking.payout:${c.id}` });
    return systemMessage(tx, deps, c.id, "booking_completed", by);
  });
  if ("lost" in out) throw new BookingError("booking.notAccepted", 409);
  await payHost(deps, out.booking.id).catch((err) => console.error("payout after completion failed; the job retries", err));
  return out.booking;
}

/** A booking still awaiting payment ends: its payment, if any, is released and its hold on the slot let go. */
async function cancelAwaitingPayment(deps: Deps, booking: Booking, by: Role): Promise<Booking> {
  if (booking.paymentIntentId) await providerCall(() => deps.payments.release(booking.paymentIntentId!, key(booking, "release")));
  const out = settle(deps, booking, "awaiting_payment", { status: "canceled", canceledBy: by }, (tx, c) => cancelJob(tx, `booking.hold:${c.id}`));
  if ("lost" in out) throw new BookingError("booking.cannotCancel", 409);
  return out.booking;
}

/** The guarded transitions of spec §4 and ARCHITECTURE decision 7, for either side. */
export async function act(deps: Deps, user: User, bookingId: unknown, action: Action): Promise<{ booking: Booking; role: Role }> {
  const { booking, role } = bookingFor(deps, user.id, bookingId);
  switch (action) {
    case "accept":
      if (role !== "host") throw new BookingError("booking.hostOnly", 403);
      return { booking: await accept(deps, booking), role };
    case "reject":
      if (role !== "host") throw new BookingError("booking.hostOnly", 403);
      return { booking: await endPending(deps, booking, "rejected", "booking_declined", user.id), role };
    case "complete":
      if (role !== "host") throw new BookingError("booking.hostOnly", 403);
      return { booking: await completeBooking(deps, booking, user.id), role };
    case "cancel":
      if (booking.status === "awaiting_payment" && role === "guest") return { booking: await cancelAwaitingPayment(deps, booking, "guest"), role };
      if (booking.status === "pending") {
        if (role !== "guest") throw new BookingError("booking.hostDeclineInstead", 409);
        return { booking: await endPending(deps, booking, "canceled", "booking_canceled", user.id), role };
      }
      if (booking.status === "accepted") {
        if (role === "guest" && booking.startsAt - deps.now() < GUEST_CANCEL_NOTICE_MS) throw new BookingError("booking.cancelTooLate", 409);
        return { booking: await cancelAccepted(deps, booking, role, user.id), role };
      }
      throw new BookingError("booking.cannotCancel", 409);
  }
}

/**
 * A suspended person's open bookings end through the usual transitions (docs/decisions/0024),
 * with no person as the sender of their system messages: requests to their activities are
 * declined and requests they sent withdrawn (the authorisation released either way), bookings
 * awaiting payment are cancelled (released), and accepted bookings that have not started are
 * cancelled with a full refund, whichever side was suspended. Bookings already under way are
 * left to be completed as usual. Each step is a compare-and-set, so running this again (a retry
 * after a provider failure) only does what is left; the first failure is thrown once the rest ran.
 */
export async function endBookingsOfSuspended(deps: Deps, userId: string): Promise<number> {
  const open = deps.db
    .select()
    .from(bookings)
    .where(and(or(eq(bookings.guestId, userId), eq(bookings.hostId, userId)), inArray(bookings.status, ["awaiting_payment", "pending", "accepted"])))
    .all();
  let ended = 0;
  let failure: unknown = null;
  for (const b of open) {
    const side: Role = b.guestId === userId ? "guest" : "host";
    try {
      if (b.status === "pending") await endPending(deps, b, side === "host" ? "rejected" : "canceled", side === "host" ? "booking_declined" : "booking_canceled", null);
      else if (b.status === "awaiting_payment") await cancelAwaitingPayment(deps, b, side);
      else if (b.startsAt > deps.now()) await cancelAccepted(deps, b, side, null);
      else continue;
      ended++;
    } catch (err) {
      // Another change won the race (the guest withdrew, a job expired it): nothing left to do.
      if (err instanceof BookingError && ["booking.notPending", "booking.notAccepted", "booking.cannotCancel"].includes(err.key)) continue;
      failure ??= err;
    }
  }
  if (failure) throw failure;
  return ended;
}

/** A pending request nobody answered in time: released (job). */
export async function expireRequest(deps: Deps, bookingId: string) {
  const b = deps.db.select().from(bookings).where(eq(bookings.id, bookingId)).get();
  if (!b || b.status !== "pending") return;
  if (deps.now() < b.respondBy) {
    scheduleJob(deps.db, expireJob, { bookingId }, { at: b.respondBy, key: `booking.expire:${b.id}:later` });
    return;
  }
  try {
    await endPending(deps, b, "expired", "booking_expired", null);
  } catch (err) {
    if (!(err instanceof BookingError && err.key === "booking.notPending")) throw err;
  }
}

/** An accepted booking nobody marked complete, 48 hours after its end (job). */
export async function autoComplete(deps: Deps, bookingId: string) {
  const b = deps.db.select().from(bookings).where(eq(bookings.id, bookingId)).get();
  if (!b || b.status !== "accepted") return;
  if (deps.now() < b.endsAt + AUTO_COMPLETE_MS) return;
  try {
    await completeBooking(deps, b, null);
  } catch (err) {
    if (!(err instanceof BookingError && err.key === "booking.notAccepted")) throw err;
  }
}

/**
 * Sends a completed booking's host share to the host's payout account, when they have one that
 * can receive it; otherwise it stays a pending payout (the sweep and `account.updated` retry).
 */
export async function payHost(deps: Deps, bookingId: string): Promise<"sent" | "waiting" | "nothing"> {
  const b = deps.db.select().from(bookings).where(eq(bookings.id, bookingId)).get();
  if (!b || b.status !== "completed" || !b.paymentIntentId) return "nothing";
  const rows = deps.db.select({ kind: ledgerEntries.kind }).from(ledgerEntries).where(eq(ledgerEntries.bookingId, b.id)).all();
  if (!rows.some((r) => r.kind === "payout_pending") || rows.some((r) => r.kind === "transfer")) return "nothing";
  const host = deps.db.select({ accountId: users.stripeAccountId }).from(users).where(eq(users.id, b.hostId)).get();
  if (!host?.accountId) return "waiting";
  const account = await deps.payments.getConnectedAccount(host.accountId);
  if (!account?.payoutsEnabled) return "waiting";
  const transfer = await deps.payments.transfer(
    { amountCents: b.hostEarningsCents, currency: b.currency, destinationAccountId: account.id, sourceIntentId: b.paymentIntentId, transferGroup: `booking:${b.id}` },
    key(b, "transfer"),
  );
  writeTransaction(deps.db, (tx) => ledger(tx, deps, b, "transfer", b.hostEarningsCents, transfer.id));
  deps.events.emit({ type: "payout.sent", booking: b, amountCents: b.hostEarningsCents });
  return "sent";
}

/** Completed bookings whose host share is still owed, optionally for one host. */
export function owedPayouts(deps: Deps, hostId?: string) {
  const done = deps.db
    .select({ id: bookings.id, kinds: ledgerEntries.kind })
    .from(bookings)
    .innerJoin(ledgerEntries, eq(ledgerEntries.bookingId, bookings.id))
    .where(and(eq(bookings.status, "completed"), isNotNull(bookings.paymentIntentId), hostId ? eq(bookings.hostId, hostId) : undefined, inArray(ledgerEntries.kind, ["payout_pending", "transfer"])))
    .all();
  const byBooking = new Map<string, Set<string>>();
  for (const r of done) (byBooking.get(r.id) ?? byBooking.set(r.id, new Set()).get(r.id)!).add(r.kinds);
  return [...byBooking].filter(([, kinds]) => kinds.has("payout_pending") && !kinds.has("transfer")).map(([id]) => id);
}

/**
 * An intent with no booking 30 minutes after it was made (the guest left, or creating the
 * booking failed): its authorisation is released (job).
 */
export async function reconcileIntent(deps: Deps, intentId: string) {
  const booking = deps.db.select().from(bookings).where(eq(bookings.paymentIntentId, intentId)).get();
  if (booking) {
    if (booking.status === "awaiting_payment" && (booking.holdUntil ?? 0) > deps.now()) {
      scheduleJob(deps.db, reconcileJob, { intentId }, { at: booking.holdUntil! + RECONCILE_MS, key: `payments.reconcile:${intentId}:later` });
      return;
    }
    const authorised = deps.db.select({ id: ledgerEntries.id }).from(ledgerEntries).where(and(eq(ledgerEntries.bookingId, booking.id), eq(ledgerEntries.kind, "authorize"))).get();
    if (authorised) return;
  }
  const intent = await deps.payments.getIntent(intentId);
  if (!intent || intent.status === "canceled" || intent.status === "succeeded") return;
  await deps.payments.release(intent.id, `intent:${intent.id}:release`);
}
