import { one, writeTransaction, written } from "../db/client";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { bookings, jobs, messages, notificationPreferences, pushSubscriptions, reviews, users } from "../db/schema";
import { reviewRow } from "../src/demo/factories";
import { checkEndpoint } from "../src/notifications/service";
import { PREFERENCE_KEYS, type PreferenceKey } from "../src/notifications/rules";
import { formatMoney } from "../lib/money";
import { preview } from "../src/notifications/notices";
import type { TestProvider } from "../src/payments/test-provider";
import { FakePushService, type FakeSubscription } from "./fakes/push-service";
import { Client, makeTestApp, requestWithTestCard, TENNIS } from "./helpers";
import { scenarios, type JsonValue, type Scenario } from "./scenario";
import { MAX_SUBSCRIPTIONS_PER_USER } from "../shared/limits";

/**
 * Push notifications (docs/decisions/0025): preferences, subscriptions, and what each committed
 * change sends, delivered to a local push service that checks the VAPID signature and decrypts
 * every message with the subscription's private key.
 */
const HOUR = 60 * 60 * 1000;
// 2026-06-01 12:00 in New York (16:00 UTC).
const START = Date.UTC(2026, 5, 1, 16, 0);
let clock = START;

let t: Awaited<ReturnType<typeof makeTestApp>>;
let push: FakePushService;
let host: Client;
let guest: Client;
let hostId: string;
let guestId: string;
let activityId: string;
/** The host's and the guest's browsers, subscribed through the API. */
let hostBrowser: FakeSubscription;
let guestBrowser: FakeSubscription;

const body = async (res: Response) => (await res.json()) as Record<string, any>;

async function subscribeBrowser(c: Client, headers: HeadersInit = {}) {
  const browser = push.subscribe(t.deps.secrets.vapidPublicKey);
  const res = await c.postJson("/api/notifications/subscribe", { endpoint: browser.endpoint, expirationTime: null, keys: browser.keys }, headers);
  expect(res.status).toBe(201);
  return browser;
}

beforeAll(async () => {
  push = FakePushService.start();
  t = await makeTestApp({ now: () => clock });
  host = t.client();
  guest = t.client();
  hostId = (await host.signUpComplete({ firstName: "Hana" })).user.id;
  guestId = (await guest.signUpComplete({ firstName: "Gabe" })).user.id;
  const res = await host.postJson("/api/activities", TENNIS);
  activityId = (await body(res)).id;
  hostBrowser = await subscribeBrowser(host);
  guestBrowser = await subscribeBrowser(guest);
});
afterAll(() => {
  push.stop();
  t.cleanup();
});

let day = 3;
/** A pending request for a fresh slot (a later day at 10:00 New York time), through the API. */
async function pendingBooking() {
  const date = new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);
  const { res } = await requestWithTestCard(guest, { activityId, date, hours: 2, total: "88.00" });
  expect(res.status).toBe(201);
  await t.deps.events.idle();
  return (await body(res)).id as string;
}

async function act(c: Client, id: string, action: string) {
  const res = await c.postJson(`/api/bookings/${id}/${action}`, {});
  expect(res.status).toBe(200);
  await t.deps.events.idle();
}

const bookingRow = async (id: string) => (await one(t.db.select().from(bookings).where(eq(bookings.id, id))))!;
/** What a browser was shown: title, body, url and tag of each message it received, in order. */
const received = (browser: FakeSubscription) => push.to(browser.id).map((d) => d.payload as { title: string; body: string; url: string; tag: string });
const titles = (browser: FakeSubscription) => received(browser).map((p) => p.title);
/**
 * The same messages in one order whatever order they came in. The notices of one change are
 * queued as jobs and run as the job runner claims them, in no order it promises (PostgreSQL
 * returns the claimed rows in any order), so only messages of separate changes come in order.
 */
const unordered = <T,>(ps: T[]) => ps.map((p) => [JSON.stringify(p), p] as const).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, p]) => p);
const titleSet = (browser: FakeSubscription) => [...titles(browser)].sort();
/** The one message with this title a browser received. */
const titled = (browser: FakeSubscription, title: string) => {
  const found = received(browser).filter((p) => p.title === title);
  expect(found.length).toBe(1);
  return found[0]!;
};
/** Only the messages about one booking (running due jobs also ends other tests' requests). */
const about = (browser: FakeSubscription, bookingId: string) => received(browser).filter((p) => p.tag.endsWith(bookingId));

async function setPreference(c: Client, key: PreferenceKey, on: boolean) {
  expect((await c.postJson("/api/notifications/preferences", { [key]: on })).status).toBe(200);
}

beforeEach(() => {
  clock = START;
  push.clear();
});

describe("preferences", () => {
  test("default to everything on except marketing", async () => {
    const c = t.client();
    await c.signUpComplete();
    expect(await body(await c.get("/api/notifications/preferences"))).toEqual({
      bookingRequests: true,
      bookingConfirmations: true,
      messages: true,
      reviews: true,
      activityUpdates: true,
      paymentNotifications: true,
      reminders: true,
      marketingEmails: false,
    });
  });

  test("change one key at a time; the others keep their value", async () => {
    const c = t.client();
    await c.signUpComplete();
    const res = await c.postJson("/api/notifications/preferences", { messages: false });
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ messages: false, reviews: true, marketingEmails: false });
    await c.postJson("/api/notifications/preferences", { marketingEmails: true });
    expect(await body(await c.get("/api/notifications/preferences"))).toMatchObject({ messages: false, marketingEmails: true, reminders: true });
  });

  const bad: [string, unknown][] = [
    ["nothing", {}],
    ["two keys", { messages: false, reviews: false }],
    ["an unknown key", { newsletter: true }],
    ["a string for a boolean", { messages: "false" }],
    ["null", { messages: null }],
    ["a list", [{ messages: false }]],
    ["a plain string", "messages"],
  ];
  scenarios(
    () => t,
    bad.map(([name, input]): Scenario => {
      let c: Client;
      let userId: string;
      return {
        name: `refuse ${name} with 400 and a message, changing nothing`,
        before: async () => {
          c = t.client();
          userId = (await c.signUpComplete()).user.id;
        },
        as: () => c,
        method: "POST",
        url: "/api/notifications/preferences",
        body: input as JsonValue,
        status: 400,
        json: { message: "Send one notification preference at a time, set to true or false." },
        after: async () => expect(await one(t.db.select().from(notificationPreferences).where(eq(notificationPreferences.userId, userId)))).toBeUndefined(),
      };
    }),
  );

  test("the Settings form without JavaScript saves every switch at once", async () => {
    const c = t.client();
    await c.signUpComplete();
    const res = await c.postForm("/settings/notifications", { bookingRequests: "on", messages: "on", marketingEmails: "on" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/settings");
    expect(await body(await c.get("/api/notifications/preferences"))).toEqual({
      bookingRequests: true,
      bookingConfirmations: false,
      messages: true,
      reviews: false,
      activityUpdates: false,
      paymentNotifications: false,
      reminders: false,
      marketingEmails: true,
    });
  });

  test("the Settings page shows the card with the switches as they are", async () => {
    const c = t.client();
    await c.signUpComplete();
    await c.postJson("/api/notifications/preferences", { reviews: false });
    const html = await (await c.get("/settings")).text();
    expect(html).toContain("Push Notifications");
    expect(html).toContain(`data-vapid-key="${t.deps.secrets.vapidPublicKey}"`);
    expect(html).toMatch(/name="reviews"[^>]*role="switch"(?![^>]*checked)/);
    expect(html).toMatch(/name="messages"[^>]*role="switch"[^>]*checked/);
  });
});

describe("subscriptions", () => {
  test("the VAPID public key is the server's, a raw P-256 point", async () => {
    const { publicKey } = await body(await host.get("/api/notifications/vapid-public-key"));
    expect(publicKey).toBe(t.deps.secrets.vapidPublicKey);
    expect(Buffer.from(publicKey, "base64url").length).toBe(65);
  });

  test("subscribing the same browser again renews it; another person's subscribing it takes it over", async () => {
    const c = t.client();
    await c.signUpComplete();
    const browser = push.subscribe();
    const send = (who: Client) => who.postJson("/api/notifications/subscribe", { endpoint: browser.endpoint, keys: browser.keys });
    expect((await send(c)).status).toBe(201);
    expect((await send(c)).status).toBe(200);
    const other = t.client();
    const { user } = await other.signUpComplete();
    expect((await send(other)).status).toBe(200);
    const rows = await t.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.endpoint, browser.endpoint));
    expect(rows.map((r) => r.userId)).toEqual([user.id]);
  });

  test(`at most ${MAX_SUBSCRIPTIONS_PER_USER} browsers per person: a new one replaces the least recently renewed`, async () => {
    const c = t.client();
    const { user } = await c.signUpComplete();
    const browsers: FakeSubscription[] = [];
    for (let i = 0; i <= MAX_SUBSCRIPTIONS_PER_USER; i++) {
      clock = START + i * 1000;
      const browser = push.subscribe();
      browsers.push(browser);
      expect((await c.postJson("/api/notifications/subscribe", { endpoint: browser.endpoint, keys: browser.keys })).status).toBe(201);
    }
    const endpoints = (await t.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, user.id))).map((r) => r.endpoint);
    expect(endpoints.length).toBe(MAX_SUBSCRIPTIONS_PER_USER);
    expect(endpoints).not.toContain(browsers[0]!.endpoint);
    expect(endpoints).toContain(browsers.at(-1)!.endpoint);
  });

  const valid = () => push.subscribe();
  const b64 = (bytes: number[] | Uint8Array) => Buffer.from(bytes).toString("base64url");
  const badSubscriptions: [string, () => unknown][] = [
    ["no body", () => ({})],
    ["an endpoint that is not a URL", () => ({ ...valid(), endpoint: "push service" })],
    ["an endpoint with credentials", () => ({ ...valid(), endpoint: "https://user:pw@push.example.com/x" })],
    ["an ftp endpoint", () => ({ ...valid(), endpoint: "ftp://push.example.com/x" })],
    ["an endpoint of 3000 characters", () => ({ ...valid(), endpoint: `https://push.example.com/${"a".repeat(3000)}` })],
    ["no keys", () => ({ endpoint: valid().endpoint })],
    ["a p256dh key of the wrong length", () => ({ endpoint: valid().endpoint, keys: { ...valid().keys, p256dh: b64(new Uint8Array(33).fill(4)) } })],
    ["a p256dh key that is no point on the curve", () => ({ endpoint: valid().endpoint, keys: { ...valid().keys, p256dh: b64([4, ...new Uint8Array(64).fill(1)]) } })],
    ["an auth secret of 15 bytes", () => ({ endpoint: valid().endpoint, keys: { ...valid().keys, auth: b64(new Uint8Array(15)) } })],
    ["keys that are not base64url", () => ({ endpoint: valid().endpoint, keys: { p256dh: "not base64!", auth: "also/not+url" } })],
    ["keys as numbers", () => ({ endpoint: valid().endpoint, keys: { p256dh: 4, auth: 16 } })],
  ];
  scenarios(
    () => t,
    badSubscriptions.map(([name, input]): Scenario => {
      let c: Client;
      let userId: string;
      return {
        name: `refuse ${name} with 400, storing nothing`,
        before: async () => {
          c = t.client();
          userId = (await c.signUpComplete()).user.id;
        },
        as: () => c,
        method: "POST",
        url: "/api/notifications/subscribe",
        body: () => input() as JsonValue,
        status: 400,
        json: { message: expect.any(String) },
        after: async () => expect(await t.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, userId))).toEqual([]),
      };
    }),
  );

  test("a push service must be an https host on the internet; local http only on a plain-http (development) server", () => {
    const accepted: [string, boolean][] = [
      ["https://fcm.googleapis.com/fcm/send/abc", false],
      ["https://updates.push.services.mozilla.com/wpush/v2/abc", false],
      ["https://web.push.apple.com/abc", false],
      ["http://localhost:8080/push/1", true],
      ["http://127.0.0.1:8080/push/1", true],
      ["http://[::1]:8080/push/1", true],
    ];
    for (const [endpoint, local] of accepted) expect(checkEndpoint(endpoint, local)).toBe(endpoint);
    const refused: [string, boolean][] = [
      ["http://fcm.googleapis.com/fcm/send/abc", false],
      ["http://fcm.googleapis.com/fcm/send/abc", true],
      ["http://localhost:8080/push/1", false],
      ["https://localhost:8080/push/1", false],
      ["https://127.0.0.1/push/1", false],
      ["https://10.0.0.5/push/1", false],
      ["https://[fd00::1]/push/1", false],
      ["http://10.0.0.5/push/1", true],
    ];
    for (const [endpoint, local] of refused) expect(() => checkEndpoint(endpoint, local)).toThrow();
  });

  test("unsubscribe removes only one of your own browsers; another's is 404 and stays", async () => {
    const c = t.client();
    await c.signUpComplete();
    const mine = await subscribeBrowser(c);
    const stranger = t.client();
    await stranger.signUpComplete();
    const refused = await stranger.postJson("/api/notifications/unsubscribe", { endpoint: mine.endpoint });
    expect(refused.status).toBe(404);
    expect((await body(refused)).message).toBe("Subscription not found");
    expect(await one(t.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.endpoint, mine.endpoint)))).toBeDefined();
    expect((await c.postJson("/api/notifications/unsubscribe", { endpoint: mine.endpoint })).status).toBe(200);
    expect(await one(t.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.endpoint, mine.endpoint)))).toBeUndefined();
    expect((await c.postJson("/api/notifications/unsubscribe", { endpoint: mine.endpoint })).status).toBe(404);
    expect((await c.postJson("/api/notifications/unsubscribe", { endpoint: 42 })).status).toBe(400);
  });
});

describe("what is sent", () => {
  test("a new request reaches the host, signed with VAPID, encrypted, with a TTL, opening the conversation", async () => {
    const id = await pendingBooking();
    expect(received(hostBrowser)).toEqual([
      { title: "New booking request", body: `Gabe would like to book Tennis on ${await dateOf(id)}.`, url: `/bookings/${id}`, tag: `booking:${id}` },
    ]);
    expect(received(guestBrowser)).toEqual([]);
    const delivery = push.to(hostBrowser.id)[0]!;
    expect(delivery.ttl).toBe(24 * 60 * 60);
    expect(delivery.claims.aud).toBe(push.origin);
    expect(delivery.claims.sub).toBe("mailto:admin@localhost");
    expect(push.rejections).toEqual([]);
    // Sent: no job is left behind.
    expect(await t.db.select().from(jobs).where(eq(jobs.kind, "notifications.push"))).toEqual([]);
  });

  test("accepted: the guest hears of it and of the charge; the host who accepted hears nothing", async () => {
    const id = await pendingBooking();
    push.clear();
    await act(host, id, "accept");
    expect(unordered(received(guestBrowser))).toEqual(unordered([
      { title: "Booking accepted", body: `Hana accepted your request for Tennis on ${await dateOf(id)}.`, url: `/bookings/${id}`, tag: `booking:${id}` },
      { title: "Payment completed", body: "$88.00 was charged for Tennis.", url: `/bookings/${id}`, tag: `payment:${id}` },
    ]));
    expect(received(hostBrowser)).toEqual([]);
  });

  test("declined: the guest hears of it and that the hold was released", async () => {
    const id = await pendingBooking();
    push.clear();
    await act(host, id, "reject");
    expect(titleSet(guestBrowser)).toEqual(["Payment released", "Request declined"]);
    expect(titled(guestBrowser, "Payment released").body).toBe("The $88.00 hold for Tennis was released. You were not charged.");
    expect(received(hostBrowser)).toEqual([]);
  });

  test("withdrawn by the guest: the host hears of it; the guest's hold is released", async () => {
    const id = await pendingBooking();
    push.clear();
    await act(guest, id, "cancel");
    expect(titles(hostBrowser)).toEqual(["Request withdrawn"]);
    expect(titles(guestBrowser)).toEqual(["Payment released"]);
  });

  test("expired unanswered: both sides hear of it, the guest also of the release", async () => {
    const id = await pendingBooking();
    push.clear();
    clock = (await bookingRow(id)).respondBy + 1000;
    await t.deps.jobs.runDue();
    await t.deps.events.idle();
    expect((await bookingRow(id)).status).toBe("expired");
    expect(about(guestBrowser, id).map((p) => p.title).sort()).toEqual(["Payment released", "Request expired"]);
    expect(about(hostBrowser, id)).toEqual([expect.objectContaining({ title: "Request expired", body: `Gabe's request for Tennis on ${await dateOf(id)} expired without an answer.` })]);
  });

  test("an accepted booking canceled by the guest: the host hears of it, the guest of the refund", async () => {
    const id = await pendingBooking();
    await act(host, id, "accept");
    push.clear();
    await act(guest, id, "cancel");
    expect(titles(hostBrowser)).toEqual(["Booking canceled"]);
    expect(received(hostBrowser)[0]!.body).toBe(`Gabe canceled Tennis on ${await dateOf(id)}.`);
    expect(received(guestBrowser)).toEqual([expect.objectContaining({ title: "Refund issued", body: "$88.00 for Tennis was refunded to your card.", tag: `payment:${id}` })]);
  });

  test("an accepted booking canceled by the host: the guest hears of it and of the refund", async () => {
    const id = await pendingBooking();
    await act(host, id, "accept");
    push.clear();
    await act(host, id, "cancel");
    expect(titleSet(guestBrowser)).toEqual(["Booking canceled", "Refund issued"]);
    expect(titled(guestBrowser, "Booking canceled").body).toBe(`Hana canceled Tennis on ${await dateOf(id)}.`);
    expect(received(hostBrowser)).toEqual([]);
  });

  test("completed: the guest is asked for a review; the payout sent reaches the host", async () => {
    const provider = t.deps.payments as TestProvider;
    const account = await provider.createConnectedAccount({ userId: hostId, email: null }, `host:${hostId}:account`);
    await writeTransaction(t.db, (tx) => tx.update(users).set({ stripeAccountId: account.id }).where(eq(users.id, hostId)));
    await provider.enableAccount(account.id);
    const id = await pendingBooking();
    await act(host, id, "accept");
    push.clear();
    clock = (await bookingRow(id)).startsAt + HOUR;
    await act(host, id, "complete");
    expect(received(guestBrowser)).toEqual([
      { title: "How was Tennis?", body: "Leave a review for Hana.", url: `/review?bookingId=${id}&userType=guest`, tag: `booking:${id}` },
    ]);
    expect(received(hostBrowser)).toEqual([{ title: "Payout sent", body: "$64.00 for Tennis is on its way to your payout account.", url: "/host", tag: `payment:${id}` }]);
  });

  test("a message reaches the other side, unless they are reading that conversation", async () => {
    const id = await pendingBooking();
    await act(host, id, "accept");
    push.clear();
    const say = async (sender: Client, content: string) => {
      expect((await sender.postJson("/api/messages", { bookingId: id, content })).status).toBe(201);
      await t.deps.events.idle();
    };
    await say(guest, "See you at the courts!\nI'll bring   balls.");
    expect(received(hostBrowser)).toEqual([{ title: "New message from Gabe", body: "See you at the courts! I'll bring balls.", url: `/bookings/${id}`, tag: `messages:${id}` }]);
    expect(received(guestBrowser)).toEqual([]);

    t.deps.presence.enter(hostId, id);
    await say(guest, "Running five minutes late");
    expect(received(hostBrowser).length).toBe(1);
    t.deps.presence.leave(hostId, id);
    await say(guest, "Here now");
    expect(received(hostBrowser).map((p) => p.body)).toEqual(["See you at the courts! I'll bring balls.", "Here now"]);
  });

  test("a long message is previewed in one line, cut at a word", () => {
    const long = `${"word ".repeat(40)}end`;
    const shown = preview(long);
    expect(shown.length).toBeLessThanOrEqual(141);
    expect(shown.endsWith("word…")).toBe(true);
    expect(preview("  short\n\n text ")).toBe("short text");
  });

  test("a published review reaches the person it is about", async () => {
    const id = await pendingBooking();
    push.clear();
    const review = await writeTransaction(t.db, (tx) => written(tx.insert(reviews).values(reviewRow({ bookingId: id, reviewerId: guestId, reviewedUserId: hostId, activityId, stars: 4 })).returning()));
    t.deps.events.emit({ type: "reviews.published", booking: await bookingRow(id), reviews: [review] });
    await t.deps.events.idle();
    expect(received(hostBrowser)).toEqual([{ title: "New review", body: "Gabe left you a 4-star review.", url: "/reviews", tag: `review:${review.id}` }]);
    expect(received(guestBrowser)).toEqual([]);
  });

  test("a reminder reaches both sides 24 hours before an accepted activity, and not once it is canceled", async () => {
    const canceled = await pendingBooking();
    const kept = await pendingBooking();
    await act(host, kept, "accept");
    await act(host, canceled, "accept");
    await act(guest, canceled, "cancel");
    const reminder = (await one(t.db.select().from(jobs).where(eq(jobs.key, `notifications.reminder:${kept}`))))!;
    expect(reminder.runAt).toBe((await bookingRow(kept)).startsAt - 24 * HOUR);
    push.clear();

    clock = reminder.runAt - 1000;
    await t.deps.jobs.runDue();
    expect(about(guestBrowser, kept)).toEqual([]);
    // Past both reminders' times (the canceled booking is the day before).
    clock = reminder.runAt + 1000;
    await t.deps.jobs.runDue();
    const reminders = (browser: FakeSubscription) => received(browser).filter((p) => p.title.startsWith("Tomorrow"));
    expect(reminders(guestBrowser)).toEqual([{ title: "Tomorrow: Tennis", body: "10:00 AM with Hana.", url: `/bookings/${kept}`, tag: `booking:${kept}` }]);
    expect(reminders(hostBrowser)).toEqual([{ title: "Tomorrow: Tennis", body: "10:00 AM with Gabe.", url: `/bookings/${kept}`, tag: `booking:${kept}` }]);
    // Kept only until the activity starts.
    expect(push.to(guestBrowser.id).find((d) => String(d.payload.title).startsWith("Tomorrow"))!.ttl).toBe(Math.floor(((await bookingRow(kept)).startsAt - clock) / 1000));
  });

  test("a booking accepted less than 24 hours ahead gets no reminder", async () => {
    const id = await pendingBooking();
    clock = (await bookingRow(id)).startsAt - 2 * HOUR;
    await writeTransaction(t.db, (tx) => tx.update(bookings).set({ respondBy: clock + HOUR }).where(eq(bookings.id, id)));
    await act(host, id, "accept");
    expect(await one(t.db.select().from(jobs).where(eq(jobs.key, `notifications.reminder:${id}`)))).toBeUndefined();
  });
});

/** The booking's start as the English notifications write it. */
async function dateOf(id: string) {
  const local = (await bookingRow(id)).startsAtLocal;
  return new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }).format(Date.parse(`${local}Z`));
}

describe("each kind respects its preference", () => {
  /** Something that sends one kind of notification to `recipient`, whose title is `title`. */
  const cases: { type: PreferenceKey; who: "host" | "guest"; title: string; run: () => Promise<void> }[] = [
    { type: "bookingRequests", who: "host", title: "New booking request", run: async () => void (await pendingBooking()) },
    { type: "bookingConfirmations", who: "guest", title: "Booking accepted", run: async () => act(host, await pendingBooking(), "accept") },
    { type: "paymentNotifications", who: "guest", title: "Payment released", run: async () => act(host, await pendingBooking(), "reject") },
    {
      type: "activityUpdates",
      who: "host",
      title: "Booking canceled",
      run: async () => {
        const id = await pendingBooking();
        await act(host, id, "accept");
        await act(guest, id, "cancel");
      },
    },
    {
      type: "messages",
      who: "guest",
      title: "New message from Hana",
      run: async () => {
        const id = await pendingBooking();
        const message = await writeTransaction(t.db, (tx) => written(tx.insert(messages).values({ id: crypto.randomUUID(), bookingId: id, senderId: hostId, content: "Hello", createdAt: clock }).returning()));
        t.deps.events.emit({ type: "message.created", booking: await bookingRow(id), message });
        await t.deps.events.idle();
      },
    },
    {
      type: "reviews",
      who: "guest",
      title: "New review",
      run: async () => {
        const id = await pendingBooking();
        const review = await writeTransaction(t.db, (tx) => written(tx.insert(reviews).values(reviewRow({ bookingId: id, reviewerId: hostId, reviewedUserId: guestId })).returning()));
        t.deps.events.emit({ type: "reviews.published", booking: await bookingRow(id), reviews: [review] });
        await t.deps.events.idle();
      },
    },
    {
      type: "reminders",
      who: "guest",
      title: "Tomorrow: Tennis",
      run: async () => {
        const id = await pendingBooking();
        await act(host, id, "accept");
        clock = (await bookingRow(id)).startsAt - 24 * HOUR;
        await t.deps.jobs.runDue();
      },
    },
  ];

  test("every preference but marketing governs something sent", () => {
    expect(new Set(cases.map((c) => c.type))).toEqual(new Set(PREFERENCE_KEYS.filter((k) => k !== "marketingEmails")));
  });

  for (const c of cases) {
    test(`${c.type}: "${c.title}" is sent while on, not while off`, async () => {
      const client = c.who === "host" ? host : guest;
      const browser = c.who === "host" ? hostBrowser : guestBrowser;
      await setPreference(client, c.type, false);
      try {
        await c.run();
        expect(titles(browser)).not.toContain(c.title);
      } finally {
        await setPreference(client, c.type, true);
      }
      clock = START;
      push.clear();
      await c.run();
      expect(titles(browser)).toContain(c.title);
    });
  }
});

describe("language", () => {
  test("the recipient's chosen language, else the language of the browser that subscribed", async () => {
    // The host chose French; the guest chose nothing, but subscribed a second browser in French.
    await writeTransaction(t.db, (tx) => tx.update(users).set({ locale: "fr" }).where(eq(users.id, hostId)));
    const frenchBrowser = await subscribeBrowser(guest, { "accept-language": "fr-FR,fr;q=0.9" });
    try {
      const id = await pendingBooking();
      expect(received(hostBrowser)).toEqual([expect.objectContaining({ title: "Nouvelle demande de réservation", body: expect.stringContaining("Gabe souhaite réserver Tennis le") })]);
      push.clear();
      await act(host, id, "accept");
      expect(titleSet(guestBrowser)).toEqual(["Booking accepted", "Payment completed"]);
      expect(titleSet(frenchBrowser)).toEqual(["Paiement effectué", "Réservation acceptée"]);
      expect(titled(frenchBrowser, "Paiement effectué").body).toBe(`${formatMoney(8800, "fr", { currency: "usd" })} ont été débités pour Tennis.`);
      // A language the person chose wins over their browser's.
      await writeTransaction(t.db, (tx) => tx.update(users).set({ locale: "en" }).where(eq(users.id, guestId)));
      push.clear();
      await act(guest, id, "cancel");
      expect(titles(frenchBrowser)).toEqual(["Refund issued"]);
    } finally {
      await writeTransaction(t.db, async (tx) => {
        await tx.update(users).set({ locale: null }).where(eq(users.id, hostId));
        await tx.update(users).set({ locale: null }).where(eq(users.id, guestId));
        await tx.delete(pushSubscriptions).where(eq(pushSubscriptions.endpoint, frenchBrowser.endpoint));
      });
    }
  });
});

describe("delivery problems", () => {
  test("a subscription answered 404 or 410 is deleted; the others still get the message", async () => {
    const c = t.client();
    await c.signUpComplete();
    const gone = await subscribeBrowser(c);
    const expired = await subscribeBrowser(c);
    const alive = await subscribeBrowser(c);
    push.answer(gone.id, 410);
    push.answer(expired.id, 404);
    const res = await c.postJson("/api/notifications/test", {});
    expect(res.status).toBe(200);
    expect(await body(res)).toEqual({ sent: 1 });
    const left = (await t.db.select().from(pushSubscriptions)).map((s) => s.endpoint);
    expect(left).not.toContain(gone.endpoint);
    expect(left).not.toContain(expired.endpoint);
    expect(left).toContain(alive.endpoint);
  });

  test("a dead subscription met by an event's notification is deleted too", async () => {
    const extra = await subscribeBrowser(host);
    push.answer(extra.id, 410);
    await pendingBooking();
    expect(await one(t.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.endpoint, extra.endpoint)))).toBeUndefined();
    expect(titles(hostBrowser)).toEqual(["New booking request"]);
  });

  test("a busy push service gets the message again later, also after a restart", async () => {
    push.answer(hostBrowser.id, 503);
    try {
      await pendingBooking();
      expect(received(hostBrowser)).toEqual([]);
      const waiting = await t.db.select().from(jobs).where(eq(jobs.kind, "notifications.push"));
      expect(waiting.length).toBe(1);
      expect(waiting[0]!.attempts).toBe(1);
      push.answer(hostBrowser.id, 201);
      // A new process on the same data directory sends it once its retry is due.
      const restarted = await makeTestApp({ dataDir: t.dataDir, now: () => clock });
      clock += 31_000;
      await restarted.deps.jobs.runDue();
      expect(titles(hostBrowser)).toEqual(["New booking request"]);
      expect(await t.db.select().from(jobs).where(eq(jobs.kind, "notifications.push"))).toEqual([]);
    } finally {
      push.answer(hostBrowser.id, 201);
    }
  });
});

describe("the test notification", () => {
  test("goes to each of your browsers with your title and text, or the default ones", async () => {
    const c = t.client();
    await c.signUpComplete();
    const browser = await subscribeBrowser(c);
    expect(await body(await c.postJson("/api/notifications/test", { title: "Hello", body: "From the test" }))).toEqual({ sent: 1 });
    expect(await body(await c.postJson("/api/notifications/test", {}))).toEqual({ sent: 1 });
    expect(received(browser)).toEqual([
      { title: "Hello", body: "From the test", url: "/settings", tag: "test" },
      { title: "Test notification", body: "Notifications are working on this device.", url: "/settings", tag: "test" },
    ]);
  });

  test("needs a subscription, sensible text, and is limited to 5 in 10 minutes", async () => {
    const c = t.client();
    await c.signUpComplete();
    const none = await c.postJson("/api/notifications/test", {});
    expect(none.status).toBe(409);
    expect((await body(none)).message).toBe("Please enable notifications first.");
    await subscribeBrowser(c);
    for (const bad of [{ title: "x".repeat(101) }, { body: "x".repeat(301) }, { title: { nested: true } }]) {
      expect((await c.postJson("/api/notifications/test", bad)).status).toBe(400);
    }
    // Every attempt counts, refused ones too: this is the fifth.
    expect((await c.postJson("/api/notifications/test", {})).status).toBe(200);
    const limited = await c.postJson("/api/notifications/test", {});
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBeTruthy();
  });

  test("says so when no push service took it", async () => {
    const c = t.client();
    await c.signUpComplete();
    const browser = await subscribeBrowser(c);
    push.answer(browser.id, 500);
    const res = await c.postJson("/api/notifications/test", {});
    expect(res.status).toBe(502);
    expect((await body(res)).message).toBe("Failed to send test notification.");
  });
});
