import { asTestProvider } from "../src/web/payments";
import type { TestProvider } from "../src/payments/test-provider";
import { makeTestApp } from "./helpers";
import { runMoneyRaces, type TestApp } from "./money-races";

/** The races against the built-in test provider, slowed down so that calls overlap. */
const providerOf = (app: TestApp): TestProvider => {
  const provider = asTestProvider(app.deps.payments);
  if (!provider) throw new Error("the test app runs the test provider");
  return provider;
};

runMoneyRaces("test provider", async () => ({
  start: (now, dataDir) => makeTestApp({ now, dataDir }),
  async confirmCard(app, intent) {
    const answer = await providerOf(app).confirmCard({ clientSecret: intent.clientSecret, cardNumber: "4242424242424242", expiry: "12/40", cvc: "123" });
    if (answer.status !== "requires_capture") throw new Error(`the test card was not authorised: ${answer.status}`);
  },
  setLatency: (app, ms) => {
    providerOf(app).faults.latencyMs = ms;
  },
  loseAnswer: (app, movement) => {
    providerOf(app).faults.loseAnswer.add(movement);
  },
  async enablePayouts(app, accountId) {
    await providerOf(app).setPayoutsEnabled(accountId, true);
  },
  stop: () => undefined,
}));
