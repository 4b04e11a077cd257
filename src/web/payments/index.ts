import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { paymentRoutes } from "./routes";
import { testPaymentRoutes } from "./test-routes";

export { asTestProvider, makePaymentProvider, paymentProviderName, returnBase } from "../../payments/choice";

/**
 * The payments feature: the provider's webhook and the hosts' payout setup (`routes.tsx`), and
 * the built-in test provider's own pages (`test-routes.tsx`, only while it runs). Which provider
 * runs, and the provider itself, are made in `choice.ts`.
 */
export const paymentsFeature = (deps: Deps) => new Elysia({ name: "offline.payments.feature", seed: deps.id }).use(paymentRoutes(deps)).use(testPaymentRoutes(deps));
