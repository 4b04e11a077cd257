/**
 * Both payment providers for tests that run the same story against each (tests/currency.test.ts,
 * tests/account-delete-providers.test.ts): the built-in test provider, and Stripe (the real SDK
 * against tests/fakes/stripe.ts). Each world starts an app on its provider, authorises a card and
 * turns a host's payouts on the way that provider does.
 */
import { asTestProvider } from "../src/web/payments";
import { CARDS, startFakeStripe } from "./fakes/stripe";
import { makeTestApp } from "./helpers";

type TestApp = Awaited<ReturnType<typeof makeTestApp>>;

export interface World {
  start(now: () => number): Promise<TestApp>;
  confirmCard(app: TestApp, intent: { clientSecret: string; paymentIntentId: string }): Promise<void>;
  enablePayouts(app: TestApp, accountId: string): Promise<void>;
  stop(): void;
}

export const testProviderWorld = (): World => ({
  start: (now) => makeTestApp({ now }),
  async confirmCard(app, intent) {
    const answer = await asTestProvider(app.deps.payments)!.confirmCard({ clientSecret: intent.clientSecret, cardNumber: "4242424242424242", expiry: "12/40", cvc: "123" });
    if (answer.status !== "requires_capture") throw new Error(`the test card was not authorised: ${answer.status}`);
  },
  enablePayouts: async (app, accountId) => void (await asTestProvider(app.deps.payments)!.setPayoutsEnabled(accountId, true)),
  stop: () => undefined,
});

export function stripeWorld(): World {
  const fake = startFakeStripe();
  return {
    start: (now) => makeTestApp({ now, env: fake.env }),
    confirmCard: async (_app, intent) => void fake.confirm(intent.paymentIntentId, CARDS.ok),
    enablePayouts: async (_app, accountId) => void fake.setPayoutsEnabled(accountId, true),
    stop: () => fake.stop(),
  };
}
