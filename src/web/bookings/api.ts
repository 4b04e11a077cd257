import { Elysia } from "elysia";
import { context, type Refused } from "../../context";
import { type Deps } from "../../deps";
import { json, wantsJson } from "../../../lib/http";
import { decimalFromCents } from "../../../lib/money";
import { currencyOf } from "../../../lib/places";
import type { MessageKey } from "../../../lib/i18n";
import { returnBase } from "../../payments/choice";
import { createBooking, intentForBooking, intentForSavedChoice, startCheckout } from "../../bookings/checkout";
import { actionButtonBody, bookingActionOf, createBookingBody, paymentIntentBody, refundBody } from "../../bookings/input";
import { refundPart, refundsOf, refundView } from "../../bookings/refunds";
import { bookingOf, bookingsOf, hostEarnings, hostRequests } from "../../bookings/queries";
import type { Action } from "../../bookings/service";
import { act, cancellationPreview } from "../../bookings/transitions";

const TOASTS: Record<Action, { title: MessageKey; body: MessageKey }> = {
  accept: { title: "toast.bookingAccepted", body: "toast.bookingAcceptedBody" },
  reject: { title: "toast.bookingDeclined", body: "toast.bookingDeclinedBody" },
  complete: { title: "toast.activityCompleted", body: "toast.activityCompletedBody" },
  cancel: { title: "toast.bookingCanceled", body: "toast.bookingCanceledBody" },
};

/** What a form's action says when the provider refused it (its own words are for the JSON answer). */
const FAILED: Record<Action, MessageKey> = { accept: "booking.acceptFailed", reject: "booking.declineFailed", complete: "booking.completeFailed", cancel: "booking.cancelFailed" };

/**
 * A page's action button that was refused goes back where it was, saying why ("Error", and the
 * reason); JSON callers, and a booking that is not theirs (404), get the app's usual answer.
 */
const actionButtonRefused: Refused = {
  button: true,
  title: "common.error",
  toastBody: ({ error }, { params }) => (error.key === "booking.paymentProblem" ? FAILED[bookingActionOf(params.action ?? "")] : error.key),
  back: ({ error, sent }) => (error.status === 404 ? undefined : actionButtonBody.parse(sent).next),
};

/**
 * The host's earnings as the API shows them: each currency's sums (`byCurrency`), never added
 * together. While the host has earned in one currency (or none yet: their city's), the spec's
 * `totalEarnings` and `pendingPayouts` are that currency's, beside `currency`; with several they
 * are null, and `byCurrency` says each.
 */
function earningsJson(e: Awaited<ReturnType<typeof hostEarnings>>, ownCurrency: string) {
  const byCurrency = e.byCurrency.map((c) => ({ currency: c.currency, totalEarnings: decimalFromCents(c.totalEarningsCents, c.currency), pendingPayouts: decimalFromCents(c.pendingPayoutsCents, c.currency), completedBookings: c.completedBookings }));
  const one = byCurrency.length > 1 ? null : (byCurrency[0] ?? { currency: ownCurrency, totalEarnings: decimalFromCents(0, ownCurrency), pendingPayouts: decimalFromCents(0, ownCurrency) });
  return { totalEarnings: one?.totalEarnings ?? null, pendingPayouts: one?.pendingPayouts ?? null, currency: one?.currency ?? null, completedBookings: e.completedBookings, byCurrency };
}

/**
 * The bookings' JSON API of spec §7. Each route declares its input (`input.ts`); a refusal is
 * thrown (`DomainError`) and answered by the app's error hook as `{ message, fields?, ...extra }`.
 * The booking actions also take the pages' buttons (plain or htmx form posts), answered with a
 * redirect and a toast, a refusal included.
 */
export function bookingApi(deps: Deps) {
  return new Elysia({ name: "offline.bookings.api", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    // One call, three shapes (spec §7): a booking awaiting payment, the date-time screen's choice, the dialog's.
    .post("/api/create-payment-intent", async ({ body, user, request }) => {
      switch (body.kind) {
        case "booking": {
          const { intent } = await intentForBooking(deps, user, body);
          return json({ clientSecret: intent.clientSecret, paymentIntentId: intent.id, status: intent.status });
        }
        case "slot": {
          const { intent, price } = await intentForSavedChoice(deps, user, body);
          return json({ clientSecret: intent.clientSecret, paymentIntentId: intent.id, amount: decimalFromCents(price.totalCents, intent.currency), currency: intent.currency, testMode: deps.payments.testMode });
        }
        case "dialog": {
          const { session, booking } = await startCheckout(deps, user, body, returnBase(deps, request));
          return json({ sessionId: session.id, url: session.url, bookingId: booking.id });
        }
      }
    }, { body: paymentIntentBody })
    .post("/api/bookings", async ({ body, user }) => {
      const { booking, created } = await createBooking(deps, user, body);
      return json((await bookingOf(deps, user.id, booking.id)).view, created ? 201 : 200);
    }, { body: createBookingBody })
    .get("/api/bookings", async ({ user }) => json((await bookingsOf(deps, user.id)).map((b) => b.view)))
    .get("/api/bookings/:id/details", async ({ params, user }) => json((await bookingOf(deps, user.id, params.id)).details))
    // What cancelling would give back now, by the booking's policy (docs/decisions/0050).
    .get("/api/bookings/:id/cancellation", async ({ params, user }) => {
      const { quote } = await cancellationPreview(deps, user, params.id);
      return json({ refundable: decimalFromCents(quote.refundableCents, quote.currency), total: decimalFromCents(quote.totalCents, quote.currency), currency: quote.currency, policy: quote.policy, deadline: quote.deadline === null ? null : new Date(quote.deadline).toISOString() });
    })
    .get("/api/host/requests", async ({ user }) => json((await hostRequests(deps, user.id)).requests))
    .get("/api/host/earnings", async ({ user }) => json(earningsJson(await hostEarnings(deps, user.id), currencyOf(user.country, user.city) ?? "usd")))
    // Partial refunds by the host (docs/decisions/0051): the list for both sides, a new one by the host.
    .get("/api/bookings/:id/refunds", async ({ params, user }) => json((await refundsOf(deps, user.id, params.id)).refunds.map(refundView)))
    .post("/api/bookings/:id/refunds", async ({ params, body, user }) => {
      const { booking, refund } = await refundPart(deps, user, params.id, body);
      return json({ refund: refund ? refundView(refund) : null, booking: (await bookingOf(deps, user.id, booking.id)).view }, 201);
    }, { body: refundBody })
    .post("/api/bookings/:id/:action", async ({ params, body, user, request, sendTo }) => {
      const action = bookingActionOf(params.action);
      const { booking } = await act(deps, user, params.id, action, { expectedRefundCents: body.refundCents });
      if (wantsJson(request)) return json((await bookingOf(deps, user.id, booking.id)).view);
      // A page's button: back where it was, with the spec's toast.
      return sendTo(body.next, { ...TOASTS[action], variant: "success" });
    }, { body: actionButtonBody, refused: actionButtonRefused });
}
