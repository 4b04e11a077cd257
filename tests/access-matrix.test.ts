import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count, eq } from "drizzle-orm";
import { one, writeTransaction } from "../db/client";
import { activityRow, bookingRow, insert, userRow } from "../db/factories";
import { activities, bookings, messages, pushSubscriptions, type Activity, type Booking, type User } from "../db/schema";
import { makeTestApp, type Client } from "./helpers";

/**
 * Who may touch what, as data: each row is a caller, a method and a path built from the
 * fixtures, and the status that caller must get. Strangers get 404 (never 403), so ids are not
 * confirmed to them (ARCHITECTURE decision 11). New features add their rows here.
 */
type Who = "host" | "guest" | "stranger" | "visitor";
type Fixtures = { activity: Activity; booking: Booking; host: User; guest: User };
type Row = [who: Who, method: string, path: (f: Fixtures) => string, expected: number | ((status: number) => boolean), body?: (f: Fixtures) => unknown];

const ok = (status: number) => status < 400;

const matrix: Row[] = [
  // Activities: only the host changes or edits one.
  ["stranger", "PATCH", (f) => `/api/activities/${f.activity.id}`, 404],
  ["stranger", "DELETE", (f) => `/api/activities/${f.activity.id}`, 404],
  ["stranger", "GET", (f) => `/edit-activity/${f.activity.id}`, 404],
  ["guest", "GET", (f) => `/edit-activity/${f.activity.id}`, 404],
  ["host", "GET", (f) => `/edit-activity/${f.activity.id}`, 200],
  ["stranger", "GET", (f) => `/activity/${f.activity.id}`, 200],
  // Bookings: only its two people see it; only the host answers it.
  ["stranger", "GET", (f) => `/api/bookings/${f.booking.id}/details`, 404],
  ["guest", "GET", (f) => `/api/bookings/${f.booking.id}/details`, 200],
  ["host", "GET", (f) => `/api/bookings/${f.booking.id}/details`, 200],
  ["stranger", "POST", (f) => `/api/bookings/${f.booking.id}/accept`, 404],
  ["stranger", "POST", (f) => `/api/bookings/${f.booking.id}/reject`, 404],
  ["stranger", "POST", (f) => `/api/bookings/${f.booking.id}/cancel`, 404],
  ["stranger", "POST", (f) => `/api/bookings/${f.booking.id}/complete`, 404],
  ["guest", "POST", (f) => `/api/bookings/${f.booking.id}/accept`, (s) => s === 403 || s === 404 || s === 409],
  ["stranger", "GET", (f) => `/checkout/${f.booking.id}`, 404],
  ["host", "GET", (f) => `/checkout/${f.booking.id}`, 404],
  // A booking's list belongs to its people.
  ["stranger", "GET", () => `/api/bookings`, ok],
  // Notifications: each person has their own preferences and subscriptions (see below for another's).
  ["stranger", "GET", () => `/api/notifications/preferences`, 200],
  ["stranger", "GET", () => `/api/notifications/vapid-public-key`, 200],
  ["stranger", "POST", () => `/api/notifications/unsubscribe`, 400],
  ["stranger", "POST", () => `/api/notifications/test`, 409],
  // An id that does not exist looks the same as someone else's.
  ["stranger", "GET", () => `/api/bookings/00000000-0000-4000-8000-000000000000/details`, 404],
  // Messages: only the booking's two people read, write or mark read its conversation; writing
  // waits for the booking to be accepted (the fixture is a pending request).
  ...(["guest", "host", "stranger"] as const).flatMap((who): Row[] => {
    const member = who !== "stranger";
    return [
      [who, "GET", (f) => `/api/messages?bookingId=${f.booking.id}`, member ? 200 : 404],
      [who, "POST", () => "/api/messages", member ? 409 : 404, (f) => ({ bookingId: f.booking.id, content: "Hello" })],
      [who, "POST", (f) => `/api/messages/${f.booking.id}/mark-read`, member ? 200 : 404],
      [who, "GET", (f) => `/bookings/${f.booking.id}`, member ? 200 : 404],
      [who, "POST", (f) => `/bookings/${f.booking.id}/messages`, member ? 409 : 404, () => ({ content: "Hello" })],
      [who, "GET", () => "/api/bookings/last-messages", 200],
    ];
  }),
  ["stranger", "GET", () => "/api/messages?bookingId=00000000-0000-4000-8000-000000000000", 404],
  ["stranger", "GET", () => "/bookings/00000000-0000-4000-8000-000000000000", 404],
  // Reviews: only a booking's two people open its review screen.
  ["stranger", "GET", (f) => `/review?bookingId=${f.booking.id}&userType=guest`, 404],
  ["guest", "GET", (f) => `/review?bookingId=${f.booking.id}&userType=guest`, 200],
  ["host", "GET", (f) => `/review?bookingId=${f.booking.id}&userType=host`, 200],
  ["stranger", "POST", () => `/api/reviews`, 404],
  // Moderation: only operators (ADMIN_EMAILS) know the page exists; everyone else gets 404.
  ["visitor", "GET", () => `/admin/reports`, 404],
  ["stranger", "GET", () => `/admin/reports`, 404],
  ["host", "GET", () => `/admin/reports`, 404],
  ["visitor", "POST", () => `/admin/reports/00000000-0000-4000-8000-000000000000/dismiss`, 404],
  ["guest", "POST", () => `/admin/reports/00000000-0000-4000-8000-000000000000/suspend`, 404],
];

let t: Awaited<ReturnType<typeof makeTestApp>>;
let fixtures: Fixtures;
const clients = {} as Record<Who, Client>;

beforeAll(async () => {
  t = await makeTestApp();
  const put = insert(t.db);
  const host = await put.user(userRow());
  const guest = await put.user(userRow());
  const stranger = await put.user(userRow());
  const activity = await put.activity(activityRow(host));
  const booking = await put.booking(bookingRow(activity, { guestId: guest.id, startsAt: Date.now() + 5 * 86_400_000 }));
  fixtures = { activity, booking, host, guest };
  for (const [who, user] of [["host", host], ["guest", guest], ["stranger", stranger]] as const) {
    clients[who] = t.client();
    await clients[who].signInAs(user.id);
  }
  clients.visitor = t.client();
});
afterAll(() => t.cleanup());

describe("who may touch what", () => {
  for (const [who, method, path, expected, body] of matrix) {
    test(`${who} ${method} ${path({ activity: { id: ":activity" }, booking: { id: ":booking" } } as unknown as Fixtures)}`, async () => {
      const res = await clients[who].request(path(fixtures), method === "GET" ? {} : { method, json: body?.(fixtures) ?? {} });
      if (typeof expected === "number") expect(res.status).toBe(expected);
      else expect({ status: res.status, allowed: expected(res.status) }).toEqual({ status: res.status, allowed: true });
    });
  }

  test("a stranger's refusals changed nothing", async () => {
    const booking = await one(t.db.select({ status: bookings.status }).from(bookings).where(eq(bookings.id, fixtures.booking.id)));
    expect(booking?.status).toBe("pending");
    const activity = await one(t.db.select({ archivedAt: activities.archivedAt, title: activities.title }).from(activities).where(eq(activities.id, fixtures.activity.id)));
    expect(activity).toEqual({ archivedAt: null, title: fixtures.activity.title });
    expect(await one(t.db.select({ n: count() }).from(messages).where(eq(messages.bookingId, fixtures.booking.id)))).toEqual({ n: 0 });
  });
});

describe("push subscriptions belong to their person", () => {
  test("a stranger cannot unsubscribe the host's browser (404), nor read or send to it", async () => {
    const endpoint = "https://push.example.com/send/host-browser";
    await writeTransaction(t.db, (tx) => tx.insert(pushSubscriptions).values({ id: crypto.randomUUID(), userId: fixtures.host.id, endpoint, p256dhKey: "key", authKey: "auth" }));
    const res = await clients.stranger.request("/api/notifications/unsubscribe", { method: "POST", json: { endpoint } });
    expect(res.status).toBe(404);
    expect(await t.db.select({ userId: pushSubscriptions.userId }).from(pushSubscriptions).where(eq(pushSubscriptions.endpoint, endpoint))).toEqual([{ userId: fixtures.host.id }]);
    // The stranger's test notification goes to their own browsers only: they have none.
    expect((await clients.stranger.request("/api/notifications/test", { method: "POST", json: {} })).status).toBe(409);
  });
});
