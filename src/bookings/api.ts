import { Elysia } from "elysia";
import { context } from "../context";
import { type Deps } from "../deps";
import { isDomainError } from "../lib/domain-error";
import { asRecord, json, safeNext, wantsJson } from "../lib/http";
import { decimalFromCents } from "../lib/money";
import type { MessageKey } from "../texts";
import { returnBase } from "../payments/choice";
import { createBooking, intentForBooking, intentForSavedChoice, startCheckout } from "./checkout";
import { bookingAction, createBookingInput, dateTimeIntentInput, dialogIntentInput, existingBookingIntentInput, parseInput } from "./input";
import { bookingOf, bookingsOf, hostEarnings, hostRequests } from "./queries";
import type { Action } from "./service";
import { hoursToMinutes, splitProposed } from "./times";
import { act } from "./transitions";

const TOASTS: Record<Action, { title: MessageKey; body: MessageKey }> = {
  accept: { title: "toast.bookingAccepted", body: "toast.bookingAcceptedBody" },
  reject: { title: "toast.bookingDeclined", body: "toast.bookingDeclinedBody" },
  complete: { title: "toast.activityCompleted", body: "toast.activityCompletedBody" },
  cancel: { title: "toast.bookingCanceled", body: "toast.bookingCanceledBody" },
};

/** What a form's action says when the provider refused it (its own words are for the JSON answer). */
const FAILED: Record<Action, MessageKey> = { accept: "booking.acceptFailed", reject: "booking.declineFailed", complete: "booking.completeFailed", cancel: "booking.cancelFailed" };

/**
 * The bookings' JSON API of spec §7. A refusal of the rules is thrown (`DomainError`) and
 * answered by the app's error handler as `{ message, ...fields }`; the booking actions also take
 * plain form posts (the buttons of the pages), answered with a redirect and a toast.
 */
export function bookingApi(deps: Deps) {
  return new Elysia({ name: "offline.bookings.api", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .post("/api/create-payment-intent", async ({ body, user, state, request }) => {
      const input = asRecord(body);
      // One call, three shapes (spec §7): a booking awaiting payment, the date-time screen's choice, the dialog's.
      if (input.bookingId !== undefined) {
        const { intent } = await intentForBooking(deps, user, parseInput(existingBookingIntentInput, input));
        return json({ clientSecret: intent.clientSecret, paymentIntentId: intent.id, status: intent.status });
      }
      if (input.metadata !== undefined) {
        const b = parseInput(dateTimeIntentInput, input);
        const { intent, price } = await intentForSavedChoice(deps, user, {
          activityId: b.metadata.activityId,
          date: b.metadata.date,
          time: b.metadata.time,
          durationMinutes: hoursToMinutes(b.metadata.duration),
          amount: b.amount,
        });
        return json({ clientSecret: intent.clientSecret, paymentIntentId: intent.id, amount: decimalFromCents(price.totalCents), testMode: deps.payments.testMode });
      }
      if (input.activityId !== undefined) {
        const b = parseInput(dialogIntentInput, input);
        const choice = { activityId: b.activityId, date: b.proposedDate, time: b.proposedTime, durationMinutes: hoursToMinutes(b.hours), amount: b.amount, message: b.message };
        const { session, booking } = await startCheckout(deps, user, choice, returnBase(deps, request));
        return json({ sessionId: session.id, url: session.url, bookingId: booking.id });
      }
      return json({ message: state.t("booking.badInput") }, 400);
    })
    .post("/api/bookings", async ({ body, user }) => {
      const b = parseInput(createBookingInput, asRecord(body));
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
    })
    .get("/api/bookings", async ({ user }) => json((await bookingsOf(deps, user.id)).map((b) => b.view)))
    .get("/api/bookings/:id/details", async ({ params, user }) => json((await bookingOf(deps, user.id, params.id)).details))
    .get("/api/host/requests", async ({ user }) => json((await hostRequests(deps, user.id)).requests))
    .get("/api/host/earnings", async ({ user }) => {
      const e = await hostEarnings(deps, user.id);
      return json({ totalEarnings: decimalFromCents(e.totalEarningsCents), pendingPayouts: decimalFromCents(e.pendingPayoutsCents), completedBookings: e.completedBookings });
    })
    .post("/api/bookings/:id/:action", async ({ params, body, user, request, state, sendTo }) => {
      const read = bookingAction.safeParse(params.action);
      if (!read.success) return json({ message: state.t("error.notFound") }, 404);
      const action = read.data;
      const next = safeNext(asRecord(body).next, "/bookings");
      try {
        const { booking } = await act(deps, user, params.id, action);
        if (wantsJson(request)) return json((await bookingOf(deps, user.id, booking.id)).view);
        // A form's button: back where it was, with the spec's toast.
        return sendTo(next, { ...TOASTS[action], variant: "success" });
      } catch (err) {
        // A form's button that was refused goes back too, saying why; JSON and 404 are the app's answer.
        if (!isDomainError(err) || wantsJson(request) || err.status === 404) throw err;
        return sendTo(next, { title: "common.error", body: err.key === "booking.paymentProblem" ? FAILED[action] : err.key, variant: "error" });
      }
    });
}
