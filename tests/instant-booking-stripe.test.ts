import { one, writeTransaction } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { activities, bookings } from "../db/schema";
import { RECOVERY_GRACE_MS } from "../src/bookings/claims";
import { INSTANT_ANSWER_MS } from "../src/bookings/instant";
import { CARDS, startFakeStripe, type FakeStripe } from "./fakes/stripe";
import { bookingOfIntent, bookingParties, ledgerLines, makeTestApp, ORIGIN, settled, systemMessageTypes, until } from "./helpers";
import { moneyViolations } from "./money-invariants";

/**
 * Instant booking (docs/decisions/0037) against Stripe: the real SDK over HTTP to
 * tests/fakes/stripe.ts, which answers late and can lose answers. Whatever overlaps (a host's
 * Decline, webhooks delivered several times at once, a capture whose answer is lost, a slow
 * provider), the card is captured once or released once, and the booking agrees with Stripe.
 */
const HOUR = 60 * 60 * 1000;
/** 2026-06-01 12:00 in New York. */
const START = Date.UTC(2026, 5, 1, 16, 0);
const LATENCY_MS = 25;
let clock = START;
const now = () => clock;
const body = async (res: Response) => (await res.json()) as Record<string, any>;

let fake: FakeStripe;
let t: Awaited<ReturnType<typeof makeTestApp>>;
let parties: Awaited<ReturnType<typeof bookingParties>>;
let day = 2;
const nextDate = () => new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);

beforeAll(async () => {
  fake = startFakeStripe();
  t = await makeTestApp({ now, env: fake.env });
  parties = await bookingParties(t);
  await writeTransaction(t.db, (tx) => tx.update(activities).set({ instantBooking: true }).where(eq(activities.id, parties.activityId)));
  fake.setLatency(LATENCY_MS);
});
afterAll(() => {
  fake.stop();
  t.cleanup();
});

const row = async (id: string) => (await one(t.db.select().from(bookings).where(eq(bookings.id, id))))!;
const ledgerOf = (id: string) => ledgerLines(t.db, id);
const systemOf = (id: string) => systemMessageTypes(t.db, id);
/** The distinct movements Stripe was asked for on one intent (a retry of one keeps its key). */
const keysOf = (pattern: string, intentId: string) => new Set(fake.requestsTo("POST", pattern).filter((r) => r.path.includes(intentId)).map((r) => r.idempotencyKey)).size;
const capturesAt = (intentId: string) => keysOf("/v1/payment_intents/:id/capture", intentId);
const releasesAt = (intentId: string) => keysOf("/v1/payment_intents/:id/cancel", intentId);
const expectSound = async (...ids: string[]) => expect(await moneyViolations(t.deps, ids)).toEqual([]);

/** The date-time flow's card step: an intent for a new slot, confirmed by Stripe.js; `send` makes the request. */
async function authorised() {
  const date = nextDate();
  const intent = await body(await parties.guest.postJson("/api/create-payment-intent", { amount: "88.00", metadata: { activityId: parties.activityId, date, time: "10:00", duration: "2" } }));
  fake.confirm(intent.paymentIntentId, CARDS.ok);
  const intentId = intent.paymentIntentId as string;
  const send = () => parties.guest.postJson("/api/bookings", { activityId: parties.activityId, proposedDatetime: `${date}T10:00:00`, durationHours: 2, priceTotal: "88.00", paymentIntentId: intentId });
  return { intentId, send };
}

describe("instant booking with Stripe", () => {
  test("POST /api/bookings answers the booking accepted: one capture at Stripe, for the whole price", async () => {
    const { intentId, send } = await authorised();
    const res = await send();
    expect(res.status).toBe(201);
    const view = await body(res);
    expect(view.status).toBe("accepted");
    expect(await ledgerOf(view.id)).toEqual(["authorize:8800", "capture:8800"]);
    expect(await systemOf(view.id)).toEqual(["booking_request", "booking_accepted"]);
    expect(capturesAt(intentId)).toBe(1);
    expect(fake.intents.get(intentId)).toMatchObject({ status: "succeeded", amount_received: 8800 });
    // Its idempotency key is the claim's, as the host's Accept sends it.
    expect(fake.requestsTo("POST", "/v1/payment_intents/:id/capture").find((r) => r.path.includes(intentId))!.idempotencyKey).toBe(`booking:${view.id}:capture`);
    await settled(t.deps);
    await expectSound(view.id);
  });

  test("the capture acts but its answer is lost: recovered once, exactly one capture, the booking accepted", async () => {
    const { intentId, send } = await authorised();
    fake.loseAnswer("POST", "/v1/payment_intents/:id/capture");
    const res = await send();
    // Stripe's own client may learn the outcome by asking again; otherwise the request is sent and its accept finished later.
    expect(res.status).toBe(201);
    const view = await body(res);
    expect(["accepted", "pending"]).toContain(view.status);
    const id = view.id as string;
    if (view.status === "pending") expect((await row(id)).claim?.movement).toBe("capture");
    clock += RECOVERY_GRACE_MS + 60_000;
    try {
      await t.deps.jobs.runDue();
      await settled(t.deps);
    } finally {
      clock = START;
    }
    expect(await row(id)).toMatchObject({ status: "accepted", claim: null });
    expect(await ledgerOf(id)).toEqual(["authorize:8800", "capture:8800"]);
    expect(capturesAt(intentId)).toBe(1);
    expect(fake.intents.get(intentId)).toMatchObject({ status: "succeeded", amount_received: 8800 });
    await expectSound(id);
  });

  test("a slow Stripe does not hold the guest's answer: the request is sent, and accepted once the capture answers", async () => {
    const { intentId, send } = await authorised();
    const payments = t.deps.payments;
    const capture = payments.capture;
    payments.capture = async (...args) => {
      await Bun.sleep(INSTANT_ANSWER_MS + 1_000);
      return capture.apply(payments, args);
    };
    try {
      const started = performance.now();
      const res = await send();
      const took = performance.now() - started;
      expect(res.status).toBe(201);
      const view = await body(res);
      expect(view.status).toBe("pending");
      expect(took).toBeLessThan(INSTANT_ANSWER_MS + 1_000);
      await until("the instant accept", async () => (await row(view.id)).status === "accepted", 10_000);
      await settled(t.deps);
      expect(await ledgerOf(view.id)).toEqual(["authorize:8800", "capture:8800"]);
      expect(capturesAt(intentId)).toBe(1);
      // The job, run again, changes nothing.
      await t.deps.jobs.runDue();
      expect(capturesAt(intentId)).toBe(1);
      await expectSound(view.id);
    } finally {
      payments.capture = capture;
    }
  });

  test("a host Decline racing the instant accept: exactly one wins, the card captured or released once", async () => {
    const seen = new Set<string>();
    // Every other round, the accept run after the commit starts a little late (a busy process),
    // so that the host's Decline, sent as soon as the request shows, can claim the booking first.
    const runner = t.deps.jobs;
    const runNow = runner.runNow;
    let late = false;
    runner.runNow = async (keys) => {
      if (late && keys.some((k) => k.endsWith(":instant-accept"))) await Bun.sleep(3 * LATENCY_MS);
      return runNow.call(runner, keys);
    };
    try {
      for (let i = 0; i < 6; i++) {
        late = i % 2 === 1;
        const { intentId, send } = await authorised();
        const making = send();
        const id = await bookingOfIntent(t.db, intentId);
        // The other rounds, the Decline comes a moment later, as the accept claims the booking
        // (PostgreSQL's round trips make the accept slower to start than SQLite's).
        if (!late) await Bun.sleep(LATENCY_MS);
        const declines = await Promise.all([1, 2].map(() => parties.host.postJson(`/api/bookings/${id}/reject`, {})));
        expect((await making).status).toBe(201);
        await settled(t.deps);
        const b = await row(id);
        seen.add(b.status);
        expect(b.claim).toBeNull();
        for (const d of declines) expect([200, 409]).toContain(d.status);
        if (b.status === "accepted") {
          expect(declines.every((d) => d.status === 409)).toBe(true);
          expect(await ledgerOf(id)).toEqual(["authorize:8800", "capture:8800"]);
          expect(capturesAt(intentId)).toBe(1);
          expect(releasesAt(intentId)).toBe(0);
          expect(fake.intents.get(intentId)!.status).toBe("succeeded");
        } else {
          expect(b.status).toBe("rejected");
          expect(declines.some((d) => d.status === 200)).toBe(true);
          expect(await ledgerOf(id)).toEqual(["authorize:8800", "release:8800"]);
          expect(capturesAt(intentId)).toBe(0);
          expect(releasesAt(intentId)).toBe(1);
          expect(fake.intents.get(intentId)!.status).toBe("canceled");
        }
        await t.deps.jobs.runDue();
        expect((await row(id)).status).toBe(b.status);
        await expectSound(id);
      }
    } finally {
      runner.runNow = runNow;
    }
    // Both sides won some rounds.
    expect([...seen].sort()).toEqual(["accepted", "rejected"]);
  });

  test("the hosted checkout's webhooks delivered several times at once: one request, one capture", async () => {
    const res = await parties.guest.postJson("/api/create-payment-intent", { activityId: parties.activityId, hours: 2, amount: "88.00", proposedDate: nextDate(), proposedTime: "10:00", message: "Hello!" });
    expect(res.status).toBe(200);
    const { sessionId, bookingId } = (await body(res)) as { sessionId: string; bookingId: string };
    const first = fake.events.length;
    fake.completeCheckout(sessionId);
    const events = fake.events.slice(first);
    expect(events.map((e) => e.type)).toEqual(["payment_intent.amount_capturable_updated", "checkout.session.completed"]);
    const deliver = (evt: (typeof events)[number]) => fake.sendWebhook(`${ORIGIN}/api/webhooks/stripe`, evt, { handle: (req) => t.app.handle(req) });
    const answers = await Promise.all([...events, ...events, ...events].map(deliver));
    for (const a of answers) expect(a.status).toBe(200);
    await until("the instant accept", async () => (await row(bookingId)).status === "accepted", 10_000);
    await settled(t.deps);
    const intentId = (await row(bookingId)).paymentIntentId!;
    expect(intentId).toBe(String(fake.sessions.get(sessionId)!.payment_intent));
    expect(await ledgerOf(bookingId)).toEqual(["authorize:8800", "capture:8800"]);
    expect(await systemOf(bookingId)).toEqual(["booking_request", "booking_accepted"]);
    expect(capturesAt(intentId)).toBe(1);
    // Delivered again later: nothing more.
    for (const evt of events) expect((await deliver(evt)).status).toBe(200);
    await settled(t.deps);
    expect(capturesAt(intentId)).toBe(1);
    await expectSound(bookingId);
  });

  test("the host cancels an accepted instant booking: one full refund at Stripe", async () => {
    const { intentId, send } = await authorised();
    const id = (await body(await send())).id as string;
    expect((await row(id)).status).toBe("accepted");
    const answers = await Promise.all([1, 2, 3].map(() => parties.host.postJson(`/api/bookings/${id}/cancel`, {})));
    for (const a of answers) expect([200, 409]).toContain(a.status);
    expect(await row(id)).toMatchObject({ status: "canceled", canceledBy: "host", claim: null });
    expect(await ledgerOf(id)).toEqual(["authorize:8800", "capture:8800", "refund:8800"]);
    const refunds = [...fake.refunds.values()].filter((r) => r.payment_intent === intentId);
    expect(refunds.length).toBe(1);
    expect(refunds[0]!.amount).toBe(8800);
    await expectSound(id);
  });

  test("every booking of this suite agrees with Stripe", async () => {
    await settled(t.deps);
    expect(await moneyViolations(t.deps)).toEqual([]);
  });
});
