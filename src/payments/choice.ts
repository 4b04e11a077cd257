import type { Db } from "../../db/client";
import type { Config } from "../config";
import type { Deps } from "../deps";
import type { PaymentEvents, PaymentProvider } from "../ports/payments";
import { StripeProvider } from "./stripe";
import { TestProvider } from "./test-provider";

/**
 * Which provider the app runs with: Stripe when its keys are configured, otherwise the built-in
 * test provider (ARCHITECTURE decision 6). The demo seed reads it too (src/demo/seed.ts).
 */
export const paymentProviderName = (config: Pick<Config, "stripe">): PaymentProvider["name"] => (config.stripe ? "stripe" : "test");

/** The app's payment provider (see `paymentProviderName`). */
export function makePaymentProvider(opts: { config: Config; db: Db; events: PaymentEvents; now: () => number }): PaymentProvider {
  if (paymentProviderName(opts.config) === "stripe") return new StripeProvider(opts.config.stripe!);
  return new TestProvider(opts.db, opts.events, opts.now);
}

/** The test provider when it is the one running (its own pages exist only then). */
export const asTestProvider = (payments: PaymentProvider): TestProvider | null => (payments instanceof TestProvider ? payments : null);

/**
 * The origin of the addresses a provider sends the browser back to (checkout success and cancel,
 * card authentication, payout onboarding): the request's own, so a person returns to the address
 * they came from; Stripe's live mode accepts only https addresses, so with Stripe an https
 * PUBLIC_URL is used instead.
 */
export function returnBase(deps: Pick<Deps, "config" | "payments">, request: Request): string {
  const publicUrl = deps.config.publicUrl;
  if (deps.payments.name === "stripe" && publicUrl.startsWith("https://")) return publicUrl;
  return new URL(request.url).origin;
}
