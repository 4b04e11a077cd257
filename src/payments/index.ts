import type { Db } from "../../db/client";
import type { Config } from "../config";
import type { PaymentEvents, PaymentProvider } from "./provider";
import { StripeProvider } from "./stripe";
import { TestProvider } from "./test-provider";

/**
 * The app's payment provider: Stripe when its keys are configured, otherwise the built-in test
 * provider (ARCHITECTURE decision 6).
 */
export function makePaymentProvider(opts: { config: Config; db: Db; events: PaymentEvents; now: () => number }): PaymentProvider {
  if (opts.config.stripe) return new StripeProvider(opts.config.stripe);
  return new TestProvider(opts.db, opts.events, opts.now);
}

/** The test provider when it is the one running (its own pages exist only then). */
export const asTestProvider = (payments: PaymentProvider): TestProvider | null => (payments instanceof TestProvider ? payments : null);
