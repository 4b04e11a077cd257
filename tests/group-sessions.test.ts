import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { and, count, eq, isNotNull } from "drizzle-orm";
import { one } from "../db/client";
import { activities, bookings, testPaymentIntents, testPaymentOperations } from "../db/schema";
import { insert, userRow } from "../src/demo/factories";
import { holdsTime } from "../src/bookings/holds";
import { checkMinimum } from "../src/bookings/minimum";
import type { StartTime } from "../src/bookings/queries";
import { asTestProvider } from "../src/web/payments";
import { bookingParties, ledgerLines, makeTestApp, systemMessageTypes, TEST_CARD, type Client } from "./helpers";
import { moneyViolations } from "./money-invariants";

/**
 * Group sessions (docs/decisions/0049) through the app, on SQLite and on PostgreSQL
 * (`TEST_DATABASE=postgres`): a session never sells more spots than it has, however many buyers
 * race for them; spots let go are offered again at once; a session short of its minimum is called
 * off once, every booking's money given back; bad input is refused by field and changes nothing;
 * the server computes every price. The built-in test provider answers with latency so that
 * requests overlap as in production; the money invariant (tests/money-invariants.ts) is checked
 * after each step.
 */
const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** 2026-06-01 12:00 in New York. */
const START = Date.UTC(2026, 5, 1, 16, 0);
const LATENCY_MS = 25;
let clock = START;
const now = () => clock;

let t: Awaited<ReturnType<typeof makeTestApp>>;
let p: Awaited<ReturnType<typeof bookingParties>>;
/** Each session on a day of its own: one host runs one session at a time, and a guest is at one activity at a time. */
let day = 2;
const nextDate = () => new Date(START + day++ * DAY).toISOString().slice(0, 10);
/** A start in New York on a June or July day (daylight time, UTC−4). */
const instantOf = (date: string, time: string) => Date.parse(`${date}T${time}:00-04:00`);

beforeAll(async () => {
  t = await makeTestApp({ now });
  p = await bookingParties(t);
  asTestProvider(t.deps.payments)!.faults.latencyMs = LATENCY_MS;
});
afterAll(() => t.cleanup());
beforeEach(() => {
  clock = START;
});

// ---- Helpers ---------------------------------------------------------------------------------

const body = async (res: Response) => (await res.json()) as Record<string, any>;
const dollars = (cents: number) => (cents / 100).toFixed(2);
/** What a guest pays for a subtotal: the subtotal and the 10% service fee. */
const withFee = (subtotalCents: number) => dollars(subtotalCents + Math.round(subtotalCents * 0.1));
/** The price of `spots` at $25 a person, the price of every group below unless told otherwise. */
const totalFor = (spots: number, perPersonCents = 2500) => withFee(spots * perPersonCents);

/** A group activity of the tennis host: capacity 4, $25 a person, two-hour sessions, unless told otherwise. */
async function groupActivity(fields: Record<string, unknown> = {}): Promise<string> {
  const res = await p.host.postJson("/api/activities", { title: "Yoga", description: "Yoga in the park.", category: "sports", format: "group", capacity: 4, pricePerPerson: "25", sessionHours: 2, ...fields });
  expect(res.status).toBe(201);
  return (await body(res)).id as string;
}

/**
 * Guests made with the factories and signed in: these tests are about spots, not about signing up.
 * Signed in as of the latest day handed out so far, so that their 30-day session still holds on
 * the days the tests move the clock to, weeks after the first.
 */
async function newGuests(n: number): Promise<Client[]> {
  const was = clock;
  clock = Math.max(clock, START + day * DAY);
  try {
    return await Promise.all(
      Array.from({ length: n }, async () => {
        const c = t.client();
        await c.signInAs((await insert(t.db).user(userRow())).id);
        return c;
      }),
    );
  } finally {
    clock = was;
  }
}

interface Seats {
  time?: string;
  privateGroup?: boolean;
  /** What the guest was shown; the server's price unless told otherwise. */
  amount?: string;
  /** Hours: a private activity's duration (a group session's is its own). */
  duration?: string;
}

/** The date-time flow's intent for `spots` of a session (no duration: a session has one length). */
const askIntent = (guest: Client, activityId: string, date: string, spots: number, s: Seats = {}) =>
  guest.postJson("/api/create-payment-intent", {
    amount: s.amount ?? totalFor(spots),
    metadata: { activityId, date, time: s.time ?? "10:00", spots, ...(s.privateGroup ? { privateGroup: true } : {}), ...(s.duration ? { duration: s.duration } : {}) },
  });

/** The intent made and the test card confirmed on it, as the guest's browser does: the card is held. */
async function heldCard(guest: Client, activityId: string, date: string, spots: number, s: Seats = {}): Promise<string> {
  const res = await askIntent(guest, activityId, date, spots, s);
  expect(res.status).toBe(200);
  const intent = await body(res);
  const confirmed = await guest.postJson("/api/payments/test/confirm", { clientSecret: intent.clientSecret, ...TEST_CARD });
  expect(confirmed.status).toBe(200);
  return intent.paymentIntentId as string;
}

/** `POST /api/bookings` for the spots an intent holds. */
const sendRequest = (guest: Client, activityId: string, date: string, spots: number, intentId: string, s: Seats = {}) =>
  guest.postJson("/api/bookings", {
    activityId,
    proposedDatetime: `${date}T${s.time ?? "10:00"}:00`,
    spots,
    ...(s.privateGroup ? { privateGroup: true } : {}),
    priceTotal: s.amount ?? totalFor(spots),
    paymentIntentId: intentId,
  });

/** A request through the whole date-time flow: the card held, the request made (pending). Answers its id. */
async function book(guest: Client, activityId: string, date: string, spots: number, s: Seats = {}): Promise<string> {
  const res = await sendRequest(guest, activityId, date, spots, await heldCard(guest, activityId, date, spots, s), s);
  expect(res.status).toBe(201);
  return (await body(res)).id as string;
}

/** The booking dialog's first step for `spots`: a booking awaiting payment, holding them for 15 minutes. */
const dialogHold = (guest: Client, activityId: string, date: string, spots: number, time = "10:00") =>
  guest.postJson("/api/create-payment-intent", { activityId, proposedDate: date, proposedTime: time, hours: 2, spots, amount: totalFor(spots), message: "Hello!" });

const row = async (id: string) => (await one(t.db.select().from(bookings).where(eq(bookings.id, id))))!;
const intentStatus = async (intentId: string) => (await t.deps.payments.getIntent(intentId))?.status;
const byIntent = (intentId: string) => t.db.select().from(bookings).where(eq(bookings.paymentIntentId, intentId));

/** The spots the session's bookings hold now, counted from the rows (not by the code under test). */
async function spotsHeld(activityId: string, date: string, time = "10:00") {
  const rows = await t.db
    .select({ spots: bookings.spots })
    .from(bookings)
    .where(and(eq(bookings.activityId, activityId), eq(bookings.startsAtLocal, `${date}T${time}:00`), holdsTime(now())));
  return rows.reduce((n, r) => n + r.spots, 0);
}

/** `GET /api/activities/{id}/times?date=` as a guest reads it. */
async function startsOn(activityId: string, date: string): Promise<StartTime[]> {
  const res = await p.stranger.get(`/api/activities/${activityId}/times?date=${date}`);
  expect(res.status).toBe(200);
  return (await res.json()) as StartTime[];
}
const startAt = async (activityId: string, date: string, time = "10:00") => (await startsOn(activityId, date)).find((s) => s.start === time);

/** The money invariant for every booking of these activities, against the provider. */
async function expectSound(...activityIds: string[]) {
  const ids: string[] = [];
  for (const activityId of activityIds) ids.push(...(await t.db.select({ id: bookings.id }).from(bookings).where(eq(bookings.activityId, activityId))).map((b) => b.id));
  expect(await moneyViolations(t.deps, ids)).toEqual([]);
}

/** What a refused input could have written: bookings, activities, intents at the provider. */
const rowCounts = async () => ({
  bookings: (await one(t.db.select({ n: count() }).from(bookings)))!.n,
  activities: (await one(t.db.select({ n: count() }).from(activities)))!.n,
  intents: (await one(t.db.select({ n: count() }).from(testPaymentIntents)))!.n,
});

const FULL_RELEASED = "Full: no spots are left at this time. Your card was not charged: the hold on it has been released.";
const FULL = "Full: no spots are left at this time. Please choose another.";

// ---- The rules -------------------------------------------------------------------------------

describe("buyers racing for a session's spots never take more than its capacity", () => {
  test("20 guests race for the last 2 of 4 spots, 2 each: one wins, every other is refused and its card released", async () => {
    const activityId = await groupActivity({ capacity: 4 });
    const date = nextDate();
    const [earlier] = await newGuests(1);
    const first = await book(earlier!, activityId, date, 2);
    const racers = await newGuests(20);
    // Every racer's card is held first (2 spots are left for each of them), then all ask at once.
    const intents = await Promise.all(racers.map((g) => heldCard(g, activityId, date, 2)));
    const answers = await Promise.all(racers.map((g, i) => sendRequest(g, activityId, date, 2, intents[i]!)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201).length).toBe(1);
    expect(statuses.filter((s) => s === 409).length).toBe(19);
    const winner = statuses.indexOf(201);
    for (const [i, answer] of answers.entries()) {
      if (i === winner) continue;
      const refusal = await body(answer);
      expect(refusal.message).toMatch(/^(Full: no spots are left|Only \d spots? (is|are) left)/);
      expect(refusal.message).toContain("Your card was not charged: the hold on it has been released.");
      expect(refusal.fields).toEqual({ spots: refusal.message });
      expect(await intentStatus(intents[i]!)).toBe("canceled");
      expect(await byIntent(intents[i]!)).toEqual([]);
    }
    expect(await intentStatus(intents[winner]!)).toBe("requires_capture");
    expect((await row(first)).status).toBe("pending");
    expect(await spotsHeld(activityId, date)).toBe(4);
    expect(await startAt(activityId, date)).toEqual({ start: "10:00", open: false, spotsLeft: 0 });
    await expectSound(activityId);
  }, 60_000);

  test("30 one-spot buyers for 8 spots: exactly 8 held, every other refused as Full with its card released", async () => {
    const activityId = await groupActivity({ capacity: 8 });
    const date = nextDate();
    const buyers = await newGuests(30);
    const intents = await Promise.all(buyers.map((g) => heldCard(g, activityId, date, 1)));
    const answers = await Promise.all(buyers.map((g, i) => sendRequest(g, activityId, date, 1, intents[i]!)));
    const won = answers.flatMap((r, i) => (r.status === 201 ? [i] : []));
    expect(won.length).toBe(8);
    for (const [i, answer] of answers.entries()) {
      if (won.includes(i)) {
        expect(await intentStatus(intents[i]!)).toBe("requires_capture");
        continue;
      }
      expect(answer.status).toBe(409);
      expect((await body(answer)).message).toBe(FULL_RELEASED);
      expect(await intentStatus(intents[i]!)).toBe("canceled");
      expect(await byIntent(intents[i]!)).toEqual([]);
    }
    expect(await spotsHeld(activityId, date)).toBe(8);
    await expectSound(activityId);
  }, 60_000);

  test("30 one-spot holds at once through the booking dialog for 8 spots: never more than 8 held", async () => {
    const activityId = await groupActivity({ capacity: 8 });
    const date = nextDate();
    const buyers = await newGuests(30);
    const answers = await Promise.all(buyers.map((g) => dialogHold(g, activityId, date, 1)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBe(8);
    expect(statuses.filter((s) => s === 409).length).toBe(22);
    for (const answer of answers) if (answer.status === 409) expect((await body(answer)).message).toBe(FULL);
    const holds = await t.db.select().from(bookings).where(eq(bookings.activityId, activityId));
    expect(holds.map((b) => b.status)).toEqual(Array(8).fill("awaiting_payment"));
    expect(await spotsHeld(activityId, date)).toBe(8);
    expect(await startAt(activityId, date)).toEqual({ start: "10:00", open: false, spotsLeft: 0 });
    await expectSound(activityId);
  }, 60_000);

  test("a private group racing 10 one-spot buyers for an empty session: the group alone, or the buyers without it", async () => {
    const activityId = await groupActivity({ capacity: 4, privateGroupPrice: "90" });
    const date = nextDate();
    const [group, ...buyers] = await newGuests(11);
    const groupIntent = await heldCard(group!, activityId, date, 3, { privateGroup: true, amount: "99.00" });
    const intents = await Promise.all(buyers.map((g) => heldCard(g, activityId, date, 1)));
    // The group asks in the middle of the buyers: either may be first.
    const asking = buyers.map((g, i) => () => sendRequest(g, activityId, date, 1, intents[i]!));
    const askGroup = () => sendRequest(group!, activityId, date, 3, groupIntent, { privateGroup: true, amount: "99.00" });
    const all = await Promise.all([...asking.slice(0, 2), askGroup, ...asking.slice(2)].map((ask) => ask()));
    const groupAnswer = all[2]!;
    const answers = all.filter((_, i) => i !== 2);
    const won = answers.filter((r) => r.status === 201).length;
    if (groupAnswer.status === 201) {
      expect(won).toBe(0);
      for (const answer of answers) expect((await body(answer)).message).toBe(FULL_RELEASED);
    } else {
      expect(groupAnswer.status).toBe(409);
      expect((await body(groupAnswer)).message).toBe("This session already has guests: it can no longer be booked as a private group. Your card was not charged: the hold on it has been released.");
      expect(await intentStatus(groupIntent)).toBe("canceled");
      expect(won).toBe(4);
    }
    expect(await startAt(activityId, date)).toEqual({ start: "10:00", open: false, spotsLeft: 0 });
    await expectSound(activityId);
  }, 30_000);

  test("a hold that lapsed and is paid after its spots were sold: released, never a spot more", async () => {
    const activityId = await groupActivity({ capacity: 2 });
    const date = nextDate();
    const [slow, quick] = (await newGuests(2)) as [Client, Client];
    const hold = await dialogHold(slow, activityId, date, 2);
    expect(hold.status).toBe(200);
    const { bookingId, url } = (await body(hold)) as { bookingId: string; url: string };
    clock += 16 * MINUTE;
    expect(await startAt(activityId, date)).toEqual({ start: "10:00", open: true, spotsLeft: 2 });
    const sold = await book(quick, activityId, date, 2);
    const paid = await slow.postForm(url, TEST_CARD);
    expect(paid.status).toBeLessThan(500);
    await t.deps.jobs.runDue();
    expect((await row(bookingId)).status).toBe("expired");
    const lateIntent = (await row(bookingId)).paymentIntentId;
    if (lateIntent) expect(await intentStatus(lateIntent)).not.toBe("requires_capture");
    expect((await row(sold)).status).toBe("pending");
    expect(await spotsHeld(activityId, date)).toBe(2);
    await expectSound(activityId);
  }, 30_000);
});

describe("spots let go are offered again at once", () => {
  test("a withdrawn request, a declined one, a cancelled booking and a cancelled hold give their spots back; a new buyer gets them", async () => {
    const activityId = await groupActivity({ capacity: 4 });
    const date = nextDate();
    const [a, b, c, d, late] = (await newGuests(5)) as [Client, Client, Client, Client, Client];
    const withdrawn = await book(a, activityId, date, 1);
    const declined = await book(b, activityId, date, 1);
    const cancelled = await book(c, activityId, date, 1);
    expect((await p.host.postJson(`/api/bookings/${cancelled}/accept`, {})).status).toBe(200);
    const hold = await dialogHold(d, activityId, date, 1);
    expect(hold.status).toBe(200);
    const held = (await body(hold)).bookingId as string;
    expect(await startAt(activityId, date)).toEqual({ start: "10:00", open: false, spotsLeft: 0 });
    const refused = await askIntent(late, activityId, date, 1);
    expect(refused.status).toBe(409);
    expect((await body(refused)).message).toBe(FULL);
    await expectSound(activityId);

    expect((await a.postJson(`/api/bookings/${withdrawn}/cancel`, {})).status).toBe(200);
    expect(await startAt(activityId, date)).toEqual({ start: "10:00", open: true, spotsLeft: 1 });
    expect((await p.host.postJson(`/api/bookings/${declined}/reject`, {})).status).toBe(200);
    expect(await startAt(activityId, date)).toEqual({ start: "10:00", open: true, spotsLeft: 2 });
    expect((await c.postJson(`/api/bookings/${cancelled}/cancel`, {})).status).toBe(200);
    expect(await startAt(activityId, date)).toEqual({ start: "10:00", open: true, spotsLeft: 3 });
    expect((await d.postJson(`/api/bookings/${held}/cancel`, {})).status).toBe(200);
    expect(await startAt(activityId, date)).toEqual({ start: "10:00", open: true, spotsLeft: 4 });

    expect(await ledgerLines(t.db, withdrawn)).toEqual(["authorize:2750", "release:2750"]);
    expect(await ledgerLines(t.db, declined)).toEqual(["authorize:2750", "release:2750"]);
    expect(await ledgerLines(t.db, cancelled)).toEqual(["authorize:2750", "capture:2750", "refund:2750"]);
    await expectSound(activityId);

    // The whole session is for sale again: the late buyer takes all four spots.
    const taken = await book(late, activityId, date, 4);
    expect(await row(taken)).toMatchObject({ status: "pending", spots: 4, totalCents: 11000 });
    expect(await startAt(activityId, date)).toEqual({ start: "10:00", open: false, spotsLeft: 0 });
    await expectSound(activityId);
  }, 30_000);
});

describe("bad input gets the field's message and changes nothing", () => {
  test("spots: none, too many for one booking, more than are left, a private group too late or not offered, spots on a private activity", async () => {
    const capped = await groupActivity({ capacity: 6, maxSpots: 2, privateGroupPrice: "150" });
    const plain = await groupActivity({ capacity: 4 });
    const date = nextDate();
    const [guest, holder] = (await newGuests(2)) as [Client, Client];
    const cappedDate = nextDate();
    await book(holder, plain, date, 3);
    await book(holder, capped, cappedDate, 1);

    const refusals: [string, () => Promise<Response>, number, string, string][] = [
      ["0 spots", () => askIntent(guest, capped, nextDate(), 0, { amount: "0.00" }), 400, "spots", "Choose from 1 to 2 spots."],
      ["more than the per-booking maximum", () => askIntent(guest, capped, nextDate(), 3), 400, "spots", "Choose from 1 to 2 spots."],
      ["a count that is no number", () => askIntent(guest, capped, nextDate(), "two" as unknown as number, { amount: "55.00" }), 400, "spots", "Choose from 1 to 2 spots."],
      ["more than the spots left", () => askIntent(guest, plain, date, 2), 409, "spots", "Only 1 spot is left at this time. Choose fewer spots or another time."],
      ["a private group on a session with spots sold", () => askIntent(guest, capped, cappedDate, 2, { privateGroup: true, amount: withFee(15000) }), 409, "spots", "This session already has guests: it can no longer be booked as a private group."],
      ["a private group the host does not offer", () => askIntent(guest, plain, nextDate(), 2, { privateGroup: true }), 400, "privateGroup", "The host does not offer this activity as a private group."],
      ["2 spots on a private activity", () => askIntent(guest, p.activityId, nextDate(), 2, { amount: "44.00", duration: "1" }), 400, "spots", "This activity is booked for one guest: spots are not offered."],
      [
        "2 spots on a private activity, in the dialog",
        () => guest.postJson("/api/create-payment-intent", { activityId: p.activityId, proposedDate: nextDate(), proposedTime: "10:00", hours: 1, spots: 2, amount: "44.00", message: "Hello!" }),
        400,
        "spots",
        "This activity is booked for one guest: spots are not offered.",
      ],
      [
        "too many spots in the dialog",
        () => guest.postJson("/api/create-payment-intent", { activityId: capped, proposedDate: nextDate(), proposedTime: "10:00", hours: 2, spots: 3, amount: totalFor(3), message: "Hello!" }),
        400,
        "spots",
        "Choose from 1 to 2 spots.",
      ],
    ];
    for (const [what, send, status, field, message] of refusals) {
      const before = await rowCounts();
      const res = await send();
      expect({ what, status: res.status }).toEqual({ what, status });
      const refusal = await body(res);
      expect({ what, fields: refusal.fields }).toEqual({ what, fields: { [field]: message } });
      expect({ what, counts: await rowCounts() }).toEqual({ what, counts: before });
    }
    // The request itself, its card held for 1 spot, asking for 0: refused by field before anything is made.
    const intentId = await heldCard(guest, plain, nextDate(), 1);
    const intent = (await t.deps.payments.getIntent(intentId))!;
    const zero = await sendRequest(guest, plain, intent.metadata.date!, 0, intentId, { amount: totalFor(1) });
    expect(zero.status).toBe(400);
    expect((await body(zero)).fields).toEqual({ spots: "Choose from 1 to 4 spots." });
    expect(await byIntent(intentId)).toEqual([]);
    await expectSound(capped, plain);
  }, 30_000);

  test("an activity: capacity 1 or 51, a session longer than the weekly hours allow, fewest spots above the most", async () => {
    const refusals: [Record<string, unknown>, string, string][] = [
      [{ capacity: 1 }, "capacity", "Capacity must be between 2 and 50"],
      [{ capacity: 51 }, "capacity", "Capacity must be between 2 and 50"],
      [{ capacity: "" }, "capacity", "Capacity is required for a group"],
      [{ weeklyHours: [[[540, 660]], [], [], [], [], [], []], sessionHours: 3 }, "sessionMinutes", "A session this long does not fit in your weekly hours"],
      [{ sessionMinutes: 45 }, "sessionMinutes", "A session lasts from 30 minutes to 8 hours, in 30-minute steps"],
      [{ minSpots: 3, maxSpots: 2 }, "maxSpots", "The most spots per booking is between the fewest and the capacity"],
      [{ minSpots: 5 }, "minSpots", "The fewest spots per booking is between 1 and the capacity"],
      [{ minToRun: 5 }, "minToRun", "The minimum to run is between 2 and the capacity"],
      [{ minToRun: 3, minToRunHours: 5 }, "minToRunHours", "Choose one of the deadlines offered"],
    ];
    for (const [fields, field, message] of refusals) {
      const before = await rowCounts();
      const res = await p.host.postJson("/api/activities", { title: "Yoga", description: "Yoga in the park.", category: "sports", format: "group", capacity: 4, pricePerPerson: "25", sessionHours: 2, ...fields });
      expect({ fields, status: res.status }).toEqual({ fields, status: 400 });
      expect({ fields, refused: (await body(res)).fields[field] }).toEqual({ fields, refused: message });
      expect(await rowCounts()).toEqual(before);
    }
    // The same session fits the weekly hours once they are long enough.
    await groupActivity({ weeklyHours: [[[540, 720]], [], [], [], [], [], []], sessionHours: 3 });
  });
});

describe("the server computes the price: spots × price + 10%, a private group the higher of its price and that", () => {
  test("3 spots, a private group of 2 and of 7; a client amount that differs is refused", async () => {
    const activityId = await groupActivity({ capacity: 8, privateGroupPrice: "150" });
    const [guest, group, big] = (await newGuests(3)) as [Client, Client, Client];

    const three = await book(guest, activityId, nextDate(), 3, { amount: "82.50" });
    expect(await row(three)).toMatchObject({ spots: 3, pricePerPersonCents: 2500, privateGroup: false, subtotalCents: 7500, serviceFeeCents: 750, totalCents: 8250 });
    expect((await t.deps.payments.getIntent((await row(three)).paymentIntentId!))?.amountCents).toBe(8250);
    const view = (await body(await guest.get("/api/bookings"))) as unknown as Record<string, unknown>[];
    expect(view.find((b) => b.id === three)).toMatchObject({ spots: 3, pricePerPerson: "25.00", privateGroup: false });

    // A private group of 2 pays the private group's price ($150 > 2 × $25), and takes the session whole.
    const date = nextDate();
    const whole = await book(group, activityId, date, 2, { privateGroup: true, amount: "165.00" });
    expect(await row(whole)).toMatchObject({ spots: 2, privateGroup: true, subtotalCents: 15000, totalCents: 16500 });
    expect(await startAt(activityId, date)).toEqual({ start: "10:00", open: false, spotsLeft: 0 });
    // Of 7, spots × price is the higher ($175).
    const seven = await askIntent(big, activityId, nextDate(), 7, { privateGroup: true, amount: "192.50" });
    expect(seven.status).toBe(200);
    expect((await t.deps.payments.getIntent((await body(seven)).paymentIntentId))?.amountCents).toBe(19250);

    // A client's own figure that differs: refused, the server's total told, nothing made.
    const before = await rowCounts();
    for (const amount of ["75.00", "27.50", "82.49"]) {
      const wrong = await askIntent(big, activityId, nextDate(), 3, { amount });
      expect(wrong.status).toBe(409);
      expect(await body(wrong)).toMatchObject({ message: "The price has changed. Please check the new total before paying; nothing was charged.", priceTotal: "82.50" });
    }
    const privateWrong = await askIntent(big, activityId, nextDate(), 2, { privateGroup: true, amount: "55.00" });
    expect(privateWrong.status).toBe(409);
    expect((await body(privateWrong)).priceTotal).toBe("165.00");
    expect(await rowCounts()).toEqual(before);
    // And at the request: the card held for 3 spots at the server's price, the request claiming less.
    const later = nextDate();
    const intentId = await heldCard(big, activityId, later, 3);
    const cheaper = await sendRequest(big, activityId, later, 3, intentId, { amount: "75.00" });
    expect(cheaper.status).toBe(409);
    expect(await byIntent(intentId)).toEqual([]);
    expect(await intentStatus(intentId)).toBe("canceled");
    await expectSound(activityId);
  }, 30_000);
});

describe("GET /api/activities/{id}/times", () => {
  test("a private activity has no spots; a group's count down to Full; a bad date is refused", async () => {
    const date = nextDate();
    const privateStarts = await startsOn(p.activityId, date);
    expect(privateStarts.length).toBe(15);
    expect(privateStarts[0]).toEqual({ start: "08:00", open: true, spotsLeft: null });
    expect(privateStarts.every((s) => s.spotsLeft === null && s.open)).toBe(true);

    const activityId = await groupActivity({ capacity: 3 });
    const [one, two] = (await newGuests(2)) as [Client, Client];
    expect(await startAt(activityId, date)).toEqual({ start: "10:00", open: true, spotsLeft: 3 });
    await book(one, activityId, date, 1);
    expect(await startAt(activityId, date)).toEqual({ start: "10:00", open: true, spotsLeft: 2 });
    await book(two, activityId, date, 2);
    expect(await startAt(activityId, date)).toEqual({ start: "10:00", open: false, spotsLeft: 0 });
    // The host runs one session at a time: the starts whose sessions overlap it are closed too.
    const starts = await startsOn(activityId, date);
    expect(starts.find((s) => s.start === "09:00")).toEqual({ start: "09:00", open: false, spotsLeft: 0 });
    expect(starts.find((s) => s.start === "11:00")).toEqual({ start: "11:00", open: false, spotsLeft: 0 });
    expect(starts.find((s) => s.start === "12:00")).toEqual({ start: "12:00", open: true, spotsLeft: 3 });

    for (const bad of ["2026-02-30", "tomorrow", "2026-6-1"]) {
      const res = await p.stranger.get(`/api/activities/${activityId}/times?date=${bad}`);
      expect(res.status).toBe(400);
      expect((await body(res)).fields).toEqual({ date: "The date must be a real date (YYYY-MM-DD)." });
    }
    const none = await p.stranger.get(`/api/activities/${activityId}/times`);
    expect(none.status).toBe(400);
    expect(Object.keys((await body(none)).fields)).toEqual(["date"]);
  });
});

describe("a group session holds its host's time, for everything but more spots of itself", () => {
  test("one spot held makes the host busy for their private activity at an overlapping time, not for the session's other spots", async () => {
    const activityId = await groupActivity({ capacity: 4 });
    const date = nextDate();
    const [first, second, tennis] = (await newGuests(3)) as [Client, Client, Client];
    await book(first, activityId, date, 1);

    // The private tennis activity (an hour at least): 10:00 and 11:00 overlap the 10:00–12:00 session.
    const tennisStarts = await startsOn(p.activityId, date);
    expect(tennisStarts.filter((s) => ["09:00", "10:00", "11:00", "12:00"].includes(s.start)).map((s) => [s.start, s.open])).toEqual([
      ["09:00", true],
      ["10:00", false],
      ["11:00", false],
      ["12:00", true],
    ]);
    const overlapping = await tennis.postJson("/api/create-payment-intent", { amount: "44.00", metadata: { activityId: p.activityId, date, time: "11:00", duration: "1" } });
    expect(overlapping.status).toBe(409);
    expect((await body(overlapping)).message).toBe("This time is no longer available. Please choose another.");
    const after = await tennis.postJson("/api/create-payment-intent", { amount: "44.00", metadata: { activityId: p.activityId, date, time: "12:00", duration: "1" } });
    expect(after.status).toBe(200);

    // More spots of the same session: the host is not busy for them.
    const more = await book(second, activityId, date, 2);
    expect((await row(more)).status).toBe("pending");
    expect(await startAt(activityId, date)).toEqual({ start: "10:00", open: true, spotsLeft: 1 });
    // Another start of the same activity overlapping the session is the host's time too.
    const [other] = (await newGuests(1)) as [Client];
    const elevenOClock = await askIntent(other, activityId, date, 1, { time: "11:00" });
    expect(elevenOClock.status).toBe(409);
    await expectSound(activityId);
  }, 30_000);
});

describe("a group booking goes through the booking rules as a private one does", () => {
  test("instant booking accepts each booking of a session at once; a request shows its spots to the host", async () => {
    const instant = await groupActivity({ capacity: 6, instantBooking: true });
    const asked = await groupActivity({ capacity: 6, title: "Yoga, asked" });
    const date = nextDate();
    const [first, second, third] = (await newGuests(3)) as [Client, Client, Client];
    const a = await book(first, instant, date, 2);
    const b = await book(second, instant, date, 3);
    expect([(await row(a)).status, (await row(b)).status]).toEqual(["accepted", "accepted"]);
    expect(await startAt(instant, date)).toEqual({ start: "10:00", open: true, spotsLeft: 1 });
    // The host's other group activity at another hour of that day waits for an answer, spots and all.
    const pending = await book(third, asked, date, 4, { time: "15:00" });
    const requests = (await body(await p.host.get("/api/host/requests"))) as unknown as { id: string; spots: number; privateGroup: boolean }[];
    expect(requests.find((r) => r.id === pending)).toMatchObject({ spots: 4, privateGroup: false });
    await expectSound(instant, asked);
  }, 30_000);
});

describe("a session short of its minimum to run is called off at its deadline", () => {
  test("every booking released or refunded once, each conversation told; the job again changes nothing; a full session is left alone", async () => {
    const activityId = await groupActivity({ capacity: 6, minToRun: 4, minToRunHours: 24 });
    const date = nextDate();
    const shortStart = instantOf(date, "10:00");
    const deadline = shortStart - 24 * HOUR;
    const [e, f, a, b, c, late] = (await newGuests(6)) as [Client, Client, Client, Client, Client, Client];

    // The 14:00 session reaches its minimum early: 4 spots, accepted.
    const full = [await book(e, activityId, date, 2, { time: "14:00" }), await book(f, activityId, date, 2, { time: "14:00" })];
    for (const id of full) expect((await p.host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(200);

    // The 10:00 session has 3 spots held as its deadline nears: accepted, pending, and a hold awaiting payment.
    clock = deadline - 30 * MINUTE;
    const accepted = await book(a, activityId, date, 1);
    expect((await p.host.postJson(`/api/bookings/${accepted}/accept`, {})).status).toBe(200);
    const pending = await book(b, activityId, date, 1);
    clock = deadline - 5 * MINUTE;
    const hold = await dialogHold(c, activityId, date, 1);
    expect(hold.status).toBe(200);
    const awaiting = (await body(hold)).bookingId as string;
    const short = [accepted, pending, awaiting];
    expect(await spotsHeld(activityId, date)).toBe(3);
    await expectSound(activityId);

    clock = deadline + MINUTE;
    await t.deps.jobs.runDue();
    for (const id of short) expect(await row(id)).toMatchObject({ status: "canceled", canceledBy: "host", claim: null });
    expect(await ledgerLines(t.db, accepted)).toEqual(["authorize:2750", "capture:2750", "refund:2750"]);
    expect(await ledgerLines(t.db, pending)).toEqual(["authorize:2750", "release:2750"]);
    expect(await ledgerLines(t.db, awaiting)).toEqual([]);
    const acceptedIntent = (await row(accepted)).paymentIntentId!;
    expect(await intentStatus(acceptedIntent)).toBe("succeeded");
    expect((await t.deps.payments.refundsOf(acceptedIntent)).map((r) => r.amountCents)).toEqual([2750]);
    expect(await intentStatus((await row(pending)).paymentIntentId!)).toBe("canceled");
    const unpaid = (await row(awaiting)).paymentIntentId;
    if (unpaid) expect(await intentStatus(unpaid)).not.toBe("requires_capture");
    // The two conversations (a hold awaiting payment has none yet) are told why, once.
    for (const id of [accepted, pending]) expect((await systemMessageTypes(t.db, id)).filter((m) => m === "session_not_running")).toEqual(["session_not_running"]);
    expect(await spotsHeld(activityId, date)).toBe(0);
    await expectSound(activityId);

    // The job again, and the count itself again: nothing moves.
    const operations = async () => (await one(t.db.select({ n: count() }).from(testPaymentOperations)))!.n;
    const movedBefore = await operations();
    const ledgersBefore = await Promise.all(short.map((id) => ledgerLines(t.db, id)));
    await t.deps.jobs.runDue();
    await checkMinimum(t.deps, { activityId, startsAt: shortStart });
    expect(await operations()).toBe(movedBefore);
    expect(await Promise.all(short.map((id) => ledgerLines(t.db, id)))).toEqual(ledgersBefore);
    for (const id of [accepted, pending]) expect((await systemMessageTypes(t.db, id)).filter((m) => m === "session_not_running").length).toBe(1);
    await expectSound(activityId);

    // Past the deadline, a booking that leaves the session short of its minimum is refused; one that reaches it is not.
    const closed = await askIntent(late, activityId, date, 1);
    expect(closed.status).toBe(409);
    expect(await body(closed)).toMatchObject({ message: "This session did not reach its minimum number of guests in time and takes no more bookings. Please choose another.", fields: { spots: expect.any(String) } });
    // The start stays offered: a booking of 4 would still run it.
    expect(await startAt(activityId, date)).toEqual({ start: "10:00", open: true, spotsLeft: 6 });
    expect((await askIntent(late, activityId, date, 4)).status).toBe(200);

    // The 14:00 session's own deadline passes: it reached its minimum and is left alone.
    clock = instantOf(date, "14:00") - 24 * HOUR + MINUTE;
    await t.deps.jobs.runDue();
    for (const id of full) {
      expect((await row(id)).status).toBe("accepted");
      expect(await ledgerLines(t.db, id)).toEqual(["authorize:5500", "capture:5500"]);
      expect(await systemMessageTypes(t.db, id)).not.toContain("session_not_running");
    }
    expect(await t.db.select({ id: bookings.id }).from(bookings).where(and(eq(bookings.activityId, activityId), isNotNull(bookings.claim)))).toEqual([]);
    await expectSound(activityId);
  }, 30_000);

  test("the count and a guest's cancellation at once: cancelled and refunded once", async () => {
    const activityId = await groupActivity({ capacity: 6, minToRun: 4, minToRunHours: 24 });
    const date = nextDate();
    const deadline = instantOf(date, "10:00") - 24 * HOUR;
    const [guest] = (await newGuests(1)) as [Client];
    clock = deadline - 30 * MINUTE;
    const id = await book(guest, activityId, date, 2);
    expect((await p.host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(200);
    clock = deadline + MINUTE;
    const [cancel] = await Promise.all([guest.postJson(`/api/bookings/${id}/cancel`, {}), t.deps.jobs.runDue()]);
    expect([200, 409]).toContain(cancel.status);
    expect(await row(id)).toMatchObject({ status: "canceled", claim: null });
    expect(await ledgerLines(t.db, id)).toEqual(["authorize:5500", "capture:5500", "refund:5500"]);
    expect((await t.deps.payments.refundsOf((await row(id)).paymentIntentId!)).length).toBe(1);
    await t.deps.jobs.runDue();
    expect(await ledgerLines(t.db, id)).toEqual(["authorize:5500", "capture:5500", "refund:5500"]);
    await expectSound(activityId);
  }, 30_000);

  test("a private group takes the session whole: it runs it, before the deadline or after", async () => {
    const activityId = await groupActivity({ capacity: 6, minToRun: 4, minToRunHours: 24, privateGroupPrice: "120" });
    const early = nextDate();
    const late = nextDate();
    clock = instantOf(early, "10:00") - 24 * HOUR - 30 * MINUTE;
    // Signed in on the day they book: a session lasts 30 days, and the dates here are weeks on.
    const [before, after] = (await newGuests(2)) as [Client, Client];
    const whole = await book(before, activityId, early, 2, { privateGroup: true, amount: "132.00" });
    clock = instantOf(early, "10:00") - 24 * HOUR + MINUTE;
    await t.deps.jobs.runDue();
    expect((await row(whole)).status).toBe("pending");
    // Past the other session's deadline, with nobody in it: a private group of 2 still runs it.
    clock = instantOf(late, "10:00") - 24 * HOUR + MINUTE;
    expect(await startAt(activityId, late)).toEqual({ start: "10:00", open: true, spotsLeft: 6 });
    const taken = await book(after, activityId, late, 2, { privateGroup: true, amount: "132.00" });
    expect((await row(taken)).status).toBe("pending");
    await t.deps.jobs.runDue();
    expect((await row(taken)).status).toBe("pending");
    await expectSound(activityId);
  }, 30_000);

  test("a minimum the host adds once spots are held is counted at its deadline all the same", async () => {
    const activityId = await groupActivity({ capacity: 6 });
    const date = nextDate();
    const [guest] = (await newGuests(1)) as [Client];
    clock = instantOf(date, "10:00") - 3 * DAY;
    const id = await book(guest, activityId, date, 2);
    expect((await p.host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(200);
    expect((await p.host.request(`/api/activities/${activityId}`, { method: "PATCH", json: { minToRun: 4, minToRunHours: 24 } })).status).toBe(200);
    clock = instantOf(date, "10:00") - 24 * HOUR + MINUTE;
    await t.deps.jobs.runDue();
    expect(await row(id)).toMatchObject({ status: "canceled", canceledBy: "host" });
    expect(await systemMessageTypes(t.db, id)).toContain("session_not_running");
    await expectSound(activityId);
  }, 30_000);
});
