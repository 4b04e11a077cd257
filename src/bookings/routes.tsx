import { decimalFromCents } from "../lib/money";
import { Elysia } from "elysia";
import type { z } from "zod";
import type { Activity, Booking, User } from "../../db/schema";
import { CheckoutScreen, PaymentScreen, type CardState, type PaymentData } from "../../views/bookings/Payment";
import type { StripeFormData } from "../../views/bookings/Parts";
import { RequestPaymentStep, type RequestChoice } from "../../views/bookings/Request";
import { BookingSuccess } from "../../views/bookings/Success";
import { DateTimeScreen, type DateTimeData } from "../../views/bookings/DateTime";
import { ActivityNotFound } from "../../views/activities/Detail";
import { ErrorScreen } from "../../views/shell/NotFound";
import { findListedActivity, hostOf } from "../activities/manage";
import { activityRating } from "../activities/service";
import { context, type Render, type SendTo } from "../context";
import { type Deps, type RequestState } from "../deps";
import { asRecord, json, safeNext, wantsJson } from "../lib/http";
import type { MessageKey } from "../texts";
import { cityByName } from "../lib/places";
import { priceFor } from "../../shared/pricing";
import { asTestProvider, returnBase } from "../payments";
import { PaymentError, type PaymentIntent } from "../payments/provider";
import { publicUser } from "../profiles/serialize";
import { bookingJobs, hostOfAccount } from "./jobs";
import { bookingOf, bookingsOf, hostEarnings, hostRequests } from "./queries";
import { cardInput, createBookingInput, dateTimeIntentInput, dialogIntentInput, existingBookingIntentInput, selectionInput } from "./input";
import { clearSelections, getSelection, saveSelection } from "./selection";
import { busyIntervals, checkSlotOpen } from "./availability";
import { checkoutEnded, createBooking, intentForBooking, intentForSlot, payableBooking, paymentAuthorised, startCheckout } from "./checkout";
import { owedPayouts, payHost } from "./payouts";
import { BookingError, bookableActivity, bookingMessage, checkAmount, MAX_BOOKING_MESSAGE, slotOrThrow, type Action } from "./service";
import { act } from "./transitions";
import { activityZone, bookableDates, busyByDate, hoursToMinutes, localNow, maxMinutesOf, splitProposed } from "./times";

/** A booking refusal as the API answers it: the message in the caller's language, and any extra fields. */
export function bookingErrorJson(state: RequestState, err: BookingError) {
  const headers = err.retryAfterMs ? { "Retry-After": String(Math.ceil(err.retryAfterMs / 1000)) } : undefined;
  return json({ message: err.detail && err.key === "booking.paymentProblem" ? err.detail : state.t(err.key), ...(err.detail ? { detail: err.detail } : {}), ...err.extra }, err.status, headers);
}

/** A refusal for the screen: the provider's own words for a payment it refused or did not authorise ("Your card was declined."). */
const messageOf = (state: RequestState, err: BookingError) =>
  (err.key === "booking.paymentProblem" || err.key === "booking.paymentNotAuthorised") && err.detail ? err.detail : state.t(err.key);

/** Parses with a zod schema; a wrong shape is a clear 400 (BookingError). */
function parse<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const read = schema.safeParse(asRecord(body));
  if (!read.success) throw new BookingError("booking.badInput", 400);
  return read.data;
}

const TOASTS: Record<Action, { title: MessageKey; body: MessageKey }> = {
  accept: { title: "toast.bookingAccepted", body: "toast.bookingAcceptedBody" },
  reject: { title: "toast.bookingDeclined", body: "toast.bookingDeclinedBody" },
  complete: { title: "toast.activityCompleted", body: "toast.activityCompletedBody" },
  cancel: { title: "toast.bookingCanceled", body: "toast.bookingCanceledBody" },
};

/** Bookings: the date-time, payment, success and checkout screens, the request dialog's steps, and the JSON API of spec §7. */
export function bookingRoutes(deps: Deps) {
  deps.jobs.register(...(bookingJobs as never[]));

  // The provider's news (webhooks, or the test provider's own events), handled idempotently.
  deps.paymentEvents.on(async (event) => {
    const bookingId = event.metadata.bookingId;
    if ((event.type === "checkout.session.completed" || event.type === "payment_intent.amount_capturable_updated") && bookingId && event.paymentIntentId) {
      await paymentAuthorised(deps, bookingId, event.paymentIntentId);
    }
    if (event.type === "checkout.session.expired" && bookingId) await checkoutEnded(deps, bookingId, event.objectId);
    if (event.type === "account.updated") {
      const hostId = hostOfAccount(deps, event.objectId);
      if (hostId) for (const id of owedPayouts(deps, hostId)) await payHost(deps, id);
    }
  });

  const today = () => new Date(deps.now());

  /** What the summary at the top of the booking screens shows. */
  async function summaryOf(activity: Activity) {
    const [host, rating] = await Promise.all([hostOf(deps, activity), activityRating(deps.db, activity.id)]);
    const hostView = host ? publicUser(host, today()) : null;
    return { activity, hostName: hostView?.firstName ?? "", hostRating: rating };
  }

  async function dateTimeData(user: User, activity: Activity, pick: { date?: string; time?: string; durationMinutes?: number }, error?: string): Promise<DateTimeData> {
    const zone = activityZone(activity);
    const now = deps.now();
    const dates = bookableDates(zone, now);
    const busy = busyByDate(busyIntervals(deps, activity.hostId, now), zone);
    const viewerZone = cityByName(user.city)?.timeZone;
    return {
      ...(await summaryOf(activity)),
      zone,
      viewerZoneDiffers: !!viewerZone && viewerZone !== zone,
      dates,
      busy,
      now: localNow(zone, now),
      minMinutes: activity.minDurationMinutes,
      maxMinutes: maxMinutesOf(activity),
      selected: { date: pick.date && dates.includes(pick.date) ? pick.date : "", time: pick.time ?? "", durationMinutes: pick.durationMinutes ?? 0 },
      error,
    };
  }

  /** The payment screen's data: the saved selection, read again against today's rules. */
  async function paymentData(user: User, activityId: string) {
    const activity = await findListedActivity(deps, activityId);
    if (!activity || activity.hostId === user.id) return null;
    const selection = getSelection(deps, user.id, activity.id);
    if (!selection) return null;
    const slot = slotOrThrow(activity, { date: selection.date, time: selection.time, durationMinutes: selection.durationMinutes }, "datetime", deps.now());
    return { ...(await summaryOf(activity)), selection, slot, price: priceFor(activity.hourlyRateCents, slot.durationMinutes), testMode: deps.payments.testMode };
  }

  const cardOf = (body: unknown) => {
    const c = parse(cardInput, body);
    return { cardNumber: c.cardNumber ?? "", expiry: c.expiry ?? "", cvc: c.cvc ?? "", amount: c.amount };
  };

  /** The form answer of a booking action: back where the button was, with the spec's toast. */
  function actionAnswer(request: Request, body: unknown, sendTo: SendTo, action: Action) {
    const next = safeNext(asRecord(body).next, "/bookings");
    return sendTo(next, { ...TOASTS[action], variant: "success" });
  }

  /** With Stripe, its card form for an intent, returning to `returnPath` after a redirect (3-D Secure). */
  const stripeFormOf = (request: Request, intent: PaymentIntent, returnPath: string): StripeFormData => ({
    publishableKey: deps.config.stripe?.publishableKey ?? "",
    clientSecret: intent.clientSecret,
    returnUrl: `${returnBase(deps, request)}${returnPath}`,
  });

  /**
   * The payment screen. With Stripe its card form needs this choice's intent, made once per
   * choice (its nonce keys it), so a reload or a failed card shows the same one.
   */
  async function paymentPage(ctx: { request: Request; render: Render; state: RequestState; user: User }, data: PaymentData, card: CardState, status: number) {
    let shown = card;
    if (!asTestProvider(deps.payments)) {
      try {
        const { intent } = await intentForSlot(deps, ctx.user, {
          activityId: data.activity.id,
          date: data.slot.date,
          time: data.slot.time,
          durationMinutes: data.slot.durationMinutes,
          amount: decimalFromCents(data.price.totalCents),
          nonce: data.selection.nonce,
        });
        shown = { ...card, stripe: stripeFormOf(ctx.request, intent, `/booking/${data.activity.id}/payment/return`) };
      } catch (err) {
        if (!(err instanceof BookingError)) throw err;
        shown = { ...card, stripe: null, error: card.error ?? messageOf(ctx.state, err) };
      }
    }
    return ctx.render((view) => <PaymentScreen view={view} data={data} card={shown} />, { status });
  }

  /** The existing-booking checkout screen; with Stripe, its card form for the booking's intent. */
  async function checkoutPage(ctx: { request: Request; render: Render; state: RequestState; user: User }, booking: Booking, activity: Activity, card: CardState, status: number) {
    let shown = card;
    if (!asTestProvider(deps.payments)) {
      try {
        const { intent } = await intentForBooking(deps, ctx.user, { bookingId: booking.id, amount: decimalFromCents(booking.totalCents) });
        shown = { ...card, stripe: stripeFormOf(ctx.request, intent, `/checkout/${booking.id}/return`) };
      } catch (err) {
        if (!(err instanceof BookingError)) throw err;
        shown = { ...card, stripe: null, error: card.error ?? messageOf(ctx.state, err) };
      }
    }
    return ctx.render((view) => <CheckoutScreen view={view} booking={booking} activity={activity} testMode={deps.payments.testMode} card={shown} />, { status });
  }

  return (
    new Elysia({ name: "offline.bookings", seed: deps.id })
      .use(context(deps))
      .guard({ onboarded: true })

      // ----------------------------------------------------------------------------- JSON API
      .post("/api/create-payment-intent", ({ body, user, state, request }) => answering(state, async () => {
        const input = asRecord(body);
        if (input.bookingId !== undefined) {
          const b = parse(existingBookingIntentInput, body);
          const { intent } = await intentForBooking(deps, user, b);
          return json({ clientSecret: intent.clientSecret, paymentIntentId: intent.id, status: intent.status });
        }
        if (input.metadata !== undefined) {
          const b = parse(dateTimeIntentInput, body);
          const selection = getSelection(deps, user.id, b.metadata.activityId);
          const minutes = hoursToMinutes(b.metadata.duration);
          const { intent, price } = await intentForSlot(deps, user, {
            activityId: b.metadata.activityId,
            date: b.metadata.date,
            time: b.metadata.time,
            durationMinutes: minutes,
            amount: b.amount,
            nonce: selection && selection.date === b.metadata.date && selection.time === b.metadata.time && selection.durationMinutes === minutes ? selection.nonce : undefined,
          });
          return json({ clientSecret: intent.clientSecret, paymentIntentId: intent.id, amount: decimalFromCents(price.totalCents), testMode: deps.payments.testMode });
        }
        if (input.activityId !== undefined) {
          const b = parse(dialogIntentInput, body);
          const { session, booking } = await startCheckout(deps, user, {
            activityId: b.activityId,
            date: b.proposedDate,
            time: b.proposedTime,
            durationMinutes: hoursToMinutes(b.hours),
            amount: b.amount,
            message: b.message,
          }, returnBase(deps, request));
          return json({ sessionId: session.id, url: session.url, bookingId: booking.id });
        }
        return json({ message: state.t("booking.badInput") }, 400);
      }))
      .post("/api/bookings", ({ body, user, state }) => answering(state, async () => {
        const b = parse(createBookingInput, body);
        const { date, time } = splitProposed(b.proposedDatetime);
        const { booking, created } = await createBooking(deps, user, {
          activityId: b.activityId,
          date,
          time,
          durationMinutes: hoursToMinutes(b.durationHours),
          priceTotal: b.priceTotal,
          paymentIntentId: b.paymentIntentId,
          message: b.message,
        });
        return json((await bookingOf(deps, user.id, booking.id)).view, created ? 201 : 200);
      }))
      .get("/api/bookings", async ({ user }) => json((await bookingsOf(deps, user.id)).map((b) => b.view)))
      .get("/api/bookings/:id/details", ({ params, user, state }) => answering(state, async () => json((await bookingOf(deps, user.id, params.id)).details)))
      .get("/api/host/requests", async ({ user }) => json((await hostRequests(deps, user.id)).requests))
      .get("/api/host/earnings", async ({ user }) => {
        const e = await hostEarnings(deps, user.id);
        return json({ totalEarnings: decimalFromCents(e.totalEarningsCents), pendingPayouts: decimalFromCents(e.pendingPayoutsCents), completedBookings: e.completedBookings });
      })
      .post("/api/bookings/:id/:action", ({ params, body, user, request, state, sendTo }) => answering(state, async () => {
        const action = params.action as Action;
        if (!["accept", "reject", "complete", "cancel"].includes(action)) return json({ message: state.t("error.notFound") }, 404);
        try {
          const { booking } = await act(deps, user, params.id, action);
          if (wantsJson(request)) return json((await bookingOf(deps, user.id, booking.id)).view);
          return actionAnswer(request, body, sendTo, action);
        } catch (err) {
          if (!(err instanceof BookingError) || wantsJson(request) || err.status === 404) throw err;
          const failed: Record<Action, MessageKey> = { accept: "booking.acceptFailed", reject: "booking.declineFailed", complete: "booking.completeFailed", cancel: "booking.cancelFailed" };
          return sendTo(safeNext(asRecord(body).next, "/bookings"), { title: "common.error", body: err.key === "booking.paymentProblem" ? failed[action] : err.key, variant: "error" });
        }
      }))

      // ----------------------------------------------------------------------- date-time screen
      .get("/booking/:id/date-time", async ({ params, query, user, render }) => {
        const activity = await findListedActivity(deps, params.id);
        if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
        if (activity.hostId === user.id) return render((view) => <ErrorScreen view={view} title={view.t("booking.ownActivity")} body={view.t("booking.ownActivityBody")} />, { status: 400 });
        const saved = getSelection(deps, user.id, activity.id);
        const date = typeof query.date === "string" ? query.date : saved?.date;
        const data = await dateTimeData(user, activity, { date, time: saved?.time, durationMinutes: saved?.durationMinutes });
        return render((view) => <DateTimeScreen view={view} data={data} />);
      })
      .post("/booking/:id/date-time", async ({ params, body, user, render, state, sendTo }) => {
        const activity = await findListedActivity(deps, params.id);
        if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
        const input = (() => {
          const r = selectionInput.safeParse(asRecord(body));
          return r.success ? r.data : {};
        })();
        const pick = { date: input.date ?? "", time: input.time ?? "", durationMinutes: input.duration === undefined || input.duration === "" ? undefined : hoursToMinutes(input.duration) };
        try {
          await bookableActivity(deps, user, activity.id);
          const slot = slotOrThrow(activity, { date: pick.date, time: pick.time, durationMinutes: pick.durationMinutes }, "datetime", deps.now());
          checkSlotOpen(deps, activity, slot, user.id);
          saveSelection(deps, user.id, activity.id, slot);
          return sendTo(`/booking/${activity.id}/payment`);
        } catch (err) {
          if (!(err instanceof BookingError)) throw err;
          const data = await dateTimeData(user, activity, { ...pick, durationMinutes: Number.isFinite(pick.durationMinutes) ? pick.durationMinutes : undefined }, state.t(err.key));
          return render((view) => <DateTimeScreen view={view} data={data} />, { status: err.status });
        }
      })

      // ------------------------------------------------------------------------- payment screen
      .get("/booking/:id/payment", async ({ params, user, render, sendTo, state, request }) => {
        const data = await paymentData(user, params.id).catch(() => null);
        if (!data) return sendTo("/");
        return paymentPage({ request, render, state, user }, data, {}, 200);
      })
      .post("/booking/:id/payment", async ({ params, body, user, render, sendTo, state, request }) => {
        const data = await paymentData(user, params.id).catch(() => null);
        if (!data) return sendTo("/");
        const card = cardOf(body);
        const test = asTestProvider(deps.payments);
        const page = (c: CardState, status: number, d: PaymentData = data) => paymentPage({ request, render, state, user }, d, c, status);
        const booking = { activityId: data.activity.id, date: data.slot.date, time: data.slot.time, durationMinutes: data.slot.durationMinutes };
        try {
          if (!test) {
            // Stripe's card form confirmed the card in the browser and names its intent here. The
            // intent is read again from Stripe: only one authorised for this guest, choice and price
            // makes the booking.
            await createBooking(deps, user, { ...booking, priceTotal: card.amount ?? decimalFromCents(data.price.totalCents), paymentIntentId: asRecord(body).paymentIntentId });
            return sendTo("/booking-success");
          }
          const { intent } = await intentForSlot(deps, user, { ...booking, amount: card.amount ?? decimalFromCents(data.price.totalCents), nonce: data.selection.nonce });
          const result = await test.confirmCard({ clientSecret: intent.clientSecret, cardNumber: card.cardNumber, expiry: card.expiry, cvc: card.cvc });
          if (result.status === "requires_action") {
            const back = `/booking/${data.activity.id}/payment/return`;
            return sendTo(`${result.nextActionUrl}?${new URLSearchParams({ return: back })}`);
          }
          if (result.status !== "requires_capture") return page({ values: card, error: result.error ?? state.t("booking.paymentFailed") }, 402);
          await createBooking(deps, user, { ...booking, priceTotal: decimalFromCents(data.price.totalCents), paymentIntentId: result.paymentIntentId });
          return sendTo("/booking-success");
        } catch (err) {
          if (err instanceof PaymentError) return page({ values: card, error: err.message }, 402);
          if (!(err instanceof BookingError)) throw err;
          const title = err.key === "booking.slotTakenReleased" || err.key === "booking.guestBusyReleased" ? state.t("booking.bookingError") : undefined;
          const fresh = (await paymentData(user, params.id).catch(() => null)) ?? data;
          return page({ values: card, title, error: messageOf(state, err) }, err.status, fresh);
        }
      })
      .get("/booking/:id/payment/return", async ({ params, query, user, render, sendTo, state, request }) => {
        // Back from the card's authentication (Stripe's return_url, or the test provider's page):
        // the intent named in the address is read again from the provider before anything is made.
        const data = await paymentData(user, params.id).catch(() => null);
        if (!data) return sendTo("/");
        const ctx = { request, render, state, user };
        const intentId = typeof query.payment_intent === "string" && query.payment_intent.length <= 200 ? query.payment_intent : "";
        const intent = intentId ? await deps.payments.getIntent(intentId).catch(() => null) : null;
        if (!intent || intent.metadata.guestId !== user.id) return sendTo(`/booking/${params.id}/payment`);
        if (intent.status !== "requires_capture") return paymentPage(ctx, data, { error: intent.lastError ?? state.t("booking.paymentFailed") }, 402);
        try {
          await createBooking(deps, user, { activityId: data.activity.id, date: data.slot.date, time: data.slot.time, durationMinutes: data.slot.durationMinutes, priceTotal: decimalFromCents(data.price.totalCents), paymentIntentId: intent.id });
          return sendTo("/booking-success");
        } catch (err) {
          if (!(err instanceof BookingError)) throw err;
          return paymentPage(ctx, data, { title: state.t("booking.bookingError"), error: messageOf(state, err) }, err.status);
        }
      })
      .get("/booking-success", ({ user, render }) => {
        clearSelections(deps, user.id);
        return render((view) => <BookingSuccess view={view} />);
      })

      // ------------------------------------------------------------------ the existing-booking flow
      .get("/checkout/:bookingId", async ({ params, user, render, state, request }) => {
        const booking = payableBooking(deps, user.id, params.bookingId);
        const activity = booking ? await findListedActivity(deps, booking.activityId) : undefined;
        if (!booking || !activity) return render((view) => <ErrorScreen view={view} title={view.t("booking.notFound")} body={view.t("booking.notFoundBody")} />, { status: 404 });
        return checkoutPage({ request, render, state, user }, booking, activity, {}, 200);
      })
      .post("/checkout/:bookingId", async ({ params, body, user, render, sendTo, state, request }) => {
        const booking = payableBooking(deps, user.id, params.bookingId);
        const activity = booking ? await findListedActivity(deps, booking.activityId) : undefined;
        if (!booking || !activity) return render((view) => <ErrorScreen view={view} title={view.t("booking.notFound")} body={view.t("booking.notFoundBody")} />, { status: 404 });
        const card = cardOf(body);
        const failed = (message: string, status: number) =>
          checkoutPage({ request, render, state, user }, booking, activity, { values: card, title: state.t("booking.paymentFailedTitle"), error: message }, status);
        const sent = () => sendTo("/", { title: "toast.paymentSuccessful", body: "toast.requestSent", variant: "success" });
        try {
          const test = asTestProvider(deps.payments);
          if (!test) {
            // Stripe's card form names the intent it confirmed; the provider's own copy decides:
            // it must be this booking's, for its total, and authorised.
            const intentId = asRecord(body).paymentIntentId;
            if (typeof intentId !== "string" || !intentId.trim() || intentId.length > 200) throw new BookingError("booking.paymentRequired", 400);
            checkAmount(card.amount ?? decimalFromCents(booking.totalCents), booking);
            const outcome = await paymentAuthorised(deps, booking.id, intentId.trim());
            if (outcome === "advanced" || outcome === "already") return sent();
            if (outcome === "released") return failed(state.t("booking.slotTakenReleased"), 409);
            const intent = await deps.payments.getIntent(intentId.trim()).catch(() => null);
            const own = intent && intent.metadata.bookingId === booking.id;
            return failed((own && intent.lastError) || state.t("booking.paymentNotAuthorised"), 402);
          }
          const { intent } = await intentForBooking(deps, user, { bookingId: booking.id, amount: card.amount ?? decimalFromCents(booking.totalCents) });
          const result = await test.confirmCard({ clientSecret: intent.clientSecret, cardNumber: card.cardNumber, expiry: card.expiry, cvc: card.cvc });
          if (result.status === "requires_action") return sendTo(`${result.nextActionUrl}?${new URLSearchParams({ return: `/checkout/${booking.id}/return` })}`);
          if (result.status !== "requires_capture") return failed(result.error ?? state.t("booking.paymentFailed"), 402);
          const outcome = await paymentAuthorised(deps, booking.id, result.paymentIntentId);
          // Released: the booking ended meanwhile (cancelled in another tab, its hold taken over).
          if (outcome === "released") return failed(state.t("booking.slotTakenReleased"), 409);
          if (outcome === "ignored") return failed(state.t("booking.paymentNotAuthorised"), 402);
          return sent();
        } catch (err) {
          if (err instanceof PaymentError) return failed(err.message, 402);
          if (!(err instanceof BookingError)) throw err;
          return failed(messageOf(state, err), err.status);
        }
      })
      .get("/checkout/:bookingId/return", async ({ params, user, sendTo }) => {
        const booking = payableBooking(deps, user.id, params.bookingId);
        const sent = () => sendTo("/", { title: "toast.paymentSuccessful", body: "toast.requestSent", variant: "success" });
        if (booking?.paymentIntentId && (await paymentAuthorised(deps, booking.id, booking.paymentIntentId)) === "advanced") return sent();
        // The provider's event may have made it a request before the browser came back.
        const own = booking ? null : await bookingOf(deps, user.id, params.bookingId).catch(() => null);
        if (own && own.booking.guestId === user.id && own.booking.status === "pending") return sent();
        if (booking) return sendTo(`/checkout/${booking.id}`, { title: "booking.paymentFailedTitle", body: "booking.paymentFailed", variant: "error" });
        return sendTo("/bookings");
      })

      // --------------------------------------------------------------------- the request dialog
      .post("/activity/:id/request", async ({ params, body, user, render, state }) => {
        const activity = await findListedActivity(deps, params.id);
        if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
        const choice = requestChoice(body);
        const summary = await summaryOf(activity);
        try {
          await bookableActivity(deps, user, activity.id);
          bookingMessage(choice.message, { required: true });
          const slot = slotOrThrow(activity, { date: choice.date, time: choice.time, durationMinutes: choice.hours * 60 }, "dialog", deps.now());
          checkSlotOpen(deps, activity, slot, user.id);
          const price = priceFor(activity.hourlyRateCents, slot.durationMinutes);
          return render((view) => <RequestPaymentStep view={view} summary={summary} choice={choice} price={price} testMode={deps.payments.testMode} now={deps.now()} />);
        } catch (err) {
          if (!(err instanceof BookingError)) throw err;
          return render((view) => <RequestPaymentStep view={view} summary={summary} choice={choice} error={requestErrorOf(state, err)} testMode={deps.payments.testMode} now={deps.now()} />, { status: err.status });
        }
      })
      .post("/activity/:id/request/pay", async ({ params, body, user, render, state, sendTo, request }) => {
        const activity = await findListedActivity(deps, params.id);
        if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
        const choice = requestChoice(body);
        try {
          const { session } = await startCheckout(deps, user, {
            activityId: activity.id,
            date: choice.date,
            time: choice.time,
            durationMinutes: choice.hours * 60,
            amount: asRecord(body).amount,
            message: choice.message,
          }, returnBase(deps, request));
          return sendTo(session.url);
        } catch (err) {
          if (!(err instanceof BookingError)) throw err;
          const summary = await summaryOf(activity);
          return render((view) => <RequestPaymentStep view={view} summary={summary} choice={choice} error={requestErrorOf(state, err)} testMode={deps.payments.testMode} now={deps.now()} />, { status: err.status });
        }
      })
  );
}

function requestChoice(body: unknown): RequestChoice {
  const b = asRecord(body);
  // Shown again as typed when the service refuses it (too long, say), within a bound.
  const str = (k: string) => (typeof b[k] === "string" ? (b[k] as string).slice(0, 2 * MAX_BOOKING_MESSAGE) : "");
  const hours = Number(str("hours") || "1");
  return { message: str("message"), date: str("proposedDate"), time: str("proposedTime"), hours: Number.isFinite(hours) ? hours : 1 };
}

/** The dialog's refusals, titled as the spec's toasts are. */
function requestErrorOf(state: RequestState, err: BookingError) {
  const titles: Partial<Record<MessageKey, [MessageKey, MessageKey]>> = {
    "booking.messageRequired": ["booking.messageRequiredTitle", "booking.messageRequired"],
    "booking.dateRequired": ["booking.dateRequiredTitle", "booking.dateRequired"],
    "booking.timeRequired": ["booking.timeRequiredTitle", "booking.timeRequired"],
  };
  const pair = titles[err.key];
  if (pair) return { title: state.t(pair[0]), body: state.t(pair[1]) };
  return { title: state.t("booking.paymentErrorTitle"), body: messageOf(state, err) };
}

/** Runs a JSON call; a refusal of the rules becomes its 4xx answer in the caller's language. */
async function answering(state: RequestState, work: () => Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof BookingError) return bookingErrorJson(state, err);
    throw err;
  }
}
