import { one, writeTransaction } from "../db/client";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { paymentEvents, users } from "../db/schema";
import { PaymentError, type PaymentEvent } from "../src/ports/payments";
import { StripeProvider } from "../src/payments/stripe";
import { WEBHOOK_LEASE_MS } from "../src/payments/webhooks";
import { CARDS, startFakeStripe, type FakeStripe } from "./fakes/stripe";
import { ORIGIN, makeTestApp, type Client } from "./helpers";
import { select } from "./html";
import { runProviderContract } from "./payments-contract";

const providerFor = (fake: FakeStripe) =>
  new StripeProvider({ secretKey: fake.secretKey, publishableKey: "pk_test_fake", webhookSecret: fake.webhookSecret, apiBase: fake.apiBase });

runProviderContract("stripe (the SDK against a fake Stripe)", async () => {
  const fake = startFakeStripe();
  return {
    provider: providerFor(fake),
    async confirmCard(intent, card) {
      try {
        fake.confirm(intent.id, card);
      } catch {
        // A refused card is recorded on the intent, as Stripe.js reports it to the browser.
      }
    },
    async setPayoutsEnabled(accountId, enabled) {
      fake.setPayoutsEnabled(accountId, enabled);
    },
    cleanup: () => fake.stop(),
  };
});

describe("what the Stripe provider sends", () => {
  let fake: FakeStripe;
  let p: StripeProvider;
  beforeAll(() => {
    fake = startFakeStripe();
    p = providerFor(fake);
  });
  afterAll(() => fake.stop());
  // Each test reads the calls and events it made, whichever ran before.
  beforeEach(() => fake.forgetRecorded());

  test("an authorisation is a manual-capture intent with the booking's transfer group, metadata and key", async () => {
    const intent = await p.createIntent({ amountCents: 4400, currency: "usd", metadata: { bookingId: "b1", guestId: "g1" }, transferGroup: "booking:b1", description: "Tennis" }, "booking:b1:authorize");
    const [sent] = fake.requestsTo("POST", "/v1/payment_intents");
    expect(sent!.params).toMatchObject({ amount: "4400", currency: "usd", capture_method: "manual", transfer_group: "booking:b1", metadata: { bookingId: "b1", guestId: "g1" }, description: "Tennis" });
    expect(sent!.idempotencyKey).toBe("booking:b1:authorize");
    expect(p.testMode).toBe(true);

    fake.confirm(intent.id, CARDS.ok);
    await p.capture(intent.id, "booking:b1:capture");
    expect(fake.requestsTo("POST", "/v1/payment_intents/:id/capture").map((r) => r.idempotencyKey)).toEqual(["booking:b1:capture"]);

    const account = await p.createConnectedAccount({ userId: "u1", email: "host@example.com" }, "user:u1:connect-account");
    const [created] = fake.requestsTo("POST", "/v1/accounts");
    expect(created!.params).toMatchObject({ type: "express", email: "host@example.com", metadata: { userId: "u1" } });
    expect(created!.idempotencyKey).toBe("user:u1:connect-account");
    fake.setPayoutsEnabled(account.id, true);

    await p.transfer({ amountCents: 3200, currency: "usd", destinationAccountId: account.id, sourceIntentId: intent.id, transferGroup: "booking:b1" }, "booking:b1:transfer");
    const [transfer] = fake.requestsTo("POST", "/v1/transfers");
    // Separate charges and transfers: the transfer names the charge that paid for it.
    const charge = fake.intents.get(intent.id)!.latest_charge;
    expect(charge).toStartWith("ch_");
    expect(transfer!.params).toEqual({ amount: "3200", currency: "usd", destination: account.id, source_transaction: charge, transfer_group: "booking:b1" });
    expect(transfer!.idempotencyKey).toBe("booking:b1:transfer");

    const t = [...fake.transfers.values()][0]!;
    await p.reverseTransfer(t.id, 1000, "booking:b1:reverse");
    const [reversal] = fake.requestsTo("POST", "/v1/transfers/:id/reversals");
    expect(reversal).toMatchObject({ params: { amount: "1000" }, idempotencyKey: "booking:b1:reverse" });

    await p.refund(intent.id, null, "booking:b1:refund");
    const [refund] = fake.requestsTo("POST", "/v1/refunds");
    expect(refund).toMatchObject({ params: { payment_intent: intent.id }, idempotencyKey: "booking:b1:refund" });

    const b2 = await p.createIntent({ amountCents: 2000, currency: "usd", metadata: {} }, "booking:b2:authorize");
    fake.confirm(b2.id, CARDS.ok);
    await p.release(b2.id, "booking:b2:release");
    expect(fake.requestsTo("POST", "/v1/payment_intents/:id/cancel").map((r) => r.idempotencyKey)).toEqual(["booking:b2:release"]);
  });

  test("a checkout session: payment mode, one line item, manual capture and metadata on its intent", async () => {
    const session = await p.createCheckoutSession(
      { amountCents: 8800, currency: "eur", metadata: { activityId: "a1", date: "2030-01-01" }, description: "Cooking class, 2 hours", successUrl: `${ORIGIN}/booking-success`, cancelUrl: `${ORIGIN}/` },
      "checkout:a1:g1",
    );
    const [sent] = fake.requestsTo("POST", "/v1/checkout/sessions");
    expect(sent!.params).toEqual({
      mode: "payment",
      line_items: [{ quantity: "1", price_data: { currency: "eur", unit_amount: "8800", product_data: { name: "Cooking class, 2 hours" } } }],
      payment_intent_data: { capture_method: "manual", metadata: { activityId: "a1", date: "2030-01-01" } },
      metadata: { activityId: "a1", date: "2030-01-01" },
      success_url: `${ORIGIN}/booking-success`,
      cancel_url: `${ORIGIN}/`,
    });
    expect(sent!.idempotencyKey).toBe("checkout:a1:g1");
    expect(session.paymentIntentId).toBeNull();
    const done = fake.completeCheckout(session.id);
    const intent = await p.getIntent(String(done.payment_intent));
    expect(intent).toMatchObject({ status: "requires_capture", amountCents: 8800, metadata: { activityId: "a1", date: "2030-01-01" } });
  });

  test("a hosted checkout session is read, and closed with the caller's key; one paid meanwhile is answered as it is", async () => {
    const input = { amountCents: 8800, currency: "usd", metadata: { bookingId: "b7" }, description: "Tennis", successUrl: `${ORIGIN}/bookings?success=true`, cancelUrl: `${ORIGIN}/bookings?canceled=true` };
    const open = await p.createCheckoutSession(input, "booking:b7:checkout");
    expect(await p.getCheckoutSession(open.id)).toEqual({ id: open.id, status: "open", paymentIntentId: null });
    expect(await p.expireCheckoutSession(open.id, "booking:b7:checkout:expire")).toEqual({ id: open.id, status: "expired", paymentIntentId: null });
    expect(fake.requestsTo("POST", "/v1/checkout/sessions/:id/expire").map((r) => r.idempotencyKey)).toEqual(["booking:b7:checkout:expire"]);
    // Closed already: Stripe refuses, and the session says why.
    expect((await p.expireCheckoutSession(open.id, "booking:b7:checkout:expire:again")).status).toBe("expired");

    const paid = await p.createCheckoutSession({ ...input, metadata: { bookingId: "b8" } }, "booking:b8:checkout");
    const done = fake.completeCheckout(paid.id);
    expect(await p.expireCheckoutSession(paid.id, "booking:b8:checkout:expire")).toEqual({ id: paid.id, status: "complete", paymentIntentId: String(done.payment_intent) });
    expect(fake.sessions.get(paid.id)!.status).toBe("complete");
    expect(await p.getCheckoutSession("cs_test_doesnotexist")).toBeNull();
  });

  test("an onboarding link names the account, its kind and both return addresses", async () => {
    const account = await p.createConnectedAccount({ userId: "u9", email: null }, "user:u9:connect-account");
    await p.onboardingLink(account.id, { refreshUrl: "https://offline.example/stripe-connect-setup?refresh=1", returnUrl: "https://offline.example/stripe-connect-setup?return=1" });
    const sent = fake.requestsTo("POST", "/v1/account_links").at(-1)!;
    expect(sent.params).toEqual({ account: account.id, type: "account_onboarding", refresh_url: "https://offline.example/stripe-connect-setup?refresh=1", return_url: "https://offline.example/stripe-connect-setup?return=1" });
  });

  test("3-D Secure: the intent asks for action and says where the browser goes", async () => {
    const intent = await p.createIntent({ amountCents: 1500, currency: "usd", metadata: {} }, "booking:3ds:authorize");
    fake.confirm(intent.id, CARDS.authenticate);
    const now = await p.getIntent(intent.id);
    expect(now?.status).toBe("requires_action");
    expect(now?.nextActionUrl).toStartWith(fake.apiBase);
  });

  test("Stripe's refusals become PaymentErrors with a code and a status", async () => {
    const intent = await p.createIntent({ amountCents: 1500, currency: "usd", metadata: {} }, "booking:e1:authorize");
    const err = (await p.capture(intent.id, "booking:e1:capture").catch((e: unknown) => e)) as PaymentError;
    expect(err).toBeInstanceOf(PaymentError);
    expect(err).toMatchObject({ code: "invalid_request", status: 400 });
    expect(err.message).toContain("requires_capture");
    const missing = (await p.capture("pi_missing0000000000", "k").catch((e: unknown) => e)) as PaymentError;
    expect(missing).toMatchObject({ code: "not_found", status: 404 });
    // The same key with other parameters is Stripe's idempotency error, never a second object.
    const reused = (await p.createIntent({ amountCents: 9999, currency: "usd", metadata: {} }, "booking:e1:authorize").catch((e: unknown) => e)) as PaymentError;
    expect(reused).toMatchObject({ code: "invalid_request", status: 400 });
  });

  test("Stripe out of reach is provider_unavailable", async () => {
    const down = new StripeProvider({ secretKey: "sk_test_x", publishableKey: "pk_test_x", apiBase: "http://127.0.0.1:9" });
    const err = (await down.getIntent("pi_x").catch((e: unknown) => e)) as PaymentError;
    expect(err).toMatchObject({ code: "provider_unavailable", status: 503 });
  }, 20_000);

  test("a webhook verifies only with the secret's signature", async () => {
    const evt = fake.event("payment_intent.succeeded", { id: "pi_123", object: "payment_intent", metadata: { bookingId: "b1" } });
    const payload = JSON.stringify(evt);
    expect(await p.parseWebhook(payload, fake.sign(payload))).toEqual({ id: evt.id, type: "payment_intent.succeeded", objectId: "pi_123", metadata: { bookingId: "b1" }, paymentIntentId: "pi_123" });
    for (const signature of [fake.sign(payload, "whsec_wrong"), fake.sign(payload.replace("b1", "b2")), null, "t=1,v1=abc"]) {
      const err = await p.parseWebhook(payload, signature).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "invalid_request" });
    }
    const session = fake.event("checkout.session.completed", { id: "cs_1", object: "checkout.session", payment_intent: "pi_9", metadata: { activityId: "a1" } });
    const sp = JSON.stringify(session);
    expect(await p.parseWebhook(sp, fake.sign(sp))).toMatchObject({ type: "checkout.session.completed", objectId: "cs_1", paymentIntentId: "pi_9", metadata: { activityId: "a1" } });
    const other = fake.event("charge.dispute.created", { id: "dp_1", object: "dispute" });
    const op = JSON.stringify(other);
    expect(await p.parseWebhook(op, fake.sign(op))).toMatchObject({ type: "other", objectId: "dp_1", paymentIntentId: null });
  });
});

describe("the Stripe webhook route", () => {
  let fake: FakeStripe;
  let t: Awaited<ReturnType<typeof makeTestApp>>;
  const dispatched: PaymentEvent[] = [];
  const url = `${ORIGIN}/api/webhooks/stripe`;
  const deliver = (evt: Record<string, unknown> & { id: string }, o: { secret?: string; signature?: string } = {}) =>
    fake.sendWebhook(url, evt, { ...o, handle: (req) => t.app.handle(req) });

  beforeAll(async () => {
    fake = startFakeStripe();
    t = await makeTestApp({ env: fake.env });
    t.deps.paymentEvents.on((e) => {
      dispatched.push(e);
    });
  });
  afterAll(() => {
    fake.stop();
    t.cleanup();
  });

  test("each event is handed on exactly once, however often and in whatever order it arrives", async () => {
    dispatched.length = 0;
    const p = t.deps.payments!;
    const intent = await p.createIntent({ amountCents: 4400, currency: "usd", metadata: { bookingId: "b1" }, transferGroup: "booking:b1" }, "booking:b1:authorize");
    fake.confirm(intent.id, CARDS.ok);
    await p.capture(intent.id, "booking:b1:capture");
    const other = await p.createIntent({ amountCents: 1000, currency: "usd", metadata: { bookingId: "b2" } }, "booking:b2:authorize");
    expect(() => fake.confirm(other.id, CARDS.declined)).toThrow("Your card was declined.");
    await p.release(other.id, "booking:b2:release");
    const events = [...fake.events];
    expect(events.map((e) => e.type)).toEqual(["payment_intent.amount_capturable_updated", "payment_intent.succeeded", "payment_intent.payment_failed", "payment_intent.canceled"]);

    // Three deliveries of each, newest first, interleaved.
    const deliveries = [...events, ...events, ...events].reverse();
    for (const [i, evt] of deliveries.entries()) {
      const res = await deliver(evt);
      expect({ i, status: res.status }).toEqual({ i, status: 200 });
    }
    expect(dispatched.map((e) => e.id).sort()).toEqual(events.map((e) => e.id).sort());
    const failed = dispatched.find((e) => e.type === "payment_intent.payment_failed")!;
    expect(failed).toMatchObject({ objectId: other.id, paymentIntentId: other.id, metadata: { bookingId: "b2" } });
    const stored = await t.db.select().from(paymentEvents);
    expect(stored.length).toBe(events.length);
  });

  test("deliveries of one event at the same moment hand it on once", async () => {
    dispatched.length = 0;
    const evt = fake.event("payment_intent.succeeded", { id: "pi_Concurrent1", object: "payment_intent", metadata: {} });
    const answers = await Promise.all(Array.from({ length: 6 }, () => deliver(evt)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(dispatched.map((e) => e.id)).toEqual([evt.id]);
  });

  test("an event whose handling died with its process is handed on by a later delivery once the lease has run out, and not before", async () => {
    dispatched.length = 0;
    const evt = fake.event("payment_intent.canceled", { id: "pi_Crashed1", object: "payment_intent", metadata: {} });
    // What a process that died while handling it left: recorded and claimed, never marked handled.
    await writeTransaction(t.db, (tx) => tx.insert(paymentEvents).values({ id: evt.id, type: "payment_intent.canceled", receivedAt: Date.now(), claimedAt: Date.now(), handledAt: null }));
    // Its handling could still be under way elsewhere: not received yet, so Stripe delivers it again later.
    expect((await deliver(evt)).status).toBe(409);
    expect(dispatched).toEqual([]);
    await writeTransaction(t.db, (tx) => tx.update(paymentEvents).set({ claimedAt: Date.now() - WEBHOOK_LEASE_MS - 1000 }).where(eq(paymentEvents.id, evt.id)));
    expect((await deliver(evt)).status).toBe(200);
    expect((await deliver(evt)).status).toBe(200);
    expect(dispatched.map((e) => e.id)).toEqual([evt.id]);
    expect((await one(t.db.select().from(paymentEvents).where(eq(paymentEvents.id, evt.id))))!.handledAt).not.toBeNull();
  });

  test("a bad or missing signature is 400 and nothing is done", async () => {
    dispatched.length = 0;
    const evt = fake.event("payment_intent.succeeded", { id: "pi_Forged", object: "payment_intent", metadata: {} });
    expect((await deliver(evt, { secret: "whsec_someone_else" })).status).toBe(400);
    expect((await deliver(evt, { signature: "" })).status).toBe(400);
    expect((await deliver(evt, { signature: "t=1,v1=00" })).status).toBe(400);
    const noHeader = await t.app.handle(new Request(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(evt) }));
    expect(noHeader.status).toBe(400);
    expect(dispatched).toEqual([]);
    expect(await t.db.select().from(paymentEvents).where(eq(paymentEvents.id, evt.id))).toEqual([]);
    // The real one still goes through afterwards.
    expect((await deliver(evt)).status).toBe(200);
    expect(dispatched.map((e) => e.id)).toEqual([evt.id]);
  });

  test("a body over the limit is refused before it is read", async () => {
    const res = await t.app.handle(new Request(url, { method: "POST", headers: { "stripe-signature": "t=1,v1=00", "content-type": "application/json" }, body: "x".repeat(600 * 1024) }));
    expect(res.status).toBe(413);
  });

  test("a handler that fails leaves the event to be delivered again", async () => {
    dispatched.length = 0;
    let fail = true;
    t.deps.paymentEvents.on(() => {
      if (fail) throw new Error("booking store unavailable");
    });
    const evt = fake.event("payment_intent.canceled", { id: "pi_Retry1", object: "payment_intent", metadata: {} });
    const originalError = console.error;
    console.error = () => {};
    try {
      expect((await deliver(evt)).status).toBe(500);
    } finally {
      console.error = originalError;
    }
    fail = false;
    expect((await deliver(evt)).status).toBe(200);
    expect((await deliver(evt)).status).toBe(200);
    // Handed on at the failed attempt and once more at the retry, never after.
    expect(dispatched.map((e) => e.id)).toEqual([evt.id, evt.id]);
  });

  test("account.updated stores, from Stripe's own answer, whether the host can be paid", async () => {
    const c = t.client();
    const { user } = await c.signUpComplete();
    expect((await c.postForm("/stripe-connect-setup", {})).status).toBe(303);
    const accountId = (await one(t.db.select().from(users).where(eq(users.id, user.id))))!.stripeAccountId!;
    const enabled = fake.setPayoutsEnabled(accountId, true);
    const disabled = fake.setPayoutsEnabled(accountId, false);
    fake.setPayoutsEnabled(accountId, true);
    // The older "disabled" event arrives last: the state stored is Stripe's current one.
    expect((await deliver(enabled)).status).toBe(200);
    expect((await deliver(disabled)).status).toBe(200);
    expect((await one(t.db.select().from(users).where(eq(users.id, user.id))))!.payoutsEnabled).toBe(true);
  });
});

describe("payout setup with Stripe", () => {
  let fake: FakeStripe;
  let t: Awaited<ReturnType<typeof makeTestApp>>;
  let c: Client;
  let userId: string;
  beforeAll(async () => {
    fake = startFakeStripe();
    t = await makeTestApp({ env: fake.env });
    c = t.client();
    userId = (await c.signUpComplete()).user.id;
  });
  afterAll(() => {
    fake.stop();
    t.cleanup();
  });

  const stored = async () => (await one(t.db.select().from(users).where(eq(users.id, userId))))!;
  /** The setup started once (the form sent), as each step after the first needs: those tests also pass alone. */
  const started = async () => {
    if (!(await stored()).stripeAccountId) expect((await c.postForm("/stripe-connect-setup", {})).status).toBe(303);
  };

  test("the screen explains the setup, says it is test mode and offers to start", async () => {
    const res = await c.get("/stripe-connect-setup");
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const text of ["Payment Setup", 'href="/host-dashboard"', "Government-issued ID", "Bank account details", "Business information (if applicable)", "Tax ID", "Start Payment Setup", "Test mode"]) {
      expect(html).toContain(text);
    }
    expect(html).toContain('action="/stripe-connect-setup"');
    // The form's answer is a redirect to Stripe's onboarding, which the page's policy must allow.
    expect(res.headers.get("content-security-policy")).toContain(`form-action 'self' https://connect.stripe.com https://checkout.stripe.com ${fake.apiBase}`);
    expect(html).toContain(`name="_csrf" value="${c.csrf}"`);
  });

  test("starting sends the host to Stripe's onboarding, back to this very site", async () => {
    const res = await c.postForm("/stripe-connect-setup", {});
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toStartWith(`${fake.apiBase}/setup/e/`);
    const user = await stored();
    expect(user.stripeAccountId).toStartWith("acct_");
    const [created] = fake.requestsTo("POST", "/v1/accounts");
    expect(created).toMatchObject({ idempotencyKey: `user:${userId}:connect-account`, params: { type: "express", metadata: { userId } } });
    const link = fake.requestsTo("POST", "/v1/account_links").at(-1)!;
    expect(link.params).toEqual({ account: user.stripeAccountId, type: "account_onboarding", refresh_url: `${ORIGIN}/stripe-connect-setup?refresh=1`, return_url: `${ORIGIN}/stripe-connect-setup?return=1` });
  });

  test("starting again, by the form or the API, reuses the account with a fresh link", async () => {
    await started();
    const api = await c.request("/api/stripe/connect", { method: "POST" });
    expect(api.status).toBe(200);
    const { url } = (await api.json()) as { url: string };
    expect(url).toStartWith(`${fake.apiBase}/setup/e/`);
    expect(url).not.toBe(fake.accountLinks[0]!.url);
    expect(fake.accounts.size).toBe(1);
    expect(fake.requestsTo("POST", "/v1/accounts").length).toBe(1);
  });

  test("back from Stripe, the screen shows what Stripe still needs; an expired link leads to a fresh one", async () => {
    await started();
    const res = await c.get("/stripe-connect-setup?return=1");
    const html = await res.text();
    expect(html).toContain("Setup not finished");
    expect(html).toContain("Bank account details");
    expect(html).toContain("Continue Payment Setup");
    expect(html).not.toMatch(/acct_[A-Za-z0-9]{4,}/);
    expect((await stored()).payoutsEnabled).toBe(false);

    const links = fake.accountLinks.length;
    const refresh = await c.get("/stripe-connect-setup?refresh=1");
    expect(refresh.status).toBe(303);
    expect(refresh.headers.get("location")).toBe(fake.accountLinks.at(-1)!.url as string);
    expect(fake.accountLinks.length).toBe(links + 1);
  });

  test("the list of what Stripe still needs is made from the account's own requirements, and follows them", async () => {
    const host = t.client();
    const { user } = await host.signUpComplete();
    expect((await host.postForm("/stripe-connect-setup", {})).status).toBe(303);
    const accountId = (await one(t.db.select().from(users).where(eq(users.id, user.id))))!.stripeAccountId!;
    // The status card's list (the card ends before the fixed "What you'll need" list).
    const stillNeeded = async () => {
      const html = await (await host.get("/stripe-connect-setup?return=1")).text();
      const from = html.indexOf("Setup not finished");
      const to = html.indexOf("</section>", from);
      expect(from).toBeGreaterThan(-1);
      expect(to).toBeGreaterThan(from);
      return select(html.slice(from, to), "li").map((li) => li.text.trim()).sort();
    };
    // A new account: business_type, external_account, individual.dob.day, individual.id_number, tos_acceptance.date.
    expect((fake.accounts.get(accountId)!.requirements as { currently_due: string[] }).currently_due).toEqual(["business_type", "external_account", "individual.dob.day", "individual.id_number", "tos_acceptance.date"]);
    expect(await stillNeeded()).toEqual(
      ["Business information", "Bank account details", "Personal details (name, date of birth, address)", "Government-issued ID", "Accepting the payment provider's terms"].sort(),
    );
    // Stripe now needs the bank account only.
    fake.setPayoutsEnabled(accountId, false);
    expect(await stillNeeded()).toEqual(["Bank account details"]);
  });

  test("once Stripe enables payouts, the screen says so and the host is marked payable", async () => {
    await started();
    fake.setPayoutsEnabled((await stored()).stripeAccountId!, true);
    const html = await (await c.get("/stripe-connect-setup?return=1")).text();
    expect(html).toContain("Payouts are enabled");
    expect(html).not.toContain("Start Payment Setup");
    expect((await stored()).payoutsEnabled).toBe(true);
    // A refresh link for an account that needs nothing shows the screen instead.
    expect((await c.get("/stripe-connect-setup?refresh=1")).status).toBe(200);
  });

  test("in French", async () => {
    const html = await (await c.get("/stripe-connect-setup", { "accept-language": "fr" })).text();
    expect(html).toContain("Configuration des paiements");
  });

  test("an https PUBLIC_URL is where live Stripe sends the host back", async () => {
    const app = await makeTestApp({ env: { ...fake.env, PUBLIC_URL: "https://offline.example" } });
    try {
      const host = app.client();
      await host.signUpComplete();
      const res = await host.request("/api/stripe/connect", { method: "POST" });
      expect(res.status).toBe(200);
      const link = fake.requestsTo("POST", "/v1/account_links").at(-1)!;
      expect(link.params).toMatchObject({ refresh_url: "https://offline.example/stripe-connect-setup?refresh=1", return_url: "https://offline.example/stripe-connect-setup?return=1" });
    } finally {
      app.cleanup();
    }
  });

  test("when Stripe fails: 'Setup Failed' on the screen, a message from the API, never a 500 page", async () => {
    const broken = await makeTestApp({ env: { ...fake.env, STRIPE_SECRET_KEY: "sk_test_wrong_key" } });
    const originalError = console.error;
    console.error = () => {};
    try {
      const host = broken.client();
      await host.signUpComplete();
      const form = await host.postForm("/stripe-connect-setup", {});
      expect(form.status).toBe(503);
      const html = await form.text();
      expect(html).toContain("Setup Failed");
      expect(html).toContain("Failed to start payment setup");
      const api = await host.request("/api/stripe/connect", { method: "POST" });
      expect(api.status).toBe(503);
      expect(await api.json()).toEqual({ message: "Failed to start payment setup" });
      const page = await host.get("/stripe-connect-setup");
      expect(page.status).toBe(200);
    } finally {
      console.error = originalError;
      broken.cleanup();
    }
  });
});

describe("with the built-in test provider", () => {
  let t: Awaited<ReturnType<typeof makeTestApp>>;
  beforeAll(async () => {
    t = await makeTestApp();
  });
  afterAll(() => t.cleanup());

  test("the Stripe webhook is not found; payout setup leads to the test onboarding page", async () => {
    const hook = await t.app.handle(new Request(`${ORIGIN}/api/webhooks/stripe`, { method: "POST", headers: { "stripe-signature": "t=1,v1=00" }, body: "{}" }));
    expect(hook.status).toBe(404);
    const c = t.client();
    await c.signUpComplete();
    const html = await (await c.get("/stripe-connect-setup")).text();
    expect(html).toContain("Start Payment Setup");
    const start = await c.request("/api/stripe/connect", { method: "POST" });
    expect(start.status).toBe(200);
    const { url } = (await start.json()) as { url: string };
    expect(new URL(url, ORIGIN).origin).toBe(ORIGIN);
  });

  test("a visitor gets the landing page, and the API asks to sign in", async () => {
    const v = t.client();
    expect(await (await v.get("/stripe-connect-setup")).text()).toContain("Find amazing activities in your city");
    expect((await v.request("/api/stripe/connect", { method: "POST" })).status).toBe(401);
  });
});
