import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { closeDb, one, writeTransaction, type Db } from "../db/client";
import { DEMO_GUEST_EMAIL, DEMO_HOST_EMAIL, DEMO_PASSWORD } from "../src/demo/demo-data";
import { bookingRow, insert } from "../src/demo/factories";
import { priceFor } from "../shared/pricing";
import { activities, bookings, jobs, leases, ledgerEntries, paymentEvents, users } from "../db/schema";
import type { Deps } from "../src/deps";
import { StripeProvider } from "../src/payments/stripe";
import { CARDS, startFakeStripe } from "./fakes/stripe";
import { openDatabaseOf, outboxEmails, until } from "./helpers";
import { startServerProcess } from "./server-process";
import { RECOVERY_GRACE_MS } from "../src/bookings/claims";
import { WEBHOOK_LEASE_MS } from "../src/payments/webhooks";
import { moneyViolations } from "./money-invariants";

/**
 * The real server process with Stripe (the fake, over HTTP) killed or stopped while a capture is
 * under way (docs/decisions/0028): killed after Stripe captured but before the answer arrived, the
 * restarted server records the capture once; stopped with SIGTERM, it lets the accept finish first.
 * Killed while finishing a payment at checkout (docs/decisions/0046), after Stripe held the card:
 * the restarted server makes the request from what Stripe shows. Killed while handling Stripe's
 * news of a payment on its hosted Checkout page: Stripe's next delivery, once the dead handling's
 * lease has run out, makes the request.
 */
const HOUR = 60 * 60 * 1000;
const fake = startFakeStripe();
const dataDir = mkdtempSync(join(tmpdir(), "offline-crash-"));
afterAll(() => {
  fake.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const startServer = () => startServerProcess({ env: { ...fake.env, DATA_DIR: dataDir, DEMO_DATA: "true" } });

async function signIn(url: string, email: string) {
  const res = await fetch(`${url}/api/login`, { method: "POST", headers: { "content-type": "application/json", origin: url }, body: JSON.stringify({ email, password: DEMO_PASSWORD }) });
  expect(res.status).toBe(200);
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  return { cookie, csrf: res.headers.get("x-csrf-token")! };
}

/** A request of the demo guest to the demo host, its card held at Stripe, as the date-time flow leaves it. */
async function pendingRequest(days: number) {
  const db = await openDatabaseOf(dataDir);
  const guest = (await one(db.select().from(users).where(eq(users.email, DEMO_GUEST_EMAIL))))!;
  const host = (await one(db.select().from(users).where(eq(users.email, DEMO_HOST_EMAIL))))!;
  const activity = (await one(db.select().from(activities).where(and(eq(activities.hostId, host.id), eq(activities.city, "New York"), eq(activities.format, "private")))))!;
  const startsAt = Math.floor((Date.now() + days * 24 * HOUR) / HOUR) * HOUR;
  const row = bookingRow(activity, { guestId: guest.id, startsAt, status: "pending", createdAt: Date.now() });
  const form = new URLSearchParams({ amount: String(row.totalCents), currency: "usd", capture_method: "manual", "metadata[guestId]": guest.id });
  const created = await fetch(`${fake.apiBase}/v1/payment_intents`, { method: "POST", headers: { authorization: `Bearer ${fake.secretKey}`, "content-type": "application/x-www-form-urlencoded" }, body: form });
  const intentId = ((await created.json()) as { id: string }).id;
  fake.confirm(intentId, CARDS.ok);
  const booking = await insert(db).booking({ ...row, paymentProvider: "stripe", paymentIntentId: intentId, respondBy: startsAt });
  await writeTransaction(db, (tx) => tx.insert(ledgerEntries).values({ id: crypto.randomUUID(), bookingId: booking.id, kind: "authorize", amountCents: booking.totalCents, currency: "usd", provider: "stripe", providerRef: intentId, idempotencyKey: `booking:${booking.id}:authorize`, createdAt: Date.now() }));
  return { db, id: booking.id, intentId };
}

const accept = (url: string, who: { cookie: string; csrf: string }, id: string) =>
  fetch(`${url}/api/bookings/${id}/accept`, { method: "POST", headers: { cookie: who.cookie, "x-csrf-token": who.csrf, origin: url, "content-type": "application/json" }, body: "{}" });

const depsFor = (db: Db) =>
  ({ db, now: Date.now, payments: new StripeProvider({ secretKey: fake.secretKey, publishableKey: "pk_test_fake", webhookSecret: undefined, apiBase: fake.apiBase }) }) as unknown as Deps;

test("killed after Stripe captured but before its answer arrived: the restarted server records the capture once", async () => {
  let server = await startServer();
  const { db, id, intentId } = await pendingRequest(5);
  const host = await signIn(server.url, DEMO_HOST_EMAIL);
  fake.loseAnswer("POST", "/v1/payment_intents/:id/capture", 1, { hang: true });
  void accept(server.url, host, id).catch(() => null);
  await until("Stripe to capture", () => fake.intents.get(intentId)?.status === "succeeded");
  server.proc.kill("SIGKILL");
  await server.proc.exited;

  // What the crash left: the guest charged, the booking claimed for the capture, nothing recorded.
  const left = (await one(db.select().from(bookings).where(eq(bookings.id, id))))!;
  expect(left.status).toBe("pending");
  expect(left.claim?.movement).toBe("capture");
  expect((await db.select().from(ledgerEntries).where(eq(ledgerEntries.bookingId, id))).map((l) => l.kind)).toEqual(["authorize"]);

  // The grace passes (moved back rather than waited for), and with it the killed process's lease
  // on the timed work; then the server starts again.
  await writeTransaction(db, async (tx) => {
    await tx.update(bookings).set({ claimedAt: left.claimedAt! - RECOVERY_GRACE_MS - 1000 }).where(eq(bookings.id, id));
    await tx.update(jobs).set({ runAt: Date.now() - 1000 }).where(eq(jobs.key, `booking.recover:${id}:1`));
    await tx.update(leases).set({ until: Date.now() - 1000 });
  });
  server = await startServer();
  await until("the capture to be recorded", async () => (await one(db.select().from(bookings).where(eq(bookings.id, id))))!.status === "accepted", 20_000, 100);
  expect((await db.select().from(ledgerEntries).where(eq(ledgerEntries.bookingId, id))).map((l) => `${l.kind}:${l.providerRef}`).sort()).toEqual([`authorize:${intentId}`, `capture:${intentId}`]);
  // Stripe was asked what happened, never told to capture again.
  expect(fake.requestsTo("POST", "/v1/payment_intents/:id/capture").filter((r) => r.path.includes(intentId)).length).toBe(1);
  expect(await moneyViolations(depsFor(db), [id])).toEqual([]);
  server.proc.kill("SIGTERM");
  await server.proc.exited;
  await closeDb(db);
}, 90_000);

test("stopped with SIGTERM while Stripe is slow to capture: the accept finishes, then the server exits 0", async () => {
  const server = await startServer();
  const { db, id, intentId } = await pendingRequest(6);
  const host = await signIn(server.url, DEMO_HOST_EMAIL);
  fake.setLatency(1500);
  const answer = accept(server.url, host, id);
  await Bun.sleep(300);
  server.proc.kill("SIGTERM");
  expect((await answer).status).toBe(200);
  expect(await server.proc.exited).toBe(0);
  fake.setLatency(0);
  expect(await one(db.select().from(bookings).where(eq(bookings.id, id)))).toMatchObject({ status: "accepted", claim: null });
  expect(await moneyViolations(depsFor(db), [id])).toEqual([]);
  expect(fake.intents.get(intentId)?.status).toBe("succeeded");
  await closeDb(db);
}, 90_000);

/**
 * The demo guest books a New York activity of the demo host through the booking dialog, `days`
 * ahead at 10:00: the time is held, awaiting payment. Answers the booking, its Checkout session
 * and the guest's request headers.
 */
async function dialogBooking(url: string, db: Db, days: number) {
  const guest = await signIn(url, DEMO_GUEST_EMAIL);
  const host = (await one(db.select().from(users).where(eq(users.email, DEMO_HOST_EMAIL))))!;
  const activity = (await one(db.select().from(activities).where(and(eq(activities.hostId, host.id), eq(activities.city, "New York"), eq(activities.format, "private")))))!;
  const hours = [1, 2, 3, 4].find((h) => h * 60 >= activity.minDurationMinutes && (activity.maxDurationMinutes === null || h * 60 <= activity.maxDurationMinutes))!;
  const amount = (priceFor(activity.hourlyRateCents, hours * 60).totalCents / 100).toFixed(2);
  const headers = { cookie: guest.cookie, "x-csrf-token": guest.csrf, origin: url };
  const date = new Date(Date.now() + days * 24 * HOUR).toISOString().slice(0, 10);
  const dialog = await fetch(`${url}/api/create-payment-intent`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ activityId: activity.id, hours, amount, proposedDate: date, proposedTime: "10:00", message: "Hello!" }),
  });
  expect(dialog.status).toBe(200);
  const { bookingId: id, sessionId } = (await dialog.json()) as { bookingId: string; sessionId: string };
  return { id, sessionId, headers, csrf: guest.csrf, amount };
}

test("killed while finishing a payment at checkout, after Stripe held the card: the restarted server makes the request a minute or so on", async () => {
  let server = await startServer();
  const db = await openDatabaseOf(dataDir);
  try {
    await payThenCrashAtCheckout();
  } finally {
    // Stopped whatever happened, so that a failure leaves no server behind.
    if (server.proc.exitCode === null && !server.proc.killed) server.proc.kill("SIGTERM");
    await server.proc.exited;
    await closeDb(db);
  }

  async function payThenCrashAtCheckout() {
    // The booking dialog holds the time; the checkout page gives it the intent Stripe.js confirms.
    const { id, headers, csrf, amount } = await dialogBooking(server.url, db, 40);
    expect((await fetch(`${server.url}/checkout/${id}`, { headers })).status).toBe(200);
    const intentId = (await one(db.select().from(bookings).where(eq(bookings.id, id))))!.paymentIntentId!;
    fake.confirm(intentId, CARDS.ok);
    // The page's post reaches the server, which reads the intent from Stripe; it is killed before the answer arrives.
    const reads = () => fake.requestsTo("GET", "/v1/payment_intents/:id").filter((r) => r.path.includes(intentId)).length;
    const before = reads();
    fake.loseAnswer("GET", "/v1/payment_intents/:id", 1, { hang: true });
    void fetch(`${server.url}/checkout/${id}`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: csrf, amount, paymentIntentId: intentId }),
      redirect: "manual",
    }).catch(() => null);
    await until("the server to ask Stripe", () => reads() > before);
    server.proc.kill("SIGKILL");
    await server.proc.exited;

    // What the crash left: the card held at Stripe, the booking still awaiting payment, the host told nothing.
    const left = (await one(db.select().from(bookings).where(eq(bookings.id, id))))!;
    expect(left.status).toBe("awaiting_payment");
    expect(fake.intents.get(intentId)?.status).toBe("requires_capture");

    // A minute or so passes (moved back rather than waited for), and with it the killed process's
    // lease on the timed work; then the server starts again, and the guest does not come back.
    await writeTransaction(db, async (tx) => {
      await tx.update(bookings).set({ claimedAt: left.claimedAt! - 2 * 60 * 1000 }).where(eq(bookings.id, id));
      await tx.update(jobs).set({ runAt: Date.now() - 1000 }).where(eq(jobs.key, `booking.recover:${id}:1`));
      await tx.update(leases).set({ until: Date.now() - 1000 });
    });
    server = await startServer();
    await until("the request to be made", async () => (await one(db.select().from(bookings).where(eq(bookings.id, id))))!.status === "pending", 20_000, 100);
    expect((await db.select().from(ledgerEntries).where(eq(ledgerEntries.bookingId, id))).map((l) => `${l.kind}:${l.providerRef}`)).toEqual([`authorize:${intentId}`]);
    expect([...fake.intents.values()].filter((pi) => (pi.metadata as Record<string, string>).bookingId === id).map((pi) => pi.status)).toEqual(["requires_capture"]);
    await until("the host's email about the request", async () => (await outboxEmails(dataDir, DEMO_HOST_EMAIL, "booking.pending")).some((m) => m.links.some((l) => l.includes(id))), 20_000, 100);
    expect(await moneyViolations(depsFor(db), [id])).toEqual([]);
  }
}, 90_000);

test("killed while handling Stripe's news of a payment on its hosted Checkout: its next delivery, once the lease has run out, makes the request", async () => {
  let server = await startServer();
  const db = await openDatabaseOf(dataDir);
  try {
    await payThenCrashWhileHandling();
  } finally {
    if (server.proc.exitCode === null && !server.proc.killed) server.proc.kill("SIGTERM");
    await server.proc.exited;
    await closeDb(db);
  }

  async function payThenCrashWhileHandling() {
    // The booking dialog holds the time and sends the guest to Stripe's hosted page, where they pay.
    const { id, sessionId } = await dialogBooking(server.url, db, 45);
    const first = fake.events.length;
    fake.completeCheckout(sessionId, CARDS.ok);
    const completed = fake.events.slice(first).find((e) => e.type === "checkout.session.completed")!;
    const intentId = String(fake.sessions.get(sessionId)!.payment_intent);

    // Stripe delivers the news; the server records it, asks Stripe for the session's intent, and is killed before the answer arrives.
    const reads = () => fake.requestsTo("GET", "/v1/payment_intents/:id").filter((r) => r.path.includes(intentId)).length;
    fake.loseAnswer("GET", "/v1/payment_intents/:id", 1, { hang: true });
    void fake.sendWebhook(`${server.url}/api/webhooks/stripe`, completed).catch(() => null);
    await until("the server to ask Stripe", () => reads() > 0);
    server.proc.kill("SIGKILL");
    await server.proc.exited;

    // What the crash left: the event recorded and never marked handled, the card held, the booking unaware.
    const recorded = (await one(db.select().from(paymentEvents).where(eq(paymentEvents.id, completed.id))))!;
    expect(recorded.handledAt).toBeNull();
    expect((await one(db.select().from(bookings).where(eq(bookings.id, id))))!).toMatchObject({ status: "awaiting_payment", paymentIntentId: null });
    expect(fake.intents.get(intentId)?.status).toBe("requires_capture");

    // The lease runs out (moved back rather than waited for); the server starts again and Stripe delivers the event again.
    await writeTransaction(db, async (tx) => {
      await tx.update(paymentEvents).set({ claimedAt: recorded.claimedAt - WEBHOOK_LEASE_MS - 1000 }).where(eq(paymentEvents.id, completed.id));
      await tx.update(leases).set({ until: Date.now() - 1000 });
    });
    server = await startServer();
    expect((await fake.sendWebhook(`${server.url}/api/webhooks/stripe`, completed)).status).toBe(200);
    expect((await one(db.select().from(bookings).where(eq(bookings.id, id))))!).toMatchObject({ status: "pending", paymentIntentId: intentId });
    expect((await one(db.select().from(paymentEvents).where(eq(paymentEvents.id, completed.id))))!.handledAt).not.toBeNull();
    expect((await db.select().from(ledgerEntries).where(eq(ledgerEntries.bookingId, id))).map((l) => `${l.kind}:${l.providerRef}`)).toEqual([`authorize:${intentId}`]);
    expect([...fake.intents.values()].filter((pi) => (pi.metadata as Record<string, string>).bookingId === id).map((pi) => pi.status)).toEqual(["requires_capture"]);
    await until("the host's email about the request", async () => (await outboxEmails(dataDir, DEMO_HOST_EMAIL, "booking.pending")).some((m) => m.links.some((l) => l.includes(id))), 20_000, 100);
    expect(await moneyViolations(depsFor(db), [id])).toEqual([]);
  }
}, 90_000);
