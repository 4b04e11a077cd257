import { writeTransaction } from "../db/client";
import { eq } from "drizzle-orm";
import { sessions } from "../db/schema";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { LIVE_LIMITS } from "../src/web/live/routes";
import { bookingParties, Client, makeTestApp, UPGRADE_HEADERS, requestWithTestCard } from "./helpers";
import { cookieOf, LiveClient, type Frame } from "./live-client";

/**
 * The live channel (`/ws`) on a real server (`app.handle` cannot upgrade): who may open and
 * subscribe, what reaches whom when messages are sent, bookings change and conversations are
 * read, catching up after a reconnection, and the sockets of ended sessions.
 */
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const START = Date.UTC(2026, 5, 1, 16, 0);

let t: Awaited<ReturnType<typeof makeTestApp>>;
let base: string;
let host: Client;
let guest: Client;
let stranger: Client;
let hostId: string;
let guestId: string;
let activityId: string;
const sockets: LiveClient[] = [];

const body = async (res: Response) => (await res.json()) as Record<string, any>;

beforeAll(async () => {
  t = await makeTestApp({ now: () => START });
  t.app.listen({ port: 0, hostname: "127.0.0.1" });
  base = `http://127.0.0.1:${t.app.server!.port}`;
  ({ host, guest, stranger, hostId, guestId, activityId } = await bookingParties(t, { host: { firstName: "Maya" }, guest: { firstName: "Sam" }, stranger: { firstName: "Eve" } }));
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await t.app.stop(true);
  t.cleanup();
});
// The clock stands still, so the sending limit's window never passes: each test starts with none spent.
beforeEach(async () => {
  for (const id of [hostId, guestId]) await t.deps.limits.messagesByUser.reset(id);
});

let day = 2;
/** A pending request of the guest, paid with the test card. */
async function request() {
  const date = new Date(START + day++ * DAY).toISOString().slice(0, 10);
  const { res } = await requestWithTestCard(guest, { activityId, date, hours: 1, total: "44.00" });
  expect(res.status).toBe(201);
  return (await body(res)).id as string;
}

async function accepted() {
  const id = await request();
  expect((await host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(200);
  await t.deps.events.idle();
  return id;
}

async function socketOf(c: Client | null, opts: { origin?: string | null; headers?: Record<string, string> } = {}) {
  const s = await LiveClient.open(base, { cookie: c ? cookieOf(c) : undefined, ...opts });
  sockets.push(s);
  return s;
}

const send = (c: Client, bookingId: string, content: string, clientId?: string) => c.postJson("/api/messages", { bookingId, content, clientId });

/** Gives frames that would arrive a moment to do so, then lets a test check none did. */
const settle = async () => {
  await t.deps.events.idle();
  await Bun.sleep(50);
};

/** An upgrade request through `app.handle`: it runs every check the real upgrade runs, then stops short of switching protocols (400). */
const upgrade = (c: Client | null, origin: string) => (c ?? t.client()).request("/ws", { headers: { ...UPGRADE_HEADERS, origin } });

describe("opening the socket", () => {
  test("refused without a session (401), with an unfinished profile (403), and from another site (403)", async () => {
    expect((await upgrade(null, "http://localhost")).status).toBe(401);
    const unfinished = t.client();
    await unfinished.signUp();
    expect((await upgrade(unfinished, "http://localhost")).status).toBe(403);
    const crossSite = await upgrade(guest, "https://evil.example");
    expect(crossSite.status).toBe(403);
    expect((await body(crossSite)).message).toContain("another site");
    // The same checks pass for a member on our own page (the public address or the request's own).
    expect((await upgrade(guest, "http://localhost")).status).toBe(400);

    // On the real server: nothing opens.
    expect((await socketOf(null)).isOpen).toBe(false);
    expect((await socketOf(guest, { origin: "https://evil.example" })).isOpen).toBe(false);
    expect((await socketOf(unfinished)).isOpen).toBe(false);
    expect((await socketOf(guest)).isOpen).toBe(true);
  });
});

describe("subscribing", () => {
  test("a stranger is refused, with the same answer as for a booking that does not exist, and hears nothing", async () => {
    const bookingId = await accepted();
    const eve = await socketOf(stranger);
    const refused = await eve.subscribe(bookingId);
    const missing = await eve.subscribe(crypto.randomUUID());
    expect(refused).toEqual({ type: "error", bookingId, message: "Conversation not found" });
    expect({ ...missing, bookingId } as Frame).toEqual(refused);
    // Not a UUID at all: the same again.
    expect((await eve.subscribe("../../etc")).message).toBe("Conversation not found");

    const sam = await socketOf(guest);
    expect(await sam.subscribe(bookingId)).toEqual({ type: "subscribed", bookingId });
    expect((await send(host, bookingId, "Hello Sam")).status).toBe(201);
    await sam.next((f) => f.type === "new_message");
    await settle();
    expect(eve.frames.filter((f) => f.type !== "error")).toEqual([]);
  });

  test("in the socket's language", async () => {
    const eve = await socketOf(stranger, { headers: { "accept-language": "fr" } });
    expect((await eve.subscribe(crypto.randomUUID())).message).toBe("Conversation introuvable");
  });
});

describe("what reaches whom", () => {
  test("a message posted over HTTP reaches both participants' sockets, every one of them, and no one else's", async () => {
    const bookingId = await accepted();
    const other = await accepted();
    const samPhone = await socketOf(guest);
    const samLaptop = await socketOf(guest);
    const maya = await socketOf(host);
    const mayaElsewhere = await socketOf(host);
    const eve = await socketOf(stranger);
    for (const s of [samPhone, samLaptop, maya]) expect((await s.subscribe(bookingId)).type).toBe("subscribed");
    // Subscribed to another conversation only.
    expect((await mayaElsewhere.subscribe(other)).type).toBe("subscribed");
    await eve.subscribe(bookingId);

    const res = await send(guest, bookingId, "See you at the court", "c-1");
    expect(res.status).toBe(201);
    const sent = await body(res);
    for (const s of [samPhone, samLaptop, maya]) {
      const frame = await s.next((f) => f.type === "new_message" && f.message.id === sent.id);
      expect(frame).toEqual({ type: "new_message", bookingId, message: { id: sent.id, bookingId, senderId: guestId, content: "See you at the court", isSystemMessage: false, systemMessageType: null, readBy: [guestId], createdAt: new Date(START).toISOString() } });
    }
    await settle();
    expect(mayaElsewhere.of("new_message")).toEqual([]);
    expect(eve.of("new_message")).toEqual([]);
    // Unsubscribed, a socket hears no more of it.
    maya.send({ type: "unsubscribe_booking", bookingId });
    await settle();
    await send(host, bookingId, "Great");
    await samPhone.next((f) => f.type === "new_message" && f.message.content === "Great");
    await settle();
    expect(maya.of("new_message").map((f) => f.message.content)).toEqual(["See you at the court"]);
  });

  test("a booking's status change reaches its sockets, with its system message", async () => {
    const bookingId = await request();
    const sam = await socketOf(guest);
    const maya = await socketOf(host);
    await sam.subscribe(bookingId);
    await maya.subscribe(bookingId);
    expect((await host.postJson(`/api/bookings/${bookingId}/accept`, {})).status).toBe(200);
    for (const s of [sam, maya]) {
      expect(await s.next((f) => f.type === "booking_status")).toEqual({ type: "booking_status", bookingId, status: "accepted", from: "pending" });
      const system = await s.next((f) => f.type === "new_message");
      expect(system.message).toMatchObject({ bookingId, senderId: hostId, isSystemMessage: true, systemMessageType: "booking_accepted" });
    }
  });

  test("reading the conversation reaches the other side (for 'Seen')", async () => {
    const bookingId = await accepted();
    const maya = await socketOf(host);
    await maya.subscribe(bookingId);
    await send(host, bookingId, "Are you there?");
    expect((await guest.postJson(`/api/messages/${bookingId}/mark-read`, {})).status).toBe(200);
    expect(await maya.next((f) => f.type === "messages_read")).toEqual({ type: "messages_read", bookingId, readerId: guestId, at: new Date(START).toISOString() });
  });
});

describe("reconnecting", () => {
  test("after a dropped connection, the client fetches what it missed and hears what follows", async () => {
    const bookingId = await accepted();
    const first = await socketOf(guest);
    await first.subscribe(bookingId);
    await send(host, bookingId, "One");
    const seen = await first.next((f) => f.type === "new_message" && f.message.content === "One");
    first.close();
    await first.closed;

    // Written while the guest was away.
    await send(host, bookingId, "Two");
    await t.deps.limits.messagesByUser.reset(hostId);
    await send(host, bookingId, "Three");
    await settle();

    const again = await socketOf(guest);
    await again.subscribe(bookingId);
    const missed = await body(await guest.get(`/api/messages?bookingId=${bookingId}&after=${seen.message.id}`));
    expect((missed as unknown as Frame[]).map((m) => m.content)).toEqual(["Two", "Three"]);
    await t.deps.limits.messagesByUser.reset(hostId);
    await send(host, bookingId, "Four");
    expect((await again.next((f) => f.type === "new_message")).message.content).toBe("Four");
  });
});

describe("ended sessions", () => {
  test("signing out closes the sockets that session opened, and only those", async () => {
    const phone = t.client();
    const laptop = t.client();
    await phone.signInAs(guestId);
    await laptop.signInAs(guestId);
    const onPhone = await socketOf(phone);
    const onLaptop = await socketOf(laptop);
    expect((await phone.postJson("/api/auth/logout", {})).status).toBe(200);
    expect(await onPhone.closed).toBe(4401);
    await settle();
    expect(onLaptop.isOpen).toBe(true);
  });

  test("a password change closes the sockets of the account's other sessions", async () => {
    const c = t.client();
    const { email, password } = await c.signUp();
    await c.putJson("/api/user/profile", { firstName: "Ada", lastName: "L", username: `ada${Date.now()}`, dateOfBirth: "1990-05-15", photos: [await c.uploadPhoto()], country: "United States", city: "New York" });
    const other = t.client();
    await other.postJson("/api/login", { email, password });
    const kept = await socketOf(c);
    const ended = await socketOf(other);
    expect(kept.isOpen && ended.isOpen).toBe(true);
    expect((await c.putJson("/api/user/password", { currentPassword: password, newPassword: "another-secret-1" })).status).toBe(200);
    expect(await ended.closed).toBe(4401);
    await settle();
    expect(kept.isOpen).toBe(true);
  });

  test("a session ended without a word (deleted) cannot subscribe with its socket", async () => {
    const bookingId = await accepted();
    const c = t.client();
    await c.signInAs(guestId);
    const s = await socketOf(c);
    await writeTransaction(t.db, (tx) => tx.delete(sessions).where(eq(sessions.userId, guestId)));
    s.send({ type: "subscribe_booking", bookingId });
    expect(await s.closed).toBe(4401);
    await guest.signInAs(guestId);
  });
});

describe("frames", () => {
  test("bad frames are answered with an error and the socket stays usable", async () => {
    const bookingId = await accepted();
    const s = await socketOf(guest);
    for (const bad of ["not json", "{", "42", "null", JSON.stringify({ type: "shout" }), JSON.stringify({ type: "subscribe_booking" }), JSON.stringify({ type: "viewing", bookingId, visible: "yes" }), JSON.stringify({ type: "subscribe_booking", bookingId: 7 })]) {
      s.send(bad);
    }
    expect(await s.subscribe(bookingId)).toEqual({ type: "subscribed", bookingId });
    expect(s.of("error").map((f) => f.message)).toEqual(Array(8).fill("This message could not be understood."));
    expect(s.isOpen).toBe(true);
  });

  test("a frame over the size limit closes the socket", async () => {
    const s = await socketOf(guest);
    s.send(JSON.stringify({ type: "subscribe_booking", bookingId: "x".repeat(LIVE_LIMITS.frameBytes) }));
    expect(await s.closed).toBe(1009);
  });

  test("a socket follows a limited number of conversations", async () => {
    const ids = [];
    for (let i = 0; i <= LIVE_LIMITS.subscriptions; i++) ids.push(await request());
    const s = await socketOf(guest);
    for (const id of ids.slice(0, -1)) expect((await s.subscribe(id)).type).toBe("subscribed");
    expect(await s.subscribe(ids.at(-1)!)).toMatchObject({ type: "error", message: "Too many conversations are open on this connection." });
    // Subscribing again to one it follows is fine.
    expect((await s.subscribe(ids[0]!)).type).toBe("subscribed");
  });

  test("one session keeps a limited number of sockets open; closing one makes room", async () => {
    const first = [];
    for (let i = 0; i < LIVE_LIMITS.socketsPerSession; i++) first.push(await socketOf(stranger));
    const extra = await socketOf(stranger);
    expect(await extra.closed).toBe(1008);
    // The ones already open still work.
    expect(first[0]!.isOpen).toBe(true);
    first[0]!.close();
    await first[0]!.closed;
    const again = await socketOf(stranger);
    await Bun.sleep(50);
    expect(again.isOpen).toBe(true);
    for (const s of [...first, again]) s.close();
  });

  test("a flood of frames closes the socket", async () => {
    const s = await socketOf(guest);
    for (let i = 0; i <= LIVE_LIMITS.framesPerWindow; i++) s.send({ type: "unsubscribe_booking", bookingId: "none" });
    expect(await s.closed).toBe(1008);
  });
});

describe("presence", () => {
  test("a socket showing a conversation counts as viewing it until it hides it or closes", async () => {
    const bookingId = await accepted();
    const s = await socketOf(guest);
    s.send({ type: "viewing", bookingId, visible: true });
    expect((await s.next((f) => f.type === "error")).message).toBe("Open this conversation first.");
    expect(await t.deps.presence.isViewing(guestId, bookingId)).toBe(false);

    await s.subscribe(bookingId);
    const viewing = async (visible: boolean) => {
      s.send({ type: "viewing", bookingId, visible });
      await s.subscribe(bookingId); // answered once the frame before it is handled
      return t.deps.presence.isViewing(guestId, bookingId);
    };
    expect(await viewing(true)).toBe(true);
    // Twice visible on one socket is still one view.
    expect(await viewing(true)).toBe(true);
    expect(await viewing(false)).toBe(false);
    expect(await viewing(true)).toBe(true);
    s.close();
    await s.closed;
    await Bun.sleep(20);
    expect(await t.deps.presence.isViewing(guestId, bookingId)).toBe(false);
  });
});
