import { one, writeTransaction } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import ICAL from "ical.js";
import { activityRow, bookingRow, insert, userRow } from "../src/demo/factories";
import { externalBusy, jobs, users, type User } from "../db/schema";
import { busyCalendarState, busyJobKey, setBusyCalendar, setBusyFetchOptions } from "../src/availability/busy-calendar";
import { busyTimes } from "../src/availability/busy-times";
import { feedUrl } from "../src/availability/feed";
import type { Resolver } from "../src/notifications/destinations";
import type { View } from "../src/shell/view";
import { translator } from "../src/texts";
import { BusyCalendarCard } from "../views/availability/BusyCalendarCard";
import { CalendarFeedCard } from "../views/availability/CalendarFeedCard";
import { Client, makeTestApp, ORIGIN, until } from "./helpers";

/**
 * Private calendar feeds and a host's outside busy calendar (docs/decisions/0037): the feed
 * through its link as a calendar app reads it, the link's life (on, reset, off), and the busy
 * calendar read from a fake iCal server on this machine by its durable job, whose events then
 * refuse a guest's request.
 */
const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
// 2026-06-01 12:00 in New York (16:00 UTC), a Monday: the clock every test starts from.
const START = Date.UTC(2026, 5, 1, 16, 0);
let clock = START;
const now = () => clock;

/** The instant of a New York wall clock. */
const ny = (local: string) => Temporal.PlainDateTime.from(local).toZonedDateTime("America/New_York").epochMilliseconds;

let t: Awaited<ReturnType<typeof makeTestApp>>;
let host: User;
let guest: User;
let other: User;
let activity: Awaited<ReturnType<ReturnType<typeof insert>["activity"]>>;

beforeAll(async () => {
  t = await makeTestApp({ now });
  const put = insert(t.db);
  host = await put.user(userRow({ firstName: "Hana", lastName: "Host", locale: "en" }));
  guest = await put.user(userRow({ firstName: "Gaspard", lastName: "Guest", locale: "fr" }));
  other = await put.user(userRow({ firstName: "Olive", lastName: "Other" }));
  activity = await put.activity(activityRow(host, { title: "Tennis", hasMeetingPoint: true, meetingPoint: "Court 3, Central Park" }, START - 30 * DAY));
});
afterAll(() => t.cleanup());

const signedIn = async (user: User) => {
  const c = t.client();
  await c.signInAs(user.id);
  return c;
};

const userOf = async (id: string) => (await one(t.db.select().from(users).where(eq(users.id, id))))!;

/** The feed's path (for app.handle) from the person's current link. */
const feedPath = async (id: string) => {
  const url = feedUrl(t.deps, await userOf(id));
  return url ? new URL(url).pathname : null;
};

/** The events of a feed, read with ical.js as a calendar app would. */
function eventsOf(text: string) {
  const root = new ICAL.Component(ICAL.parse(text));
  return {
    root,
    events: root.getAllSubcomponents("vevent").map((c) => {
      const event = new ICAL.Event(c);
      const dtstart = c.getFirstProperty("dtstart")!;
      return {
        uid: event.uid,
        summary: event.summary,
        status: String(c.getFirstPropertyValue("status")),
        tzid: dtstart.getParameter("tzid"),
        start: String(dtstart.getFirstValue()),
        end: String(c.getFirstProperty("dtend")!.getFirstValue()),
        location: event.location,
        description: event.description,
        url: String(c.getFirstPropertyValue("url") ?? ""),
      };
    }),
  };
}

describe("calendar feeds", () => {
  let accepted: { id: string };
  let pending: { id: string };

  beforeAll(async () => {
    const put = insert(t.db);
    accepted = await put.booking(bookingRow(activity, { guestId: guest.id, startsAt: ny("2026-06-10T14:00"), status: "accepted", durationMinutes: 90 }));
    pending = await put.booking(bookingRow(activity, { guestId: guest.id, startsAt: ny("2026-06-12T09:30"), status: "pending", durationMinutes: 60 }));
    for (const status of ["canceled", "rejected", "expired", "awaiting_payment"] as const) {
      await put.booking(bookingRow(activity, { guestId: guest.id, startsAt: ny("2026-06-14T10:00"), status }));
    }
    // Ended more than 30 days ago: no longer in the feed. Ended 10 days ago: still there.
    await put.booking(bookingRow(activity, { guestId: guest.id, startsAt: START - 40 * DAY, status: "accepted" }));
    await put.booking(bookingRow(activity, { guestId: guest.id, startsAt: START - 10 * DAY, status: "accepted" }));
    // Someone else's booking with the same host: in the host's feed, never in the guest's.
    await put.booking(bookingRow(activity, { guestId: other.id, startsAt: ny("2026-06-20T10:00"), status: "accepted" }));
    // Another host's activity booked by `other`: in nobody's feed here.
    const elsewhere = await put.activity(activityRow(other, { title: "Chess" }));
    const stranger = await put.user(userRow({ firstName: "Sol" }));
    await put.booking(bookingRow(elsewhere, { guestId: stranger.id, startsAt: ny("2026-06-11T10:00"), status: "accepted" }));
  });

  test("off at first: Settings offers to turn it on, and no link opens anything", async () => {
    const c = await signedIn(host);
    const html = await (await c.get("/settings")).text();
    expect(html).toContain("Turn on calendar feed");
    expect(html).not.toContain("/calendar/");
    expect(await feedPath(host.id)).toBeNull();
  });

  test("a visitor without a session cannot turn a feed on, nor save a busy calendar", async () => {
    const visitor = t.client();
    const on = await visitor.postJson("/settings/calendar-feed", { action: "on" });
    expect(on.status).toBe(401);
    const busy = await visitor.postJson("/availability/busy-calendar", { url: "https://calendar.example.com/x.ics" });
    expect(busy.status).toBe(401);
    expect((await userOf(host.id)).calendarFeedVersion).toBe(0);
  });

  test("the host's feed: accepted and pending bookings only, in the booking's zone, with the guest's name", async () => {
    const c = await signedIn(host);
    const on = await c.postForm("/settings/calendar-feed", { action: "on", next: "/settings" });
    expect(on.status).toBe(303);
    expect(on.headers.get("location")).toBe("/settings");
    const path = (await feedPath(host.id))!;
    expect(path).toMatch(new RegExp(`^/calendar/${host.id}/[A-Za-z0-9_-]{43}\\.ics$`));
    // Settings now shows the link, with the buttons.
    const html = await (await c.get("/settings")).text();
    expect(html).toContain(`${ORIGIN}${path}`);
    expect(html).toContain("Reset link");
    expect(html).toContain("Turn off");
    expect(html).toContain("data-copy=");

    // The calendar app has no session.
    const res = await t.client().get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/calendar; charset=utf-8");
    expect(res.headers.get("cache-control")).toMatch(/private|no-store/);
    expect(res.headers.get("cache-control")).not.toContain("public");
    const { root, events } = eventsOf(await res.text());
    expect(root.getAllSubcomponents("vtimezone").map((z) => z.getFirstPropertyValue("tzid"))).toEqual(["America/New_York"]);
    expect(events.map((e) => e.summary).sort()).toEqual(["Tennis · Gaspard", "Tennis · Gaspard", "Tennis · Gaspard", "Tennis · Olive"]);
    const a = events.find((e) => e.uid === `booking-${accepted.id}@localhost`)!;
    expect(a).toMatchObject({ status: "CONFIRMED", tzid: "America/New_York", start: "2026-06-10T14:00:00", end: "2026-06-10T15:30:00" });
    expect(a.location).toBe("Court 3, Central Park, New York, United States");
    expect(a.url).toBe(`${ORIGIN}/bookings/${accepted.id}`);
    const p = events.find((e) => e.uid === `booking-${pending.id}@localhost`)!;
    expect(p).toMatchObject({ status: "TENTATIVE", tzid: "America/New_York", start: "2026-06-12T09:30:00", end: "2026-06-12T10:30:00" });
    // The instants are right too: 14:00 in New York in June is 18:00 UTC.
    const parsed = new ICAL.Event(root.getAllSubcomponents("vevent").find((c) => c.getFirstPropertyValue("uid") === a.uid)!);
    expect(parsed.startDate.toUnixTime() * 1000).toBe(Date.UTC(2026, 5, 10, 18, 0));
    // Nothing of the canceled, rejected, expired or unpaid ones, nor the old one, nor Chess.
    expect(events.length).toBe(4);
    expect(events.some((e) => e.summary.startsWith("Chess"))).toBe(false);
  });

  test("the guest's feed: their own bookings, named after the host, in their language", async () => {
    const c = await signedIn(guest);
    expect((await c.postForm("/settings/calendar-feed", { action: "on" })).status).toBe(303);
    const res = await t.client().get((await feedPath(guest.id))!);
    expect(res.status).toBe(200);
    const { events } = eventsOf(await res.text());
    expect(events.length).toBe(3);
    expect(new Set(events.map((e) => e.summary))).toEqual(new Set(["Tennis · Hana"]));
    expect(events.map((e) => e.status).sort()).toEqual(["CONFIRMED", "CONFIRMED", "TENTATIVE"]);
    expect(events.find((e) => e.uid === `booking-${pending.id}@localhost`)!.description).toContain("Demande en attente de réponse.");
    // Another person's link is not this one.
    expect(await feedPath(guest.id)).not.toBe(await feedPath(host.id));
  });

  test("a wrong token, an old link after a reset and a turned-off feed: 404", async () => {
    const c = await signedIn(host);
    const path = (await feedPath(host.id))!;
    const wrong = path.replace(/\/([A-Za-z0-9_-])([A-Za-z0-9_-]{42})\.ics$/, (_, first: string, rest: string) => `/${first === "A" ? "B" : "A"}${rest}.ics`);
    expect(wrong).not.toBe(path);
    expect((await t.client().get(wrong)).status).toBe(404);
    expect((await t.client().get(path.replace(".ics", ".txt"))).status).toBe(404);
    // Someone else's id with this token.
    expect((await t.client().get(path.replace(host.id, guest.id))).status).toBe(404);

    const reset = await c.postForm("/settings/calendar-feed", { action: "reset" });
    expect(reset.status).toBe(303);
    const renewed = (await feedPath(host.id))!;
    expect(renewed).not.toBe(path);
    expect((await t.client().get(path)).status).toBe(404);
    expect((await t.client().get(renewed)).status).toBe(200);

    expect((await c.postForm("/settings/calendar-feed", { action: "off" })).status).toBe(303);
    expect(await feedPath(host.id)).toBeNull();
    expect((await t.client().get(renewed)).status).toBe(404);
    expect(await (await c.get("/settings")).text()).toContain("Turn on calendar feed");

    // On again: a new link; none from before comes back.
    expect((await c.postForm("/settings/calendar-feed", { action: "on" })).status).toBe(303);
    const again = (await feedPath(host.id))!;
    expect(again).not.toBe(renewed);
    expect(again).not.toBe(path);
    expect((await t.client().get(renewed)).status).toBe(404);
    expect((await t.client().get(again)).status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------

/** The fake calendar server's answers; `mode` changes what /cal.ics gives. */
let mode: "ok" | "big" | "stream" | "slow" | "moved" | "away" = "ok";
let server: ReturnType<typeof Bun.serve>;

const CALENDAR = [
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "PRODID:-//Test//Busy//EN",
  // Weekly, Mondays 10:00-12:00 in New York, six times, the second one taken out.
  "BEGIN:VEVENT",
  "UID:weekly@test",
  "DTSTAMP:20260501T000000Z",
  "DTSTART;TZID=America/New_York:20260608T100000",
  "DTEND;TZID=America/New_York:20260608T120000",
  "RRULE:FREQ=WEEKLY;COUNT=6",
  "EXDATE;TZID=America/New_York:20260615T100000",
  "SUMMARY:Yoga class",
  "END:VEVENT",
  // Free time: blocks nothing.
  "BEGIN:VEVENT",
  "UID:free@test",
  "DTSTAMP:20260501T000000Z",
  "DTSTART;TZID=America/New_York:20260609T100000",
  "DTEND;TZID=America/New_York:20260609T120000",
  "TRANSP:TRANSPARENT",
  "SUMMARY:Maybe",
  "END:VEVENT",
  // Cancelled: blocks nothing.
  "BEGIN:VEVENT",
  "UID:cancelled@test",
  "DTSTAMP:20260501T000000Z",
  "DTSTART;TZID=America/New_York:20260610T100000",
  "DTEND;TZID=America/New_York:20260610T120000",
  "STATUS:CANCELLED",
  "END:VEVENT",
  // All day on June 11: the whole day in New York.
  "BEGIN:VEVENT",
  "UID:allday@test",
  "DTSTAMP:20260501T000000Z",
  "DTSTART;VALUE=DATE:20260611",
  "DTEND;VALUE=DATE:20260612",
  "END:VEVENT",
  // In UTC.
  "BEGIN:VEVENT",
  "UID:utc@test",
  "DTSTAMP:20260501T000000Z",
  "DTSTART:20260612T140000Z",
  "DTEND:20260612T150000Z",
  "END:VEVENT",
  // Already over.
  "BEGIN:VEVENT",
  "UID:past@test",
  "DTSTAMP:20260501T000000Z",
  "DTSTART:20260501T140000Z",
  "DTEND:20260501T150000Z",
  "END:VEVENT",
  "END:VCALENDAR",
  "",
].join("\r\n");

const EXPECTED = [
  [ny("2026-06-08T10:00"), ny("2026-06-08T12:00")],
  [ny("2026-06-11T00:00"), ny("2026-06-12T00:00")],
  [Date.UTC(2026, 5, 12, 14), Date.UTC(2026, 5, 12, 15)],
  [ny("2026-06-22T10:00"), ny("2026-06-22T12:00")],
  [ny("2026-06-29T10:00"), ny("2026-06-29T12:00")],
  [ny("2026-07-06T10:00"), ny("2026-07-06T12:00")],
  [ny("2026-07-13T10:00"), ny("2026-07-13T12:00")],
];

const rowsOf = async (hostId: string) =>
  (await t.db
    .select({ startsAt: externalBusy.startsAt, endsAt: externalBusy.endsAt })
    .from(externalBusy)
    .where(eq(externalBusy.hostId, hostId)))
    .map((r) => [r.startsAt, r.endsAt])
    .sort((a, b) => a[0]! - b[0]!);

/** Moves the clock past the next read and runs the due jobs. */
async function nextRead() {
  clock += 31 * MINUTE;
  await t.deps.jobs.runDue();
}

describe("outside busy calendar", () => {
  let busyHost: User;
  let busyActivity: { id: string };
  let hostClient: Client;
  let calendarUrl: string;

  beforeAll(async () => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const path = new URL(req.url).pathname;
        if (path === "/moved.ics") return new Response(CALENDAR, { headers: { "content-type": "text/calendar" } });
        if (path !== "/cal.ics") return new Response("no", { status: 404 });
        if (mode === "moved") return new Response(null, { status: 301, headers: { location: "/moved.ics" } });
        if (mode === "away") return new Response(null, { status: 302, headers: { location: "https://10.0.0.1/cal.ics" } });
        if (mode === "big") return new Response(CALENDAR.replace("END:VCALENDAR", `X-PAD:${"x".repeat(1024 * 1024 + 10)}\r\nEND:VCALENDAR`), { headers: { "content-type": "text/calendar" } });
        if (mode === "stream") {
          // No declared length: 64 KiB chunks, 24 of them (1.5 MiB), read until the limit.
          let sent = 0;
          const chunk = new TextEncoder().encode(`X-PAD:${"y".repeat(64 * 1024 - 8)}\r\n`);
          return new Response(
            new ReadableStream({
              async pull(controller) {
                if (sent++ >= 24) return controller.close();
                controller.enqueue(chunk);
                await Bun.sleep(1);
              },
            }),
            { headers: { "content-type": "text/calendar" } },
          );
        }
        if (mode === "slow") await Bun.sleep(1_500);
        return new Response(CALENDAR, { headers: { "content-type": "text/calendar" } });
      },
    });
    calendarUrl = `http://127.0.0.1:${server.port}/cal.ics`;
    const put = insert(t.db);
    busyHost = await put.user(userRow({ firstName: "Bea", locale: "en" }));
    busyActivity = await put.activity(activityRow(busyHost, { title: "Pottery" }, START - 30 * DAY));
    hostClient = await signedIn(busyHost);
  });
  afterAll(() => server?.stop(true));

  test("saving the address reads it at once: the busy times from now to a year ahead", async () => {
    const res = await hostClient.postForm("/availability/busy-calendar", { url: calendarUrl, action: "save", next: "/availability" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/availability");
    await until("the first read", async () => (await userOf(busyHost.id)).busyCalendarFetchedAt !== null);
    expect(await rowsOf(busyHost.id)).toEqual(EXPECTED);
    const state = await busyCalendarState(t.deps, busyHost);
    expect(state).toMatchObject({ url: calendarUrl, fetchedAt: START, error: null, events: EXPECTED.length });
    // The next read waits 30 minutes, under the host's key.
    const next = (await one(t.db.select().from(jobs).where(eq(jobs.key, busyJobKey(busyHost.id)))))!;
    expect(next.runAt).toBe(START + 30 * MINUTE);
  });

  test("a guest's request over a busy time is refused; free, cancelled and taken-out times stay bookable", async () => {
    const c = await signedIn(guest);
    const ask = (date: string, time: string) =>
      c.postJson("/api/create-payment-intent", { amount: "44.00", metadata: { activityId: busyActivity.id, date, time, duration: "1" } });
    const busy = await ask("2026-06-22", "11:00");
    expect(busy.status).toBe(409);
    expect(((await busy.json()) as { message: string }).message).toBe("L'hôte n'est pas disponible à cet horaire. Choisissez-en un autre.");
    const allDay = await signedIn(other).then((o) => o.postJson("/api/create-payment-intent", { amount: "44.00", metadata: { activityId: busyActivity.id, date: "2026-06-11", time: "15:00", duration: "1" } }));
    expect(allDay.status).toBe(409);
    expect(((await allDay.json()) as { message: string }).message).toBe("The host is not available at this time. Please choose another.");
    for (const [date, time] of [["2026-06-15", "10:00"], ["2026-06-09", "10:00"], ["2026-06-10", "10:00"]]) {
      const res = await ask(date!, time!);
      expect({ date, status: res.status }).toEqual({ date, status: 200 });
    }
  });

  test("a body over 1 MB: the error is said, the earlier busy times stay", async () => {
    mode = "big";
    await nextRead();
    const row = await userOf(busyHost.id);
    expect(row.busyCalendarError).toBe("The calendar is too large (more than 1 MB) to be read.");
    expect(row.busyCalendarFetchedAt).toBe(START);
    expect(await rowsOf(busyHost.id)).toEqual(EXPECTED);

    // Without a declared length, reading stops past the limit.
    await writeTransaction(t.db, (tx) => tx.update(users).set({ busyCalendarError: null }).where(eq(users.id, busyHost.id)));
    mode = "stream";
    await nextRead();
    expect((await userOf(busyHost.id)).busyCalendarError).toBe("The calendar is too large (more than 1 MB) to be read.");
    expect(await rowsOf(busyHost.id)).toEqual(EXPECTED);
  });

  test("an answer slower than the limit: the error is said, the earlier busy times stay; a good read clears it", async () => {
    mode = "slow";
    setBusyFetchOptions(t.deps, { timeoutMs: 300 });
    await nextRead();
    expect((await userOf(busyHost.id)).busyCalendarError).toBe("The calendar's server did not answer in time. It will be tried again in 30 minutes.");
    expect(await rowsOf(busyHost.id)).toEqual(EXPECTED);

    mode = "ok";
    setBusyFetchOptions(t.deps, {});
    await nextRead();
    expect(await userOf(busyHost.id)).toMatchObject({ busyCalendarError: null, busyCalendarFetchedAt: clock });
    expect(await rowsOf(busyHost.id)).toEqual(EXPECTED);
  });

  test("a redirect is followed only to an address that passes the same checks", async () => {
    mode = "away";
    await nextRead();
    expect((await userOf(busyHost.id)).busyCalendarError).toBe("Enter a calendar address starting with https:// on the internet (not a private network or this machine).");
    expect(await rowsOf(busyHost.id)).toEqual(EXPECTED);
    mode = "moved";
    await nextRead();
    expect(await userOf(busyHost.id)).toMatchObject({ busyCalendarError: null, busyCalendarFetchedAt: clock });
    expect(await rowsOf(busyHost.id)).toEqual(EXPECTED);
    mode = "ok";
  });

  test("addresses that are not on the internet are refused when saved", async () => {
    for (const url of ["https://10.0.0.1/x.ics", "https://192.168.1.2/cal.ics", "ftp://calendar.example.com/x.ics", "not a url", `https://calendar.example.com/${"x".repeat(2000)}.ics`]) {
      const res = await hostClient.postJson("/availability/busy-calendar", { url });
      expect({ url, status: res.status }).toEqual({ url, status: 400 });
      const { message } = (await res.json()) as { message: string };
      expect(message).toMatch(/calendar address/);
    }
    // The form says it as a toast on the page it came from.
    const form = await hostClient.postForm("/availability/busy-calendar", { url: "https://10.0.0.1/x.ics", next: "/availability" });
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toBe("/availability");
    expect((await userOf(busyHost.id)).busyCalendarUrl).toBe(calendarUrl);
  });

  test("an address that is not text, or an unknown action, is refused and removes nothing", async () => {
    for (const body of [{ url: [calendarUrl] }, { url: 42 }, { url: calendarUrl, action: "delete" }]) {
      const res = await hostClient.postJson("/availability/busy-calendar", body);
      expect(res.status).toBe(400);
    }
    expect((await userOf(busyHost.id)).busyCalendarUrl).toBe(calendarUrl);
  });

  test("on a server that is not a development machine: this machine and names resolving to it are refused too", async () => {
    const prod = await makeTestApp({ env: { PUBLIC_URL: "https://offline.example" }, now });
    try {
      const someone = await insert(prod.db).user(userRow());
      const toLoopback: Resolver = async () => [{ address: "127.0.0.1", family: 4 }];
      const toPrivate: Resolver = async () => [{ address: "10.1.2.3", family: 4 }];
      const refusals = await Promise.all([
        setBusyCalendar(prod.deps, someone.id, calendarUrl, toLoopback).catch((e) => e),
        setBusyCalendar(prod.deps, someone.id, "https://calendar.example.com/x.ics", toLoopback).catch((e) => e),
        setBusyCalendar(prod.deps, someone.id, "https://calendar.example.com/x.ics", toPrivate).catch((e) => e),
        setBusyCalendar(prod.deps, someone.id, "http://calendar.example.com/x.ics", async () => [{ address: "8.8.8.8", family: 4 }]).catch((e) => e),
      ]);
      for (const err of refusals) expect(err).toMatchObject({ key: "availability.busy.invalid", status: 400 });
      expect((await one(prod.db.select().from(users).where(eq(users.id, someone.id))))!.busyCalendarUrl).toBeNull();
    } finally {
      prod.cleanup();
    }
  });

  test("the card: the address with Save and Remove, when it was read, or why it could not be", async () => {
    const view: View = { t: translator("en"), locale: "en", user: await userOf(busyHost.id), csrf: "csrf-token", path: "/availability", assets: t.deps.assets, toast: null, unreadConversations: () => 0 };
    const read = String(BusyCalendarCard({ view, busyCalendar: { url: calendarUrl, fetchedAt: START, error: null, events: 7 } }));
    expect(read).toContain('action="/availability/busy-calendar"');
    expect(read).toContain('name="_csrf" value="csrf-token"');
    expect(read).toContain('name="next" value="/availability"');
    expect(read).toContain(`value="${calendarUrl}"`);
    expect(read).toContain("Remove");
    expect(read).toContain("Last read Jun 1, 2026, 12:00 PM: 7 busy times ahead.");
    const failed = String(BusyCalendarCard({ view, busyCalendar: { url: calendarUrl, fetchedAt: START, error: "<b>down</b>", events: 7 } }));
    expect(failed).toContain("The calendar could not be read");
    expect(failed).toContain("&lt;b&gt;down&lt;/b&gt;");
    expect(failed).not.toContain("<b>");
    const none = String(BusyCalendarCard({ view, busyCalendar: { url: null, fetchedAt: null, error: null, events: 0 } }));
    expect(none).not.toContain("Remove");
    const feedOff = String(CalendarFeedCard({ view, feed: { url: null } }));
    expect(feedOff).toContain('name="action" value="on"');
    const feedOn = String(CalendarFeedCard({ view, feed: { url: "http://localhost/calendar/a/b.ics" } }));
    expect(feedOn).toContain('readonly value="http://localhost/calendar/a/b.ics"');
    expect(feedOn).toContain('data-copy="http://localhost/calendar/a/b.ics"');
  });

  test("removing the address removes its busy times and its waiting read", async () => {
    const res = await hostClient.postForm("/availability/busy-calendar", { url: calendarUrl, action: "remove" });
    expect(res.status).toBe(303);
    expect(await rowsOf(busyHost.id)).toEqual([]);
    expect(await userOf(busyHost.id)).toMatchObject({ busyCalendarUrl: null, busyCalendarFetchedAt: null, busyCalendarError: null });
    expect(await one(t.db.select().from(jobs).where(eq(jobs.key, busyJobKey(busyHost.id))))).toBeUndefined();
  });
});

describe("reading iCalendar text", () => {
  test("a year ahead at most, cancelled occurrences left out, a changed occurrence moved, at most 5,000 times", () => {
    const daily = [
      "BEGIN:VCALENDAR",
      "VERSION:2.0",
      "BEGIN:VEVENT",
      "UID:daily@test",
      "DTSTART:20260602T100000Z",
      "DTEND:20260602T110000Z",
      "RRULE:FREQ=DAILY",
      "END:VEVENT",
      "BEGIN:VEVENT",
      "UID:daily@test",
      "RECURRENCE-ID:20260603T100000Z",
      "DTSTART:20260603T150000Z",
      "DTEND:20260603T160000Z",
      "END:VEVENT",
      "BEGIN:VEVENT",
      "UID:daily@test",
      "RECURRENCE-ID:20260604T100000Z",
      "DTSTART:20260604T100000Z",
      "DTEND:20260604T110000Z",
      "STATUS:CANCELLED",
      "END:VEVENT",
      "END:VCALENDAR",
    ].join("\r\n");
    const times = busyTimes(daily, "America/New_York", START);
    expect(times[0]).toEqual({ startsAt: Date.UTC(2026, 5, 2, 10), endsAt: Date.UTC(2026, 5, 2, 11) });
    expect(times[1]).toEqual({ startsAt: Date.UTC(2026, 5, 3, 15), endsAt: Date.UTC(2026, 5, 3, 16) });
    expect(times[2]).toEqual({ startsAt: Date.UTC(2026, 5, 5, 10), endsAt: Date.UTC(2026, 5, 5, 11) });
    expect(times.at(-1)!.startsAt).toBeLessThan(START + 365 * DAY);
    expect(times.length).toBeGreaterThan(360);

    // Every 90 minutes for an hour: 5,840 times in a year, of which the first 5,000 are kept.
    const hourly = daily.replace("FREQ=DAILY", "FREQ=MINUTELY;INTERVAL=90");
    expect(busyTimes(hourly, "UTC", START).length).toBe(5000);
    expect(() => busyTimes("<html>not a calendar</html>", "UTC", START)).toThrow();
  });
});
