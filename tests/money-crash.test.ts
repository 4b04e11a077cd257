import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { closeDb, one, writeTransaction, type Db } from "../db/client";
import { DEMO_GUEST_EMAIL, DEMO_HOST_EMAIL, DEMO_PASSWORD } from "../db/demo-data";
import { bookingRow, insert } from "../db/factories";
import { activities, bookings, jobs, leases, ledgerEntries, users } from "../db/schema";
import type { Deps } from "../src/deps";
import { StripeProvider } from "../src/payments/stripe";
import { CARDS, startFakeStripe } from "./fakes/stripe";
import { openDatabaseOf, until } from "./helpers";
import { startServerProcess } from "./server-process";
import { RECOVERY_GRACE_MS } from "../src/bookings/transitions";
import { moneyViolations } from "./money-invariants";

/**
 * The real server process with Stripe (the fake, over HTTP) killed or stopped while a capture is
 * under way (docs/decisions/0028): killed after Stripe captured but before the answer arrived, the
 * restarted server records the capture once; stopped with SIGTERM, it lets the accept finish first.
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
  const activity = (await one(db.select().from(activities).where(and(eq(activities.hostId, host.id), eq(activities.city, "New York")))))!;
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
