import { Elysia } from "elysia";
import { CheckoutScreen, PaymentScreen, type CardState } from "../../../views/bookings/Payment";
import { RequestPaymentStep } from "../../../views/bookings/Request";
import type { RequestChoice } from "../../bookings/input";
import { BookingSuccess } from "../../../views/bookings/Success";
import { participantBooking } from "../../bookings/service";
import { isGroupBooking } from "../../bookings/sessions";
import { DateTimeScreen } from "../../../views/bookings/DateTime";
import { ActivityNotFound } from "../../../views/activities/Detail";
import { ErrorScreen } from "../../../views/shell/NotFound";
import { findListedActivity } from "../../activities/queries";
import { context, type FormScreen, type Render, type SendTo } from "../../context";
import { type Deps, type RequestState } from "../../deps";
import { type DomainError } from "../../../lib/domain-error";
import type { MessageKey, Translate } from "../../../lib/i18n";
import type { Price } from "../../../shared/pricing";
import type { Activity } from "../../../db/schema";
import { returnBase } from "../../payments/choice";
import { quoteRequest, saveChoice, startCheckout } from "../../bookings/checkout";
import { cardBody, dateTimeQuery, paymentReturnQuery, requestChoiceBody, requestPayBody, selectionBody, successQuery } from "../../bookings/input";
import { checkoutReturned, checkoutScreen, payForBooking, payForChoice, paymentReturned, paymentScreen, wordingOf, type CardForm, type PaymentStep, type Wording } from "./payment-flow";
import { bookingOf, dialogTimes, bookingSummary, dateTimeScreenData } from "../../bookings/queries";
import { cancellationPreview } from "../../bookings/transitions";
import { CancelScreen } from "../../../views/bookings/Cancel";
import { clearSelections, getSelection } from "../../bookings/selection";

/** A wording (a catalogue text, or the provider's own words) in the person's language. */
const say = (t: Translate, w: Wording) => ("text" in w ? w.text : t(w.key, w.params));

/** The card form's state as the screens show it. */
const cardState = (t: Translate, card: CardForm): CardState => ({
  values: card.values,
  title: card.title && say(t, card.title),
  error: card.error && say(t, card.error),
  ...(card.stripe === undefined ? {} : { stripe: card.stripe }),
});

/** The refusals of a chosen time (its rules, the host's hours, someone else's booking): about the time, never the payment. */
const TIME_REFUSALS: readonly MessageKey[] = [
  "booking.durationRequired",
  "booking.dateInvalid",
  "booking.timeInvalid",
  "booking.durationInvalid",
  "booking.durationOutside",
  "booking.inPast",
  "booking.tooSoon",
  "booking.tooFar",
  "booking.outsideHours",
  "booking.hostUnavailable",
  "booking.slotTaken",
  "booking.guestBusy",
];

/**
 * The dialog's refusals, titled as the spec's toasts are. A refused time says so; "Payment error"
 * is kept for the payment step's own refusals (`paying`), the details step having tried no payment.
 */
function requestErrorOf(t: Translate, err: DomainError, paying: boolean) {
  const titles: Partial<Record<MessageKey, MessageKey>> = {
    "booking.messageRequired": "booking.messageRequiredTitle",
    "booking.dateRequired": "booking.dateRequiredTitle",
    "booking.timeRequired": "booking.timeRequiredTitle",
  };
  const title = titles[err.key] ?? (TIME_REFUSALS.includes(err.key) ? "booking.timeRefusedTitle" : paying ? "booking.paymentErrorTitle" : "booking.bookingError");
  return { title: t(title), body: say(t, wordingOf(err)) };
}

/**
 * The booking screens: the date-time screen, the payment screen and its success, the checkout
 * page of a booking awaiting payment, and the request dialog's steps. Each declares its input
 * (`input.ts`), calls one service function (`payment-flow.ts` for paying with a card) and answers
 * with what it gives; a form the rules refuse is drawn again with why (`refused`).
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

  /** The date-time screen again, with the choice as it was sent and why it was refused. */
  const dateTimeForm: FormScreen = async ({ sent, error }, { user, params, state, render }) => {
    const activity = user ? await findListedActivity(deps, params.id ?? "") : undefined;
    if (!user || !activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
    const pick = selectionBody.parse(sent);
    const shown = { ...pick, durationMinutes: Number.isFinite(pick.durationMinutes) ? pick.durationMinutes : undefined };
    const data = await dateTimeScreenData(deps, user, activity, shown, state.t(error.key, error.params));
    return render((view) => <DateTimeScreen view={view} data={data} />, { status: error.status });
  };

  /** The dialog's payment step again, as it was typed, with the reason it was refused. */
  const requestForm: FormScreen = async ({ sent, error }, { params, state, render }) => {
    const activity = await findListedActivity(deps, params.id ?? "");
    if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
    // The payment step's form sends the amount it showed; the details step's does not.
    const paying = typeof sent === "object" && sent !== null && "amount" in sent;
    return requestStep(render, activity, requestChoiceBody.parse(sent), { error: requestErrorOf(state.t, error, paying), status: error.status });
  };

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
        const data = await dateTimeScreenData(deps, user, activity, { date: query.date ?? saved?.date, time: saved?.time, durationMinutes: saved?.durationMinutes, spots: saved?.spots, privateGroup: saved?.privateGroup });
        return render((view) => <DateTimeScreen view={view} data={data} />);
      }, { query: dateTimeQuery })
      .post("/booking/:id/date-time", async ({ params, body, user, render, sendTo }) => {
        const activity = await findListedActivity(deps, params.id);
        if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
        await saveChoice(deps, user, activity, body);
        return sendTo(`/booking/${activity.id}/payment`);
      }, { body: selectionBody, refused: { screen: dateTimeForm } })

      // ------------------------------------------------------------------------- payment screen
      .get("/booking/:id/payment", async ({ params, user, request, ...ctx }) => answer(await paymentScreen(deps, user, params.id, returnBase(deps, request)), ctx))
      .post("/booking/:id/payment", async ({ params, body, user, request, ...ctx }) => answer(await payForChoice(deps, user, params.id, body, returnBase(deps, request)), ctx), { body: cardBody })
      .get("/booking/:id/payment/return", async ({ params, query, user, request, ...ctx }) =>
        answer(await paymentReturned(deps, user, params.id, query.payment_intent, returnBase(deps, request)), ctx), { query: paymentReturnQuery })
      .get("/booking-success", async ({ query, user, render }) => {
        await clearSelections(deps, user.id);
        // Booked at once (instant booking) when the guest's own booking named here is accepted.
        const made = (await participantBooking(deps, user.id, query.booking))?.booking;
        const booked = made?.status === "accepted";
        // A group booking's spots, said again (the guest's own booking only: participantBooking checks it is theirs).
        const seats = made && made.guestId === user.id && isGroupBooking(made) ? { spots: made.spots, privateGroup: made.privateGroup } : undefined;
        return render((view) => <BookingSuccess view={view} booked={booked} seats={seats} policy={booked ? made : undefined} />);
      }, { query: successQuery })

      // ------------------------------------------------------------------ the existing-booking flow
      .get("/checkout/:bookingId", async ({ params, user, request, ...ctx }) => answer(await checkoutScreen(deps, user, params.bookingId, returnBase(deps, request)), ctx))
      .post("/checkout/:bookingId", async ({ params, body, user, request, ...ctx }) => answer(await payForBooking(deps, user, params.bookingId, body, returnBase(deps, request)), ctx), { body: cardBody })
      .get("/checkout/:bookingId/return", async ({ params, user, ...ctx }) => answer(await checkoutReturned(deps, user, params.bookingId), ctx))

      // ------------------------------------------------------------- cancelling, what comes back
      // A guest's accepted booking: what the policy gives back now, and the confirmation (docs/decisions/0050).
      // Anyone else, or any other state, goes back to the conversation, where the cards say what can be done.
      .get("/bookings/:id/cancel", async ({ params, user, render, sendTo }) => {
        const { booking, role, quote } = await cancellationPreview(deps, user, params.id);
        if (role !== "guest" || booking.status !== "accepted") return sendTo(`/bookings/${booking.id}`);
        const { activity } = await bookingOf(deps, user.id, booking.id);
        return render((view) => <CancelScreen view={view} data={{ booking, activity, quote }} />);
      }, { refused: { title: "common.error", back: ({ error }, { params }) => (error.status === 404 ? undefined : `/bookings/${params.id}`) } })

      // --------------------------------------------------------------------- the request dialog
      // Each step is shown again as typed when the rules refuse it (too long, say).
      .post("/activity/:id/request", async ({ params, body, user, render }) => {
        const activity = await findListedActivity(deps, params.id);
        if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
        return await requestStep(render, activity, body, { price: await quoteRequest(deps, user, activity, body) });
      }, { body: requestChoiceBody, refused: { screen: requestForm } })
      .post("/activity/:id/request/pay", async ({ params, body, user, render, sendTo, request }) => {
        const activity = await findListedActivity(deps, params.id);
        if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
        const { choice, amount } = body;
        const input = { activityId: activity.id, date: choice.date, time: choice.time, durationMinutes: choice.hours * 60, spots: choice.spots, privateGroup: choice.privateGroup, amount, message: choice.message };
        const { session } = await startCheckout(deps, user, input, returnBase(deps, request));
        return sendTo(session.url);
      }, { body: requestPayBody, refused: { screen: requestForm } })
  );
}
