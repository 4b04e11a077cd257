import { writeTransaction } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { activities } from "../db/schema";
import type { WeeklyHours } from "../shared/availability";
import { openTimes, type BookingRules } from "../src/bookings/times";
import { bookingParties, makeTestApp } from "./helpers";
import { islandProps } from "./html";

/**
 * The dates the booking screens offer, with the clock moved through every day of a year and
 * over a month's end and a year's end: the first open date may fall in the next month (or
 * year), and the calendar's months follow the dates, whatever day it is.
 */

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
/** Saturday and Sunday mornings, 09:00 to 12:00. */
const WEEKEND_MORNINGS: WeeklyHours = [[], [], [], [], [], [[540, 720]], [[540, 720]]];
const rules: BookingRules = { city: "New York", minDurationMinutes: 60, maxDurationMinutes: 240, weeklyHours: WEEKEND_MORNINGS, noticeMinutes: 0, horizonDays: 14 };

const newYorkDate = (at: number) => new Intl.DateTimeFormat("sv-SE", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(at);
const plusDays = (date: string, days: number) => new Date(Date.parse(`${date}T12:00:00Z`) + days * DAY).toISOString().slice(0, 10);
const weekend = (date: string) => [0, 6].includes(new Date(`${date}T12:00:00Z`).getUTCDay());
const newYorkTime = (at: number) => new Intl.DateTimeFormat("en-GB", { timeZone: "America/New_York", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(at);
/** An instant at a New York wall-clock time (UTC-5 in winter, UTC-4 in summer). */
const atNewYork = (date: string, hour: number, minute = 0) => {
  const wall = `${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}`;
  return [5, 4].map((behind) => Date.parse(`${date}T00:00:00Z`) + (hour + behind) * HOUR + minute * 60_000).find((at) => newYorkDate(at) === date && newYorkTime(at) === wall)!;
};

describe("every day of a year", () => {
  test("the open dates are the weekend days from today to the horizon, across every month's and year's end", () => {
    let checked = 0;
    for (let date = "2026-11-01"; date <= "2028-01-31"; date = plusDays(date, 1)) {
      for (const [hour, minute] of [[0, 30], [10, 0], [23, 30]] as const) {
        const now = atNewYork(date, hour, minute);
        expect(newYorkDate(now)).toBe(date);
        const { dates } = openTimes(rules, [], now, "datetime");
        // Expected: every weekend day after today up to the horizon, and today if a morning start is still ahead.
        const expected: string[] = [];
        if (weekend(date) && hour < 11) expected.push(date);
        for (let i = 1; i <= rules.horizonDays; i++) if (weekend(plusDays(date, i))) expected.push(plusDays(date, i));
        expect({ at: `${date} ${hour}:${minute}`, dates }).toEqual({ at: `${date} ${hour}:${minute}`, dates: expected });
        checked++;
      }
    }
    expect(checked).toBe(457 * 3);
  });
});

describe("through the app, at a month's end and a year's end", () => {
  let clock = atNewYork("2026-11-27", 10);
  let t: Awaited<ReturnType<typeof makeTestApp>>;
  let activityId: string;

  beforeAll(async () => {
    t = await makeTestApp({ now: () => clock });
    ({ activityId } = await bookingParties(t));
    await writeTransaction(t.db, (tx) => tx.update(activities).set({ weeklyHours: WEEKEND_MORNINGS, horizonDays: 14 }).where(eq(activities.id, activityId)));
  });
  afterAll(() => t.cleanup());

  const offered = async () => {
    // A guest signed in now: a session from weeks before would have ended.
    const guest = t.client();
    await guest.signUpComplete();
    const page = await (await guest.get(`/booking/${activityId}/date-time`)).text();
    const props = islandProps(page, "DateTimePicker") as { dates: string[] };
    const dialog = [...(await (await guest.get(`/activity/${activityId}`)).text()).matchAll(/<option value="(\d{4}-\d\d-\d\d)"[^>]*data-hours=/g)].map((m) => m[1]);
    return { screen: props.dates, dialog };
  };

  for (const [now, dates] of [
    // Friday 27 November: the first Saturday is this month's, the next weekend's Sunday is December's.
    [atNewYork("2026-11-27", 10), ["2026-11-28", "2026-11-29", "2026-12-05", "2026-12-06"]],
    // Monday 30 November, late: every open date is December's.
    [atNewYork("2026-11-30", 23, 30), ["2026-12-05", "2026-12-06", "2026-12-12", "2026-12-13"]],
    // New Year's Eve, late: the weekend after is next year's.
    [atNewYork("2026-12-31", 23, 30), ["2027-01-02", "2027-01-03", "2027-01-09", "2027-01-10"]],
  ] as const) {
    test(`${new Date(now).toISOString()}: the date-time screen and the dialog offer ${dates.join(", ")}`, async () => {
      clock = now;
      expect(await offered()).toEqual({ screen: [...dates], dialog: [...dates] });
    });
  }
});
