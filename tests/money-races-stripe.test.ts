import type { Movement } from "../db/schema";
import { CARDS, startFakeStripe } from "./fakes/stripe";
import { makeTestApp } from "./helpers";
import { runMoneyRaces } from "./money-races";

/** The races against Stripe: the real SDK over HTTP to the fake, which answers late and can lose answers. */
const ENDPOINTS: Record<Movement, [string, string]> = {
  capture: ["POST", "/v1/payment_intents/:id/capture"],
  release: ["POST", "/v1/payment_intents/:id/cancel"],
  refund: ["POST", "/v1/refunds"],
  transfer: ["POST", "/v1/transfers"],
};

runMoneyRaces("Stripe", async () => {
  const fake = startFakeStripe();
  return {
    start: (now, dataDir) => makeTestApp({ now, dataDir, env: fake.env }),
    async confirmCard(_app, intent) {
      fake.confirm(intent.paymentIntentId, CARDS.ok);
    },
    setLatency: (_app, ms) => fake.setLatency(ms),
    loseAnswer: (_app, movement) => fake.loseAnswer(...ENDPOINTS[movement]),
    async enablePayouts(_app, accountId) {
      fake.setPayoutsEnabled(accountId, true);
    },
    stop: () => fake.stop(),
  };
});
