import { one, writeTransaction } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { activities, bookings, hostBlocks, type Activity } from "../db/schema";
import { checkWeeklyHours, closedRanges, type WeeklyHours } from "../shared/availability";
import { isDomainError } from "../lib/domain-error";
import { openTimes, readSlot, type BookingRules } from "../src/bookings/times";
import { bookingParties, Client, makeTestApp } from "./helpers";
import { inHtml, scenario } from "./scenario";
import { decodeHtml } from "./html";

/**
 * When hosts can be booked (docs/decisions/0037): weekly hours, notice, horizon, days off and
 * blocked times, what the booking screens offer, and every flow refusing the rest on the server.
 */

const HOUR = 60 * 60 * 1000;
/** Saturday and Sunday mornings, 09:00 to 12:00. */
const WEEKEND_MORNINGS: WeeklyHours = [[], [], [], [], [], [[540, 720]], [[540, 720]]];

const rules = (over: Partial<BookingRules> = {}): BookingRules => ({
  city: "New York",
  minDurationMinutes: 60,
  maxDurationMinutes: 240,
  weeklyHours: null,
  noticeMinutes: 0,
  horizonDays: 90,
  ...over,
});

/** The rule a slot breaks, as its refusal names it (and the values it says); null when the slot reads. */
function broken(read: () => unknown) {
  try {
    read();
    return null;
  } catch (err) {
    if (!isDomainError(err)) throw err;
    return { error: err.key, ...(err.params ? { params: err.params } : {}) };
  }
}

/** Monday 2026-06-01 08:00 in New York. */
const MONDAY_MORNING_NY = Date.UTC(2026, 5, 1, 12, 0);

describe("the rules", () => {
  test("weekly hours: a booking lies wholly inside one range of its day", () => {
    const r = rules({ weeklyHours: WEEKEND_MORNINGS });
    const at = (date: string, time: string, hours: number) => readSlot(r, { date, time, durationMinutes: hours * 60 }, "datetime", MONDAY_MORNING_NY);
    expect(broken(() => at("2026-06-06", "09:00", 3))).toBeNull(); // Saturday 09:00-12:00
    expect(broken(() => at("2026-06-07", "10:00", 2))).toBeNull(); // Sunday 10:00-12:00
    expect(broken(() => at("2026-06-06", "11:00", 2))).toEqual({ error: "booking.outsideHours" }); // runs past noon
    expect(broken(() => at("2026-06-06", "12:00", 1))).toEqual({ error: "booking.outsideHours" });
    expect(broken(() => at("2026-06-08", "10:00", 1))).toEqual({ error: "booking.outsideHours" }); // a Monday
  });

  test("never set: every day, starts from 08:00 to 22:00 with any allowed duration, as before", () => {
    const r = rules();
    expect(broken(() => readSlot(r, { date: "2026-06-02", time: "22:00", durationMinutes: 240 }, "datetime", MONDAY_MORNING_NY))).toBeNull();
    expect(broken(() => readSlot(r, { date: "2026-06-02", time: "08:00", durationMinutes: 60 }, "datetime", MONDAY_MORNING_NY))).toBeNull();
  });

  test("notice and horizon", () => {
    const r = rules({ noticeMinutes: 12 * 60, horizonDays: 30 });
    // Monday 08:00: 18:00 is ten hours on, 21:00 thirteen.
    expect(broken(() => readSlot(r, { date: "2026-06-01", time: "18:00", durationMinutes: 60 }, "datetime", MONDAY_MORNING_NY))).toEqual({ error: "booking.tooSoon", params: { hours: 12 } });
    expect(broken(() => readSlot(r, { date: "2026-06-01", time: "21:00", durationMinutes: 60 }, "datetime", MONDAY_MORNING_NY))).toBeNull();
    expect(broken(() => readSlot(r, { date: "2026-07-01", time: "10:00", durationMinutes: 60 }, "datetime", MONDAY_MORNING_NY))).toBeNull();
    expect(broken(() => readSlot(r, { date: "2026-07-02", time: "10:00", durationMinutes: 60 }, "datetime", MONDAY_MORNING_NY))).toEqual({ error: "booking.tooFar", params: { days: 30 } });
  });

  test("weekly hours are checked: overlaps, ends before starts, off the half hour, too many", () => {
    expect(checkWeeklyHours([[[540, 720], [600, 660]]])).toMatchObject({ ok: false, problem: "overlap", day: 0 });
    expect(checkWeeklyHours([[], [[720, 540]]])).toMatchObject({ ok: false, problem: "endBeforeStart", day: 1 });
    expect(checkWeeklyHours([[[545, 720]]])).toMatchObject({ ok: false, problem: "invalidTime" });
    expect(checkWeeklyHours([Array.from({ length: 7 }, (_, i) => [i * 60, i * 60 + 30] as [number, number])])).toMatchObject({ ok: false, problem: "tooMany" });
    expect(checkWeeklyHours([[[840, 1080], [540, 720]]])).toEqual({ ok: true, hours: [[[540, 720], [840, 1080]], [], [], [], [], [], []] });
    expect(closedRanges(WEEKEND_MORNINGS, 5)).toEqual([[0, 540], [720, 1440]]);
    expect(closedRanges(WEEKEND_MORNINGS, 0)).toEqual([[0, 1440]]);
  });

  // The weekends the clocks change in 2026: New York forward on 8 March and back on 1 November,
  // Paris and London forward on 29 March and back on 25 October (all Sundays).
  const clockNights = [
    { city: "New York", date: "2026-03-08", utcHour: 13, weekBefore: "2026-03-01", utcHourBefore: 14 },
    { city: "New York", date: "2026-11-01", utcHour: 14, weekBefore: "2026-10-25", utcHourBefore: 13 },
    { city: "Paris", date: "2026-03-29", utcHour: 7, weekBefore: "2026-03-22", utcHourBefore: 8 },
    { city: "Paris", date: "2026-10-25", utcHour: 8, weekBefore: "2026-10-18", utcHourBefore: 7 },
    { city: "London", date: "2026-03-29", utcHour: 8, weekBefore: "2026-03-22", utcHourBefore: 9 },
    { city: "London", date: "2026-10-25", utcHour: 9, weekBefore: "2026-10-18", utcHourBefore: 8 },
  ];
  for (const night of clockNights) {
    test(`${night.city}, the Sunday of ${night.date}: weekend mornings are still 09:00-12:00 on the city's clock`, () => {
      const r = rules({ city: night.city, weeklyHours: WEEKEND_MORNINGS, horizonDays: 365 });
      const now = Date.parse(`${night.weekBefore}T00:00:00Z`) - 7 * 24 * HOUR;
      for (const [date, utcHour] of [
        [night.date, night.utcHour],
        [night.weekBefore, night.utcHourBefore],
      ] as const) {
        const slot = readSlot(r, { date, time: "09:00", durationMinutes: 180 }, "datetime", now);
        expect(new Date(slot.startsAt).toISOString()).toBe(`${date}T${String(utcHour).padStart(2, "0")}:00:00.000Z`);
        expect(slot.endsAt - slot.startsAt).toBe(3 * HOUR);
        expect(broken(() => readSlot(r, { date, time: "10:00", durationMinutes: 180 }, "datetime", now))).toEqual({ error: "booking.outsideHours" });
      }
      // What the screens offer that Sunday: 09:00, 10:00 and 11:00, nothing else.
      const open = openTimes(r, [], now, "datetime");
      expect(open.dates).toContain(night.date);
      const offered = [];
      for (let h = 8; h <= 22; h++) if (!(open.busy[night.date] ?? []).some(([a, b]) => h * 60 < b && h * 60 + 60 > a)) offered.push(h);
      expect(offered).toEqual([9, 10, 11]);
    });
  }

  test("the screens offer only dates with an open start: weekends, within the horizon", () => {
    const open = openTimes(rules({ weeklyHours: WEEKEND_MORNINGS, horizonDays: 14 }), [], MONDAY_MORNING_NY, "datetime");
    expect(open.dates).toEqual(["2026-06-06", "2026-06-07", "2026-06-13", "2026-06-14"]);
  });

  test("a booked or blocked morning is not offered, nor is a time inside the notice", () => {
    const saturdayNine = Date.UTC(2026, 5, 6, 13, 0); // 09:00 in New York
    const open = openTimes(rules({ weeklyHours: WEEKEND_MORNINGS, horizonDays: 14 }), [{ startsAt: saturdayNine, endsAt: saturdayNine + 3 * HOUR }], MONDAY_MORNING_NY, "datetime");
    expect(open.dates).toEqual(["2026-06-07", "2026-06-13", "2026-06-14"]);
    const soon = openTimes(rules({ noticeMinutes: 48 * 60, horizonDays: 3 }), [], MONDAY_MORNING_NY, "datetime");
    // Monday 08:00 with two days' notice: Monday is gone, Wednesday opens at 08:00.
    expect(soon.dates).toEqual(["2026-06-03", "2026-06-04"]);
  });
});

describe("through the app", () => {
  const START = MONDAY_MORNING_NY;
  let clock = START;
  let t: Awaited<ReturnType<typeof makeTestApp>>;
  let host: Client;
  let guest: Client;
  let stranger: Client;
  let hostId: string;
  let activityId: string;
  const setRules = async (over: Partial<Activity>) => await writeTransaction(t.db, (tx) => tx.update(activities).set(over).where(eq(activities.id, activityId)));

  beforeAll(async () => {
    t = await makeTestApp({ now: () => clock });
    ({ host, guest, stranger, hostId, activityId } = await bookingParties(t));
  });
  afterAll(() => t.cleanup());

  const intent = (c: Client, date: string, time: string, hours: number) =>
    c.postJson("/api/create-payment-intent", { amount: (40 * hours * 1.1).toFixed(2), metadata: { activityId, date, time, duration: String(hours) } });
  const message = async (res: Response) => ((await res.json()) as { message: string }).message;

  test("every flow refuses a time outside the host's week, with the spec-style message, in both languages", async () => {
    await setRules({ weeklyHours: WEEKEND_MORNINGS });
    try {
      const api = await intent(guest, "2026-06-08", "10:00", 1);
      expect(api.status).toBe(400);
      expect(await message(api)).toBe("The host does not offer this time. Please choose one of the times offered.");

      const screen = await guest.postForm(`/booking/${activityId}/date-time`, { date: "2026-06-06", time: "11:00", duration: "2" });
      expect(screen.status).toBe(400);
      expect(await screen.text()).toContain("The host does not offer this time.");

      const dialog = await guest.postForm(`/activity/${activityId}/request`, { message: "Hello!", proposedDate: "2026-06-08", proposedTime: "10:00", hours: "1" });
      expect(dialog.status).toBe(400);
      expect(await dialog.text()).toContain("The host does not offer this time.");

      // A guest who chose French reads it in French, from every flow.
      const frenchGuest = t.client();
      await frenchGuest.signUpComplete();
      frenchGuest.cookies.set("lang", "fr");
      const french = await intent(frenchGuest, "2026-06-08", "10:00", 1);
      expect(french.status).toBe(400);
      expect(await message(french)).toBe("L'hôte ne propose pas cet horaire. Choisissez l'un des horaires proposés.");
      const frenchScreen = await frenchGuest.postForm(`/booking/${activityId}/date-time`, { date: "2026-06-06", time: "11:00", duration: "2" });
      expect(frenchScreen.status).toBe(400);
      expect(decodeHtml(await frenchScreen.text())).toContain("L'hôte ne propose pas cet horaire.");
      const frenchDialog = await frenchGuest.postForm(`/activity/${activityId}/request`, { message: "Bonjour !", proposedDate: "2026-06-08", proposedTime: "10:00", hours: "1" });
      expect(frenchDialog.status).toBe(400);
      expect(decodeHtml(await frenchDialog.text())).toContain("L'hôte ne propose pas cet horaire.");

      // Inside the week: offered and accepted.
      expect((await intent(guest, "2026-06-06", "09:00", 3)).status).toBe(200);
      expect(await t.db.select().from(bookings).where(eq(bookings.activityId, activityId))).toHaveLength(0);
    } finally {
      await setRules({ weeklyHours: null });
    }
  });

  test("notice and horizon are refused by the server", async () => {
    await setRules({ noticeMinutes: 24 * 60, horizonDays: 7 });
    try {
      const soon = await intent(guest, "2026-06-01", "20:00", 1);
      expect(soon.status).toBe(400);
      expect(await message(soon)).toBe("This host needs 24 hours of notice. Please choose a later time.");
      const far = await intent(guest, "2026-06-09", "10:00", 1);
      expect(far.status).toBe(400);
      expect(await message(far)).toBe("This activity can be booked up to 7 days ahead.");
      expect((await intent(guest, "2026-06-03", "10:00", 1)).status).toBe(200);
    } finally {
      await setRules({ noticeMinutes: 0, horizonDays: 90 });
    }
  });

  test("the date-time screen and the dialog offer only open dates and hours", async () => {
    await setRules({ weeklyHours: WEEKEND_MORNINGS, horizonDays: 14 });
    try {
      const page = await (await guest.get(`/booking/${activityId}/date-time?date=2026-06-06`)).text();
      const times = [...page.matchAll(/<option value="(\d\d:00)"( selected)?( disabled)?/g)].map((m) => [m[1], !m[3]]);
      expect(times.filter(([, open]) => open).map(([v]) => v)).toEqual(["09:00", "10:00", "11:00"]);
      const monday = await (await guest.get(`/booking/${activityId}/date-time?date=2026-06-08`)).text();
      // A closed Monday is not a date one can choose: the screen opens with no date chosen.
      expect(monday).not.toContain('value="2026-06-08"');
      expect(monday.replaceAll("&quot;", '"')).toContain('"dates":["2026-06-06","2026-06-07","2026-06-13","2026-06-14"]');

      const activityPage = await (await guest.get(`/activity/${activityId}`)).text();
      const dates = [...activityPage.matchAll(/<option value="(\d{4}-\d\d-\d\d)"[^>]*data-hours="([\d ]*)"/g)].map((m) => [m[1], m[2]]);
      expect(dates).toEqual([
        ["2026-06-06", "9 10 11"],
        ["2026-06-07", "9 10 11"],
        ["2026-06-13", "9 10 11"],
        ["2026-06-14", "9 10 11"],
      ]);
    } finally {
      await setRules({ weeklyHours: null, horizonDays: 90 });
    }
  });

  test("a host's day off and blocked time: set on the Availability screen, refused in every flow, removed again", async () => {
    const screen = await host.get("/host/availability");
    expect(screen.status).toBe(200);
    expect(await screen.text()).toContain("No days off or blocked times ahead.");
    // The activity page's dialog (kept with its open times) follows a day off at once, and its end.
    const offered = async () => [...(await (await guest.get(`/activity/${activityId}`)).text()).matchAll(/<option value="(\d{4}-\d\d-\d\d)"[^>]*data-hours=/g)].map((m) => m[1]);
    expect(await offered()).toContain("2026-06-10");

    const added = await host.postForm("/host/availability/blocks", { kind: "day", date: "2026-06-10", note: "Dentist, private" });
    expect(added.status).toBe(303);
    expect(await offered()).not.toContain("2026-06-10");
    const time = await host.postForm("/host/availability/blocks", { kind: "time", date: "2026-06-11", from: "14:00", to: "16:30" });
    expect(time.status).toBe(303);
    const listed = await (await host.get("/host/availability")).text();
    expect(listed).toContain("Dentist, private");
    expect(listed).toContain("2:00 PM–4:30 PM");

    const dayOff = await intent(guest, "2026-06-10", "10:00", 1);
    expect(dayOff.status).toBe(409);
    expect(await message(dayOff)).toBe("The host is not available at this time. Please choose another.");
    expect((await intent(guest, "2026-06-11", "15:00", 1)).status).toBe(409);
    expect((await intent(guest, "2026-06-11", "13:00", 2)).status).toBe(409); // runs into 14:00
    expect((await intent(guest, "2026-06-11", "17:00", 1)).status).toBe(200);
    const dialog = await guest.postForm(`/activity/${activityId}/request`, { message: "Hello!", proposedDate: "2026-06-10", proposedTime: "10:00", hours: "1" });
    expect(dialog.status).toBe(409);

    // The note is the host's alone: the guest's pages never show it.
    expect(await (await guest.get(`/activity/${activityId}`)).text()).not.toContain("Dentist");
    expect(await (await guest.get(`/booking/${activityId}/date-time?date=2026-06-10`)).text()).not.toContain("Dentist");

    const blocks = await t.db.select().from(hostBlocks).where(eq(hostBlocks.hostId, hostId));
    expect(blocks).toHaveLength(2);
    // A stranger cannot remove it, and learns nothing.
    const strangers = await stranger.postForm(`/host/availability/blocks/${blocks[0]!.id}/remove`, {});
    expect(strangers.status).toBe(303);
    expect(await t.db.select().from(hostBlocks).where(eq(hostBlocks.hostId, hostId))).toHaveLength(2);
    for (const b of blocks) expect((await host.postForm(`/host/availability/blocks/${b.id}/remove`, {})).status).toBe(303);
    expect(await t.db.select().from(hostBlocks).where(eq(hostBlocks.hostId, hostId))).toHaveLength(0);
    expect((await intent(guest, "2026-06-10", "10:00", 1)).status).toBe(200);
    expect(await offered()).toContain("2026-06-10");
  });

  test("bad blocks are refused with the field's message and change nothing", async () => {
    const cases: [Record<string, string>, string][] = [
      [{ kind: "day", date: "2026-02-30" }, "Enter a real date."],
      [{ kind: "day", date: "2026-06-12", endDate: "2026-06-11" }, "The last day off cannot be before the first."],
      [{ kind: "time", date: "2026-06-12", from: "16:00", to: "15:00" }, "The end must be after the start."],
      [{ kind: "time", date: "2026-06-12", from: "16:10", to: "17:00" }, "Choose a time on the hour or half hour."],
      [{ kind: "day", date: "2026-05-01" }, "This time has already passed."],
      [{ kind: "holiday", date: "2026-06-12" }, "Choose a day off or a blocked time."],
      [{ kind: "day", date: "2026-06-12", note: "x".repeat(201) }, "The note is too long (200 characters at most)."],
    ];
    for (const [form, said] of cases) {
      await scenario(t, { as: host, method: "POST", url: "/host/availability/blocks", form, status: 400, contains: inHtml(said) });
    }
    const api = await host.postJson("/host/availability/blocks", { kind: "time", date: "2026-06-12", from: "16:00", to: "15:00" });
    expect(api.status).toBe(400);
    expect(await message(api)).toBe("The end must be after the start.");
    expect(await t.db.select().from(hostBlocks).where(eq(hostBlocks.hostId, hostId))).toHaveLength(0);
  });

  test("an activity's hours on the Availability screen's plain form: saved, refused with the day's message, the host's only", async () => {
    const page = await host.get(`/host/availability/activities/${activityId}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Save hours");
    const bad = await host.postForm(`/host/availability/activities/${activityId}`, { hoursMode: "weekly", hours5: "09:00-12:00, 11:00-13:00", noticeMinutes: "0", horizonDays: "90" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Saturday: two ranges overlap.");
    expect((await one(t.db.select().from(activities).where(eq(activities.id, activityId))))!.weeklyHours).toBeNull();

    expect((await stranger.get(`/host/availability/activities/${activityId}`)).status).toBe(404);
    expect((await stranger.postForm(`/host/availability/activities/${activityId}`, { hoursMode: "any" })).status).toBe(404);

    const saved = await host.postForm(`/host/availability/activities/${activityId}`, { hoursMode: "weekly", hours5: "09:00-12:00", hours6: "9:00-12:00", noticeMinutes: "720", horizonDays: "30", instantBooking: "on", title: "Not read here" });
    expect(saved.status).toBe(303);
    const row = (await one(t.db.select().from(activities).where(eq(activities.id, activityId))))!;
    expect(row).toMatchObject({ weeklyHours: WEEKEND_MORNINGS, noticeMinutes: 720, horizonDays: 30, instantBooking: true, title: "Tennis" });
    // Back to any day, no notice, 90 days, requests answered by the host.
    expect((await host.postForm(`/host/availability/activities/${activityId}`, { hoursMode: "any", noticeMinutes: "0", horizonDays: "90" })).status).toBe(303);
    expect((await one(t.db.select().from(activities).where(eq(activities.id, activityId))))!).toMatchObject({ weeklyHours: null, noticeMinutes: 0, horizonDays: 90, instantBooking: false });
  });

  test("the Availability screen needs a session, and the dashboard links to it", async () => {
    const visitor = t.client();
    const res = await visitor.get("/host/availability");
    // The sign-in screen, in place of the page.
    const page = await res.text();
    expect(page).toContain("Sign In");
    expect(page).not.toContain("Days off and blocked times");
    expect(await (await host.get("/host-dashboard")).text()).toContain('href="/host/availability"');
  });
});
