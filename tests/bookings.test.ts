import { one, writeTransaction } from "../db/client";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { bookings, jobs, testPaymentIntents, users } from "../db/schema";
import { insert, userRow } from "../src/demo/factories";
import { TestProvider } from "../src/payments/test-provider";
import { bookingParties, Client, ledgerLines, makeTestApp, ORIGIN, systemMessageTypes, TEST_CARD } from "./helpers";
import { scenario, scenarios, type Scenario } from "./scenario";

/**
 * Bookings end to end through the API (docs/decisions/0010, 0017): prices, times, every
 * transition for guest, host and stranger, concurrency, jobs across a restart, the test provider.
 */
const HOUR = 60 * 60 * 1000;
// 2026-06-01 12:00 in New York (16:00 UTC): the clock every test starts from.
const START = Date.UTC(2026, 5, 1, 16, 0);
let clock = START;
const now = () => clock;

let t: Awaited<ReturnType<typeof makeTestApp>>;
let host: Client;
let guest: Client;
let stranger: Client;
let hostId: string;
let guestId: string;
let activityId: string;

const body = async (res: Response) => (await res.json()) as Record<string, any>;

beforeAll(async () => {
  t = await makeTestApp({ now });
  // $40 an hour, 1 to 4 hours, in New York.
  ({ host, guest, stranger, hostId, guestId, activityId } = await bookingParties(t));
});
afterAll(() => t.cleanup());

let day = 2;
/** A fresh slot each time: a later day at 10:00, New York wall clock. */
function nextSlot(hours = 2) {
  const date = new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);
  return { date, time: "10:00", hours, total: (40 * hours * 1.1).toFixed(2) };
}

let earlyDay = 2;
/**
 * A slot at 16:00 on one of the first days (the others are at 10:00), for a test that moves the
 * clock to its booking or past it: however many bookings the tests before it made, in whatever
 * order they ran, that clock stays within the 30 days of the sessions made at START.
 */
function earlySlot() {
  const date = new Date(START + earlyDay++ * 24 * HOUR).toISOString().slice(0, 10);
  return { date, time: "16:00", hours: 2, total: (40 * 2 * 1.1).toFixed(2) };
}

/** The date-time flow through the API: intent, card, booking. */
async function book(c: Client, slot = nextSlot(), card = TEST_CARD) {
  const intentRes = await c.postJson("/api/create-payment-intent", { amount: slot.total, metadata: { activityId, date: slot.date, time: slot.time, duration: String(slot.hours) } });
  expect(intentRes.status).toBe(200);
  const intent = await body(intentRes);
  const confirm = await body(await c.postJson("/api/payments/test/confirm", { clientSecret: intent.clientSecret, ...card }));
  const res = await c.postJson("/api/bookings", { activityId, proposedDatetime: `${slot.date}T${slot.time}:00`, durationHours: slot.hours, priceTotal: slot.total, paymentIntentId: intent.paymentIntentId });
  return { res, intent, confirm, slot };
}

async function pendingBooking(c = guest, slot = nextSlot()) {
  const { res } = await book(c, slot);
  expect(res.status).toBe(201);
  return (await body(res)).id as string;
}

const ledgerOf = (id: string) => ledgerLines(t.db, id);
const systemOf = (id: string) => systemMessageTypes(t.db, id);
const statusOf = async (id: string) => (await one(t.db.select().from(bookings).where(eq(bookings.id, id))))!.status;

/**
 * Runs `work` with the host's payout account set up and enabled (pending shares are sent as it
 * is), and unlinks it after, so the tests that expect shares to stay pending see none, in any order.
 */
async function withHostPayouts<T>(work: () => Promise<T>): Promise<T> {
  const provider = t.deps.payments as TestProvider;
  const account = await provider.createConnectedAccount({ userId: hostId, email: null }, `host:${hostId}:account`);
  await writeTransaction(t.db, (tx) => tx.update(users).set({ stripeAccountId: account.id }).where(eq(users.id, hostId)));
  try {
    await provider.enableAccount(account.id); // account.updated: pending payouts are sent
    return await work();
  } finally {
    await writeTransaction(t.db, (tx) => tx.update(users).set({ stripeAccountId: null }).where(eq(users.id, hostId)));
  }
}
const intentStatus = async (id: string) => (await one(t.db.select().from(testPaymentIntents).where(eq(testPaymentIntents.id, id))))!.status;

describe("booking through the date-time flow", () => {
  test("a guest pays and the request is pending, with the server's prices, a ledger row and the system message", async () => {
    const { res, intent, confirm, slot } = await book(guest);
    expect(confirm).toEqual({ status: "requires_capture", paymentIntentId: intent.paymentIntentId });
    expect(res.status).toBe(201);
    const b = await body(res);
    expect(b).toMatchObject({ status: "pending", role: "guest", proposedDatetime: `${slot.date}T10:00:00`, timeZone: "America/New_York", durationHours: 2, subtotal: "80.00", serviceFee: "8.00", priceTotal: "88.00", hostEarnings: "64.00" });
    expect(JSON.stringify(b)).not.toContain("paymentIntent");
    expect(await ledgerOf(b.id)).toEqual(["authorize:8800"]);
    expect(await systemOf(b.id)).toEqual(["booking_request"]);
    const row = (await one(t.db.select().from(bookings).where(eq(bookings.id, b.id))))!;
    // 10:00 in New York in June is 14:00 UTC.
    expect(row.startsAt).toBe(Date.parse(`${slot.date}T14:00:00Z`));
    expect(row.endsAt - row.startsAt).toBe(2 * HOUR);
    expect(row.respondBy).toBe(START + 24 * HOUR);
    // Sending the same booking again finds the first one.
    const again = await guest.postJson("/api/bookings", { activityId, proposedDatetime: `${slot.date}T10:00:00`, durationHours: 2, priceTotal: "88.00", paymentIntentId: intent.paymentIntentId });
    expect(again.status).toBe(200);
    expect((await body(again)).id).toBe(b.id);
    // The host sees it among their requests, with the guest as a participant only.
    const requests = (await body(await host.get("/api/host/requests"))) as unknown as { id: string }[];
    expect(requests.some((r) => r.id === b.id)).toBe(true);
    const details = await body(await host.get(`/api/bookings/${b.id}/details`));
    expect(Object.keys(details).sort()).toEqual(["activity", "guest", "guestId", "id", "status"]);
  });

  test("a price that differs from the server's by more than half a cent is 409 with the current price, and nothing is charged", async () => {
    const slot = nextSlot();
    const res = await guest.postJson("/api/create-payment-intent", { amount: "80.00", metadata: { activityId, date: slot.date, time: slot.time, duration: "2" } });
    expect(res.status).toBe(409);
    expect(await body(res)).toMatchObject({ priceTotal: "88.00" });
    const ok = await guest.postJson("/api/create-payment-intent", { amount: "88.004", metadata: { activityId, date: slot.date, time: slot.time, duration: "2" } });
    expect(ok.status).toBe(200);
    // A booking sent with another total is refused, and its authorisation released.
    const intent = await body(ok);
    await guest.postJson("/api/payments/test/confirm", { clientSecret: intent.clientSecret, ...TEST_CARD });
    const before = (await t.db.select().from(bookings)).length;
    const wrong = await guest.postJson("/api/bookings", { activityId, proposedDatetime: `${slot.date}T10:00:00`, durationHours: 2, priceTotal: "1.00", paymentIntentId: intent.paymentIntentId });
    expect(wrong.status).toBe(409);
    expect((await t.db.select().from(bookings)).length).toBe(before);
    expect(await intentStatus(intent.paymentIntentId)).toBe("canceled");
  });

  const bad: [string, Record<string, unknown>, number, string][] = [
    ["no metadata fields", { amount: "88", metadata: {} }, 400, "Some booking details are missing"],
    ["a date in the past", { amount: "88.00", metadata: { activityId: "A", date: "2026-05-01", time: "10:00", duration: "2" } }, 400, "already passed"],
    ["a date over 90 days ahead", { amount: "88.00", metadata: { activityId: "A", date: "2026-12-01", time: "10:00", duration: "2" } }, 400, "90 days"],
    ["a start before 08:00", { amount: "88.00", metadata: { activityId: "A", date: "2026-06-10", time: "07:00", duration: "2" } }, 400, "start time"],
    ["a start not on the hour", { amount: "88.00", metadata: { activityId: "A", date: "2026-06-10", time: "10:30", duration: "2" } }, 400, "start time"],
    ["a duration outside the host's range", { amount: "22.00", metadata: { activityId: "A", date: "2026-06-10", time: "10:00", duration: "0.5" } }, 400, "does not offer"],
    ["a duration not in half hours", { amount: "88.00", metadata: { activityId: "A", date: "2026-06-10", time: "10:00", duration: "1.25" } }, 400, "offered durations"],
    ["a date that does not exist", { amount: "88.00", metadata: { activityId: "A", date: "2026-02-30", time: "10:00", duration: "2" } }, 400, "real date"],
    ["an amount that is not a number", { amount: "lots", metadata: { activityId: "A", date: "2026-06-10", time: "10:00", duration: "2" } }, 400, "must be a number"],
    ["an unknown activity", { amount: "88.00", metadata: { activityId: "00000000-0000-4000-8000-000000000000", date: "2026-06-10", time: "10:00", duration: "2" } }, 404, "Activity not found"],
    ["nothing at all", {}, 400, "Some booking details"],
  ];
  scenarios(
    () => t,
    bad.map(([name, input, status, message]): Scenario => ({
      name: `create-payment-intent with ${name}: ${status}, a clear message, nothing written`,
      as: () => guest,
      method: "POST",
      url: "/api/create-payment-intent",
      body: () => JSON.parse(JSON.stringify(input).replace('"A"', JSON.stringify(activityId))),
      status,
      json: { message: expect.stringContaining(message) },
      unchanged: async () => [(await t.db.select().from(bookings)).length, (await t.db.select().from(testPaymentIntents)).length],
    })),
  );

  test("bad booking calls are 4xx with a message and write nothing", async () => {
    const before = (await t.db.select().from(bookings)).length;
    for (const input of [{}, { activityId, proposedDatetime: "tomorrow", durationHours: 2, priceTotal: "88.00", paymentIntentId: "tpi_x" }, { activityId, proposedDatetime: "2026-06-20T10:00:00", durationHours: 2, priceTotal: "88.00", paymentIntentId: "tpi_nope" }, { activityId, proposedDatetime: "2026-06-20T10:00:00", durationHours: "two", priceTotal: "88.00", paymentIntentId: "tpi_x" }]) {
      await scenario(t, { as: guest, method: "POST", url: "/api/bookings", body: input, status: (s) => s >= 400 && s < 500, json: { message: expect.any(String) } });
    }
    expect((await t.db.select().from(bookings)).length).toBe(before);
  });

  test("a host cannot book their own activity", async () => {
    const slot = nextSlot();
    const res = await host.postJson("/api/create-payment-intent", { amount: slot.total, metadata: { activityId, date: slot.date, time: slot.time, duration: "2" } });
    expect(res.status).toBe(400);
    expect((await body(res)).message).toBe("You cannot book your own activity.");
  });

  test("an authorisation nobody books with is released by the reconciliation job 30 minutes on", async () => {
    const slot = nextSlot();
    const intent = await body(await guest.postJson("/api/create-payment-intent", { amount: slot.total, metadata: { activityId, date: slot.date, time: slot.time, duration: "2" } }));
    await guest.postJson("/api/payments/test/confirm", { clientSecret: intent.clientSecret, ...TEST_CARD });
    expect(await intentStatus(intent.paymentIntentId)).toBe("requires_capture");
    // Not before: 29 minutes on, the guest can still book with it.
    clock += 29 * 60 * 1000;
    await t.deps.jobs.runDue();
    expect(await intentStatus(intent.paymentIntentId)).toBe("requires_capture");
    clock += 2 * 60 * 1000;
    await t.deps.jobs.runDue();
    expect(await intentStatus(intent.paymentIntentId)).toBe("canceled");
    clock = START;
  });
});

describe("no double booking", () => {
  test("50 guests asking for the same slot at once: exactly one booking, the others refused and released", async () => {
    const slot = nextSlot();
    // Made with the factories: this is about the slot, not about signing up.
    const guests = await Promise.all(Array.from({ length: 50 }, async () => {
      const c = t.client();
      await c.signInAs((await insert(t.db).user(userRow())).id);
      return c;
    }));
    // Every guest authorises a card for the same slot first (nothing holds it yet).
    const intents = await Promise.all(guests.map(async (c) => {
      const intent = await body(await c.postJson("/api/create-payment-intent", { amount: slot.total, metadata: { activityId, date: slot.date, time: slot.time, duration: "2" } }));
      await c.postJson("/api/payments/test/confirm", { clientSecret: intent.clientSecret, ...TEST_CARD });
      return intent.paymentIntentId as string;
    }));
    const answers = await Promise.all(guests.map((c, i) => c.postJson("/api/bookings", { activityId, proposedDatetime: `${slot.date}T10:00:00`, durationHours: 2, priceTotal: slot.total, paymentIntentId: intents[i] })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201).length).toBe(1);
    expect(statuses.filter((s) => s === 409).length).toBe(49);
    const won = intents[statuses.indexOf(201)]!;
    for (const id of intents) expect(await intentStatus(id)).toBe(id === won ? "requires_capture" : "canceled");
    const loser = await body(answers[statuses.indexOf(409)]!);
    expect(loser.message).toContain("not charged");
    // An overlapping slot (starting an hour later) is refused too.
    const overlap = await guest.postJson("/api/create-payment-intent", { amount: slot.total, metadata: { activityId, date: slot.date, time: "11:00", duration: "2" } });
    expect(overlap.status).toBe(409);
  }, 60_000);

  test("a guest cannot be at two activities at once: another host's overlapping slot is refused, before and after the card is held", async () => {
    const otherHost = t.client();
    await otherHost.signUpComplete();
    const other = await body(await otherHost.postJson("/api/activities", { title: "Chess", description: "A game of chess.", category: "learning", hourlyRate: "40", duration: "1", maxDuration: "4" }));
    const c = t.client();
    await c.signUpComplete();
    const slot = nextSlot();
    // Both cards held first, then the two requests: the second finds the first.
    const intents = [];
    for (const id of [activityId, other.id]) {
      const intent = await body(await c.postJson("/api/create-payment-intent", { amount: slot.total, metadata: { activityId: id, date: slot.date, time: "10:00", duration: "2" } }));
      await c.postJson("/api/payments/test/confirm", { clientSecret: intent.clientSecret, ...TEST_CARD });
      intents.push(intent.paymentIntentId as string);
    }
    const first = await c.postJson("/api/bookings", { activityId, proposedDatetime: `${slot.date}T10:00:00`, durationHours: 2, priceTotal: slot.total, paymentIntentId: intents[0] });
    expect(first.status).toBe(201);
    const second = await c.postJson("/api/bookings", { activityId: other.id, proposedDatetime: `${slot.date}T10:00:00`, durationHours: 2, priceTotal: slot.total, paymentIntentId: intents[1] });
    expect(second.status).toBe(409);
    expect((await body(second)).message).toBe("You already have a booking at this time. Your card was not charged: the hold on it has been released.");
    expect(await intentStatus(intents[1]!)).toBe("canceled");
    // Asked again, an overlapping slot is refused before any card is held.
    const again = await c.postJson("/api/create-payment-intent", { amount: slot.total, metadata: { activityId: other.id, date: slot.date, time: "11:00", duration: "2" } });
    expect(again.status).toBe(409);
    expect((await body(again)).message).toBe("You already have a booking at this time. Please choose another.");
    // The booking dialog says so too.
    const dialog = await c.request(`/activity/${other.id}/request`, { method: "POST", headers: { "accept-language": "fr" }, form: { _csrf: c.csrf, message: "Bonjour", proposedDate: slot.date, proposedTime: "11:00", hours: "2" } });
    expect(await dialog.clone().text()).toContain("Vous avez déjà une réservation à cet horaire.");
    expect(dialog.status).toBe(409);
    // Right after, the guest is free again.
    const later = await c.postJson("/api/create-payment-intent", { amount: slot.total, metadata: { activityId: other.id, date: slot.date, time: "12:00", duration: "2" } });
    expect(later.status).toBe(200);
  }, 60_000);

  test("a held 10:00–12:00 refuses every slot overlapping it, before and after the card is held; the slots either side stay open", async () => {
    const slot = nextSlot(2);
    const second = t.client();
    const secondId = (await insert(t.db).user(userRow())).id;
    await second.signInAs(secondId);
    const ask = (time: string, hours: number) =>
      second.postJson("/api/create-payment-intent", { amount: (40 * hours * 1.1).toFixed(2), metadata: { activityId, date: slot.date, time, duration: String(hours) } });
    // [shape of the held 10:00–12:00 against the new slot, start, hours]
    const overlapping: [string, string, number][] = [
      ["starts inside it (09:00–11:00)", "09:00", 2],
      ["ends inside it (11:00–13:00)", "11:00", 2],
      ["lies inside it (09:00–13:00)", "09:00", 4],
      ["contains it, sharing its start (10:00–11:00)", "10:00", 1],
      ["contains it, sharing its end (11:00–12:00)", "11:00", 1],
      ["is exactly it (10:00–12:00)", "10:00", 2],
    ];
    // The second guest holds a card for each shape while the time is still free…
    const intents: string[] = [];
    for (const [, time, hours] of overlapping) {
      const res = await ask(time, hours);
      expect(res.status).toBe(200);
      const intent = await body(res);
      await second.postJson("/api/payments/test/confirm", { clientSecret: intent.clientSecret, ...TEST_CARD });
      intents.push(intent.paymentIntentId as string);
    }
    // …then the first guest's request for 10:00–12:00 is made.
    const held = await pendingBooking(guest, slot);
    for (const [i, [shape, time, hours]] of overlapping.entries()) {
      const late = await second.postJson("/api/bookings", { activityId, proposedDatetime: `${slot.date}T${time}:00`, durationHours: hours, priceTotal: (40 * hours * 1.1).toFixed(2), paymentIntentId: intents[i] });
      expect([shape, late.status]).toEqual([shape, 409]);
      expect([shape, (await body(late)).message]).toEqual([shape, "This time was just booked by someone else. Your card was not charged: the hold on it has been released."]);
      expect([shape, await intentStatus(intents[i]!)]).toEqual([shape, "canceled"]);
      // Asked again, it is refused before any card is held.
      const again = await ask(time, hours);
      expect([shape, again.status]).toEqual([shape, 409]);
      expect([shape, (await body(again)).message]).toEqual([shape, "This time is no longer available. Please choose another."]);
    }
    // Touching it is not overlapping it: 08:00–10:00 and 12:00–14:00 are booked.
    for (const time of ["08:00", "12:00"]) {
      const { res } = await book(second, { ...slot, time });
      expect([time, res.status]).toEqual([time, 201]);
    }
    const seconds = await t.db.select().from(bookings).where(eq(bookings.guestId, secondId));
    expect(seconds.map((b) => [b.startsAtLocal, b.status]).sort()).toEqual([[`${slot.date}T08:00:00`, "pending"], [`${slot.date}T12:00:00`, "pending"]]);
    expect(await statusOf(held)).toBe("pending");
  }, 60_000);
});

type Who = "guest" | "host" | "stranger";
const clientOf = (who: Who) => ({ guest, host, stranger })[who];

describe("the state machine, for guest, host and stranger", () => {
  // [from, action, who, status, resulting state, ledger after, system messages after]
  const table: [string, "accept" | "reject" | "complete" | "cancel", Who, number, string, string[], string[]][] = [
    ["pending", "accept", "stranger", 404, "pending", ["authorize:8800"], ["booking_request"]],
    ["pending", "accept", "guest", 403, "pending", ["authorize:8800"], ["booking_request"]],
    ["pending", "accept", "host", 200, "accepted", ["authorize:8800", "capture:8800"], ["booking_request", "booking_accepted"]],
    ["pending", "reject", "stranger", 404, "pending", ["authorize:8800"], ["booking_request"]],
    ["pending", "reject", "guest", 403, "pending", ["authorize:8800"], ["booking_request"]],
    ["pending", "reject", "host", 200, "rejected", ["authorize:8800", "release:8800"], ["booking_request", "booking_declined"]],
    ["pending", "cancel", "stranger", 404, "pending", ["authorize:8800"], ["booking_request"]],
    ["pending", "cancel", "host", 409, "pending", ["authorize:8800"], ["booking_request"]],
    ["pending", "cancel", "guest", 200, "canceled", ["authorize:8800", "release:8800"], ["booking_request", "booking_canceled"]],
    ["pending", "complete", "host", 409, "pending", ["authorize:8800"], ["booking_request"]],
    ["accepted", "complete", "stranger", 404, "accepted", ["authorize:8800", "capture:8800"], ["booking_request", "booking_accepted"]],
    ["accepted", "complete", "guest", 403, "accepted", ["authorize:8800", "capture:8800"], ["booking_request", "booking_accepted"]],
    ["accepted", "complete", "host", 409, "accepted", ["authorize:8800", "capture:8800"], ["booking_request", "booking_accepted"]], // before the start
    ["accepted", "reject", "host", 409, "accepted", ["authorize:8800", "capture:8800"], ["booking_request", "booking_accepted"]],
    ["accepted", "cancel", "stranger", 404, "accepted", ["authorize:8800", "capture:8800"], ["booking_request", "booking_accepted"]],
    ["accepted", "cancel", "guest", 200, "canceled", ["authorize:8800", "capture:8800", "refund:8800"], ["booking_request", "booking_accepted", "booking_canceled"]],
    ["accepted", "cancel", "host", 200, "canceled", ["authorize:8800", "capture:8800", "refund:8800"], ["booking_request", "booking_accepted", "booking_canceled"]],
    ["started", "complete", "host", 200, "completed", ["authorize:8800", "capture:8800", "payout_pending:6400", "platform_fee:2400"], ["booking_request", "booking_accepted", "booking_completed"]],
    ["started", "cancel", "guest", 409, "accepted", ["authorize:8800", "capture:8800"], ["booking_request", "booking_accepted"]],
    ["started", "cancel", "host", 409, "accepted", ["authorize:8800", "capture:8800"], ["booking_request", "booking_accepted"]],
    ["rejected", "accept", "host", 409, "rejected", ["authorize:8800", "release:8800"], ["booking_request", "booking_declined"]],
    ["completed", "cancel", "host", 409, "completed", ["authorize:8800", "capture:8800", "payout_pending:6400", "platform_fee:2400"], ["booking_request", "booking_accepted", "booking_completed"]],
    ["completed", "complete", "stranger", 404, "completed", ["authorize:8800", "capture:8800", "payout_pending:6400", "platform_fee:2400"], ["booking_request", "booking_accepted", "booking_completed"]],
  ];

  async function reach(state: string) {
    clock = START;
    // A booking the clock is moved to gets an early slot.
    const id = await pendingBooking(guest, state === "started" || state === "completed" ? earlySlot() : nextSlot());
    if (state === "pending") return id;
    if (state === "rejected") {
      expect((await host.postJson(`/api/bookings/${id}/reject`, {})).status).toBe(200);
      return id;
    }
    expect((await host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(200);
    if (state === "accepted") return id;
    const row = (await one(t.db.select().from(bookings).where(eq(bookings.id, id))))!;
    clock = row.startsAt + 30 * 60 * 1000;
    if (state === "started") return id;
    expect((await host.postJson(`/api/bookings/${id}/complete`, {})).status).toBe(200);
    return id;
  }

  scenarios(
    () => t,
    table.map(([from, action, who, status, to, ledger, system]): Scenario => {
      let id = "";
      return {
        name: `${from} → ${action} by the ${who}: ${status}, ${to}`,
        before: async () => void (id = await reach(from)),
        as: () => clientOf(who),
        method: "POST",
        url: () => `/api/bookings/${id}/${action}`,
        status,
        // A refusal says why.
        json: status === 200 ? {} : { message: expect.any(String) },
        after: async () => {
          expect(await statusOf(id)).toBe(to as never);
          expect(await ledgerOf(id)).toEqual(ledger);
          expect(await systemOf(id)).toEqual(system);
          clock = START;
        },
      };
    }),
  );

  test("strangers get 404 on reading a booking too; both sides read it", async () => {
    const id = await pendingBooking();
    for (const path of [`/api/bookings/${id}/details`]) {
      expect((await stranger.get(path)).status).toBe(404);
      expect((await guest.get(path)).status).toBe(200);
      expect((await host.get(path)).status).toBe(200);
    }
    const list = (await body(await stranger.get("/api/bookings"))) as unknown as unknown[];
    expect(list).toEqual([]);
  });

  test("a completed booking's share goes to the host once they have an enabled payout account", async () => {
    const id = await reach("completed");
    clock = START;
    const earnings = await body(await host.get("/api/host/earnings"));
    expect(Number(earnings.pendingPayouts)).toBeGreaterThanOrEqual(64);
    await withHostPayouts(async () => {
      expect(await ledgerOf(id)).toContain("transfer:6400");
      const after = await body(await host.get("/api/host/earnings"));
      expect(after.pendingPayouts).toBe("0.00");
      expect(Number(after.totalEarnings)).toBe(Number(earnings.totalEarnings));
    });
  });
});

describe("timed transitions survive a restart", () => {
  test("an unanswered request expires 24 hours on; an accepted one completes 48 hours after its end", async () => {
    clock = START;
    const dataDir = t.dataDir;
    // Early slots: past them the hourly chore runs too, and it would remove the sessions of the
    // tests that follow had the clock gone past their 30 days.
    const expiring = await pendingBooking(guest, earlySlot());
    const accepted = await pendingBooking(guest, earlySlot());
    expect((await host.postJson(`/api/bookings/${accepted}/accept`, {})).status).toBe(200);
    const jobsBefore = (await t.db.select().from(jobs)).map((j) => j.key);
    expect(jobsBefore).toContain(`booking.expire:${expiring}`);
    expect(jobsBefore).toContain(`booking.autocomplete:${accepted}`);

    // A new process on the same data directory.
    const restarted = await makeTestApp({ dataDir, now });
    clock = START + 24 * HOUR + 1000;
    await restarted.deps.jobs.runDue();
    expect(await statusOf(expiring)).toBe("expired");
    expect(await ledgerOf(expiring)).toEqual(["authorize:8800", "release:8800"]);
    expect(await systemOf(expiring)).toEqual(["booking_request", "booking_expired"]);
    expect(await statusOf(accepted)).toBe("accepted");

    const row = (await one(t.db.select().from(bookings).where(eq(bookings.id, accepted))))!;
    // Not before: a minute short of 48 hours after the end, nothing is paid out yet.
    clock = row.endsAt + 48 * HOUR - 60_000;
    await restarted.deps.jobs.runDue();
    expect(await statusOf(accepted)).toBe("accepted");
    expect(await ledgerOf(accepted)).toEqual(["authorize:8800", "capture:8800"]);
    clock = row.endsAt + 48 * HOUR + 1000;
    // The host has an enabled payout account: completing sends their share too.
    await withHostPayouts(() => restarted.deps.jobs.runDue());
    expect(await statusOf(accepted)).toBe("completed");
    expect(await ledgerOf(accepted)).toEqual(["authorize:8800", "capture:8800", "payout_pending:6400", "platform_fee:2400", "transfer:6400"]);
    expect(await systemOf(accepted)).toEqual(["booking_request", "booking_accepted", "booking_completed"]);
    clock = START;
  });

  test("a request for a time less than 24 hours away must be answered by its start: past it the guest is released and the host's accept refused", async () => {
    clock = START;
    try {
      // Tomorrow 10:00 in New York: 22 hours on. No other test books that day.
      const res = (await book(guest, { date: "2026-06-02", time: "10:00", hours: 2, total: "88.00" })).res;
      expect(res.status).toBe(201);
      const b = await body(res);
      const startsAt = Date.parse("2026-06-02T14:00:00Z");
      expect(b.respondBy).toBe(new Date(startsAt).toISOString());
      // A minute before the start it still waits for the host.
      clock = startsAt - 60_000;
      await t.deps.jobs.runDue();
      expect(await statusOf(b.id)).toBe("pending");
      // A minute after it, it has expired with the hold released, and the host can no longer take the money.
      clock = startsAt + 60_000;
      await t.deps.jobs.runDue();
      expect(await statusOf(b.id)).toBe("expired");
      const accept = await host.postJson(`/api/bookings/${b.id}/accept`, {});
      expect(accept.status).toBe(409);
      expect((await body(accept)).message).toBe("This request has already been answered or has ended.");
      expect(await statusOf(b.id)).toBe("expired");
      expect(await ledgerOf(b.id)).toEqual(["authorize:8800", "release:8800"]);
      expect(await systemOf(b.id)).toEqual(["booking_request", "booking_expired"]);
    } finally {
      clock = START;
    }
  });

  test("once a request's answer is due, the host's accept is refused even before the expiry has run, and nothing is captured", async () => {
    clock = START;
    try {
      // One due 24 hours on, and one due at its start, tonight at 20:00 in New York (8 hours on).
      const later = await pendingBooking(guest, nextSlot());
      const tonight = (await book(guest, { date: "2026-06-01", time: "20:00", hours: 1, total: "44.00" })).res;
      expect(tonight.status).toBe(201);
      const soon = (await body(tonight)).id as string;
      for (const [id, due, total] of [[soon, Date.parse("2026-06-02T00:00:00Z"), 4400], [later, START + 24 * HOUR, 8800]] as const) {
        clock = due;
        const accept = await host.postJson(`/api/bookings/${id}/accept`, {});
        expect(accept.status).toBe(409);
        expect((await body(accept)).message).toBe("This request has already been answered or has ended.");
        expect(await ledgerOf(id)).toEqual([`authorize:${total}`]);
        expect(await systemOf(id)).toEqual(["booking_request"]);
      }
      // The expiry then releases the guest's card.
      await t.deps.jobs.runDue();
      expect(await statusOf(soon)).toBe("expired");
      expect(await ledgerOf(soon)).toEqual(["authorize:4400", "release:4400"]);
    } finally {
      clock = START;
    }
  });
});

describe("the guest's cancellation window", () => {
  /** An accepted booking on an early day, and its start. */
  async function acceptedBooking() {
    clock = START;
    const id = await pendingBooking(guest, earlySlot());
    expect((await host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(200);
    return { id, startsAt: (await one(t.db.select().from(bookings).where(eq(bookings.id, id))))!.startsAt };
  }
  const cancelAsGuest = (id: string) => guest.postJson(`/api/bookings/${id}/cancel`, {});
  afterEach(() => {
    clock = START;
  });

  test("25 hours before the start: cancelled with the whole payment refunded", async () => {
    const { id, startsAt } = await acceptedBooking();
    clock = startsAt - 25 * HOUR;
    expect((await cancelAsGuest(id)).status).toBe(200);
    expect(await statusOf(id)).toBe("canceled");
    expect(await ledgerOf(id)).toEqual(["authorize:8800", "capture:8800", "refund:8800"]);
    expect(await systemOf(id)).toEqual(["booking_request", "booking_accepted", "booking_canceled"]);
  });

  test("exactly 24 hours before the start: still cancelled with the whole payment refunded", async () => {
    const { id, startsAt } = await acceptedBooking();
    clock = startsAt - 24 * HOUR;
    expect((await cancelAsGuest(id)).status).toBe(200);
    expect(await ledgerOf(id)).toEqual(["authorize:8800", "capture:8800", "refund:8800"]);
  });

  test("once started: refused, nothing refunded, the booking stands", async () => {
    const { id, startsAt } = await acceptedBooking();
    for (const after of [0, 60_000, 2 * HOUR]) {
      clock = startsAt + after;
      const res = await cancelAsGuest(id);
      expect([after, res.status]).toEqual([after, 409]);
      expect((await body(res)).message).toBe("The activity has started: it can no longer be cancelled.");
      expect(await statusOf(id)).toBe("accepted");
      expect(await ledgerOf(id)).toEqual(["authorize:8800", "capture:8800"]);
    }
    expect(await systemOf(id)).toEqual(["booking_request", "booking_accepted"]);
  });

  test("less than 24 hours before the start (the flexible policy): cancelled with nothing refunded, the payment kept and shared as a completion's", async () => {
    const { id, startsAt } = await acceptedBooking();
    clock = startsAt - 24 * HOUR + 60_000;
    expect((await cancelAsGuest(id)).status).toBe(200);
    expect(await statusOf(id)).toBe("canceled");
    expect(await ledgerOf(id)).toEqual(["authorize:8800", "capture:8800", "payout_pending:6400", "platform_fee:2400"]);
    expect(await systemOf(id)).toEqual(["booking_request", "booking_accepted", "booking_canceled"]);
  });
});

describe("the booking dialog and the checkout page", () => {
  test("the dialog holds the slot, the hosted checkout authorises, and the booking becomes a request", async () => {
    const slot = nextSlot(2);
    const res = await guest.postJson("/api/create-payment-intent", { activityId, hours: 2, amount: "88.00", proposedDate: slot.date, proposedTime: "10:00", message: "Hello!" });
    expect(res.status).toBe(200);
    const { sessionId, url, bookingId } = await body(res);
    expect(url).toBe(`/payments/test/checkout/${sessionId}`);
    expect(await statusOf(bookingId)).toBe("awaiting_payment");
    // The slot is held: another guest cannot take it.
    const other = await stranger.postJson("/api/create-payment-intent", { amount: "88.00", metadata: { activityId, date: slot.date, time: "10:00", duration: "2" } });
    expect(other.status).toBe(409);
    expect((await stranger.get(url)).status).toBe(404);
    const page = await guest.get(url);
    expect(await page.text()).toContain("Test mode.");
    const paid = await guest.postForm(url, TEST_CARD);
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`${ORIGIN}/bookings?success=true&booking=${bookingId}`);
    expect(await statusOf(bookingId)).toBe("pending");
    expect(await ledgerOf(bookingId)).toEqual(["authorize:8800"]);
    expect(await systemOf(bookingId)).toEqual(["booking_request"]);
    expect((await guest.get("/bookings?success=true")).headers.get("location")).toBe("/bookings");
    expect(await (await guest.get("/bookings")).text()).toContain("Payment Successful!");
  });

  test("the dialog requires a message; an unpaid hold keeps the time for 15 minutes, then lapses", async () => {
    const slot = nextSlot(1);
    const noMessage = await guest.postJson("/api/create-payment-intent", { activityId, hours: 1, amount: "44.00", proposedDate: slot.date, proposedTime: "10:00", message: "  " });
    expect(noMessage.status).toBe(400);
    expect((await body(noMessage)).message).toBe("Please add a message to your request");
    const { bookingId } = await body(await guest.postJson("/api/create-payment-intent", { activityId, hours: 1, amount: "44.00", proposedDate: slot.date, proposedTime: "10:00", message: "Hi" }));
    // The checkout page is the guest's, only while the booking awaits payment.
    expect((await guest.get(`/checkout/${bookingId}`)).status).toBe(200);
    expect((await stranger.get(`/checkout/${bookingId}`)).status).toBe(404);
    // 14 minutes on, the time is still held for the guest: nobody else can take it.
    clock = START + 14 * 60 * 1000;
    await t.deps.jobs.runDue();
    expect(await statusOf(bookingId)).toBe("awaiting_payment");
    expect((await guest.get(`/checkout/${bookingId}`)).status).toBe(200);
    const taken = await stranger.postJson("/api/create-payment-intent", { amount: "44.00", metadata: { activityId, date: slot.date, time: "10:00", duration: "1" } });
    expect(taken.status).toBe(409);
    expect((await body(taken)).message).toBe("This time is no longer available. Please choose another.");
    clock = START + 16 * 60 * 1000;
    await t.deps.jobs.runDue();
    expect(await statusOf(bookingId)).toBe("expired");
    expect((await guest.get(`/checkout/${bookingId}`)).status).toBe(404);
    clock = START;
  });

  test("/checkout/{bookingId}: a declined card says so; 4242 sends the request", async () => {
    const slot = nextSlot(1);
    const { bookingId } = await body(await guest.postJson("/api/create-payment-intent", { activityId, hours: 1, amount: "44.00", proposedDate: slot.date, proposedTime: "10:00", message: "Hi" }));
    const declined = await guest.postForm(`/checkout/${bookingId}`, { ...TEST_CARD, cardNumber: "4000 0000 0000 0002", amount: "44.00" });
    expect(declined.status).toBe(402);
    const html = await declined.text();
    expect(html).toContain("Payment Failed");
    expect(html).toContain("Your card was declined.");
    expect(await statusOf(bookingId)).toBe("awaiting_payment");
    const ok = await guest.postForm(`/checkout/${bookingId}`, { ...TEST_CARD, amount: "44.00" });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe("/");
    expect(await statusOf(bookingId)).toBe("pending");
  });
});

describe("the test provider", () => {
  async function freshIntent(key: string = crypto.randomUUID()) {
    return t.deps.payments.createIntent({ amountCents: 5000, currency: "usd", metadata: { guestId } }, key);
  }
  const provider = () => t.deps.payments as TestProvider;

  const cards: [string, string, string, string, string | undefined][] = [
    ["4242 4242 4242 4242", "12/30", "123", "requires_capture", undefined],
    ["4000 0000 0000 0002", "12/30", "123", "requires_payment_method", "Your card was declined."],
    ["4000 0000 0000 9995", "12/30", "123", "requires_payment_method", "Your card has insufficient funds."],
    ["4000 0025 0000 3155", "12/30", "123", "requires_action", undefined],
    ["4242 4242 4242 4241", "12/30", "123", "requires_payment_method", "Your card number is invalid."],
    ["4242 4242 4242 4242", "01/20", "123", "requires_payment_method", "Your card has expired."],
    ["4242 4242 4242 4242", "13/30", "123", "requires_payment_method", "Your card's expiration date is invalid. Use MM/YY."],
    ["4242 4242 4242 4242", "12/30", "12", "requires_payment_method", "Your card's security code is invalid."],
  ];
  scenarios(
    () => t,
    cards.map(([number, expiry, cvc, status, error]): Scenario => {
      let clientSecret = "";
      return {
        name: `card ${number} ${expiry} ${cvc} → ${status}`,
        before: async () => void ({ clientSecret } = await freshIntent()),
        as: () => guest,
        method: "POST",
        url: "/api/payments/test/confirm",
        body: () => ({ clientSecret, cardNumber: number, expiry, cvc }),
        status: error ? 402 : 200,
        // A card that goes through says no error at all.
        json: { status, error },
      };
    }),
  );

  test("authentication: approve authorises, fail refuses with a message", async () => {
    for (const approve of [true, false]) {
      const intent = await freshIntent();
      const out = await body(await guest.postJson("/api/payments/test/confirm", { clientSecret: intent.clientSecret, cardNumber: "4000002500003155", expiry: "12/30", cvc: "123" }));
      expect(out.nextActionUrl).toBe(`/payments/test/authenticate/${intent.id}`);
      expect((await guest.get(out.nextActionUrl)).status).toBe(200);
      const res = await guest.postForm(out.nextActionUrl, { outcome: approve ? "approve" : "fail", return: "/somewhere" });
      expect(res.headers.get("location")).toStartWith("/somewhere?payment_intent=");
      expect((await provider().getIntent(intent.id))!.status).toBe(approve ? "requires_capture" : "requires_payment_method");
    }
  });

  test("idempotency keys: the same key gives the same result, and money moves once", async () => {
    const a = await freshIntent("same-key");
    const b = await freshIntent("same-key");
    expect(b.id).toBe(a.id);
    await provider().confirmCard({ clientSecret: a.clientSecret, ...TEST_CARD });
    const c1 = await provider().capture(a.id, "cap-1");
    const c2 = await provider().capture(a.id, "cap-1");
    expect(c1.status).toBe("succeeded");
    expect(c2.status).toBe("succeeded");
    const r1 = await provider().refund(a.id, 1000, "ref-1");
    const r2 = await provider().refund(a.id, 1000, "ref-1");
    expect(r2.id).toBe(r1.id);
    await expect(provider().release(a.id, "rel-1")).rejects.toThrow("already captured");
  });

  test("the confirm call refuses a wrong shape or another person's payment", async () => {
    expect((await guest.postJson("/api/payments/test/confirm", {})).status).toBe(400);
    expect((await guest.postJson("/api/payments/test/confirm", { clientSecret: "nope", cardNumber: "4242424242424242", expiry: "12/30", cvc: "123" })).status).toBe(404);
    const intent = await freshIntent();
    expect((await stranger.postJson("/api/payments/test/confirm", { clientSecret: intent.clientSecret, ...TEST_CARD })).status).toBe(404);
  });
});
