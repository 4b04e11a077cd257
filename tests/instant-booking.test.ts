import { chronological } from "../src/bookings/order";
import { one, writeTransaction } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, like } from "drizzle-orm";
import { activities, bookings, jobs, messages, testPaymentOperations, users } from "../db/schema";
import { bookingRow, insert } from "../src/demo/factories";
import { instantAcceptJob, instantUnansweredJob, schedule } from "../src/bookings/jobs";
import { jobKeys } from "../src/bookings/keys";
import { RECOVERY_GRACE_MS } from "../src/bookings/claims";
import { INSTANT_UNANSWERED_MS, instantUnansweredAt } from "../src/bookings/instant";
import { ledgerKey } from "../src/bookings/keys";
import { asTestProvider } from "../src/web/payments";
import type { TestProvider } from "../src/payments/test-provider";
import { bookingOfIntent, bookingParties, ledgerLines, makeTestApp, ORIGIN, outboxEmails, settled, TEST_CARD, until, type Client } from "./helpers";
import { moneyViolations } from "./money-invariants";

/**
 * Instant booking (docs/decisions/0037) with the built-in test provider: once the card is held, a
 * request for an activity that books instantly is accepted at once, through the host's own
 * Accept (claim, capture with the claim's key, record, recovery), in every flow that makes a
 * request; the guest is told "Booked"; the host can still cancel it with a full refund.
 */
const HOUR = 60 * 60 * 1000;
/** 2026-06-01 12:00 in New York. */
const START = Date.UTC(2026, 5, 1, 16, 0);
let clock = START;
const now = () => clock;
const body = async (res: Response) => (await res.json()) as Record<string, any>;

let t: Awaited<ReturnType<typeof makeTestApp>>;
let parties: Awaited<ReturnType<typeof bookingParties>>;
let provider: TestProvider;
/** A second activity of the same host that does not book instantly. */
let askFirstId: string;
let day = 2;
const nextDate = () => new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);

beforeAll(async () => {
  t = await makeTestApp({ now });
  parties = await bookingParties(t);
  provider = asTestProvider(t.deps.payments)!;
  await writeTransaction(t.db, (tx) => tx.update(activities).set({ instantBooking: true }).where(eq(activities.id, parties.activityId)));
  const res = await parties.host.postJson("/api/activities", { title: "Squash", description: "An hour of squash.", category: "sports", hourlyRate: "40", duration: "1", maxDuration: "4" });
  expect(res.status).toBe(201);
  askFirstId = (await body(res)).id;
});
afterAll(() => t.cleanup());

const row = async (id: string) => (await one(t.db.select().from(bookings).where(eq(bookings.id, id))))!;
const ledgerOf = (id: string) => ledgerLines(t.db, id);
const systemOf = async (id: string) =>
  (await t.db
    .select()
    .from(messages)
    .where(eq(messages.bookingId, id))
    .orderBy(...chronological))
    .filter((m) => m.isSystemMessage)
    .map((m) => `${m.systemMessageType}:${m.senderId === parties.hostId ? "host" : m.senderId === parties.guestId ? "guest" : m.senderId}`);
const capturesOf = async (intentId: string) => (await t.db.select().from(testPaymentOperations).where(and(eq(testPaymentOperations.kind, "capture"), eq(testPaymentOperations.target, intentId)))).length;
const instantJob = async (id: string) => await one(t.db.select().from(jobs).where(eq(jobs.key, jobKeys.instantAccept(id))));
const expectSound = async (...ids: string[]) => expect(await moneyViolations(t.deps, ids)).toEqual([]);

/** The date-time flow's card step: an intent for a new slot, authorised with the test card; `send` makes the request. */
async function authorised(activityId = parties.activityId, guest: Client = parties.guest) {
  const date = nextDate();
  const intent = await body(await guest.postJson("/api/create-payment-intent", { amount: "88.00", metadata: { activityId, date, time: "10:00", duration: "2" } }));
  const confirmed = await provider.confirmCard({ clientSecret: intent.clientSecret, cardNumber: "4242424242424242", expiry: "12/40", cvc: "123" });
  expect(confirmed.status).toBe("requires_capture");
  const intentId = intent.paymentIntentId as string;
  const send = () => guest.postJson("/api/bookings", { activityId, proposedDatetime: `${date}T10:00:00`, durationHours: 2, priceTotal: "88.00", paymentIntentId: intentId });
  return { intentId, send };
}

/** The date-time flow through the JSON API: an intent, the test card, then `POST /api/bookings`. */
async function requestByApi(activityId = parties.activityId, guest: Client = parties.guest) {
  const { intentId, send } = await authorised(activityId, guest);
  return { res: await send(), intentId };
}

/** The dialog's first step: an awaiting-payment booking holding the slot, and its hosted checkout page. */
async function dialog() {
  const res = await parties.guest.postJson("/api/create-payment-intent", { activityId: parties.activityId, hours: 2, amount: "88.00", proposedDate: nextDate(), proposedTime: "10:00", message: "Hello!" });
  expect(res.status).toBe(200);
  return (await body(res)) as { sessionId: string; url: string; bookingId: string };
}

describe("instant booking, every flow that makes a request", () => {
  test("POST /api/bookings: accepted at once by the host's Accept, answered as accepted; one capture", async () => {
    const { res, intentId } = await requestByApi();
    expect(res.status).toBe(201);
    const view = await body(res);
    expect(view.status).toBe("accepted");
    const id = view.id as string;
    expect(await row(id)).toMatchObject({ status: "accepted", claim: null, canceledBy: null });
    expect((await row(id)).respondedAt).not.toBeNull();
    expect(await ledgerOf(id)).toEqual(["authorize:8800", "capture:8800"]);
    expect(await capturesOf(intentId)).toBe(1);
    expect((await t.deps.payments.getIntent(intentId))?.status).toBe("succeeded");
    // The accept is the host's, as if they had pressed Accept: the request, then the acceptance.
    expect(await systemOf(id)).toEqual(["booking_request:guest", "booking_accepted:host"]);
    // Its job ran and is gone; the request's expiry is cancelled, the auto-completion waits.
    expect(await instantJob(id)).toBeUndefined();
    expect(await one(t.db.select().from(jobs).where(eq(jobs.key, `booking.expire:${id}`)))).toBeUndefined();
    expect(await one(t.db.select().from(jobs).where(eq(jobs.key, `booking.autocomplete:${id}`)))).toBeDefined();
    // The guest's and the host's lists show it accepted.
    const mine = (await body(await parties.guest.get("/api/bookings"))) as unknown as { id: string; status: string }[];
    expect(mine.find((b) => b.id === id)?.status).toBe("accepted");
    // Running the jobs again changes nothing.
    await t.deps.jobs.runDue();
    expect(await capturesOf(intentId)).toBe(1);
    await expectSound(id);
  });

  test("the host is told it was booked instantly, with nothing to answer; the guest that it is confirmed", async () => {
    const { res } = await requestByApi();
    const id = (await body(res)).id as string;
    await settled(t.deps);
    const host = (await one(t.db.select().from(users).where(eq(users.id, parties.hostId))))!;
    const guest = (await one(t.db.select().from(users).where(eq(users.id, parties.guestId))))!;
    expect((await row(id)).status).toBe("accepted");
    // Both requests so far were instant ones: the host heard of each once it was accepted, as
    // booked, and was never asked to answer one.
    await until("the host's emails", async () => (await outboxEmails(t.dataDir, host.email!, "booking.accepted")).length >= 2);
    const hostMails = await outboxEmails(t.dataDir, host.email!, "booking.accepted");
    expect(hostMails.length).toBe(2);
    for (const mail of hostMails) {
      expect(mail.subject).toStartWith("Booked instantly: Tennis");
      expect(mail.text).toContain("there is nothing to accept");
      expect(mail.text).not.toContain("Accept or decline");
    }
    expect(await outboxEmails(t.dataDir, host.email!, "booking.pending")).toEqual([]);
    // The safety net scheduled with the accept is gone with it.
    expect(await one(t.db.select().from(jobs).where(eq(jobs.key, jobKeys.instantUnanswered(id))))).toBeUndefined();
    await until("the guest's email", async () => (await outboxEmails(t.dataDir, guest.email!, "booking.accepted")).length > 0);
    expect((await outboxEmails(t.dataDir, guest.email!, "booking.accepted")).at(-1)!.subject).toContain("You're booked");
  });

  test("an activity that does not book instantly still waits for the host", async () => {
    const { res, intentId } = await requestByApi(askFirstId);
    expect(res.status).toBe(201);
    const view = await body(res);
    expect(view.status).toBe("pending");
    expect(await instantJob(view.id)).toBeUndefined();
    await t.deps.jobs.runDue();
    expect((await row(view.id)).status).toBe("pending");
    expect(await capturesOf(intentId)).toBe(0);
  });

  test("the payment screen: the guest lands on the success screen saying Booked!, in English and French", async () => {
    const date = nextDate();
    expect((await parties.guest.postForm(`/booking/${parties.activityId}/date-time`, { date, time: "10:00", duration: "2" })).status).toBe(303);
    const paid = await parties.guest.postForm(`/booking/${parties.activityId}/payment`, { ...TEST_CARD, amount: "88.00" });
    expect(paid.status).toBe(303);
    const made = (await one(t.db.select().from(bookings).where(and(eq(bookings.guestId, parties.guestId), like(bookings.startsAtLocal, `${date}T10:00%`)))))!;
    expect(paid.headers.get("location")).toBe(`/booking-success?booking=${made.id}`);
    expect(made.status).toBe("accepted");
    // Someone else's booking named in the address says nothing of it: the plain screen.
    expect(await (await parties.stranger.get(`/booking-success?booking=${made.id}`)).text()).not.toContain("Booked!");
    const page = await (await parties.guest.get(paid.headers.get("location")!)).text();
    expect(page).toContain("Booked!");
    expect(page).toContain("Your booking is confirmed");
    expect(page).not.toContain("Request Sent!");
    await expectSound(made.id);

    // A request that waits for its host still reads "Request Sent!".
    const asked = nextDate();
    await parties.guest.postForm(`/booking/${askFirstId}/date-time`, { date: asked, time: "10:00", duration: "2" });
    const askedPaid = (await parties.guest.postForm(`/booking/${askFirstId}/payment`, { ...TEST_CARD, amount: "88.00" })).headers.get("location")!;
    expect(askedPaid).toMatch(/^\/booking-success\?booking=[0-9a-f-]{36}$/);
    const plain = await (await parties.guest.get(askedPaid)).text();
    expect(plain).toContain("Request Sent!");
    expect(plain).not.toContain("Booked!");

    // In French.
    const fr = nextDate();
    await parties.guest.postForm(`/booking/${parties.activityId}/date-time`, { date: fr, time: "10:00", duration: "2" });
    const frPaid = await parties.guest.request(`/booking/${parties.activityId}/payment`, { method: "POST", headers: { "accept-language": "fr" }, form: { _csrf: parties.guest.csrf, ...TEST_CARD, amount: "88.00" } });
    const frPage = await (await parties.guest.get(frPaid.headers.get("location")!, { "accept-language": "fr" })).text();
    expect(frPage).toContain("est réservé !");
    expect(frPage).not.toContain("Demande envoyée !");
  });

  test("the checkout page of a held booking: accepted at once, and the toast says Booked", async () => {
    const { bookingId } = await dialog();
    const paid = await parties.guest.postForm(`/checkout/${bookingId}`, { ...TEST_CARD, amount: "88.00" });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe("/");
    expect((await row(bookingId)).status).toBe("accepted");
    expect(await ledgerOf(bookingId)).toEqual(["authorize:8800", "capture:8800"]);
    const home = await (await parties.guest.get("/")).text();
    expect(home).toContain("Your booking is confirmed and your card has been charged.");
    expect(home).not.toContain("Your request has been sent to the host!");
    await settled(t.deps);
    expect(await capturesOf((await row(bookingId)).paymentIntentId!)).toBe(1);
    await expectSound(bookingId);
  });

  test("the hosted checkout page and its event: accepted at once, one capture", async () => {
    const { url, bookingId } = await dialog();
    const paid = await parties.guest.postForm(url, TEST_CARD);
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`${ORIGIN}/bookings?success=true&booking=${bookingId}`);
    await until("the instant accept", async () => (await row(bookingId)).status === "accepted");
    await settled(t.deps);
    expect(await ledgerOf(bookingId)).toEqual(["authorize:8800", "capture:8800"]);
    expect(await capturesOf((await row(bookingId)).paymentIntentId!)).toBe(1);
    expect(await systemOf(bookingId)).toEqual(["booking_request:guest", "booking_accepted:host"]);
    await expectSound(bookingId);
  });
});

describe("instant booking, when things go wrong", () => {
  test("the host is asked ten minutes on, or a minute before the answer is due when that is sooner", () => {
    expect(instantUnansweredAt({ respondBy: clock + 24 * HOUR }, clock)).toBe(clock + INSTANT_UNANSWERED_MS);
    expect(instantUnansweredAt({ respondBy: clock + 5 * 60_000 }, clock)).toBe(clock + 4 * 60_000);
    expect(instantUnansweredAt({ respondBy: clock + 30_000 }, clock)).toBe(clock);
  });

  test("a request the instant accept could not accept is put to the host ten minutes on, as a request to answer", async () => {
    const host = (await one(t.db.select().from(users).where(eq(users.id, parties.hostId))))!;
    const { intentId } = await authorised();
    // As if the request had been recorded and its accept had given up: pending, with its safety net.
    const activity = (await one(t.db.select().from(activities).where(eq(activities.id, parties.activityId))))!;
    const booking = await insert(t.db).booking(bookingRow(activity, { guestId: parties.guestId, startsAt: clock + 20 * 24 * HOUR, createdAt: clock, durationMinutes: 120, paymentIntentId: intentId }));
    await insert(t.db).ledger([{ id: crypto.randomUUID(), bookingId: booking.id, kind: "authorize", amountCents: booking.totalCents, provider: "test", providerRef: intentId, idempotencyKey: ledgerKey(booking.id, "authorize"), createdAt: clock }]);
    await writeTransaction(t.db, (tx) => schedule(tx, instantUnansweredJob, { bookingId: booking.id }, { at: instantUnansweredAt(booking, clock), key: jobKeys.instantUnanswered(booking.id) }));
    // Its accept, refused so far, waits to try again in an hour.
    await writeTransaction(t.db, (tx) => schedule(tx, instantAcceptJob, { bookingId: booking.id }, { at: clock + HOUR, key: jobKeys.instantAccept(booking.id) }));
    const requestMails = async () => (await outboxEmails(t.dataDir, host.email!, "booking.pending")).filter((m) => m.links.some((l) => l.includes(booking.id)));
    const unansweredJob = async () => await one(t.db.select().from(jobs).where(eq(jobs.key, jobKeys.instantUnanswered(booking.id))));

    await t.deps.jobs.runDue();
    await settled(t.deps);
    expect(await requestMails()).toEqual([]);
    clock += INSTANT_UNANSWERED_MS;
    try {
      // A money movement under way (here a decline being made) is left to finish: not asked yet.
      const claim = { movement: "release", key: "k-release", intentId, from: "pending", to: "rejected", canceledBy: null, message: "booking_declined", senderId: parties.hostId } as const;
      await writeTransaction(t.db, (tx) => tx.update(bookings).set({ claim, claimedAt: clock }).where(eq(bookings.id, booking.id)));
      await t.deps.jobs.runDue();
      await settled(t.deps);
      expect(await requestMails()).toEqual([]);
      expect(await unansweredJob()).toMatchObject({ attempts: 1, failedAt: null });
      // The movement was refused and rolled back: the next look asks the host, and the instant accept stops.
      await writeTransaction(t.db, (tx) => tx.update(bookings).set({ claim: null, claimedAt: null }).where(eq(bookings.id, booking.id)));
      clock += 60_000;
      await t.deps.jobs.runDue();
      await settled(t.deps);
      expect(await unansweredJob()).toBeUndefined();
      expect(await instantJob(booking.id)).toBeUndefined();
      await until("the host's request email", async () => (await requestMails()).length > 0);
      const [mail] = await requestMails();
      expect(mail!.subject).not.toContain("Booked instantly");
      expect(mail!.text).toContain("Accept or decline");
      // The host answers it like any request, and the money follows.
      expect((await parties.host.postJson(`/api/bookings/${booking.id}/reject`, {})).status).toBe(200);
      expect(await ledgerOf(booking.id)).toEqual(["authorize:8800", "release:8800"]);
      await expectSound(booking.id);
    } finally {
      clock = START;
    }
  });

  test("the job finds the request declined by the host meanwhile: it does nothing, the card released once", async () => {
    const { res, intentId } = await requestByApi(askFirstId);
    const id = (await body(res)).id as string;
    expect((await parties.host.postJson(`/api/bookings/${id}/reject`, {})).status).toBe(200);
    // As if the request had been an instant one whose accept had not run yet.
    await writeTransaction(t.db, (tx) => schedule(tx, instantAcceptJob, { bookingId: id }, { at: clock, key: jobKeys.instantAccept(id) }));
    expect(await t.deps.jobs.runNow([jobKeys.instantAccept(id)])).toBe(1);
    expect(await instantJob(id)).toBeUndefined();
    expect((await row(id)).status).toBe("rejected");
    expect(await ledgerOf(id)).toEqual(["authorize:8800", "release:8800"]);
    expect(await capturesOf(intentId)).toBe(0);
    await expectSound(id);
  });

  test("a host Decline racing the instant accept: exactly one wins, and the money follows it", async () => {
    provider.faults.latencyMs = 25;
    try {
      const outcomes: string[] = [];
      for (let i = 0; i < 4; i++) {
        const { intentId, send } = await authorised();
        const making = send();
        const id = await bookingOfIntent(t.db, intentId);
        const decline = await parties.host.postJson(`/api/bookings/${id}/reject`, {});
        const made = { res: await making, intentId };
        expect(made.res.status).toBe(201);
        await settled(t.deps);
        const b = await row(id);
        outcomes.push(b.status);
        expect(["accepted", "rejected"]).toContain(b.status);
        expect(b.claim).toBeNull();
        if (b.status === "accepted") {
          expect(decline.status).toBe(409);
          expect(await ledgerOf(id)).toEqual(["authorize:8800", "capture:8800"]);
          expect(await capturesOf(made.intentId)).toBe(1);
        } else {
          expect(decline.status).toBe(200);
          expect(await ledgerOf(id)).toEqual(["authorize:8800", "release:8800"]);
          expect(await capturesOf(made.intentId)).toBe(0);
          expect((await t.deps.payments.getIntent(made.intentId))?.status).toBe("canceled");
        }
        // The job, run again later, changes nothing.
        await t.deps.jobs.runDue();
        expect((await row(id)).status).toBe(b.status);
        await expectSound(id);
      }
      expect(outcomes.length).toBe(4);
    } finally {
      provider.faults.latencyMs = 0;
    }
  });

  test("the capture is made but its answer lost: the guest hears the request is sent, the recovery accepts it with one capture", async () => {
    provider.faults.loseAnswer.add("capture");
    const { res, intentId } = await requestByApi();
    expect(res.status).toBe(201);
    const view = await body(res);
    const id = view.id as string;
    // The claim is under way: still pending to the guest, no error.
    expect(view.status).toBe("pending");
    expect((await row(id)).claim?.movement).toBe("capture");
    expect(await capturesOf(intentId)).toBe(1);
    // The instant job hands the capture over to its claim's recovery, which finishes it from what the provider shows.
    expect(await instantJob(id)).toBeUndefined();
    clock += RECOVERY_GRACE_MS + 60_000;
    try {
      await t.deps.jobs.runDue();
      await settled(t.deps);
      expect(await row(id)).toMatchObject({ status: "accepted", claim: null });
      expect(await ledgerOf(id)).toEqual(["authorize:8800", "capture:8800"]);
      expect(await capturesOf(intentId)).toBe(1);
      expect(await instantJob(id)).toBeUndefined();
      expect(await systemOf(id)).toEqual(["booking_request:guest", "booking_accepted:host"]);
      // The accept the recovery finished is still the instant one: the host is told it was booked.
      const host = (await one(t.db.select().from(users).where(eq(users.id, parties.hostId))))!;
      await until("the host's email", async () => (await outboxEmails(t.dataDir, host.email!, "booking.accepted")).some((m) => m.links.some((l) => l.includes(id))));
      expect((await outboxEmails(t.dataDir, host.email!, "booking.accepted")).find((m) => m.links.some((l) => l.includes(id)))!.subject).toStartWith("Booked instantly");
      await expectSound(id);
    } finally {
      clock = START;
    }
  });

  test("the same request sent several times at once: one booking, one capture", async () => {
    provider.faults.latencyMs = 10;
    try {
      const date = nextDate();
      const intent = await body(await parties.guest.postJson("/api/create-payment-intent", { amount: "88.00", metadata: { activityId: parties.activityId, date, time: "10:00", duration: "2" } }));
      await provider.confirmCard({ clientSecret: intent.clientSecret, cardNumber: "4242424242424242", expiry: "12/40", cvc: "123" });
      const send = { activityId: parties.activityId, proposedDatetime: `${date}T10:00:00`, durationHours: 2, priceTotal: "88.00", paymentIntentId: intent.paymentIntentId };
      const answers = await Promise.all(Array.from({ length: 8 }, () => parties.guest.postJson("/api/bookings", send)));
      expect(answers.filter((r) => r.status === 201).length).toBe(1);
      expect(answers.every((r) => r.status === 201 || r.status === 200)).toBe(true);
      await settled(t.deps);
      const made = await t.db.select().from(bookings).where(eq(bookings.paymentIntentId, intent.paymentIntentId));
      expect(made.map((b) => b.status)).toEqual(["accepted"]);
      expect(await capturesOf(intent.paymentIntentId)).toBe(1);
      await expectSound(made[0]!.id);
    } finally {
      provider.faults.latencyMs = 0;
    }
  });
});

describe("the host cancels an accepted instant booking", () => {
  test("the guest is refunded in full, once", async () => {
    const { res, intentId } = await requestByApi();
    const id = (await body(res)).id as string;
    expect((await row(id)).status).toBe("accepted");
    const answers = await Promise.all([1, 2, 3].map(() => parties.host.postJson(`/api/bookings/${id}/cancel`, {})));
    expect(answers.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    for (const r of answers) expect([200, 409]).toContain(r.status);
    expect(await row(id)).toMatchObject({ status: "canceled", canceledBy: "host", claim: null });
    expect(await ledgerOf(id)).toEqual(["authorize:8800", "capture:8800", "refund:8800"]);
    const refunds = await t.deps.payments.refundsOf(intentId);
    expect(refunds.reduce((s, r) => s + r.amountCents, 0)).toBe(8800);
    await expectSound(id);
  });

  test("every booking of this suite agrees with the provider", async () => {
    await settled(t.deps);
    expect(await moneyViolations(t.deps)).toEqual([]);
  });
});
