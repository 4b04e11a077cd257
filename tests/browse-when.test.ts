import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeTransaction } from "../db/client";
import { eq } from "drizzle-orm";
import { activities, bookings, externalBusy, hostBlocks, type Activity } from "../db/schema";
import { activityRow, bookingRow, groupActivityRow, insert, reviewRow, userRow } from "../src/demo/factories";
import { datesOf, TIME_WINDOWS } from "../src/activities/filters";
import { makeTestApp, type Client } from "./helpers";

/**
 * Finding by when (docs/decisions/0054-find-by-when.md), on SQLite and on PostgreSQL: browse and
 * `GET /api/activities` keep only activities with an open start that matches, by the booking
 * screens' rule, in the activity's own zone; refused filters say why and change nothing else.
 *
 * The clock: Thursday 29 October 2026, 8:00 in New York (12:00 UTC). That weekend, New York's
 * clocks go back an hour in the night of Saturday to Sunday (1 November).
 */
const HOUR = 60 * 60 * 1000;
const NOW = Date.UTC(2026, 9, 29, 12, 0);
let clock = NOW;

let t: Awaited<ReturnType<typeof makeTestApp>>;
let guest: Client;
const ids: Record<string, string> = {};
const weekdays = (ranges: [number, number][]) => [ranges, ranges, ranges, ranges, ranges, ranges, ranges];

beforeAll(async () => {
  t = await makeTestApp({ now: () => clock });
  guest = t.client();
  await guest.signUpComplete({ username: "whenguest", city: "New York", country: "United States" });
  const put = insert(t.db);
  const person = async () => (await put.user(userRow({ city: "New York", country: "United States" }))) as { id: string; city: string; country: string };
  const [hostA, hostB, hostC, hostD] = [await person(), await person(), await person(), await person()];
  let created = NOW - 1000 * HOUR;
  const add = async (name: string, row: ReturnType<typeof activityRow>) => {
    created += HOUR;
    ids[name] = (await put.activity({ ...row, createdAt: created, title: name })).id;
    return row;
  };
  // Weekend mornings, 11:00 to 12:00 only: its one start a day is 11:00, the morning's last.
  await add("weekend-eleven", activityRow(hostA, { weeklyHours: [[], [], [], [], [], [[660, 720]], [[660, 720]]], hourlyRateCents: 3000 }));
  // Every day, 12:00 to 13:00: its one start is noon, the afternoon's first.
  await add("daily-noon", activityRow(hostA, { weeklyHours: weekdays([[720, 780]]), hourlyRateCents: 5000 }));
  // Two days' notice: nothing before Saturday 8:00.
  await add("two-days-notice", activityRow(hostB, { noticeMinutes: 2880, hourlyRateCents: 9000 }));
  // Booked at most a week ahead.
  await add("one-week-horizon", activityRow(hostB, { horizonDays: 7, weeklyHours: weekdays([[1080, 1200]]), hourlyRateCents: 2000 }));
  // A group of 4 on Saturdays at 10:00 (one-hour sessions), 2 spots already held.
  const group = await add("saturday-group", groupActivityRow(hostC, { capacity: 4, maxSpots: 4, sessionMinutes: 60, pricePerPersonCents: 2500, weeklyHours: [[], [], [], [], [], [[600, 660]], []] }));
  const sat10 = Date.UTC(2026, 9, 31, 14, 0); // 10:00 EDT
  for (const spots of [1, 1]) await put.booking(bookingRow(group as Activity, { guestId: hostA.id, startsAt: sat10, status: "accepted", spots }));
  // Any day, but its host is off all Saturday.
  await add("off-saturday", activityRow(hostD, { hourlyRateCents: 4500 }));
  await writeTransaction(t.db, (tx) =>
    tx.insert(hostBlocks).values({ id: crypto.randomUUID(), hostId: hostD.id, startsAt: Date.UTC(2026, 9, 31, 4, 0), endsAt: Date.UTC(2026, 10, 1, 4, 0), timeZone: "America/New_York", allDay: true }),
  );
  // Reviews for the order by rating: noon 5 stars twice, eleven 5 stars once, notice 3 stars.
  const review = async (activity: string, host: { id: string }, stars: number) => {
    const b = await put.booking(bookingRow({ id: ids[activity]!, hostId: host.id, city: "New York", hourlyRateCents: 3000, minDurationMinutes: 60 }, { guestId: hostD.id, startsAt: NOW - 30 * 24 * HOUR, status: "completed" }));
    await put.review(reviewRow({ bookingId: b.id, reviewerId: hostD.id, reviewedUserId: host.id, activityId: ids[activity]!, stars, createdAt: NOW - HOUR }));
  };
  await review("daily-noon", hostA, 5);
  await review("daily-noon", hostA, 5);
  await review("weekend-eleven", hostA, 5);
  await review("two-days-notice", hostB, 3);
});
afterAll(() => t.cleanup());

type Found = { id: string; title: string; hourlyRate: string; firstStart: { date: string; time: string; spotsLeft: number | null } | null };
const api = async (query: string) => {
  const res = await guest.get(`/api/activities?city=New%20York&${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Found[];
};
const titles = async (query: string) => (await api(query)).map((a) => a.title).sort();
const nameOf = (id: string) => Object.entries(ids).find(([, v]) => v === id)?.[0];
/** The activities of a browse page, in its order, by the names above. */
const pageTitles = (html: string) => [...html.matchAll(/href="\/activity\/([0-9a-f-]{36})"/g)].map((m) => nameOf(m[1]!)!);

describe("the filters' meaning at the edges", () => {
  test("time of day: the windows' edges, as minutes of the local day", () => {
    const inWindow = (w: [number, number], minute: number) => minute >= w[0] && minute < w[1];
    expect(inWindow(TIME_WINDOWS.morning, 11 * 60 + 59)).toBe(true);
    expect(inWindow(TIME_WINDOWS.morning, 12 * 60)).toBe(false);
    expect(inWindow(TIME_WINDOWS.afternoon, 12 * 60)).toBe(true);
    expect(inWindow(TIME_WINDOWS.afternoon, 17 * 60)).toBe(false);
    expect(inWindow(TIME_WINDOWS.evening, 17 * 60)).toBe(true);
  });

  test("this weekend: Saturday and Sunday; on a Saturday the same two; on a Sunday that Sunday alone", () => {
    const zone = "America/New_York";
    expect(datesOf("weekend", zone, NOW)).toEqual(["2026-10-31", "2026-11-01"]);
    expect(datesOf("weekend", zone, Date.UTC(2026, 9, 31, 12))).toEqual(["2026-10-31", "2026-11-01"]);
    expect(datesOf("weekend", zone, Date.UTC(2026, 10, 1, 12))).toEqual(["2026-11-01"]);
    // Today is the city's: at 23:30 in New York it is still Thursday, though Friday in UTC.
    expect(datesOf("today", zone, Date.UTC(2026, 9, 30, 3, 30))).toEqual(["2026-10-29"]);
  });

  test("an 11:00 start is morning and a 12:00 start afternoon, in New York's own time on both sides of the clock change", async () => {
    const saturday = await api("date=2026-10-31&timeOfDay=morning");
    expect(saturday.map((a) => a.title)).toContain("weekend-eleven");
    expect(saturday.find((a) => a.title === "weekend-eleven")!.firstStart).toEqual({ date: "2026-10-31", time: "11:00", spotsLeft: null });
    // Sunday 1 November: standard time again (UTC−5), the start still reads 11:00 and is still morning.
    const sunday = await api("date=2026-11-01&timeOfDay=morning");
    expect(sunday.find((a) => a.title === "weekend-eleven")!.firstStart).toEqual({ date: "2026-11-01", time: "11:00", spotsLeft: null });
    expect(sunday.map((a) => a.title)).not.toContain("daily-noon");
    const afternoon = await api("date=2026-11-01&timeOfDay=afternoon");
    expect(afternoon.map((a) => a.title)).toContain("daily-noon");
    expect(afternoon.map((a) => a.title)).not.toContain("weekend-eleven");
    expect(afternoon.find((a) => a.title === "daily-noon")!.firstStart!.time).toBe("12:00");
  });

  test("notice: two days' notice leaves out today and tomorrow, not Saturday", async () => {
    expect(await titles("date=today")).not.toContain("two-days-notice");
    expect(await titles("date=tomorrow")).not.toContain("two-days-notice");
    const saturday = await api("date=weekend");
    expect(saturday.find((a) => a.title === "two-days-notice")!.firstStart).toEqual({ date: "2026-10-31", time: "08:00", spotsLeft: null });
    // Today at 8:00: the first start of an activity without notice is the next hour.
    expect((await api("date=today")).find((a) => a.title === "off-saturday")!.firstStart).toEqual({ date: "2026-10-29", time: "09:00", spotsLeft: null });
  });

  test("horizon: a week ahead is found, eight days ahead is not", async () => {
    expect(await titles("date=2026-11-05&timeOfDay=evening")).toContain("one-week-horizon");
    expect(await titles("date=2026-11-06&timeOfDay=evening")).not.toContain("one-week-horizon");
  });

  test("people: a session with 2 spots left is found for 1 or 2, not for 3; private activities always fit", async () => {
    const one = await api("date=2026-10-31&people=1");
    expect(one.find((a) => a.title === "saturday-group")!.firstStart).toEqual({ date: "2026-10-31", time: "10:00", spotsLeft: 2 });
    expect(await titles("date=2026-10-31&people=2")).toContain("saturday-group");
    const three = await titles("date=2026-10-31&people=3");
    expect(three).not.toContain("saturday-group");
    expect(three).toContain("two-days-notice");
  });

  test("a full session is found for nobody", async () => {
    const put = insert(t.db);
    const group = (await t.db.select().from(activities).where(eq(activities.id, ids["saturday-group"]!)))[0]!;
    const extra = await put.booking(bookingRow(group, { guestId: group.hostId, startsAt: Date.UTC(2026, 9, 31, 14, 0), status: "accepted", spots: 2 }));
    try {
      expect(await titles("date=2026-10-31&people=1")).not.toContain("saturday-group");
    } finally {
      await writeTransaction(t.db, async (tx) => void (await tx.update(bookings).set({ status: "canceled" }).where(eq(bookings.id, extra.id))));
    }
    expect(await titles("date=2026-10-31&people=1")).toContain("saturday-group");
  });

  test("a day off: the host off all Saturday is found on Sunday only", async () => {
    expect(await titles("date=2026-10-31")).not.toContain("off-saturday");
    expect(await titles("date=2026-11-01")).toContain("off-saturday");
    // This weekend: found, at its first start on Sunday.
    expect((await api("date=weekend")).find((a) => a.title === "off-saturday")!.firstStart).toEqual({ date: "2026-11-01", time: "08:00", spotsLeft: null });
  });

  test("an outside calendar's busy time: the host busy all Sunday is found on Saturday only", async () => {
    const put = insert(t.db);
    const host = await put.user(userRow({ city: "New York", country: "United States" }));
    const activity = await put.activity({ ...activityRow(host as { id: string }), title: "outside-busy", hourlyRateCents: 999_00 });
    await writeTransaction(t.db, (tx) => tx.insert(externalBusy).values({ id: crypto.randomUUID(), hostId: host.id, startsAt: Date.UTC(2026, 10, 1, 5, 0), endsAt: Date.UTC(2026, 10, 2, 5, 0) }));
    try {
      expect(await titles("date=2026-11-01")).not.toContain("outside-busy");
      expect(await titles("date=2026-10-31")).toContain("outside-busy");
    } finally {
      await writeTransaction(t.db, async (tx) => void (await tx.update(activities).set({ active: false }).where(eq(activities.id, activity.id))));
    }
  });

  test("max price: per hour for private activities, per person for groups, in the city's currency", async () => {
    const cheap = await titles("date=weekend&maxPrice=30");
    expect(cheap).toEqual(["one-week-horizon", "saturday-group", "weekend-eleven"]);
    expect(await titles("maxPrice=25")).toEqual(["one-week-horizon", "saturday-group"]);
  });

  test("sort: price low to high, rating (ties: more reviews, then newest), newest", async () => {
    expect((await api("date=weekend&sort=price")).map((a) => a.title)).toEqual(["one-week-horizon", "saturday-group", "weekend-eleven", "off-saturday", "daily-noon", "two-days-notice"]);
    expect((await api("sort=rating")).map((a) => a.title)).toEqual(["daily-noon", "weekend-eleven", "two-days-notice", "off-saturday", "saturday-group", "one-week-horizon"]);
    expect((await api("sort=newest")).map((a) => a.title)).toEqual(["off-saturday", "saturday-group", "one-week-horizon", "two-days-notice", "daily-noon", "weekend-eleven"]);
  });
});

describe("the page and the API agree", () => {
  const queries = ["date=weekend&timeOfDay=morning", "date=2026-10-31&people=3", "date=weekend&sort=price", "date=today", "timeOfDay=evening", "maxPrice=40&sort=rating", "date=weekend&timeOfDay=morning&people=2&maxPrice=60&sort=price"];
  for (const query of queries) {
    test(query, async () => {
      const res = await guest.get(`/browse?city=New%20York&${query}`);
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(pageTitles(html)).toEqual((await api(query)).map((a) => a.title));
    });
  }

  test("each card says its first matching start, and a group its spots left, in the reader's language", async () => {
    const html = await (await guest.get("/browse?city=New%20York&date=2026-10-31&people=2")).text();
    expect(html).toContain("Sat 10:00 AM · 2 spots left");
    expect(html).toContain("5 activities found");
    expect(html).toContain("Sat 11:00 AM</p>");
    const fr = await (await guest.get("/browse?city=New%20York&date=2026-10-31&people=2", { "accept-language": "fr" })).text();
    expect(fr).toContain("sam. 10:00 · 2 places restantes");
    expect(fr).toContain("5 activités trouvées");
  });

  test("htmx swaps the results only, with each filter's message", async () => {
    const res = await guest.get("/browse?city=New%20York&date=weekend&people=2", { "hx-request": "true", "hx-target": "results" });
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html.startsWith('<section id="results"')).toBe(true);
    expect(html).toContain('id="browse-error-people"');
    expect(html).not.toContain("<html");
  });

  test("an empty result says what to loosen, each link leaving one filter out", async () => {
    const html = await (await guest.get("/browse?city=New%20York&date=today&timeOfDay=morning&maxPrice=10")).text();
    expect(html).toContain("Nothing matches every filter. Try:");
    expect(html).toContain('href="/browse?city=New+York&amp;timeOfDay=morning&amp;maxPrice=10"');
    expect(html).toContain('href="/browse?city=New+York&amp;date=today&amp;maxPrice=10"');
    expect(html).toContain('href="/browse?city=New+York&amp;date=today&amp;timeOfDay=morning"');
  });
});

describe("bad filter values", () => {
  const bad: [string, string, string][] = [
    ["date=someday", "date", "Choose today, tomorrow, this weekend or a date"],
    ["date=2026-02-30", "date", "Choose today, tomorrow, this weekend or a date"],
    ["date=2026-10-28", "date", "Choose today or a later date"],
    ["date=2027-12-01", "date", "Choose a date within a year from today"],
    ["timeOfDay=night", "timeOfDay", "Choose morning, afternoon or evening"],
    ["people=0", "people", "Choose from 1 to 10 people"],
    ["people=11", "people", "Choose from 1 to 10 people"],
    ["people=2.5", "people", "Choose from 1 to 10 people"],
    ["maxPrice=-5", "maxPrice", "Enter a price in numbers, more than 0"],
    ["maxPrice=0", "maxPrice", "Enter a price in numbers, more than 0"],
    ["maxPrice=ten", "maxPrice", "Enter a price in numbers, more than 0"],
    ["maxPrice=1e3", "maxPrice", "Enter a price in numbers, more than 0"],
    ["sort=cheapest", "sort", "Choose an order from the list"],
  ];
  for (const [query, field, message] of bad) {
    test(`${query}: the API answers 400 naming ${field}; the page says it beside the filter and applies the others`, async () => {
      const res = await guest.get(`/api/activities?city=New%20York&date=weekend&${query}`.replace("date=weekend&date=", "date="));
      expect(res.status).toBe(400);
      const body = (await res.json()) as { message: string; fields: Record<string, string> };
      expect(body.fields).toEqual({ [field]: message });
      expect(body.message).toBe(message);

      const others = field === "date" ? "timeOfDay=morning" : "date=weekend";
      const page = await guest.get(`/browse?city=New%20York&${others}&${query}`);
      expect(page.status).toBe(400);
      const html = await page.text();
      expect(html).toContain(`id="browse-error-${field}" class="field-error" role="alert">${message.replaceAll("'", "&#39;")}</p>`);
      // Nothing else changed: the results are those of the other filters alone.
      expect(pageTitles(html)).toEqual((await api(others)).map((a) => a.title));
    });
  }

  test("an empty value is no filter", async () => {
    const res = await guest.get("/browse?city=New%20York&date=&day=&timeOfDay=&people=&maxPrice=&sort=");
    expect(res.status).toBe(200);
    expect(pageTitles(await res.text())).toHaveLength(6);
  });

  test("the calendar's day applies when the date says so, or says nothing", async () => {
    expect(await titles("date=day&day=2026-11-01&timeOfDay=morning")).toEqual(["off-saturday", "two-days-notice", "weekend-eleven"]);
    expect(await titles("day=2026-10-31&people=3")).toEqual(["daily-noon", "one-week-horizon", "two-days-notice", "weekend-eleven"]);
    // A word of the date's choice wins over a day left in the calendar.
    expect(await titles("date=today&day=2026-10-31")).toContain("daily-noon");
    expect((await api("date=today&day=2026-10-31")).find((a) => a.title === "daily-noon")!.firstStart!.date).toBe("2026-10-29");
  });
});

describe("the landing page's search", () => {
  test("a visitor's search by when is a GET form to browse; signing in comes back to its results", async () => {
    const visitor = t.client();
    const landing = await (await visitor.get("/")).text();
    const form = landing.slice(landing.indexOf('<form method="get" action="/browse"'), landing.indexOf("</form>", landing.indexOf('action="/browse"')));
    for (const name of ["city", "date", "timeOfDay", "people"]) expect(form).toContain(`name="${name}"`);
    expect(form).toContain("What can you do, and when?");
    const asked = "/browse?city=New+York&date=weekend&timeOfDay=morning&people=2";
    const answer = await (await visitor.get(asked)).text();
    expect(answer).toContain(`/api/login?next=${encodeURIComponent(asked)}`);
    expect(pageTitles(await (await guest.get(asked)).text())).toEqual((await api("date=weekend&timeOfDay=morning&people=2")).map((a) => a.title));
  });
});

describe("paging", () => {
  const pages = async (query: string) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let guard = 0; guard < 20; guard++) {
      const res = await guest.get(`/api/activities?city=New%20York&limit=2&${query}${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status).toBe(200);
      seen.push(...((await res.json()) as Found[]).map((a) => a.title));
      cursor = res.headers.get("x-next-cursor");
      if (!cursor) break;
    }
    return seen;
  };
  for (const query of ["date=weekend", "date=weekend&sort=price", "sort=rating", "timeOfDay=morning&sort=newest"]) {
    test(`${query}: pages of two, one after the other, are the whole list in its order`, async () => {
      expect(await pages(query)).toEqual((await api(query)).map((a) => a.title));
    });
  }

  test("the page's Load more keeps the filters", async () => {
    const html = await (await guest.get("/browse?city=New%20York&date=weekend&sort=price")).text();
    expect(html).not.toContain('id="load-more"');
    const more = await (await guest.get("/api/activities?city=New%20York&date=weekend&sort=price&limit=2")).headers.get("x-next-cursor");
    const next = await (await guest.get(`/browse?city=New%20York&date=weekend&sort=price&cursor=${more}&page=more`, { "hx-request": "true" })).text();
    expect(pageTitles(next)).toEqual((await api("date=weekend&sort=price")).map((a) => a.title).slice(2));
  });
});
