import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count, eq } from "drizzle-orm";
import { one, writeTransaction } from "../db/client";
import { activityRow, bookingRow, insert, userRow } from "../src/demo/factories";
import { activities, bookings, messages, pushSubscriptions, type Activity, type Booking, type User } from "../db/schema";
import { makeTestApp, type Client } from "./helpers";
import { scenarios, type Scenario } from "./scenario";

/**
 * Who may touch what, as data: each row is a caller, a method and a path built from the
 * fixtures, and the status that caller must get. Strangers get 404 (never 403), so ids are not
 * confirmed to them (ARCHITECTURE decision 11). New features add their rows here.
 */
type Who = "host" | "guest" | "stranger" | "visitor";
type Fixtures = { activity: Activity; booking: Booking; host: User; guest: User };
type Row = Scenario<Fixtures> & { as: Who };

const ok = (status: number) => status < 400;

const matrix: Row[] = [
  // Activities: only the host changes or edits one.
  { as: "stranger", method: "PATCH", url: (f) => `/api/activities/${f.activity.id}`, status: 404 },
  { as: "stranger", method: "DELETE", url: (f) => `/api/activities/${f.activity.id}`, status: 404 },
  { as: "stranger", url: (f) => `/edit-activity/${f.activity.id}`, status: 404 },
  { as: "guest", url: (f) => `/edit-activity/${f.activity.id}`, status: 404 },
  { as: "host", url: (f) => `/edit-activity/${f.activity.id}`, status: 200 },
  { as: "stranger", url: (f) => `/activity/${f.activity.id}`, status: 200 },
  // Bookings: only its two people see it; only the host answers it.
  { as: "stranger", url: (f) => `/api/bookings/${f.booking.id}/details`, status: 404 },
  { as: "guest", url: (f) => `/api/bookings/${f.booking.id}/details`, status: 200 },
  { as: "host", url: (f) => `/api/bookings/${f.booking.id}/details`, status: 200 },
  { as: "stranger", method: "POST", url: (f) => `/api/bookings/${f.booking.id}/accept`, status: 404 },
  { as: "stranger", method: "POST", url: (f) => `/api/bookings/${f.booking.id}/reject`, status: 404 },
  { as: "stranger", method: "POST", url: (f) => `/api/bookings/${f.booking.id}/cancel`, status: 404 },
  { as: "stranger", method: "POST", url: (f) => `/api/bookings/${f.booking.id}/complete`, status: 404 },
  { as: "guest", method: "POST", url: (f) => `/api/bookings/${f.booking.id}/accept`, status: [403, 404, 409] },
  { as: "stranger", url: (f) => `/checkout/${f.booking.id}`, status: 404 },
  { as: "host", url: (f) => `/checkout/${f.booking.id}`, status: 404 },
  // A booking's list belongs to its people.
  { as: "stranger", url: "/api/bookings", status: ok },
  // Notifications: each person has their own preferences and subscriptions (see below for another's).
  { as: "stranger", url: "/api/notifications/preferences", status: 200 },
  { as: "stranger", url: "/api/notifications/vapid-public-key", status: 200 },
  { as: "stranger", method: "POST", url: "/api/notifications/unsubscribe", status: 400 },
  { as: "stranger", method: "POST", url: "/api/notifications/test", status: 409 },
  // An id that does not exist looks the same as someone else's.
  { as: "stranger", url: "/api/bookings/00000000-0000-4000-8000-000000000000/details", status: 404 },
  // Messages: only the booking's two people read, write or mark read its conversation; writing
  // waits for the booking to be accepted (the fixture is a pending request).
  ...(["guest", "host", "stranger"] as const).flatMap((who): Row[] => {
    const member = who !== "stranger";
    return [
      { as: who, url: (f) => `/api/messages?bookingId=${f.booking.id}`, status: member ? 200 : 404 },
      { as: who, method: "POST", url: "/api/messages", body: (f) => ({ bookingId: f.booking.id, content: "Hello" }), status: member ? 409 : 404 },
      { as: who, method: "POST", url: (f) => `/api/messages/${f.booking.id}/mark-read`, status: member ? 200 : 404 },
      { as: who, url: (f) => `/bookings/${f.booking.id}`, status: member ? 200 : 404 },
      { as: who, method: "POST", url: (f) => `/bookings/${f.booking.id}/messages`, body: { content: "Hello" }, status: member ? 409 : 404 },
      { as: who, url: "/api/bookings/last-messages", status: 200 },
    ];
  }),
  { as: "stranger", url: "/api/messages?bookingId=00000000-0000-4000-8000-000000000000", status: 404 },
  { as: "stranger", url: "/bookings/00000000-0000-4000-8000-000000000000", status: 404 },
  // Reviews: only a booking's two people open its review screen.
  { as: "stranger", url: (f) => `/review?bookingId=${f.booking.id}&userType=guest`, status: 404 },
  { as: "guest", url: (f) => `/review?bookingId=${f.booking.id}&userType=guest`, status: 200 },
  { as: "host", url: (f) => `/review?bookingId=${f.booking.id}&userType=host`, status: 200 },
  { as: "stranger", method: "POST", url: "/api/reviews", status: 404 },
  // Moderation: only operators (ADMIN_EMAILS) know the page exists; everyone else gets 404.
  { as: "visitor", url: "/admin/reports", status: 404 },
  { as: "stranger", url: "/admin/reports", status: 404 },
  { as: "host", url: "/admin/reports", status: 404 },
  { as: "visitor", method: "POST", url: "/admin/reports/00000000-0000-4000-8000-000000000000/dismiss", status: 404 },
  { as: "guest", method: "POST", url: "/admin/reports/00000000-0000-4000-8000-000000000000/suspend", status: 404 },
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
  scenarios(() => ({ app: t, callers: clients, fixtures }), matrix);

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
