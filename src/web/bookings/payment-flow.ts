import type { Activity, Booking, BookingSelection, User } from "../../../db/schema";
import type { StripeFormData } from "../../../views/bookings/Parts";
import { findListedActivity } from "../../activities/queries";
import type { Deps } from "../../deps";
import { DomainError, isDomainError } from "../../../lib/domain-error";
import { uuidLike } from "../../../lib/validation";
import type { MessageKey } from "../../../lib/i18n";
import type { FlashData } from "../../shell/view";
import type { Price } from "../../../shared/pricing";
import { asTestProvider } from "../../payments/choice";
import { PaymentError, type PaymentIntent } from "../../ports/payments";
import { createBooking, intentForBooking, intentForSlot, namedIntent, payableBooking } from "../../bookings/checkout";
import { payAwaitingBooking } from "../../bookings/checkout-payment";
import type { CardPost, CardValues } from "../../bookings/input";
import { INSTANT_ANSWER_MS } from "../../bookings/instant";
import { bookingSummary, type BookingSummary } from "../../bookings/queries";
import { getSelection } from "../../bookings/selection";
import { checkAmount, currentBooking } from "../../bookings/service";
import { readSlot, type Slot } from "../../bookings/times";
import { bookingPrice, readSpots } from "../../bookings/sessions";

/**
 * Paying with a card on our own screens (spec "Payment screen", and `/checkout/{bookingId}` for
 * a booking awaiting payment): whichever provider runs, the routes get one outcome to answer
 * with. With the built-in test provider the card's fields are posted here and confirmed by it
 * (authentication, when asked, on its own page); with Stripe its card form confirms the card in
 * the browser and names the intent it confirmed, which is read again from Stripe before anything
 * is made. Refusals become the card form again, with why.
 */

/** What the person reads: a catalogue text, or the provider's own words ("Your card was declined."). */
export type Wording = { key: MessageKey; params?: Record<string, string | number> } | { text: string };

/** The card form as it is shown again: what was typed, a title and an error, and with Stripe its form for an intent. */
export interface CardForm {
  values?: CardValues;
  title?: Wording;
  error?: Wording;
  /** With Stripe: its card form for this intent, or null when none could be prepared (the error says why). */
  stripe?: StripeFormData | null;
}

/** The payment screen's data: the saved choice, read again against today's rules. */
export interface PaymentScreenData extends BookingSummary {
  selection: BookingSelection;
  slot: Slot;
  price: Price;
  testMode: boolean;
}

/** Where a payment step leads: another address (with a toast), or one of the two card forms again. */
export type PaymentStep =
  | { kind: "redirect"; to: string; toast?: FlashData }
  | { kind: "payment"; data: PaymentScreenData; card: CardForm; status: number }
  | { kind: "checkout"; booking: Booking; activity: Activity; testMode: boolean; card: CardForm; status: number }
  | { kind: "notFound" };

const redirect = (to: string, toast?: FlashData): PaymentStep => ({ kind: "redirect", to, toast });
const REQUEST_SENT: FlashData = { title: "toast.paymentSuccessful", body: "toast.requestSent", variant: "success" };
/** An instant booking accepted before the answer (docs/decisions/0037). */
const BOOKED: FlashData = { title: "toast.booked", body: "toast.bookedBody", variant: "success" };

/** The toast of a request just made: "Booked" when it was accepted at once (instant booking). */
const toastFor = (booking: Pick<Booking, "status">) => (booking.status === "accepted" ? BOOKED : REQUEST_SENT);

/**
 * Where the date-time flow ends: the success screen, which reads the booking named in the
 * address (its "Booked!" for a request accepted at once), with the toast of one.
 */
const succeeded = (booking: Booking) => redirect(`/booking-success?booking=${booking.id}`, booking.status === "accepted" ? BOOKED : undefined);

/** A refusal as the card form shows it: the provider's words when it gave them for a card it did not authorise. */
export function wordingOf(err: DomainError): Wording {
  const said = err.details.said;
  if (err.key === "booking.paymentNotAuthorised" && said) return { text: said };
  return { key: err.key, params: err.params };
}

const valuesOf = (card: CardPost): CardValues => ({ cardNumber: card.cardNumber ?? "", expiry: card.expiry ?? "", cvc: card.cvc ?? "" });

/** The provider's own card confirmation, with the test provider only (Stripe confirms in the browser). */
function confirmWithTestCard(deps: Deps, intent: PaymentIntent, card: CardPost) {
  return asTestProvider(deps.payments)!.confirmCard({ clientSecret: intent.clientSecret, cardNumber: card.cardNumber ?? "", expiry: card.expiry ?? "", cvc: card.cvc ?? "" });
}

/** Where the test provider's authentication page sends the guest back to. */
const authenticationAt = (nextActionUrl: string | undefined, back: string) => `${nextActionUrl}?${new URLSearchParams({ return: back })}`;

// ---------------------------------------------------------------------------------------------
// The date-time flow's payment screen: /booking/{activityId}/payment.

/** The payment screen's data, or null when there is nothing to pay for (no choice, not bookable). */
export async function paymentScreenData(deps: Deps, user: User, activityId: string): Promise<PaymentScreenData | null> {
  const activity = await findListedActivity(deps, activityId);
  if (!activity || activity.hostId === user.id) return null;
  const selection = await getSelection(deps, user.id, activity.id);
  if (!selection) return null;
  const slot = readSlot(activity, { date: selection.date, time: selection.time, durationMinutes: selection.durationMinutes }, "datetime", deps.now());
  const seats = readSpots(activity, selection);
  return { ...(await bookingSummary(deps, activity)), selection, slot, price: bookingPrice(activity, slot, seats), testMode: deps.payments.testMode };
}

const paymentDataOrNull = (deps: Deps, user: User, activityId: string) => paymentScreenData(deps, user, activityId).catch(() => null);

/**
 * The payment screen with its card form. With Stripe its form needs this choice's intent, made
 * once per choice (its nonce keys it), so a reload or a failed card shows the same one.
 */
async function paymentForm(deps: Deps, user: User, data: PaymentScreenData, card: CardForm, status: number, origin: string): Promise<PaymentStep> {
  let shown = card;
  if (!asTestProvider(deps.payments)) {
    try {
      const { intent } = await intentForSlot(deps, user, {
        activityId: data.activity.id,
        date: data.slot.date,
        time: data.slot.time,
        durationMinutes: data.slot.durationMinutes,
        spots: data.selection.spots,
        privateGroup: data.selection.privateGroup,
        amount: undefined,
        nonce: data.selection.nonce,
      });
      shown = { ...card, stripe: stripeForm(deps, intent, origin, `/booking/${data.activity.id}/payment/return`) };
    } catch (err) {
      if (!isDomainError(err)) throw err;
      shown = { ...card, stripe: null, error: card.error ?? wordingOf(err) };
    }
  }
  return { kind: "payment", data, card: shown, status };
}

/** With Stripe, its card form for an intent, returning to `returnPath` after a redirect (3-D Secure). */
const stripeForm = (deps: Deps, intent: PaymentIntent, origin: string, returnPath: string): StripeFormData => ({
  publishableKey: deps.config.stripe?.publishableKey ?? "",
  clientSecret: intent.clientSecret,
  returnUrl: `${origin}${returnPath}`,
});

/** `GET /booking/{id}/payment`. `origin` is where the provider sends the browser back (`returnBase`). */
export async function paymentScreen(deps: Deps, user: User, activityId: string, origin: string): Promise<PaymentStep> {
  const data = await paymentDataOrNull(deps, user, activityId);
  if (!data) return redirect("/");
  return paymentForm(deps, user, data, {}, 200, origin);
}

/** `POST /booking/{id}/payment`: pays for the saved choice; the request is made once the card is held. */
export async function payForChoice(deps: Deps, user: User, activityId: string, card: CardPost, origin: string): Promise<PaymentStep> {
  const data = await paymentDataOrNull(deps, user, activityId);
  if (!data) return redirect("/");
  const values = valuesOf(card);
  const form = (c: CardForm, status: number, d: PaymentScreenData = data) => paymentForm(deps, user, d, c, status, origin);
  const choice = { activityId: data.activity.id, date: data.slot.date, time: data.slot.time, durationMinutes: data.slot.durationMinutes, spots: data.selection.spots, privateGroup: data.selection.privateGroup };
  try {
    if (!asTestProvider(deps.payments)) {
      // Stripe's card form confirmed the card in the browser and names its intent here. The
      // intent is read again from Stripe: only one authorised for this guest, choice and price
      // makes the booking.
      return succeeded((await createBooking(deps, user, { ...choice, priceTotal: card.amount, paymentIntentId: card.paymentIntentId })).booking);
    }
    const { intent } = await intentForSlot(deps, user, { ...choice, amount: card.amount, nonce: data.selection.nonce });
    const result = await confirmWithTestCard(deps, intent, card);
    if (result.status === "requires_action") return redirect(authenticationAt(result.nextActionUrl, `/booking/${data.activity.id}/payment/return`));
    if (result.status !== "requires_capture") return form({ values, error: result.error ? { text: result.error } : { key: "booking.paymentFailed" } }, 402);
    return succeeded((await createBooking(deps, user, { ...choice, priceTotal: undefined, paymentIntentId: result.paymentIntentId })).booking);
  } catch (err) {
    if (err instanceof PaymentError) return form({ values, error: { text: err.message } }, 402);
    if (!isDomainError(err)) throw err;
    const title: Wording | undefined = err.key.endsWith("Released") ? { key: "booking.bookingError" } : undefined;
    const fresh = (await paymentDataOrNull(deps, user, activityId)) ?? data;
    return form({ values, title, error: wordingOf(err) }, err.status, fresh);
  }
}

/**
 * `GET /booking/{id}/payment/return`: back from the card's authentication (Stripe's return_url,
 * or the test provider's page). The intent named in the address is read again from the provider
 * before anything is made.
 */
export async function paymentReturned(deps: Deps, user: User, activityId: string, intentId: string, origin: string): Promise<PaymentStep> {
  const data = await paymentDataOrNull(deps, user, activityId);
  if (!data) return redirect("/");
  const intent = intentId ? await deps.payments.getIntent(intentId).catch(() => null) : null;
  if (!intent || intent.metadata.guestId !== user.id) return redirect(`/booking/${activityId}/payment`);
  if (intent.status !== "requires_capture") return paymentForm(deps, user, data, { error: intent.lastError ? { text: intent.lastError } : { key: "booking.paymentFailed" } }, 402, origin);
  try {
    const { slot } = data;
    const { booking } = await createBooking(deps, user, {
      activityId: data.activity.id,
      date: slot.date,
      time: slot.time,
      durationMinutes: slot.durationMinutes,
      spots: data.selection.spots,
      privateGroup: data.selection.privateGroup,
      priceTotal: undefined,
      paymentIntentId: intent.id,
    });
    return succeeded(booking);
  } catch (err) {
    if (!isDomainError(err)) throw err;
    return paymentForm(deps, user, data, { title: { key: "booking.bookingError" }, error: wordingOf(err) }, err.status, origin);
  }
}

// ---------------------------------------------------------------------------------------------
// The checkout page of a booking awaiting payment: /checkout/{bookingId}.

/** The booking its guest may pay for now, with its activity, or null. */
async function payable(deps: Deps, user: User, bookingId: string) {
  const booking = await payableBooking(deps, user.id, bookingId);
  const activity = booking ? await findListedActivity(deps, booking.activityId) : undefined;
  return booking && activity ? { booking, activity } : null;
}

/** The checkout screen; with Stripe, its card form for the booking's intent. */
async function checkoutForm(deps: Deps, user: User, booking: Booking, activity: Activity, card: CardForm, status: number, origin: string): Promise<PaymentStep> {
  let shown = card;
  if (!asTestProvider(deps.payments)) {
    try {
      const { intent } = await intentForBooking(deps, user, { bookingId: booking.id, amount: undefined });
      shown = { ...card, stripe: stripeForm(deps, intent, origin, `/checkout/${booking.id}/return`) };
    } catch (err) {
      if (!isDomainError(err)) throw err;
      shown = { ...card, stripe: null, error: card.error ?? wordingOf(err) };
    }
  }
  return { kind: "checkout", booking, activity, testMode: deps.payments.testMode, card: shown, status };
}

/** `GET /checkout/{bookingId}`. */
export async function checkoutScreen(deps: Deps, user: User, bookingId: string, origin: string): Promise<PaymentStep> {
  const found = await payable(deps, user, bookingId);
  if (!found) return { kind: "notFound" };
  return await checkoutForm(deps, user, found.booking, found.activity, {}, 200, origin);
}

/**
 * The booking this guest already made a request of (paid by another post of the same payment, a
 * second tab, or the provider's news): where the guest goes, as from the post that made it.
 */
async function requested(deps: Deps, user: User, bookingId: string): Promise<PaymentStep | null> {
  const b = uuidLike(bookingId) ? await currentBooking(deps, bookingId) : undefined;
  return b && b.guestId === user.id && (b.status === "pending" || b.status === "accepted") ? redirect("/", toastFor(b)) : null;
}

/**
 * `POST /checkout/{bookingId}`: the booking becomes a request once its card is held, through the
 * checkout's claim (`payAwaitingBooking`): posting it again after a failure the guest did not see
 * (a crash, a lost answer) finishes it from what the provider shows.
 */
export async function payForBooking(deps: Deps, user: User, bookingId: string, card: CardPost, origin: string): Promise<PaymentStep> {
  const found = await payable(deps, user, bookingId);
  if (!found) return (await requested(deps, user, bookingId)) ?? { kind: "notFound" };
  const { booking, activity } = found;
  const failed = async (error: Wording, status: number) =>
    await checkoutForm(deps, user, booking, activity, { values: valuesOf(card), title: { key: "booking.paymentFailedTitle" }, error }, status, origin);
  try {
    let intentId: string;
    let confirm: (() => ReturnType<typeof confirmWithTestCard>) | null = null;
    if (!asTestProvider(deps.payments)) {
      // Stripe's card form confirmed the card in the browser and names its intent; the
      // provider's own copy decides: it must be this booking's, for its total, and authorised.
      intentId = namedIntent(card.paymentIntentId);
      checkAmount(card.amount, booking, booking.currency);
    } else {
      const { intent } = await intentForBooking(deps, user, { bookingId: booking.id, amount: card.amount });
      intentId = intent.id;
      confirm = () => confirmWithTestCard(deps, intent, card);
    }
    const paid = await payAwaitingBooking(deps, booking.id, intentId, confirm, INSTANT_ANSWER_MS);
    switch (paid.kind) {
      case "paid":
        return redirect("/", toastFor((await currentBooking(deps, booking.id)) ?? booking));
      // Released: the booking ended meanwhile (cancelled in another tab, its hold taken over).
      case "released":
        return failed({ key: "booking.slotTakenReleased" }, 409);
      // The card may be held: the guest is not told it failed, nor asked for anything more.
      case "unconfirmed":
        return await checkoutForm(deps, user, booking, activity, { title: { key: "booking.paymentConfirmingTitle" }, error: { key: "booking.paymentUnconfirmed" } }, 502, origin);
      case "notAuthorised": {
        const result = paid.confirmed;
        if (result?.status === "requires_action") return redirect(authenticationAt(result.nextActionUrl, `/checkout/${booking.id}/return`));
        if (result) return failed(result.error ? { text: result.error } : { key: "booking.paymentFailed" }, 402);
        const intent = await deps.payments.getIntent(intentId).catch(() => null);
        const own = intent && intent.metadata.bookingId === booking.id;
        return failed(own && intent.lastError ? { text: intent.lastError } : { key: "booking.paymentNotAuthorised" }, 402);
      }
    }
  } catch (err) {
    // Another post of this payment made the request meanwhile: it is this one's answer too.
    const made = await requested(deps, user, booking.id);
    if (made) return made;
    if (err instanceof PaymentError) return failed({ text: err.message }, 402);
    if (!isDomainError(err)) throw err;
    return failed(wordingOf(err), err.status);
  }
}

/**
 * `GET /checkout/{bookingId}/return`: back from the card's authentication. What the provider shows
 * is recorded through the same claim as a payment posted on the page.
 */
export async function checkoutReturned(deps: Deps, user: User, bookingId: string): Promise<PaymentStep> {
  const booking = await payableBooking(deps, user.id, bookingId);
  if (booking?.paymentIntentId) {
    const paid = await payAwaitingBooking(deps, booking.id, booking.paymentIntentId, null, INSTANT_ANSWER_MS).catch((err: unknown) => {
      if (err instanceof PaymentError || isDomainError(err)) return null;
      throw err;
    });
    if (paid?.kind === "paid") return redirect("/", toastFor((await currentBooking(deps, booking.id)) ?? booking));
    if (paid?.kind === "unconfirmed") return redirect("/bookings", { title: "booking.paymentConfirmingTitle", body: "booking.paymentUnconfirmed", variant: "success" });
  }
  // The provider's event may have made it a request (accepted at once, for an instant booking) before the browser came back.
  const made = await requested(deps, user, bookingId);
  if (made) return made;
  if (booking) return redirect(`/checkout/${booking.id}`, { title: "booking.paymentFailedTitle", body: "booking.paymentFailed", variant: "error" });
  return redirect("/bookings");
}
