import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { one } from "../db/client";
import { bookings, bookingSelections } from "../db/schema";
import { formData, islandProps, select } from "./html";
import { bookingParties, Client, makeTestApp, TEST_CARD } from "./helpers";

/**
 * The guest's booking screens for a group session (docs/decisions/0049), without JavaScript: the
 * booking dialog on the activity page and its payment step, the date-time screen, the payment and
 * success screens and the bookings list. A session of 6 spots at $25 a person, two hours long,
 * with a private group at $120 at least.
 */
const HOUR = 60 * 60 * 1000;
// 2026-06-01 12:00 in New York (16:00 UTC).
const START = Date.UTC(2026, 5, 1, 16, 0);
const now = () => START;

let t: Awaited<ReturnType<typeof makeTestApp>>;
let host: Client;
let privateActivityId: string;
let groupId: string;

const GROUP = {
  title: "Pottery class",
  description: "Throw your first bowl on the wheel.",
  category: "art",
  format: "group",
  capacity: 6,
  pricePerPerson: "25",
  sessionMinutes: 120,
  privateGroupPrice: "120",
};

let day = 2;
/** A fresh day for each test: a later date, New York wall clock. */
const nextDate = () => new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);

const html = async (res: Response | Promise<Response>) => (await res).text();
const text = (page: string, selector: string) => select(page, selector).map((e) => e.text.trim());
const heldOn = async (date: string) =>
  (await t.db.select({ spots: bookings.spots }).from(bookings).where(and(eq(bookings.activityId, groupId), eq(bookings.startsAtLocal, `${date}T10:00:00`)))).reduce((n, b) => n + b.spots, 0);

async function newGuest() {
  const c = t.client();
  await c.signUpComplete();
  return c;
}

/** The dialog's first step as the activity page's form posts it. */
const dialogStep = (c: Client, date: string, fields: Record<string, string>, headers: HeadersInit = {}) =>
  c.request(`/activity/${groupId}/request`, { method: "POST", headers, form: { _csrf: c.csrf, message: "Hello!", proposedDate: date, proposedTime: "10:00", hours: "2", ...fields } });

/** The dialog to its end: the details step, the payment step's form as shown, the hosted checkout paid with the test card. */
async function bookThroughDialog(c: Client, date: string, fields: Record<string, string>) {
  const step = await html(dialogStep(c, date, fields));
  const pay = formData(step, `form[action="/activity/${groupId}/request/pay"]`);
  const paid = await c.postForm(`/activity/${groupId}/request/pay`, pay);
  expect(paid.status).toBe(303);
  const checkout = new URL(paid.headers.get("location")!, "http://localhost");
  const done = await c.postForm(checkout.pathname + checkout.search, TEST_CARD);
  expect(done.status).toBe(303);
  return { step, pay };
}

/** The date-time screen's form as the page shows it (no JavaScript), with `fields` typed in, then the card. */
async function bookThroughDateTime(c: Client, date: string, fields: Record<string, string>) {
  const screen = await html(c.get(`/booking/${groupId}/date-time?date=${date}`));
  const form = { ...formData(screen, "form[data-datetime-fallback]"), date, time: "10:00", ...fields };
  const chosen = await c.postForm(`/booking/${groupId}/date-time`, form);
  expect(chosen.status).toBe(303);
  expect(chosen.headers.get("location")).toBe(`/booking/${groupId}/payment`);
  const payment = await html(c.get(`/booking/${groupId}/payment`));
  const paid = await c.postForm(`/booking/${groupId}/payment`, { ...formData(payment, "form[data-card-form]"), ...TEST_CARD });
  expect(paid.status).toBe(303);
  return { screen, form, payment, success: paid.headers.get("location")! };
}

beforeAll(async () => {
  t = await makeTestApp({ now });
  const parties = await bookingParties(t);
  host = parties.host;
  privateActivityId = parties.activityId;
  const res = await host.postJson("/api/activities", GROUP);
  if (res.status !== 201) throw new Error(`creating the group activity answered ${res.status}: ${await res.text()}`);
  groupId = ((await res.json()) as { id: string }).id;
});
afterAll(() => t.cleanup());

describe("the booking dialog of a group activity", () => {
  test("offers a session's fixed length, the spots within the bounds, the private group and the total; a private activity's is unchanged", async () => {
    const guest = await newGuest();
    const page = await html(guest.get(`/activity/${groupId}`));
    const form = `form[action="/activity/${groupId}/request"]`;
    expect(select(page, "select#rq-hours")).toHaveLength(0);
    expect(select(page, `${form} input[type="hidden"][name="hours"]`)[0]?.attributes.value).toBe("2");
    expect(text(page, "[data-session-length]")[0]).toContain("2 hours");
    const spots = select(page, `${form} input[name="spots"]`)[0]!.attributes;
    expect([spots.type, spots.min, spots.max, spots.value]).toEqual(["number", "1", "6", "1"]);
    expect(select(page, `${form} button[data-spots-step]`)).toHaveLength(2);
    expect(select(page, `${form} input[type="checkbox"][name="privateGroup"]`)).toHaveLength(1);
    expect(text(page, `${form} label`).find((l) => l.includes("Private group"))).toContain("Private group: $120.00 at least");
    expect(page).toContain("once a spot is sold, it can no longer be booked whole");
    // The total for the fewest spots: 1 × $25 + 10%.
    expect(select(page, "[data-group-total][aria-live=polite]")).toHaveLength(1);
    expect(text(page, "[data-group-total] dt")).toEqual(["1 spot × $25.00", "Service fee (10%)", "Total"]);
    expect(text(page, "[data-group-total] dd")).toEqual(["$25.00", "$2.50", "$27.50"]);
    // The page script's data: the words for each count of spots left, each date's spots.
    const texts = JSON.parse(select(page, "select#rq-time")[0]!.attributes["data-spots-texts"]!) as Record<string, string>;
    expect([texts["0"], texts["1"], texts["3"]]).toEqual(["Full", "1 spot left", "3 spots left"]);

    const plain = await html(guest.get(`/activity/${privateActivityId}`));
    expect(select(plain, "select#rq-hours")).toHaveLength(1);
    expect(select(plain, 'input[name="spots"]')).toHaveLength(0);
    expect(select(plain, "[data-group-total]")).toHaveLength(0);
  });

  test("books 3 spots with the test card: the payment step shows the spots, the price per person and the server's totals; 3 spots are left", async () => {
    const date = nextDate();
    const guest = await newGuest();
    const { step, pay } = await bookThroughDialog(guest, date, { spots: "3" });
    expect(text(step, "[data-summary-spots] dd")).toEqual(["3 spots"]);
    expect(step).toContain("Price per person");
    expect(text(step, "section.card dl dd")).toEqual(expect.arrayContaining(["$25.00", "$75.00", "$7.50", "$82.50"]));
    expect(step).toContain("Pay $82.50");
    expect(pay).toMatchObject({ spots: "3", privateGroup: "false", hours: "2", amount: "82.50" });
    expect(await heldOn(date)).toBe(3);

    // The activity page says 3 spots left at 10:00 on that date (for the page script) …
    const other = await newGuest();
    const page = await html(other.get(`/activity/${groupId}`));
    const option = select(page, `select#rq-date option[value="${date}"]`)[0]!.attributes;
    expect(JSON.parse(option["data-spots"]!)["10"]).toBe(3);
    // … and a step for that date says it in the start's label.
    const refused = await html(dialogStep(other, date, { spots: "4", message: "Four of us" }));
    expect(text(refused, "select#rq-time option[selected]")).toEqual(["10:00 AM · 3 spots left"]);
    expect(refused).toContain("Only 3 spots are left at this time.");
    // The values are kept, and nothing is held.
    expect(select(refused, 'input[name="spots"]')[0]!.attributes.value).toBe("4");
    expect(text(refused, "textarea[name=message]")).toEqual(["Four of us"]);
    expect(await heldOn(date)).toBe(3);
    // Other guests' names are never shown.
    expect(refused).not.toContain("Test Person");

    // The guest's bookings list says the spots.
    const list = await html(guest.get("/bookings"));
    expect(text(list, "[data-booking-when]").some((w) => w.endsWith("· 3 spots"))).toBe(true);
  });

  test("0 spots, more than the most per booking, and spots that are no number are refused with the field's message, nothing held", async () => {
    const date = nextDate();
    const guest = await newGuest();
    for (const spots of ["0", "7", "two"]) {
      const res = await dialogStep(guest, date, { spots });
      expect(res.status).toBe(400);
      const page = await res.text();
      expect(page).toContain("Choose from 1 to 6 spots.");
      expect(select(page, `form[action="/activity/${groupId}/request/pay"]`)).toHaveLength(0);
    }
    expect(await heldOn(date)).toBe(0);
  });

  test("a private group: priced at the higher of spots × price and its price, and refused once a spot is sold", async () => {
    const date = nextDate();
    const guest = await newGuest();
    const step = await html(dialogStep(guest, date, { spots: "4", privateGroup: "true" }));
    expect(text(step, "[data-summary-spots] dd")).toEqual(["Private group · 4 spots"]);
    // max(4 × $25, $120) = $120, + $12.
    expect(step).toContain("Pay $132.00");
    expect(formData(step, `form[action="/activity/${groupId}/request/pay"]`)).toMatchObject({ spots: "4", privateGroup: "true", amount: "132.00" });
    expect(await heldOn(date)).toBe(0);

    await bookThroughDialog(await newGuest(), date, { spots: "1" });
    const refused = await dialogStep(guest, date, { spots: "4", privateGroup: "true" });
    expect(refused.status).toBe(409);
    const page = await refused.text();
    expect(page).toContain("This session already has guests: it can no longer be booked as a private group.");
    expect(select(page, 'input[name="privateGroup"]')[0]!.attributes.checked).toBeDefined();
    expect(await heldOn(date)).toBe(1);
  });

  test("a full session: its start says Full and is not offered; a request for it is refused", async () => {
    const date = nextDate();
    await bookThroughDialog(await newGuest(), date, { spots: "6" });
    const guest = await newGuest();
    const refused = await dialogStep(guest, date, { spots: "1" });
    expect(refused.status).toBe(409);
    const page = await refused.text();
    expect(page).toContain("Full: no spots are left at this time.");
    const [full] = select(page, 'select#rq-time option[value="10:00"]');
    expect(full!.text).toBe("10:00 AM · Full");
    expect(full!.attributes.disabled).toBeDefined();
    expect(await heldOn(date)).toBe(6);
  });
});

describe("the date-time screen of a group activity", () => {
  test("books spots with the test card: spots left per start, the fixed length, the spots and the total, through to the success screen", async () => {
    const date = nextDate();
    const first = await newGuest();
    const screen = await html(first.get(`/booking/${groupId}/date-time?date=${date}`));
    // No duration to choose: the session's length is sent.
    expect(select(screen, "select#bk-duration")).toHaveLength(0);
    expect(select(screen, 'form[data-datetime-fallback] input[type="hidden"][name="duration"]')[0]?.attributes.value).toBe("2");
    expect(text(screen, "select#bk-time option").find((o) => o.startsWith("10:00 AM"))).toBe("10:00 AM · 6 spots left");
    const props = islandProps(screen, "DateTimePicker") as { group: { spots: Record<string, Record<string, number>>; min: number; max: number; sessionMinutes: number } };
    expect(props.group).toMatchObject({ min: 1, max: 6, sessionMinutes: 120 });
    expect(props.group.spots[date]!["10"]).toBe(6);

    const { payment, success } = await bookThroughDateTime(first, date, { spots: "3" });
    expect(text(payment, "[data-summary-spots] dd")).toEqual(["3 spots"]);
    expect(payment).toContain("Price per person");
    expect(text(payment, "form[data-card-form] button[type=submit]")).toEqual(["Confirm & Pay $82.50"]);
    expect(text(payment, "section.card dl dd")).toEqual(expect.arrayContaining(["$25.00", "$75.00", "$7.50", "$82.50"]));
    expect(text(payment, "section.card p.text-sm.font-medium")).toContain("$25.00 per person");
    const done = await html(first.get(success));
    expect(text(done, "[data-success-spots]")).toEqual(["3 spots booked for this session."]);
    expect(await heldOn(date)).toBe(3);

    // 3 of 6 held: "3 spots left", for the screen and its island alike.
    const second = await newGuest();
    const after = await html(second.get(`/booking/${groupId}/date-time?date=${date}`));
    expect(text(after, "select#bk-time option").find((o) => o.startsWith("10:00 AM"))).toBe("10:00 AM · 3 spots left");
    expect((islandProps(after, "DateTimePicker") as { group: { spots: Record<string, Record<string, number>> } }).group.spots[date]!["10"]).toBe(3);
    await bookThroughDateTime(second, date, { spots: "2" });
    expect(await heldOn(date)).toBe(5);

    // One left: asking for two is refused, the screen shown again with the choice kept, nothing held.
    const third = await newGuest();
    const selections = async () => (await t.db.select().from(bookingSelections).where(eq(bookingSelections.activityId, groupId))).length;
    const kept = await selections();
    const screen3 = await html(third.get(`/booking/${groupId}/date-time?date=${date}`));
    const refused = await third.postForm(`/booking/${groupId}/date-time`, { ...formData(screen3, "form[data-datetime-fallback]"), date, time: "10:00", spots: "2" });
    expect(refused.status).toBe(409);
    const page = await refused.text();
    expect(page).toContain("Only 1 spot is left at this time.");
    expect(select(page, "form[data-datetime-fallback] input[name=spots]")[0]!.attributes.value).toBe("2");
    expect(text(page, "select#bk-time option[selected]")).toEqual(["10:00 AM · 1 spot left"]);
    expect((islandProps(page, "DateTimePicker") as { selected: { spots: number; time: string } }).selected).toMatchObject({ spots: 2, time: "10:00" });
    expect(await heldOn(date)).toBe(5);
    expect(await selections()).toBe(kept);

    // The last spot; then the start says Full and cannot be chosen.
    await bookThroughDateTime(third, date, { spots: "1" });
    const full = await html((await newGuest()).get(`/booking/${groupId}/date-time?date=${date}`));
    const [ten] = select(full, 'select#bk-time option[value="10:00"]');
    expect(ten!.text).toBe("10:00 AM · Full");
    expect(ten!.attributes.disabled).toBeDefined();
  });

  test("0 spots is refused with the field's message, the choice kept; the choice saved is shown again", async () => {
    const date = nextDate();
    const guest = await newGuest();
    const refused = await guest.postForm(`/booking/${groupId}/date-time`, { date, time: "10:00", duration: "2", spots: "0" });
    expect(refused.status).toBe(400);
    const page = await refused.text();
    expect(page).toContain("Choose from 1 to 6 spots.");
    expect(select(page, "form[data-datetime-fallback] input[name=spots]")[0]!.attributes.value).toBe("0");
    expect(await one(t.db.select().from(bookingSelections).where(and(eq(bookingSelections.activityId, groupId), eq(bookingSelections.date, date))))).toBeUndefined();

    // A private group of 4 is kept on the server; the screen shows it again.
    expect((await guest.postForm(`/booking/${groupId}/date-time`, { date, time: "10:00", duration: "2", spots: "4", privateGroup: "true" })).status).toBe(303);
    const payment = await html(guest.get(`/booking/${groupId}/payment`));
    expect(text(payment, "[data-summary-spots] dd")).toEqual(["Private group · 4 spots"]);
    expect(text(payment, "form[data-card-form] button[type=submit]")).toEqual(["Confirm & Pay $132.00"]);
    const again = await html(guest.get(`/booking/${groupId}/date-time`));
    expect(select(again, "form[data-datetime-fallback] input[name=spots]")[0]!.attributes.value).toBe("4");
    expect(select(again, "form[data-datetime-fallback] input[name=privateGroup]")[0]!.attributes.checked).toBeDefined();
    expect(text(again, "form[data-datetime-fallback] [data-group-total] dd")).toEqual(["$120.00", "$12.00", "$132.00"]);
  });

  test("in French, the spots left and the total are said in French", async () => {
    const date = nextDate();
    const guest = await newGuest();
    const page = await html(guest.get(`/booking/${groupId}/date-time?date=${date}`, { "accept-language": "fr" }));
    expect(text(page, "select#bk-time option").find((o) => o.startsWith("10:00"))).toBe("10:00 · 6 places restantes");
    expect(text(page, "[data-group-total] dt")[0]!.replace(/\s/g, " ")).toBe("1 place × 25,00 $US");
  });
});
