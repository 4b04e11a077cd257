/**
 * Stripe's hosted Checkout (the booking dialog) when the news of its payment is cut short or never
 * comes (docs/decisions/0046): the guest pays on Stripe's page, and the booking hears of it through
 * `checkout.session.completed`. A delivery whose handling died with the app is handled by Stripe's
 * next delivery once its lease has run out, once however many arrive together; with no delivery at
 * all, the hold job asks Stripe before it ends the booking, closing a session nobody paid on so
 * nobody can pay on it afterwards. The real SDK talks to tests/fakes/stripe.ts, which answers late.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { one, writeTransaction } from "../db/client";
import { bookings, jobs, paymentEvents } from "../db/schema";
import { WEBHOOK_LEASE_MS } from "../src/payments/webhooks";
import { CARDS, startFakeStripe, type FakeStripe } from "./fakes/stripe";
import { bookingParties, dialogHold, ledgerLines, makeTestApp, ORIGIN, settled, systemMessageTypes, until } from "./helpers";
import { moneyViolations } from "./money-invariants";
import { HOLD, HOUR, LATENCY_MS, MINUTE, START, TIMES } from "./checkout-races";

type TestApp = Awaited<ReturnType<typeof makeTestApp>>;
type StripeEvent = FakeStripe["events"][number];


describe("Stripe's hosted Checkout when its news is cut short or never comes", () => {
  let fake: FakeStripe;
  let app: TestApp;
  let clock = START;
  const now = () => clock;
  let parties: Awaited<ReturnType<typeof bookingParties>>;
  let day = 3;

  beforeAll(async () => {
    fake = startFakeStripe();
    app = await makeTestApp({ now, env: fake.env });
    parties = await bookingParties(app);
    fake.setLatency(LATENCY_MS);
  });
  afterAll(() => {
    fake.stop();
    app.cleanup();
  });

  const row = async (id: string) => (await one(app.db.select().from(bookings).where(eq(bookings.id, id))))!;
  const eventRow = async (id: string) => await one(app.db.select().from(paymentEvents).where(eq(paymentEvents.id, id)));
  /** The intents Stripe made for a booking (the hosted page's), by status. */
  const intentsOf = (bookingId: string) =>
    [...fake.intents.values()].filter((pi) => (pi.metadata as Record<string, string>).bookingId === bookingId).map((pi) => String(pi.status)).sort();
  const sessionIntentOf = (sessionId: string) => String(fake.sessions.get(sessionId)!.payment_intent);
  const deliver = (t: TestApp, evt: StripeEvent) => fake.sendWebhook(`${ORIGIN}/api/webhooks/stripe`, evt, { handle: (req) => t.app.handle(req) });
  const restart = () => makeTestApp({ now, dataDir: app.dataDir, env: fake.env });

  /** The booking dialog's first step, by a guest of its own on a day of its own: a booking holding the time, and Stripe's hosted page for it. */
  async function held() {
    clock = START;
    const date = new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);
    const { bookingId, sessionId } = await dialogHold(app, parties.activityId, date);
    expect(await row(bookingId)).toMatchObject({ status: "awaiting_payment", holdUntil: START + HOLD, checkoutSessionId: sessionId, paymentIntentId: null });
    return { id: bookingId, sessionId: sessionId!, date };
  }

  /** The guest pays on Stripe's page: the card is held, and Stripe's news of it waits to be delivered. */
  function payOnStripe(sessionId: string) {
    const first = fake.events.length;
    fake.completeCheckout(sessionId, CARDS.ok);
    return fake.events.slice(first).find((e) => e.type === "checkout.session.completed")!;
  }

  /** Someone else's request for the same time, through the date-time flow. */
  async function takeTheTime(date: string) {
    const intent = (await (await parties.stranger.postJson("/api/create-payment-intent", { amount: "88.00", metadata: { activityId: parties.activityId, date, time: "10:00", duration: "2" } })).json()) as { paymentIntentId: string };
    fake.confirm(intent.paymentIntentId, CARDS.ok);
    const res = await parties.stranger.postJson("/api/bookings", { activityId: parties.activityId, proposedDatetime: `${date}T10:00:00`, durationHours: 2, priceTotal: "88.00", paymentIntentId: intent.paymentIntentId });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  }

  /** The request made of the booking with the hosted page's payment: one card held, recorded once, the host told once. */
  async function expectRequestMade(t: TestApp, id: string, sessionId: string) {
    expect(await row(id)).toMatchObject({ status: "pending", paymentIntentId: sessionIntentOf(sessionId), claim: null });
    expect(await systemMessageTypes(t.db, id)).toEqual(["booking_request"]);
    expect(await ledgerLines(t.db, id)).toEqual(["authorize:8800"]);
    expect(intentsOf(id)).toEqual(["requires_capture"]);
    await settled(t.deps);
    expect(await moneyViolations(t.deps, [id])).toEqual([]);
  }

  /**
   * The guest pays on Stripe's page; Stripe delivers `checkout.session.completed`, and the app dies
   * while handling it: after recording the event, while it asks Stripe for the session's intent
   * (whose answer never comes), before the booking hears of the payment. Then it starts again.
   */
  async function crashedWhileHandling() {
    const b = await held();
    clock = START + 2 * MINUTE;
    const completed = payOnStripe(b.sessionId);
    const intentId = sessionIntentOf(b.sessionId);
    const reads = () => fake.requestsTo("GET", "/v1/payment_intents/:id").filter((r) => r.path.includes(intentId)).length;
    fake.loseAnswer("GET", "/v1/payment_intents/:id", 1, { hang: true });
    void deliver(app, completed).catch(() => null);
    await until("the app to ask Stripe for the session's intent", () => reads() > 0);
    // What the crash left: the event recorded, never marked handled; the card held; the booking unaware.
    expect(await eventRow(completed.id)).toMatchObject({ type: "checkout.session.completed", claimedAt: clock, handledAt: null });
    expect(await row(b.id)).toMatchObject({ status: "awaiting_payment", paymentIntentId: null });
    expect(intentsOf(b.id)).toEqual(["requires_capture"]);
    const restarted = await restart();
    return { ...b, completed, intentId, restarted };
  }

  test("the app dies while handling checkout.session.completed: Stripe's next delivery after the lease makes the request, one card held", async () => {
    const b = await crashedWhileHandling();
    // Delivered again while the dead handling's lease runs: not taken as received, so Stripe tries again later.
    clock += MINUTE;
    expect((await deliver(b.restarted, b.completed)).status).toBe(409);
    expect((await row(b.id)).status).toBe("awaiting_payment");
    // Once the lease has run out, the next delivery handles it.
    clock = START + 2 * MINUTE + WEBHOOK_LEASE_MS + MINUTE;
    expect(clock).toBeLessThan(START + HOLD);
    expect((await deliver(b.restarted, b.completed)).status).toBe(200);
    await expectRequestMade(b.restarted, b.id, b.sessionId);
    expect(await eventRow(b.completed.id)).toMatchObject({ claimedAt: clock, handledAt: clock });
    // Delivered again, and the hold's own job later: nothing more.
    expect((await deliver(b.restarted, b.completed)).status).toBe(200);
    clock = START + HOLD + 1000;
    await b.restarted.deps.jobs.runDue();
    await expectRequestMade(b.restarted, b.id, b.sessionId);
  });

  test(`${TIMES} deliveries of that event at once after the lease: it is handled once, every answer a success`, async () => {
    const b = await crashedWhileHandling();
    let handled = 0;
    b.restarted.deps.paymentEvents.on((e) => {
      if (e.id === b.completed.id) handled++;
    });
    clock += WEBHOOK_LEASE_MS + MINUTE;
    const answers = await Promise.all(Array.from({ length: TIMES }, () => deliver(b.restarted, b.completed)));
    expect(answers.map((r) => r.status)).toEqual(Array.from({ length: TIMES }, () => 200));
    expect(handled).toBe(1);
    await expectRequestMade(b.restarted, b.id, b.sessionId);
  });

  test("Stripe's news never comes: the hold job asks Stripe, and the booking becomes a request", async () => {
    const b = await held();
    clock = START + 5 * MINUTE;
    payOnStripe(b.sessionId);
    clock = START + HOLD + 1000;
    await app.deps.jobs.runDue();
    await expectRequestMade(app, b.id, b.sessionId);
    // A paid session is not expired.
    expect(fake.requestsTo("POST", "/v1/checkout/sessions/:id/expire").filter((r) => r.path.includes(b.sessionId))).toEqual([]);
    expect(await one(app.db.select().from(jobs).where(eq(jobs.key, `booking.hold:${b.id}`)))).toBeUndefined();
  });

  test("paid in the hold's last seconds, the news never comes, and someone else books the time once the hold lapsed: the hold job ends the booking and lets the card go", async () => {
    const b = await held();
    clock = START + HOLD - 20 * 1000;
    payOnStripe(b.sessionId);
    const intentId = sessionIntentOf(b.sessionId);
    clock = START + HOLD + 1000;
    const other = await takeTheTime(b.date);
    await app.deps.jobs.runDue();
    expect((await row(b.id)).status).toBe("expired");
    expect(intentsOf(b.id)).toEqual(["canceled"]);
    expect(fake.requestsTo("POST", "/v1/payment_intents/:id/cancel").filter((r) => r.path.includes(intentId)).map((r) => r.idempotencyKey)).toContain(`intent:${intentId}:release`);
    expect(await systemMessageTypes(app.db, b.id)).toEqual([]);
    expect((await row(other)).status).toBe("pending");
    // Nothing is left to end it later, and its news, delivered late, changes nothing.
    clock += 2 * HOUR;
    await app.deps.jobs.runDue();
    expect((await deliver(app, fake.events.find((e) => e.type === "checkout.session.completed" && (e.data as { object: { id: string } }).object.id === b.sessionId)!)).status).toBe(200);
    expect((await row(b.id)).status).toBe("expired");
    expect(intentsOf(b.id)).toEqual(["canceled"]);
    expect(await moneyViolations(app.deps, [b.id, other])).toEqual([]);
  });

  test("the guest never pays: the hold job closes the session at Stripe, with its key, and ends the booking; nobody can pay on it afterwards", async () => {
    const b = await held();
    clock = START + HOLD + 1000;
    let statusWhenClosed: string | undefined;
    const expire = app.deps.payments.expireCheckoutSession.bind(app.deps.payments);
    app.deps.payments.expireCheckoutSession = async (id, key) => {
      statusWhenClosed = (await row(b.id)).status;
      return await expire(id, key);
    };
    try {
      await app.deps.jobs.runDue();
    } finally {
      app.deps.payments.expireCheckoutSession = expire;
    }
    // Closed while the booking still awaited payment, then ended.
    expect(statusWhenClosed).toBe("awaiting_payment");
    expect((await row(b.id)).status).toBe("expired");
    expect(fake.sessions.get(b.sessionId)!.status).toBe("expired");
    expect(fake.requestsTo("POST", "/v1/checkout/sessions/:id/expire").filter((r) => r.path.includes(b.sessionId)).map((r) => r.idempotencyKey)).toEqual([`booking:${b.id}:checkout:expire`]);
    expect(() => fake.completeCheckout(b.sessionId)).toThrow("expired");
    expect(intentsOf(b.id)).toEqual([]);
    // Stripe's news of the expiry finds it ended.
    const expired = fake.events.find((e) => e.type === "checkout.session.expired" && (e.data as { object: { id: string } }).object.id === b.sessionId)!;
    expect((await deliver(app, expired)).status).toBe(200);
    expect((await row(b.id)).status).toBe("expired");
    expect(await systemMessageTypes(app.db, b.id)).toEqual([]);
  });

  test("Stripe closes the session but its answer is lost: the booking waits for the job's next look, then ends", async () => {
    const b = await held();
    clock = START + HOLD + 1000;
    fake.loseAnswer("POST", "/v1/checkout/sessions/:id/expire");
    const originalError = console.error;
    console.error = () => {};
    try {
      await app.deps.jobs.runDue();
    } finally {
      console.error = originalError;
    }
    expect(fake.sessions.get(b.sessionId)!.status).toBe("expired");
    expect((await row(b.id)).status).toBe("awaiting_payment");
    clock += 5 * MINUTE;
    await app.deps.jobs.runDue();
    expect((await row(b.id)).status).toBe("expired");
    expect(await one(app.db.select().from(jobs).where(eq(jobs.key, `booking.hold:${b.id}`)))).toBeUndefined();
  });

  test("the guest pays just as the hold job closes the session: Stripe refuses to close a paid one, and the payment makes the request", async () => {
    const b = await held();
    // The job reads the session open; the guest's payment goes through before it asks Stripe to close it.
    const read = app.deps.payments.getCheckoutSession.bind(app.deps.payments);
    app.deps.payments.getCheckoutSession = async (id) => {
      const seen = await read(id);
      app.deps.payments.getCheckoutSession = read;
      payOnStripe(b.sessionId);
      return seen;
    };
    clock = START + HOLD + 1000;
    try {
      await app.deps.jobs.runDue();
    } finally {
      app.deps.payments.getCheckoutSession = read;
    }
    expect(fake.requestsTo("POST", "/v1/checkout/sessions/:id/expire").filter((r) => r.path.includes(b.sessionId)).map((r) => r.status)).toEqual([400]);
    expect(fake.sessions.get(b.sessionId)!.status).toBe("complete");
    await expectRequestMade(app, b.id, b.sessionId);
  });

  test("an event the app recorded before it marked events handled counts as handled", async () => {
    const b = await held();
    const completed = payOnStripe(b.sessionId);
    // As the migration leaves a row from before the marks: claimed and handled when received.
    await writeTransaction(app.db, (tx) => tx.insert(paymentEvents).values({ id: completed.id, type: "checkout.session.completed", receivedAt: START - HOUR, claimedAt: START - HOUR, handledAt: START - HOUR }));
    clock = START + 5 * MINUTE;
    expect((await deliver(app, completed)).status).toBe(200);
    expect((await row(b.id)).status).toBe("awaiting_payment");
    // The hold job, asking Stripe, still finds the payment.
    clock = START + HOLD + 1000;
    await app.deps.jobs.runDue();
    await expectRequestMade(app, b.id, b.sessionId);
  });

  test("every booking these tests made agrees with Stripe", async () => {
    expect(await moneyViolations(app.deps)).toEqual([]);
  });
});
