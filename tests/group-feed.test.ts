import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import ICAL from "ical.js";
import { one } from "../db/client";
import { activityRow, bookingRow, groupActivityRow, insert, userRow } from "../src/demo/factories";
import { users, type User } from "../db/schema";
import { feedUrl } from "../src/availability/feed";
import { makeTestApp } from "./helpers";

/**
 * A group session in the calendar feeds (docs/decisions/0049): the host's feed has one event
 * per session whatever the number of its bookings, titled with the spots held; each guest's feed
 * has their own booking, with their spots. A private activity's bookings keep one event each.
 */
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
// 2026-06-01 12:00 in New York, a Monday.
const START = Date.UTC(2026, 5, 1, 16, 0);
const now = () => START;
const ny = (local: string) => Temporal.PlainDateTime.from(local).toZonedDateTime("America/New_York").epochMilliseconds;

let t: Awaited<ReturnType<typeof makeTestApp>>;
let host: User;
let ana: User;
let ben: User;
let chloe: User;
let cooking: Awaited<ReturnType<ReturnType<typeof insert>["activity"]>>;
let session: number;

beforeAll(async () => {
  t = await makeTestApp({ now });
  const put = insert(t.db);
  host = await put.user(userRow({ firstName: "Hana", lastName: "Host", locale: "en" }));
  ana = await put.user(userRow({ firstName: "Ana", lastName: "Guest", locale: "en" }));
  ben = await put.user(userRow({ firstName: "Ben", lastName: "Guest", locale: "fr" }));
  chloe = await put.user(userRow({ firstName: "Chloé", lastName: "Guest", locale: "en" }));
  cooking = await put.activity(groupActivityRow(host, { title: "Cooking class", capacity: 8, pricePerPersonCents: 4500, sessionMinutes: 150, hasMeetingPoint: true, meetingPoint: "Essex Market" }, START - 30 * DAY));
  const group = cooking;
  const tennis = await put.activity(activityRow(host, { title: "Tennis" }, START - 30 * DAY));
  session = ny("2026-06-10T18:00");
  // Two bookings of one session: Ana's 2 spots accepted, Ben's 3 spots still a request.
  await put.booking(bookingRow(group, { guestId: ana.id, startsAt: session, status: "accepted", spots: 2 }));
  await put.booking(bookingRow(group, { guestId: ben.id, startsAt: session, status: "pending", spots: 3 }));
  // A cancelled booking of the same session holds nothing and is not counted.
  await put.booking(bookingRow(group, { guestId: chloe.id, startsAt: session, status: "canceled", spots: 2 }));
  // Another session of the same activity: its own event.
  await put.booking(bookingRow(group, { guestId: chloe.id, startsAt: ny("2026-06-12T18:00"), status: "accepted", spots: 1 }));
  // Two private bookings of the private activity: one event each, as before.
  await put.booking(bookingRow(tennis, { guestId: ana.id, startsAt: ny("2026-06-11T09:00"), status: "accepted" }));
  await put.booking(bookingRow(tennis, { guestId: chloe.id, startsAt: ny("2026-06-11T11:00"), status: "accepted" }));
});
afterAll(() => t.cleanup());

/** The person's feed, read as a calendar app reads it (no session), turned on through Settings. */
async function feedOf(user: User) {
  const c = t.client();
  await c.signInAs(user.id);
  expect((await c.postForm("/settings/calendar-feed", { action: "on" })).status).toBe(303);
  const row = (await one(t.db.select().from(users).where(eq(users.id, user.id))))!;
  const res = await t.client().get(new URL(feedUrl(t.deps, row)!).pathname);
  expect(res.status).toBe(200);
  const root = new ICAL.Component(ICAL.parse(await res.text()));
  return root.getAllSubcomponents("vevent").map((c) => {
    const e = new ICAL.Event(c);
    return { uid: e.uid, summary: e.summary, description: e.description, status: String(c.getFirstPropertyValue("status")), start: e.startDate.toUnixTime() * 1000, end: e.endDate.toUnixTime() * 1000 };
  });
}

describe("a group session in the calendar feeds", () => {
  test("the host: one event for two bookings of one session, with the count; private bookings keep one each", async () => {
    const events = await feedOf(host);
    const sessionEvents = events.filter((e) => e.summary.startsWith("Cooking class"));
    expect(sessionEvents.length).toBe(2);
    const first = sessionEvents.find((e) => e.start === session)!;
    expect(first.uid).toBe(`session-${cooking.id}-${session}@localhost`);
    expect(first.summary).toBe("Cooking class · 5 of 8 spots");
    expect(first.end - first.start).toBe(150 * 60 * 1000);
    expect(first.status).toBe("CONFIRMED");
    expect(first.description).toContain("Ana (2 spots)");
    expect(first.description).toContain("Ben (3 spots)");
    expect(first.description).not.toContain("Chloé");
    expect(first.description).toContain("1 request waiting for your answer.");
    expect(sessionEvents.find((e) => e.start !== session)!.summary).toBe("Cooking class · 1 of 8 spots");
    expect(events.filter((e) => e.summary.startsWith("Tennis")).map((e) => e.summary).sort()).toEqual(["Tennis · Ana", "Tennis · Chloé"]);
    expect(events.length).toBe(4);
  });

  test("each guest: their own booking of the session, with their spots, in their language", async () => {
    const anas = (await feedOf(ana)).filter((e) => e.summary.startsWith("Cooking class"));
    expect(anas.length).toBe(1);
    expect(anas[0]!.summary).toBe("Cooking class · Hana");
    expect(anas[0]!.uid).toMatch(/^booking-/);
    expect(anas[0]!.description).toContain("You hold 2 spots in this group session.");
    const bens = await feedOf(ben);
    expect(bens.length).toBe(1);
    expect(bens[0]!.status).toBe("TENTATIVE");
    expect(bens[0]!.description).toContain("Vous avez 3 places dans cette séance de groupe.");
  });
});
