import { CARDS, startFakeStripe } from "./fakes/stripe";
import { makeTestApp, ORIGIN } from "./helpers";
import { runCheckoutRaces } from "./checkout-races";

/** The checkout's crashes and races against Stripe: the real SDK over HTTP to the fake, which answers late and can lose answers. */
runCheckoutRaces("Stripe", async () => {
  const fake = startFakeStripe();
  const intentOf = (id: string) => {
    const pi = fake.intents.get(id);
    if (!pi) throw new Error(`no intent ${id} at Stripe`);
    return pi;
  };
  return {
    start: (now, dataDir) => makeTestApp({ now, dataDir, env: fake.env }),
    setLatency: (_app, ms) => fake.setLatency(ms),
    async confirmCard(_app, intent) {
      fake.confirm(intent.paymentIntentId, CARDS.ok);
    },
    payAtCheckout(_app, guest, bookingId, intentId) {
      // Stripe.js confirms the card once; a retry posts the page's form again with the same intent.
      if (intentOf(intentId).status === "requires_payment_method") fake.confirm(intentId, CARDS.ok);
      return guest.postForm(`/checkout/${bookingId}`, { amount: "88.00", paymentIntentId: intentId });
    },
    loseNextAuthorisation: () => fake.loseAnswer("GET", "/v1/payment_intents/:id"),
    async authoriseUnheard(_app, intentId) {
      fake.confirm(intentId, CARDS.ok);
    },
    async deliverAuthorisedNews(app, intentId) {
      const event = fake.events.find((e) => e.type === "payment_intent.amount_capturable_updated" && (e.data as { object: { id: string } }).object.id === intentId);
      if (!event) throw new Error(`Stripe sent no authorisation event for ${intentId}`);
      const res = await fake.sendWebhook(`${ORIGIN}/api/webhooks/stripe`, event, { handle: (req) => app.app.handle(req) });
      if (res.status !== 200) throw new Error(`the webhook answered ${res.status}`);
    },
    async intentsOf(_app, bookingId) {
      return [...fake.intents.values()]
        .filter((pi) => (pi.metadata as Record<string, string>).bookingId === bookingId)
        .map((pi) => String(pi.status))
        .sort();
    },
    postWithoutConfirming: (_app, guest, bookingId, intentId) => guest.postForm(`/checkout/${bookingId}`, { amount: "88.00", paymentIntentId: intentId }),
    refuseIntentReads: (_app, intentId, status, times) => fake.refuse("GET", `/v1/payment_intents/${intentId}`, times, status),
    stop: () => fake.stop(),
  };
}, { browserConfirms: true });
