import { Elysia } from "elysia";
import { CheckoutScreen, PaymentScreen, type CardState } from "../../views/bookings/Payment";
import { RequestPaymentStep, type RequestChoice } from "../../views/bookings/Request";
import { BookingSuccess } from "../../views/bookings/Success";
import { participantBooking } from "./service";
import { DateTimeScreen } from "../../views/bookings/DateTime";
import { ActivityNotFound } from "../../views/activities/Detail";
import { ErrorScreen } from "../../views/shell/NotFound";
import { findListedActivity } from "../activities/queries";
import { context, type Render, type SendTo } from "../context";
import { type Deps, type RequestState } from "../deps";
import { DomainError, isDomainError } from "../lib/domain-error";
import { asRecord } from "../lib/http";
import type { MessageKey, Translate } from "../texts";
import type { Price } from "../../shared/pricing";
import type { Activity } from "../../db/schema";
import { returnBase } from "../payments/choice";
import { quoteRequest, saveChoice, startCheckout } from "./checkout";
import { amountOf, cardInput, parseInput, requestChoiceOf, selectionInput } from "./input";
import { checkoutReturned, checkoutScreen, payForBooking, payForChoice, paymentReturned, paymentScreen, wordingOf, type CardForm, type PaymentStep, type Wording } from "./payment-flow";
import { dialogTimes, bookingSummary, dateTimeScreenData } from "./queries";
import { clearSelections, getSelection } from "./selection";
import { hoursToMinutes } from "./times";
import { MAX_BOOKING_MESSAGE } from "../../shared/limits";

/** A wording (a catalogue text, or the provider's own words) in the person's language. */
const say = (t: Translate, w: Wording) => ("text" in w ? w.text : t(w.key, w.params));

/** The card form's state as the screens show it. */
const cardState = (t: Translate, card: CardForm): CardState => ({
  values: card.values,
  title: card.title && say(t, card.title),
  error: card.error && say(t, card.error),
  ...(card.stripe === undefined ? {} : { stripe: card.stripe }),
});

/** The dialog's refusals, titled as the spec's toasts are. */
function requestErrorOf(t: Translate, err: DomainError) {
  const titles: Partial<Record<MessageKey, MessageKey>> = {
    "booking.messageRequired": "booking.messageRequiredTitle",
    "booking.dateRequired": "booking.dateRequiredTitle",
    "booking.timeRequired": "booking.timeRequiredTitle",
  };
  return { title: t(titles[err.key] ?? "booking.paymentErrorTitle"), body: say(t, wordingOf(err)) };
}

/**
 * The booking screens: the date-time screen, the payment screen and its success, the checkout
 * page of a booking awaiting payment, and the request dialog's steps. Each reads its input, calls
 * one service function (`payment-flow.ts` for paying with a card) and answers with what it gives.
 */
export function bookingPages(deps: Deps) {
  /** The answer of a payment step: a redirect, or the card form again. */
  function answer(step: PaymentStep, { render, sendTo, state }: { render: Render; sendTo: SendTo; state: RequestState }) {
    switch (step.kind) {
      case "redirect":
        return sendTo(step.to, step.toast);
      case "payment":
        return render((view) => <PaymentScreen view={view} data={step.data} card={cardState(state.t, step.card)} />, { status: step.status });
      case "checkout":
        return render((view) => <CheckoutScreen view={view} booking={step.booking} activity={step.activity} testMode={step.testMode} card={cardState(state.t, step.card)} />, { status: step.status });
      case "notFound":
        return render((view) => <ErrorScreen view={view} title={view.t("booking.notFound")} body={view.t("booking.notFoundBody")} />, { status: 404 });
    }
  }

  /** The dialog's payment step, with the price of an accepted choice or the reason it was refused. */
  async function requestStep(render: Render, activity: Activity, choice: RequestChoice, outcome: { price: Price } | { error: { title: string; body: string }; status: number }) {
    const summary = await bookingSummary(deps, activity);
    const shown = "price" in outcome ? { price: outcome.price } : { error: outcome.error };
    return render(async (view) => <RequestPaymentStep view={view} summary={summary} choice={choice} {...shown} testMode={deps.payments.testMode} open={await dialogTimes(deps, activity)} />, {
      status: "status" in outcome ? outcome.status : 200,
    });
  }

  return (
    new Elysia({ name: "offline.bookings", seed: deps.id })
      .use(context(deps))
      .guard({ onboarded: true })

      // ----------------------------------------------------------------------- date-time screen
      .get("/booking/:id/date-time", async ({ params, query, user, render }) => {
        const activity = await findListedActivity(deps, params.id);
        if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
        if (activity.hostId === user.id) return render((view) => <ErrorScreen view={view} title={view.t("booking.ownActivity")} body={view.t("booking.ownActivityBody")} />, { status: 400 });
        const saved = await getSelection(deps, user.id, activity.id);
        const date = typeof query.date === "string" ? query.date : saved?.date;
        const data = await dateTimeScreenData(deps, user, activity, { date, time: saved?.time, durationMinutes: saved?.durationMinutes });
        return render((view) => <DateTimeScreen view={view} data={data} />);
      })
      .post("/booking/:id/date-time", async ({ params, body, user, render, state, sendTo }) => {
        const activity = await findListedActivity(deps, params.id);
        if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
        const read = selectionInput.safeParse(asRecord(body));
        const input = read.success ? read.data : {};
        const pick = { date: input.date ?? "", time: input.time ?? "", durationMinutes: input.duration === undefined || input.duration === "" ? undefined : hoursToMinutes(input.duration) };
        try {
          await saveChoice(deps, user, activity, pick);
          return sendTo(`/booking/${activity.id}/payment`);
        } catch (err) {
          // The screen again, with the choice as it was and the reason.
          if (!isDomainError(err)) throw err;
          const shown = { ...pick, durationMinutes: Number.isFinite(pick.durationMinutes) ? pick.durationMinutes : undefined };
          const data = await dateTimeScreenData(deps, user, activity, shown, state.t(err.key, err.params));
          return render((view) => <DateTimeScreen view={view} data={data} />, { status: err.status });
        }
      })

      // ------------------------------------------------------------------------- payment screen
      .get("/booking/:id/payment", async ({ params, user, request, ...ctx }) => answer(await paymentScreen(deps, user, params.id, returnBase(deps, request)), ctx))
      .post("/booking/:id/payment", async ({ params, body, user, request, ...ctx }) => {
        const card = parseInput(cardInput, asRecord(body));
        return answer(await payForChoice(deps, user, params.id, card, returnBase(deps, request)), ctx);
      })
      .get("/booking/:id/payment/return", async ({ params, query, user, request, ...ctx }) => {
        const intentId = typeof query.payment_intent === "string" && query.payment_intent.length <= 200 ? query.payment_intent : "";
        return answer(await paymentReturned(deps, user, params.id, intentId, returnBase(deps, request)), ctx);
      })
      .get("/booking-success", async ({ query, user, render }) => {
        await clearSelections(deps, user.id);
        // Booked at once (instant booking) when the guest's own booking named here is accepted.
        const booked = (await participantBooking(deps, user.id, query.booking))?.booking.status === "accepted";
        return render((view) => <BookingSuccess view={view} booked={booked} />);
      })

      // ------------------------------------------------------------------ the existing-booking flow
      .get("/checkout/:bookingId", async ({ params, user, request, ...ctx }) => answer(await checkoutScreen(deps, user, params.bookingId, returnBase(deps, request)), ctx))
      .post("/checkout/:bookingId", async ({ params, body, user, request, ...ctx }) => {
        const card = parseInput(cardInput, asRecord(body));
        return answer(await payForBooking(deps, user, params.bookingId, card, returnBase(deps, request)), ctx);
      })
      .get("/checkout/:bookingId/return", async ({ params, user, ...ctx }) => answer(await checkoutReturned(deps, user, params.bookingId), ctx))

      // --------------------------------------------------------------------- the request dialog
      .post("/activity/:id/request", async ({ params, body, user, render, state }) => {
        const activity = await findListedActivity(deps, params.id);
        if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
        // Shown again as typed when the rules refuse it (too long, say), within a bound.
        const choice = requestChoiceOf(asRecord(body), 2 * MAX_BOOKING_MESSAGE);
        try {
          return await requestStep(render, activity, choice, { price: await quoteRequest(deps, user, activity, choice) });
        } catch (err) {
          if (!isDomainError(err)) throw err;
          return requestStep(render, activity, choice, { error: requestErrorOf(state.t, err), status: err.status });
        }
      })
      .post("/activity/:id/request/pay", async ({ params, body, user, render, state, sendTo, request }) => {
        const activity = await findListedActivity(deps, params.id);
        if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
        const choice = requestChoiceOf(asRecord(body), 2 * MAX_BOOKING_MESSAGE);
        try {
          const input = { activityId: activity.id, date: choice.date, time: choice.time, durationMinutes: choice.hours * 60, amount: amountOf(asRecord(body).amount), message: choice.message };
          const { session } = await startCheckout(deps, user, input, returnBase(deps, request));
          return sendTo(session.url);
        } catch (err) {
          if (!isDomainError(err)) throw err;
          return requestStep(render, activity, choice, { error: requestErrorOf(state.t, err), status: err.status });
        }
      })
  );
}
