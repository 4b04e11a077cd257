import { PaymentEvents } from "../src/ports/payments";
import { asTestProvider } from "../src/web/payments";
import { TestProvider } from "../src/payments/test-provider";
import { testPaymentIntents } from "../db/schema";
import { makeTestApp, TEST_CARD } from "./helpers";
import { runCheckoutRaces, type TestApp } from "./checkout-races";

/** The checkout's crashes and races against the built-in test provider, slowed down so that calls overlap. */
const providerOf = (app: TestApp): TestProvider => {
  const provider = asTestProvider(app.deps.payments);
  if (!provider) throw new Error("the test app runs the test provider");
  return provider;
};

runCheckoutRaces("test provider", async () => ({
  start: (now, dataDir) => makeTestApp({ now, dataDir }),
  setLatency: (app, ms) => {
    providerOf(app).faults.latencyMs = ms;
  },
  async confirmCard(app, intent) {
    const answer = await providerOf(app).confirmCard({ clientSecret: intent.clientSecret, ...TEST_CARD });
    if (answer.status !== "requires_capture") throw new Error(`the test card was not authorised: ${answer.status}`);
  },
  payAtCheckout: (_app, guest, bookingId) => guest.postForm(`/checkout/${bookingId}`, { ...TEST_CARD, amount: "88.00" }),
  loseNextAuthorisation: (app) => {
    providerOf(app).faults.loseAnswer.add("authorize");
  },
  async authoriseUnheard(app, intentId) {
    // The provider's own copy of the intent, authorised by a provider whose news goes nowhere.
    const unheard = new TestProvider(app.db, new PaymentEvents(), app.deps.now);
    const intent = (await unheard.getIntent(intentId))!;
    const answer = await unheard.confirmCard({ clientSecret: intent.clientSecret, ...TEST_CARD });
    if (answer.status !== "requires_capture") throw new Error(`the test card was not authorised: ${answer.status}`);
  },
  async deliverAuthorisedNews(app, intentId) {
    const intent = (await app.deps.payments.getIntent(intentId))!;
    await app.deps.paymentEvents.dispatch({ id: `tevt_late_${intentId}`, type: "payment_intent.amount_capturable_updated", objectId: intentId, metadata: intent.metadata, paymentIntentId: intentId });
  },
  async intentsOf(app, bookingId) {
    return (await app.db.select().from(testPaymentIntents))
      .filter((i) => i.metadata.bookingId === bookingId)
      .map((i) => i.status)
      .sort();
  },
  payOnHostedPage: (_app, guest, pageUrl) => guest.postForm(pageUrl, TEST_CARD),
  stop: () => undefined,
}), { hostedPage: true });
