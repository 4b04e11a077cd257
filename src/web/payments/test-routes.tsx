import { Elysia } from "elysia";
import { CheckoutPage, TestAuthenticatePage, TestOnboardingPage } from "../../../views/payments/TestPages";
import { ErrorScreen } from "../../../views/shell/NotFound";
import { context, type Render } from "../../context";
import { type Deps } from "../../deps";
import { DomainError } from "../../../lib/domain-error";
import { json, ownReturnPath, wantsJson } from "../../../lib/http";
import { asTestProvider } from "../../payments/choice";
import { PaymentError } from "../../ports/payments";
import { testAuthenticateInput, testCheckoutCard, testConfirmInput, testOnboardingInput } from "../../payments/input";

/**
 * The test provider's own pages and call, standing in for what Stripe hosts: the card
 * confirmation (`POST /api/payments/test/confirm`, also for scripts), the hosted checkout page,
 * the card authentication page (3-D Secure) and the payout onboarding page. They exist only while
 * the test provider runs; each says plainly it is in test mode.
 */
export function testPaymentRoutes(deps: Deps) {
  const test = asTestProvider(deps.payments);
  const notFound = (render: Render) => render((view) => <ErrorScreen view={view} title={view.t("payments.notFound")} body={view.t("payments.notFoundBody")} />, { status: 404 });
  const withQuery = (path: string, params: Record<string, string>) => `${path}${path.includes("?") ? "&" : "?"}${new URLSearchParams(params)}`;

  return new Elysia({ name: "offline.payments.test", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .post("/api/payments/test/confirm", async ({ body, request, user, sendTo }) => {
      if (!test) throw new DomainError("payments.notFound", 404);
      const { returnUrl, ...card } = body;
      const intent = await test.intentBySecret(card.clientSecret);
      if (!intent || (intent.metadata.guestId && intent.metadata.guestId !== user.id)) throw new DomainError("payments.notFound", 404);
      const result = await test.confirmCard(card);
      if (!wantsJson(request) && returnUrl !== undefined) {
        // A plain form post, as a provider's return URL works: back to the page that asked.
        if (result.status === "requires_action") return sendTo(withQuery(result.nextActionUrl!, { return: ownReturnPath(returnUrl, request) }));
        return sendTo(withQuery(ownReturnPath(returnUrl, request), { payment_intent: result.paymentIntentId, redirect_status: result.status === "requires_capture" ? "succeeded" : "failed" }));
      }
      return json(result, result.error ? 402 : 200);
    }, { body: testConfirmInput })
    .get("/payments/test/checkout/:id", async ({ params, user, render }) => {
      const found = await test?.checkoutSession(params.id);
      if (!found || found.intent.metadata.guestId !== user.id) return notFound(render);
      return render((view) => <CheckoutPage view={view} session={found.session} intent={found.intent} card={{}} />);
    })
    .post("/payments/test/checkout/:id", async ({ params, body: card, user, render, sendTo }) => {
      const found = await test?.checkoutSession(params.id);
      if (!test || !found || found.intent.metadata.guestId !== user.id) return notFound(render);
      if (found.session.status === "complete") return sendTo(found.session.successUrl);
      try {
        const result = await test.confirmCard({ clientSecret: found.intent.clientSecret, ...card });
        if (result.status === "requires_action") return sendTo(withQuery(result.nextActionUrl!, { return: `/payments/test/checkout/${params.id}/return` }));
        if (result.status === "requires_capture") return sendTo(found.session.successUrl);
        return render((view) => <CheckoutPage view={view} session={found.session} intent={found.intent} card={{ values: card, error: result.error }} />, { status: 402 });
      } catch (err) {
        if (!(err instanceof PaymentError)) throw err;
        return render((view) => <CheckoutPage view={view} session={found.session} intent={found.intent} card={{ values: card, error: err.message }} />, { status: 402 });
      }
    }, { body: testCheckoutCard })
    .get("/payments/test/checkout/:id/return", async ({ params, user, render, sendTo }) => {
      const found = await test?.checkoutSession(params.id);
      if (!found || found.intent.metadata.guestId !== user.id) return notFound(render);
      if (found.session.status === "complete") return sendTo(found.session.successUrl);
      return render((view) => <CheckoutPage view={view} session={found.session} intent={found.intent} card={{ error: found.intent.lastError ?? undefined }} />, { status: found.intent.lastError ? 402 : 200 });
    })
    .post("/payments/test/checkout/:id/cancel", async ({ params, user, render, sendTo }) => {
      const found = await test?.checkoutSession(params.id);
      if (!test || !found || found.intent.metadata.guestId !== user.id) return notFound(render);
      if (found.session.status === "complete") return sendTo(found.session.successUrl);
      // Leaving unpaid ends the session now: the held slot and any authorisation are released at once.
      await test.expireCheckout(found.session.id);
      return sendTo(found.session.cancelUrl);
    })
    .get("/payments/test/authenticate/:id", async ({ params, query, request, user, render }) => {
      const intent = test ? await test.getIntent(params.id) : null;
      if (!intent || intent.status !== "requires_action" || (intent.metadata.guestId && intent.metadata.guestId !== user.id)) return notFound(render);
      return render((view) => <TestAuthenticatePage view={view} intent={intent} returnTo={ownReturnPath(query.return, request)} />);
    })
    .post("/payments/test/authenticate/:id", async ({ params, body, request, user, render, sendTo }) => {
      const intent = test ? await test.getIntent(params.id) : null;
      if (!test || !intent || (intent.metadata.guestId && intent.metadata.guestId !== user.id)) return notFound(render);
      const result = await test.authenticate(intent.id, body.approve);
      return sendTo(withQuery(ownReturnPath(body.returnTo, request), { payment_intent: intent.id, redirect_status: result.status === "requires_capture" ? "succeeded" : "failed" }));
    }, { body: testAuthenticateInput })
    .get("/payments/test/onboarding/:id", async ({ params, query, request, user, render }) => {
      const account = test ? await test.getConnectedAccount(params.id) : null;
      if (!account || user.stripeAccountId !== account.id) return notFound(render);
      return render((view) => <TestOnboardingPage view={view} account={account} returnTo={ownReturnPath(query.return, request, "/host")} />);
    })
    .post("/payments/test/onboarding/:id", async ({ params, body, request, user, render, sendTo }) => {
      const account = test ? await test.getConnectedAccount(params.id) : null;
      if (!test || !account || user.stripeAccountId !== account.id) return notFound(render);
      await test.enableAccount(account.id);
      return sendTo(ownReturnPath(body.return, request, "/host"));
    }, { body: testOnboardingInput });
}
