import { Elysia } from "elysia";
import type { User } from "../../../db/schema";
import { PaymentSetupScreen, type PaymentSetupState } from "../../../views/payments/PaymentSetup";
import { context, type FormScreen, type Render } from "../../context";
import { type Deps, type RequestState } from "../../deps";
import { readBody } from "../../../lib/body";
import { json, redirectTo } from "../../../lib/http";
import { DomainError } from "../../../lib/domain-error";
import { payoutSetup, refreshConnectedAccount, startPayoutSetup, type PayoutSetup } from "../../payments/payouts";
import { receiveWebhook } from "../../payments/webhooks";
import { WEBHOOK_BODY_LIMIT } from "../../../shared/limits";

const decoder = new TextDecoder();

function logFailure(what: string, err: unknown) {
  console.error(`${what} failed:`, err instanceof Error ? err.message : err);
}

/**
 * Payments: the provider's webhook, and payout setup for hosts (spec "Payment setup" and
 * POST /api/stripe/connect). Payout setup goes through `deps.payments` only, whichever provider runs.
 */
export function paymentRoutes(deps: Deps) {
  // Whoever reports it (Stripe's webhook, the test provider's onboarding page), a changed payout
  // account is read again from the provider and its state stored on the host.
  deps.paymentEvents.on((event) => (event.type === "account.updated" ? refreshConnectedAccount(deps, event.objectId) : undefined));

  const screen = async (
    { user, state, render }: { user: User; state: RequestState; render: Render },
    opts: { returned?: boolean; alert?: PaymentSetupState["alert"]; status?: number; setup?: PayoutSetup } = {},
  ) => {
    let setup = opts.setup;
    let alert = opts.alert;
    if (!setup) {
      try {
        setup = await payoutSetup(deps, user);
      } catch (err) {
        logFailure("Reading a payout account", err);
        setup = { state: "none" };
        alert ??= { title: state.t("payments.setupFailed"), body: state.t("payments.readFailed") };
      }
    }
    const data: PaymentSetupState = {
      setup,
      testMode: deps.payments.testMode,
      returned: opts.returned ?? false,
      alert,
      verifyFirst: user.emailVerified ? null : state.t("payments.verifyFirst", { email: user.email ?? "" }),
    };
    return render((view) => <PaymentSetupScreen view={view} state={data} />, { status: opts.status });
  };

  const failedAlert = (state: RequestState) => ({ title: state.t("payments.setupFailed"), body: state.t("payments.setupFailedBody") });

  /** A refused start of payout setup: the screen again, saying why (unverified: with "Resend link"), or that it failed. */
  const setupRefused: FormScreen = ({ error }, { user, state, render }) => {
    if (!user) return undefined;
    if (error.status === 403) return screen({ user, state, render }, { status: 403 });
    return screen({ user, state, render }, { alert: failedAlert(state), status: error.status });
  };

  return (
    new Elysia({ name: "offline.payments", seed: deps.id })
      .use(context(deps))
      // Stripe calls this with no session and no Origin; the body is read raw (`rawBody`), as
      // its signature is computed over the exact bytes.
      .post(
        "/api/webhooks/stripe",
        async ({ request }) => {
          const raw = decoder.decode(await readBody(request, WEBHOOK_BODY_LIMIT));
          const outcome = await receiveWebhook(deps, raw, request.headers.get("stripe-signature"));
          if (outcome === "unavailable") throw new DomainError("error.notFound", 404);
          if (outcome === "invalid") throw new DomainError("error.badRequest", 400);
          // Another delivery is handling it: not received until it is handled, so Stripe tries again.
          if (outcome === "busy") throw new DomainError("error.body", 409, { retryAfterMs: 60_000 });
          return json({ received: true });
        },
        { public: true, rawBody: WEBHOOK_BODY_LIMIT },
      )
      .get(
        "/stripe-connect-setup",
        async (ctx) => {
          const { query, user, state, request } = ctx;
          // The provider's onboarding link expired or was used: go straight to a fresh one.
          if (query.refresh === "1" && user.stripeAccountId && deps.payments && user.emailVerified) {
            try {
              const setup = await payoutSetup(deps, user);
              if (setup.state !== "incomplete") return screen(ctx, { setup });
              const { url } = await startPayoutSetup(deps, user, request);
              return redirectTo(request, url);
            } catch (err) {
              logFailure("Refreshing a payout setup link", err);
              return screen(ctx, { alert: failedAlert(state) });
            }
          }
          return screen(ctx, { returned: query.return === "1" });
        },
        { onboarded: true },
      )
      // The screen's button: a plain form post that sends the host on to the provider's onboarding.
      .post(
        "/stripe-connect-setup",
        async ({ user, request }) => {
          const { url } = await startPayoutSetup(deps, user, request);
          return redirectTo(request, url);
        },
        { onboarded: true, refused: { screen: setupRefused } },
      )
      .post(
        "/api/stripe/connect",
        async ({ user, request }) => json(await startPayoutSetup(deps, user, request)),
        { onboarded: true },
      )
  );
}
