import type { SQL } from "bun";
import { engineOf, one, writeTransaction } from "../db/client";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { bookings, messages, reviews, users } from "../db/schema";
import { insert, userRow } from "../src/demo/factories";
import type { DomainEvent } from "../src/events";
import { translator } from "../src/texts";
import { LAST_MESSAGE_KEYS, MESSAGE_VIEW_KEYS } from "../src/conversations/serialize";
import { unreadCountQuery } from "../src/bookings/unread";
import { systemTexts } from "../src/conversations/wording";
import { messageStamp } from "../shared/chat-state";
import { select } from "./html";
import { bookingParties, Client, makeTestApp, TEST_CARD, requestWithTestCard } from "./helpers";
import { scenario } from "./scenario";

/**
 * Conversations (spec §2 "Bookings" and "Conversation", §5 "Messages", §7): the messages calls,
 * who may use them, the system messages worded for each side, unread conversations, the inbox's
 * order, the host's answers from the inbox and the conversation, and the plain message form.
 */
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
// 2026-06-01 12:00 in New York (16:00 UTC).
const START = Date.UTC(2026, 5, 1, 16, 0);
let clock = START;
const now = () => clock;

let t: Awaited<ReturnType<typeof makeTestApp>>;
let host: Client;
let guest: Client;
let stranger: Client;
let hostId: string;
let guestId: string;
let activityId: string;
const events: DomainEvent[] = [];

const body = async (res: Response) => (await res.json()) as Record<string, any>;

beforeAll(async () => {
  t = await makeTestApp({ now });
  t.deps.events.on((e) => {
    events.push(e);
  });
  ({ host, guest, stranger, hostId, guestId, activityId } = await bookingParties(t, {
    host: { firstName: "Maya", interests: ["tennis", "cooking"], bio: "Coach since 2010." },
    guest: { firstName: "Sam" },
    stranger: { firstName: "Eve" },
  }));
  // Languages come from the about section's spoken languages; set directly here.
  await writeTransaction(t.db, (tx) => tx.update(users).set({ languages: ["French"] }).where(eq(users.id, hostId)));
});
afterAll(() => t.cleanup());
// The clock stands still, so the sending limit's window would never pass between tests: each test starts with none spent.
beforeEach(async () => {
  for (const id of [hostId, guestId]) await t.deps.limits.messagesByUser.reset(id);
});

let day = 2;
/** A pending request of the guest, made through the date-time flow, on a later day each time. */
async function request(c = guest) {
  const date = new Date(START + day++ * DAY).toISOString().slice(0, 10);
  const { res } = await requestWithTestCard(c, { activityId, date, hours: 1, total: "44.00" });
  expect(res.status).toBe(201);
  return (await body(res)).id as string;
}

async function accepted() {
  const id = await request();
  expect((await host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(200);
  return id;
}

const send = (c: Client, bookingId: string, content: unknown, extra: Record<string, unknown> = {}) => c.postJson("/api/messages", { bookingId, content, ...extra });
const list = async (c: Client, bookingId: string, after?: string) =>
  (await body(await c.get(`/api/messages?bookingId=${bookingId}${after ? `&after=${after}` : ""}`))) as unknown as Record<string, any>[];
const page = async (c: Client, path: string, headers: HeadersInit = {}) => {
  const res = await c.get(path, headers);
  return { res, html: await res.text() };
};
/** A person's inbox rows, in order: booking id and unread flag. */
const inbox = async (c: Client, path = "/bookings") => select((await page(c, path)).html, "li[data-booking]").map((r) => ({ id: r.attributes["data-booking"]!, unread: r.attributes["data-unread"] === "true" }));
const badge = async (c: Client) => select((await page(c, "/browse")).html, "[data-unread-badge]")[0]?.text ?? null;
const systemLines = (html: string) => select(html, "li[data-system] p").map((p) => p.text);
const startOf = async (id: string) => (await one(t.db.select().from(bookings).where(eq(bookings.id, id))))!.startsAt;

describe("sending", () => {
  test("a participant sends to an accepted booking: 201, the message's shape, saved, then announced; the clientId comes back unstored", async () => {
    const id = await accepted();
    events.length = 0;
    const res = await send(guest, id, "  Hello!\r\nSee you at the court.  ", { clientId: "tmp-1" });
    expect(res.status).toBe(201);
    const m = await body(res);
    expect(Object.keys(m).sort()).toEqual([...MESSAGE_VIEW_KEYS, "clientId"].sort());
    expect(m).toMatchObject({ bookingId: id, senderId: guestId, content: "Hello!\nSee you at the court.", isSystemMessage: false, systemMessageType: null, readBy: [guestId], clientId: "tmp-1" });
    expect(m.createdAt).toBe(new Date(START).toISOString());
    expect((await one(t.db.select().from(messages).where(eq(messages.id, m.id))))!.content).toBe("Hello!\nSee you at the court.");
    await t.deps.events.idle();
    const created = events.filter((e) => e.type === "message.created");
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ booking: { id, status: "accepted" }, message: { id: m.id, content: "Hello!\nSee you at the court." } });
    // The host answers; both see the conversation, oldest first, system messages included.
    expect((await send(host, id, "Great, bring water.")).status).toBe(201);
    const seen = await list(host, id);
    expect(seen.map((x) => x.systemMessageType ?? x.content)).toEqual(["booking_request", "booking_accepted", "Hello!\nSee you at the court.", "Great, bring water."]);
    expect(await list(guest, id)).toEqual(seen);
  });

  test("blank, too long, not text or with control characters: 400 with the reason; 2,000 characters go through", async () => {
    const id = await accepted();
    const cases: [unknown, string][] = [
      ["", "Write something before sending."],
      [" \n\t\u200b ", "Write something before sending."],
      ["x".repeat(2001), "A message is 2,000 characters at most."],
      [42, "The message must be text."],
      [undefined, "The message must be text."],
      ["bell\u0007", "This message contains characters that cannot be sent."],
    ];
    for (const [content, message] of cases) {
      await scenario(t, { as: guest, method: "POST", url: "/api/messages", body: { bookingId: id, content }, status: 400, json: { message } });
    }
    expect((await send(guest, id, "x".repeat(2000))).status).toBe(201);
    expect((await list(guest, id)).filter((m) => !m.isSystemMessage)).toHaveLength(1);
  });

  test("only while accepted: a pending, declined or completed booking answers 409 with the banner's words", async () => {
    const pending = await request();
    const res = await send(guest, pending, "Hi?");
    expect(res.status).toBe(409);
    expect((await body(res)).message).toBe("Messages are only available after booking is accepted");
    expect((await send(host, pending, "Hi?")).status).toBe(409);
    const declined = await request();
    await host.postJson(`/api/bookings/${declined}/reject`, {});
    expect((await send(guest, declined, "Why?")).status).toBe(409);
    // French callers get the French words.
    guest.cookies.set("lang", "fr");
    expect((await body(await send(guest, pending, "Salut"))).message).toBe("Les messages ne sont disponibles qu'une fois la réservation acceptée");
    guest.cookies.delete("lang");
  });

  test("a stranger, or an id that does not exist, gets 404 from every call, and nothing is written", async () => {
    const id = await accepted();
    const before = (await t.db.select().from(messages)).length;
    const unknown = "00000000-0000-4000-8000-000000000000";
    for (const bookingId of [id, unknown, "not-an-id"]) {
      expect((await send(stranger, bookingId, "hi")).status).toBe(404);
      expect((await stranger.get(`/api/messages?bookingId=${bookingId}`)).status).toBe(404);
      expect((await stranger.postJson(`/api/messages/${bookingId}/mark-read`, {})).status).toBe(404);
      expect((await stranger.get(`/bookings/${bookingId}`)).status).toBe(404);
      expect((await stranger.postForm(`/bookings/${bookingId}/messages`, { content: "hi" })).status).toBe(404);
    }
    expect(await body(await stranger.get(`/api/messages?bookingId=${id}`))).toEqual({ message: "Booking not found" });
    expect(((await body(await stranger.get("/api/bookings/last-messages"))) as unknown as unknown[]).length).toBe(0);
    expect((await t.db.select().from(messages)).length).toBe(before);
  });

  test("sending is rate-limited per user with a clear 429 and a Retry-After; the window passing lets them go on", async () => {
    const id = await accepted();
    const other = await accepted();
    for (let i = 0; i < 30; i++) expect((await send(host, i % 2 ? id : other, `message ${i}`)).status).toBe(201);
    const refused = await send(host, id, "one more");
    expect(refused.status).toBe(429);
    expect((await body(refused)).message).toBe("You are sending messages too quickly. Wait a moment, then try again.");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    // The other side is not held back by it.
    expect((await send(guest, id, "I can still write")).status).toBe(201);
    clock = START + 61_000;
    expect((await send(host, id, "one more")).status).toBe(201);
    clock = START;
  });
});

describe("reading", () => {
  test("after a message id, only what came after it, in order (catch-up after a reconnection); an unknown mark is 400", async () => {
    const id = await accepted();
    const sent = [];
    for (const text of ["one", "two", "three", "four"]) sent.push(await body(await send(guest, id, text)));
    // Same instant for all four: the order they were written decides.
    expect((await list(host, id, sent[1]!.id)).map((m) => m.content)).toEqual(["three", "four"]);
    clock = START + 5000;
    await send(host, id, "five");
    clock = START;
    expect((await list(host, id, sent[3]!.id)).map((m) => m.content)).toEqual(["five"]);
    expect(await list(host, id, (await list(host, id)).at(-1)!.id)).toEqual([]);
    const elsewhere = await accepted();
    const foreign = (await list(guest, elsewhere))[0]!.id;
    for (const after of [foreign, "nope"]) {
      const res = await host.get(`/api/messages?bookingId=${id}&after=${after}`);
      expect(res.status).toBe(400);
      expect((await body(res)).message).toBe("That message is not part of this conversation.");
    }
  });

  test("mark-read adds the reader to readBy of the other side's messages only, announces it once, and nothing when there was nothing new", async () => {
    const id = await accepted();
    await send(guest, id, "hello");
    await send(host, id, "hi there");
    events.length = 0;
    clock = START + 1000;
    const res = await host.postJson(`/api/messages/${id}/mark-read`, {});
    expect(res.status).toBe(200);
    expect(await body(res)).toEqual({ bookingId: id, readerId: hostId, updated: 2, at: new Date(START + 1000).toISOString() });
    const rows = await list(host, id);
    // The request (sent by the guest) and the guest's message now hold the host; the host's own did already.
    expect(rows.map((m) => [m.systemMessageType ?? m.content, [...m.readBy].sort()])).toEqual([
      ["booking_request", [guestId, hostId].sort()],
      ["booking_accepted", [hostId]],
      ["hello", [guestId, hostId].sort()],
      ["hi there", [hostId]],
    ]);
    await t.deps.events.idle();
    expect(events.filter((e) => e.type === "messages.read")).toEqual([expect.objectContaining({ type: "messages.read", readerId: hostId, at: START + 1000, booking: expect.objectContaining({ id }) })]);
    expect((await body(await host.postJson(`/api/messages/${id}/mark-read`, {}))).updated).toBe(0);
    await t.deps.events.idle();
    expect(events.filter((e) => e.type === "messages.read")).toHaveLength(1);
    clock = START;
  });

  test("last-messages: per booking with messages, the newest one, in the spec's shape", async () => {
    const id = await accepted();
    await send(guest, id, "first");
    await send(host, id, "newest");
    const all = (await body(await guest.get("/api/bookings/last-messages"))) as unknown as Record<string, any>[];
    for (const row of all) expect(Object.keys(row).sort()).toEqual([...LAST_MESSAGE_KEYS].sort());
    const mine = all.find((r) => r.bookingId === id)!;
    expect(mine).toEqual({ bookingId: id, content: "newest", isSystemMessage: false, systemMessageType: null, createdAt: new Date(START).toISOString(), senderId: hostId, readBy: [hostId] });
    const pending = await request();
    const last = ((await body(await host.get("/api/bookings/last-messages"))) as unknown as Record<string, any>[]).find((r) => r.bookingId === pending)!;
    expect(last).toMatchObject({ content: "booking_request", isSystemMessage: true, systemMessageType: "booking_request", senderId: guestId });
  });
});

describe("system messages, from each side, in both languages", () => {
  const en = translator("en");
  const fr = translator("fr");
  const answered = { respondedAt: START };
  const unanswered = { respondedAt: null };

  test("the spec's pairs, and ours for expired, withdrawn and cancelled bookings", () => {
    const asGuest = systemTexts(en, "guest", "Maya", answered);
    const asHost = systemTexts(en, "host", "Sam", answered);
    expect(asGuest.booking_request).toMatchObject({ mine: "You sent a booking request" });
    expect(asHost.booking_request).toMatchObject({ theirs: "Sam sent you a booking request" });
    expect(asGuest.booking_accepted.theirs).toBe("Maya accepted your request");
    expect(asHost.booking_accepted.mine).toBe("You accepted Sam's request");
    expect(asGuest.booking_declined.theirs).toBe("Maya declined your request");
    expect(asHost.booking_declined.mine).toBe("You declined Sam's request");
    expect(asGuest.booking_completed).toEqual({ mine: "You marked the activity as complete", theirs: "Maya marked the activity as complete", automatic: "The activity was marked as complete automatically" });
    expect(asHost.booking_completed.mine).toBe("You marked the activity as complete");
    expect(asGuest.booking_expired.automatic).toBe("Your request expired without an answer. The hold on your card was released.");
    expect(asHost.booking_expired.automatic).toBe("This request expired without an answer");
    expect(systemTexts(en, "guest", "Maya", unanswered).booking_canceled.mine).toBe("You withdrew your request");
    expect(systemTexts(en, "host", "Sam", unanswered).booking_canceled.theirs).toBe("Sam withdrew their request");
    expect(asGuest.booking_canceled).toMatchObject({ mine: "You canceled the booking", theirs: "Maya canceled the booking" });
  });

  test("in French", () => {
    const asGuest = systemTexts(fr, "guest", "Maya", answered);
    const asHost = systemTexts(fr, "host", "Sam", answered);
    expect(asGuest.booking_request.mine).toBe("Vous avez envoyé une demande de réservation");
    expect(asHost.booking_request.theirs).toBe("Sam vous a envoyé une demande de réservation");
    expect(asGuest.booking_accepted.theirs).toBe("Maya a accepté votre demande");
    expect(asHost.booking_accepted.mine).toBe("Vous avez accepté la demande de Sam");
    expect(asGuest.booking_declined.theirs).toBe("Maya a refusé votre demande");
    expect(asHost.booking_declined.mine).toBe("Vous avez refusé la demande de Sam");
    expect(asGuest.booking_completed.theirs).toBe("Maya a marqué l'activité comme terminée");
    expect(asHost.booking_completed.mine).toBe("Vous avez marqué l'activité comme terminée");
    expect(asHost.booking_expired.automatic).toBe("Cette demande a expiré sans réponse");
    expect(systemTexts(fr, "host", "Sam", unanswered).booking_canceled.theirs).toBe("Sam a retiré sa demande");
  });

  test("the conversation screen words each line for its viewer, and so do the inbox previews", async () => {
    const id = await accepted();
    clock = (await startOf(id)) + 2 * HOUR;
    expect((await host.postJson(`/api/bookings/${id}/complete`, {})).status).toBe(200);
    expect(systemLines((await page(guest, `/bookings/${id}`)).html)).toEqual(["You sent a booking request", "Maya accepted your request", "Maya marked the activity as complete"]);
    expect(systemLines((await page(host, `/bookings/${id}`)).html)).toEqual(["Sam sent you a booking request", "You accepted Sam's request", "You marked the activity as complete"]);
    host.cookies.set("lang", "fr");
    expect(systemLines((await page(host, `/bookings/${id}`)).html)).toEqual(["Sam vous a envoyé une demande de réservation", "Vous avez accepté la demande de Sam", "Vous avez marqué l'activité comme terminée"]);
    host.cookies.delete("lang");
    const preview = (html: string) => select(html, `li[data-booking="${id}"] [data-preview]`)[0]!.text;
    expect(preview((await page(guest, "/bookings")).html)).toBe("Maya marked the activity as complete");
    expect(preview((await page(host, "/bookings")).html)).toBe("You marked the activity as complete");
    // The island gets the same words, for both sides, in its props.
    const props = JSON.parse(select((await page(guest, `/bookings/${id}`)).html, '[data-island="Chat"]')[0]!.attributes["data-props"]!);
    expect(props.systemTexts.booking_accepted).toEqual({ mine: "You accepted Maya's request", theirs: "Maya accepted your request", automatic: "Maya accepted your request" });
    expect(props).toMatchObject({ bookingId: id, viewerId: guestId, status: "completed", locale: "en", timeZone: "America/New_York", maxLength: 2000 });
    expect(props.texts).toMatchObject({ placeholder: "Type a message...", disabledBanner: "Messages are only available after booking is accepted" });
    expect(props.messages).toHaveLength(3);
    clock = START;
  });

  test("an expired request and a withdrawn one read as ours, from each side", async () => {
    const expiring = await request();
    clock = START + DAY + 1000;
    await t.deps.jobs.runDue();
    expect(systemLines((await page(guest, `/bookings/${expiring}`)).html).at(-1)).toBe("Your request expired without an answer. The hold on your card was released.");
    expect(systemLines((await page(host, `/bookings/${expiring}`)).html).at(-1)).toBe("This request expired without an answer");
    clock = START;
    const withdrawn = await request();
    await guest.postJson(`/api/bookings/${withdrawn}/cancel`, {});
    expect(systemLines((await page(guest, `/bookings/${withdrawn}`)).html).at(-1)).toBe("You withdrew your request");
    expect(systemLines((await page(host, `/bookings/${withdrawn}`)).html).at(-1)).toBe("Sam withdrew their request");
  });
});

describe("timestamps", () => {
  test("the time alone under 24 hours, the date otherwise, in the viewer's language and the activity's zone", () => {
    const at = Date.UTC(2026, 5, 1, 16, 5);
    expect(messageStamp("en", at, at + HOUR, "America/New_York")).toBe("12:05 PM");
    expect(messageStamp("fr", at, at + HOUR, "Europe/Paris")).toBe("18:05");
    expect(messageStamp("en", at, at + DAY, "America/New_York")).toBe("Jun 1");
    expect(messageStamp("fr", at, at + 2 * DAY, "Europe/Paris")).toBe("1 juin");
    expect(messageStamp("en", at, at + 400 * DAY, "America/New_York")).toBe("Jun 1, 2026");
  });
});

describe("unread conversations", () => {
  let fresh: { host: Client; guest: Client; hostId: string; guestId: string; activityId: string };
  beforeAll(async () => {
    // A host and a guest with no history, so the counts start at zero.
    const h = t.client();
    const g = t.client();
    const hId = (await h.signUpComplete({ firstName: "Ines" })).user.id;
    const gId = (await g.signUpComplete({ firstName: "Leo" })).user.id;
    const a = await body(await h.postJson("/api/activities", { title: "Pottery", description: "Throw a bowl.", category: "art", hourlyRate: "30", duration: "1", maxDuration: "4" }));
    fresh = { host: h, guest: g, hostId: hId, guestId: gId, activityId: a.id };
  });

  async function freshRequest(date: string) {
    const intent = await body(await fresh.guest.postJson("/api/create-payment-intent", { amount: "33.00", metadata: { activityId: fresh.activityId, date, time: "10:00", duration: "1" } }));
    await fresh.guest.postJson("/api/payments/test/confirm", { clientSecret: intent.clientSecret, ...TEST_CARD });
    const res = await fresh.guest.postJson("/api/bookings", { activityId: fresh.activityId, proposedDatetime: `${date}T10:00:00`, durationHours: 1, priceTotal: "33.00", paymentIntentId: intent.paymentIntentId });
    return (await body(res)).id as string;
  }

  test("unread when the newest message is someone else's and the viewer has not read it; the tab shows how many", async () => {
    expect(await badge(fresh.host)).toBeNull();
    const first = await freshRequest("2026-06-20");
    // The request is the guest's own message: unread for the host only.
    expect(await inbox(fresh.host)).toEqual([{ id: first, unread: true }]);
    expect(await inbox(fresh.guest)).toEqual([{ id: first, unread: false }]);
    expect(await badge(fresh.host)).toBe("1");
    expect(await badge(fresh.guest)).toBeNull();
    const second = await freshRequest("2026-06-21");
    expect(await badge(fresh.host)).toBe("2");
    // Opening a conversation reads it.
    await fresh.host.get(`/bookings/${first}`);
    expect((await inbox(fresh.host)).find((r) => r.id === first)!.unread).toBe(false);
    expect(await badge(fresh.host)).toBe("1");
    // The host accepts: their own system message is the newest, so it is not unread for them, and is for the guest.
    expect((await fresh.host.postJson(`/api/bookings/${second}/accept`, {})).status).toBe(200);
    expect((await inbox(fresh.host)).find((r) => r.id === second)!.unread).toBe(false);
    expect((await inbox(fresh.guest)).find((r) => r.id === second)!.unread).toBe(true);
    expect(await badge(fresh.guest)).toBe("1");
    // A message back makes it unread for the host again; the mark-read call clears it.
    await send(fresh.guest, second, "Thanks!");
    expect(await badge(fresh.host)).toBe("1");
    await fresh.host.postJson(`/api/messages/${second}/mark-read`, {});
    expect(await badge(fresh.host)).toBeNull();
    // A system message nobody sent (an expiry) is unread for both.
    clock = START + DAY + 1000;
    await t.deps.jobs.runDue();
    expect((await inbox(fresh.host)).find((r) => r.id === first)!.unread).toBe(true);
    expect((await inbox(fresh.guest)).find((r) => r.id === first)!.unread).toBe(true);
    clock = START;
    // The badge names the count for screen readers too.
    const nav = select((await page(fresh.guest, "/browse")).html, "nav a[href='/bookings'] .sr-only")[0]!.text;
    expect(nav).toBe("(1 unread)");
  });

  test("the count is read through indexes: each side's bookings, then each booking's newest message", async () => {
    const { sql, params } = unreadCountQuery(t.db, hostId).toSQL();
    let plan: string;
    if (engineOf(t.db) === "sqlite") {
      // A statement of its own, finalized at once: an EXPLAIN left open holds the read connection's
      // snapshot, and the app's reads after it would not see later writes.
      const explain = t.db.$client.prepare(`EXPLAIN QUERY PLAN ${sql}`);
      plan = (explain.all(...(params as string[])) as { detail: string }[]).map((r) => r.detail).join("\n");
      explain.finalize();
    } else {
      // PostgreSQL's planner reads these few test rows faster whole, so it is asked to plan as for
      // a large table: with sequential scans held back, one remains only where no index serves.
      plan = await (t.db.$client as unknown as SQL).begin(async (tx) => {
        await tx.unsafe("SET LOCAL enable_seqscan = off");
        const rows = (await tx.unsafe(`EXPLAIN ${sql}`, params as unknown[])) as { "QUERY PLAN": string }[];
        return rows.map((r) => r["QUERY PLAN"]).join("\n");
      });
    }
    for (const index of ["bookings_guest", "bookings_host", "messages_booking"]) expect(plan).toContain(index);
    expect(plan).not.toMatch(/SCAN (bookings|messages)\b|Seq Scan on (bookings|messages)\b/);
  });

  test("a host does not see a booking that never became a request (still paying, or left the checkout)", async () => {
    // A guest of its own: the test above counts every conversation of fresh.guest.
    const guest = t.client();
    await guest.signInAs((await insert(t.db).user(userRow())).id);
    const res = await guest.postJson("/api/create-payment-intent", { activityId: fresh.activityId, hours: 1, amount: "33.00", proposedDate: "2026-06-25", proposedTime: "10:00", message: "Hello!" });
    const { bookingId } = await body(res);
    expect((await inbox(guest)).some((r) => r.id === bookingId)).toBe(true);
    expect((await inbox(fresh.host)).some((r) => r.id === bookingId)).toBe(false);
    const row = select((await page(guest, "/bookings")).html, `li[data-booking="${bookingId}"] a[href="/checkout/${bookingId}"]`);
    expect(row).toHaveLength(1);
  });
});

describe("the inbox", () => {
  test("sorted by last activity, newest first by default, oldest first on the toggle, with and without htmx", async () => {
    const c = t.client();
    const h = t.client();
    await c.signUpComplete({ firstName: "Ana" });
    await h.signUpComplete({ firstName: "Bo" });
    const a = await body(await h.postJson("/api/activities", { title: "Chess", description: "A game of chess.", category: "fun", hourlyRate: "20", duration: "1", maxDuration: "4" }));
    const make = async (date: string) => {
      const intent = await body(await c.postJson("/api/create-payment-intent", { amount: "22.00", metadata: { activityId: a.id, date, time: "10:00", duration: "1" } }));
      await c.postJson("/api/payments/test/confirm", { clientSecret: intent.clientSecret, ...TEST_CARD });
      return (await body(await c.postJson("/api/bookings", { activityId: a.id, proposedDatetime: `${date}T10:00:00`, durationHours: 1, priceTotal: "22.00", paymentIntentId: intent.paymentIntentId }))).id as string;
    };
    clock = START;
    const older = await make("2026-06-10");
    clock = START + HOUR;
    const middle = await make("2026-06-11");
    clock = START + 2 * HOUR;
    const newer = await make("2026-06-12");
    expect((await inbox(c)).map((r) => r.id)).toEqual([newer, middle, older]);
    // A message moves its conversation to the top: activity, not creation, decides.
    clock = START + 3 * HOUR;
    expect((await h.postJson(`/api/bookings/${older}/accept`, {})).status).toBe(200);
    expect((await inbox(c)).map((r) => r.id)).toEqual([older, newer, middle]);
    expect((await inbox(c, "/bookings?sort=oldest")).map((r) => r.id)).toEqual([middle, newer, older]);
    expect((await inbox(c, "/messages")).map((r) => r.id)).toEqual([older, newer, middle]);
    // The toggle: plain links, marked current, that htmx turns into a swap of the list alone.
    const full = (await page(c, "/bookings?sort=oldest")).html;
    expect(select(full, "#inbox nav a[aria-current=true]")[0]!.text).toBe("Oldest first");
    expect(select(full, "#inbox-loading")[0]!.text).toBe("Loading your conversations...");
    const links = select(full, "#inbox nav a");
    expect(links.map((l) => [l.attributes.href, l.attributes["hx-get"], l.attributes["hx-target"], l.attributes["hx-indicator"]])).toEqual([
      ["/bookings", "/bookings", "#inbox", "#inbox-loading"],
      ["/bookings?sort=oldest", "/bookings?sort=oldest", "#inbox", "#inbox-loading"],
    ]);
    const swap = await page(c, "/bookings?sort=oldest", { "HX-Request": "true" });
    expect(swap.html.startsWith('<div id="inbox"')).toBe(true);
    expect(swap.html).not.toContain("<html");
    expect(select(swap.html, "li[data-booking]").map((r) => r.attributes["data-booking"])).toEqual([middle, newer, older]);
    // A history restore asks for the whole page.
    expect((await page(c, "/bookings?sort=oldest", { "HX-Request": "true", "HX-History-Restore-Request": "true" })).html).toContain("<html");
    clock = START;
  });

  test("each row: the other person, the activity, the date, a translated status badge, and the last message", async () => {
    const id = await accepted();
    await send(host, id, "See you Tuesday!");
    const html = (await page(guest, "/bookings")).html;
    const row = (sel: string) => select(html, `li[data-booking="${id}"] ${sel}`).map((x) => x.text);
    expect(row("a p")[0]).toBe("Maya");
    expect(row("[data-status]")).toEqual(["Accepted"]);
    expect(row("[data-preview]")).toEqual(["See you Tuesday!"]);
    expect(row("a p")[1]).toBe("Tennis");
    // The date and time on a line of their own, never cut off by a long title.
    expect(row("[data-booking-when]")[0]).toMatch(/^\w{3}, \w{3} \d{1,2}, \d{1,2}:\d{2} (AM|PM)$/);
    expect(select(html, `li[data-booking="${id}"] a`)[0]!.attributes.href).toBe(`/bookings/${id}`);
    expect(select((await page(host, "/bookings")).html, `li[data-booking="${id}"] [data-preview]`)[0]!.text).toBe("You: See you Tuesday!");
    guest.cookies.set("lang", "fr");
    expect(select((await page(guest, "/bookings")).html, `li[data-booking="${id}"] [data-status]`)[0]!.text).toBe("Acceptée");
    guest.cookies.delete("lang");
  });

  test("every status has its label in both languages", async () => {
    const { bookingStatuses } = await import("../db/schema");
    for (const locale of ["en", "fr"] as const) {
      const t = translator(locale);
      const labels = bookingStatuses.map((s) => t(`status.${s}`));
      expect(labels.every((l, i) => l !== `status.${bookingStatuses[i]}` && l.length > 0)).toBe(true);
      expect(new Set(labels).size).toBe(labels.length);
    }
  });

  test("empty: 'No bookings yet'; the checkout's return toasts, then the address is /bookings again", async () => {
    const c = t.client();
    await c.signUpComplete();
    const html = (await page(c, "/bookings")).html;
    expect(html).toContain("No bookings yet");
    expect(html).toContain("Book an activity or wait for guests to request your activities");
    for (const path of ["/bookings", "/messages"]) {
      const ok = await c.get(`${path}?success=true`);
      expect([ok.status, ok.headers.get("location")]).toEqual([303, "/bookings"]);
      const shown = (await page(c, "/bookings")).html;
      expect(shown).toContain("Payment Successful!");
      expect((await page(c, "/bookings")).html).not.toContain("Payment Successful!");
      const canceled = await c.get(`${path}?canceled=true`);
      expect(canceled.headers.get("location")).toBe("/bookings");
      const after = (await page(c, "/bookings")).html;
      expect(after).toContain("Payment Canceled");
      expect(after).toContain("Your booking was not completed.");
    }
  });
});

describe("the host answers from the inbox and the conversation", () => {
  const toastOf = (html: string) => select(html, "#toasts .toast p").map((p) => p.text);

  test("accept and decline from the inbox without JavaScript: back to /bookings with the spec's toasts", async () => {
    const id = await request();
    const html = (await page(host, "/bookings")).html;
    const forms = select(html, `li[data-booking="${id}"] form`).map((f) => f.attributes.action);
    expect(forms).toEqual([`/api/bookings/${id}/reject`, `/api/bookings/${id}/accept`]);
    const res = await host.postForm(`/api/bookings/${id}/accept`, { next: "/bookings" });
    expect([res.status, res.headers.get("location")]).toEqual([303, "/bookings"]);
    expect(toastOf((await page(host, "/bookings")).html)).toEqual(["Booking Accepted", "You can now chat with your guest!"]);
    expect(select((await page(host, "/bookings")).html, `li[data-booking="${id}"] form`)).toHaveLength(0);
    const other = await request();
    await host.postForm(`/api/bookings/${other}/reject`, { next: "/bookings" });
    expect(toastOf((await page(host, "/bookings")).html)).toEqual(["Booking Declined", "Payment has been refunded to the guest."]);
  });

  test("with htmx the same forms answer with a redirect htmx follows, carrying the toast", async () => {
    const id = await request();
    const res = await host.postForm(`/api/bookings/${id}/accept`, { next: "/bookings" }, { "HX-Request": "true" });
    expect(res.status).toBe(200);
    expect(res.headers.get("hx-redirect")).toBe("/bookings");
    expect(toastOf((await page(host, "/bookings")).html)).toEqual(["Booking Accepted", "You can now chat with your guest!"]);
    // A failure: 'Error' with the reason, back where the button was.
    const again = await host.postForm(`/api/bookings/${id}/accept`, { next: "/bookings" }, { "HX-Request": "true" });
    expect(again.headers.get("hx-redirect")).toBe("/bookings");
    expect(toastOf((await page(host, "/bookings")).html)).toEqual(["Error", "This request has already been answered or has ended."]);
  });

  test("Complete shows on an accepted row once it has started, and answers 'Activity Completed'; too early it is refused with the reason", async () => {
    const id = await accepted();
    const rowForms = async () => select((await page(host, "/bookings")).html, `li[data-booking="${id}"] form`).map((f) => f.attributes.action);
    expect(await rowForms()).toEqual([]);
    const early = await host.postForm(`/api/bookings/${id}/complete`, { next: `/bookings/${id}` });
    expect(early.headers.get("location")).toBe(`/bookings/${id}`);
    expect(toastOf((await page(host, `/bookings/${id}`)).html)).toEqual(["Error", "The activity can be marked complete once it has started."]);
    clock = (await startOf(id)) + 10 * 60 * 1000;
    expect(await rowForms()).toEqual([`/api/bookings/${id}/complete`]);
    await host.postForm(`/api/bookings/${id}/complete`, { next: "/bookings" });
    expect(toastOf((await page(host, "/bookings")).html)).toEqual(["Activity Completed", "Payment has been released to your account."]);
    clock = START;
  });

  test("the guest of a row gets no host actions, and a guest's post to accept is refused", async () => {
    const id = await request();
    expect(select((await page(guest, "/bookings")).html, `li[data-booking="${id}"] form`)).toHaveLength(0);
    await guest.postForm(`/api/bookings/${id}/accept`, { next: "/bookings" });
    expect(toastOf((await page(guest, "/bookings")).html)).toEqual(["Error", "Only the host can do this."]);
  });
});

describe("the conversation screen", () => {
  const cards = (html: string) => ({
    request: select(html, "[data-request-card]").length,
    withdraw: select(html, "[data-withdraw-card]").length,
    cancel: select(html, "[data-cancel-card]").length,
    complete: select(html, "[data-complete-card]").length,
    review: select(html, "[data-review-card] a").map((a) => a.attributes.href),
    // Buttons of forms, and the guest's Cancel: a link to the page that says what comes back.
    actions: select(html, "#conversation-cards form, #conversation-cards a[data-action]").map((f) => (f.attributes.action ?? f.attributes.href)!.split("/").pop()),
  });

  test("the host of a pending request answers it there; the guest may withdraw; the chat is closed with the banner", async () => {
    const id = await request();
    const asHost = (await page(host, `/bookings/${id}`)).html;
    expect(cards(asHost)).toMatchObject({ request: 1, actions: ["reject", "accept"] });
    expect(select(asHost, "[data-chat-disabled]")[0]!.text).toBe("Messages are only available after booking is accepted");
    expect(select(asHost, "textarea[name=content]")[0]!.attributes.disabled).toBeDefined();
    expect(select(asHost, "#conversation-cards")[0]!.attributes).toMatchObject({ "hx-get": `/bookings/${id}`, "hx-trigger": "offline:booking-status from:body", "hx-select": "#conversation-cards" });
    const asGuest = (await page(guest, `/bookings/${id}`)).html;
    expect(cards(asGuest)).toMatchObject({ request: 0, withdraw: 1, actions: ["cancel"] });
    expect(select(asGuest, "#conversation-cards form button")[0]!.text).toBe("Withdraw request");
    // The host accepts from the conversation and comes back to it with the toast; the chat opens.
    const res = await host.postForm(`/api/bookings/${id}/accept`, { next: `/bookings/${id}` });
    expect(res.headers.get("location")).toBe(`/bookings/${id}`);
    const after = (await page(host, `/bookings/${id}`)).html;
    expect(select(after, "#toasts .toast p").map((p) => p.text)).toEqual(["Booking Accepted", "You can now chat with your guest!"]);
    expect(select(after, "[data-chat-disabled]")).toHaveLength(0);
    expect(select(after, "textarea[name=content]")[0]!.attributes.disabled).toBeUndefined();
    expect(select(after, "textarea[name=content]")[0]!.attributes.placeholder).toBe("Type a message...");
  });

  test("an accepted booking: the guest may cancel with the policy stated until the start; the host completes after the start; then both are asked for a review", async () => {
    const id = await accepted();
    const start = await startOf(id);
    const asGuest = (await page(guest, `/bookings/${id}`)).html;
    expect(cards(asGuest)).toMatchObject({ cancel: 1, actions: ["cancel"] });
    expect(select(asGuest, "[data-cancel-card] p")[0]!.text).toMatch(/^You can cancel for a full refund until .+\.$/);
    clock = start - 23 * HOUR;
    const late = (await page(guest, `/bookings/${id}`)).html;
    expect(cards(late)).toMatchObject({ cancel: 1, actions: ["cancel"] });
    expect(select(late, "[data-cancel-card] p")[0]!.text).toBe("If you cancel now, nothing is refunded.");
    expect(cards((await page(host, `/bookings/${id}`)).html)).toMatchObject({ complete: 0, actions: ["cancel"] });
    clock = start;
    const started = (await page(guest, `/bookings/${id}`)).html;
    expect(cards(started)).toMatchObject({ cancel: 1, actions: [] });
    expect(select(started, "[data-cancel-card] p")[0]!.text).toBe("Cancelling is no longer possible: the activity has started.");
    clock = start + 5 * 60 * 1000;
    expect(cards((await page(host, `/bookings/${id}`)).html)).toMatchObject({ complete: 1, actions: ["complete"] });
    await host.postForm(`/api/bookings/${id}/complete`, { next: `/bookings/${id}` });
    const done = (await page(host, `/bookings/${id}`)).html;
    expect(select(done, "#toasts .toast p").map((p) => p.text)).toEqual(["Activity Completed", "Payment has been released to your account."]);
    expect(cards(done).review).toEqual([`/review?bookingId=${id}&userType=host`]);
    expect(cards((await page(guest, `/bookings/${id}`)).html).review).toEqual([`/review?bookingId=${id}&userType=guest`]);
    clock = START;
  });

  test("the booking card and header: the other person's first name, the activity, date, time in its zone, hours and price", async () => {
    const id = await accepted();
    const html = (await page(guest, `/bookings/${id}`)).html;
    expect(select(html, "header h1")[0]!.text).toBe("Maya");
    expect(select(html, "header p")[0]!.text).toBe("Tennis");
    const rows = (h: string) => {
      const values = select(h, "[data-booking-card] dd").map((d) => d.text);
      return select(h, "[data-booking-card] dt").map((d, i) => `${d.text}: ${values[i]}`);
    };
    const row = (await one(t.db.select().from(bookings).where(eq(bookings.id, id))))!;
    const date = new Intl.DateTimeFormat("en-US", { weekday: "long", year: "numeric", month: "long", day: "numeric", timeZone: "UTC" }).format(Date.parse(`${row.startsAtLocal.slice(0, 10)}T00:00:00Z`));
    expect(rows(html)).toEqual([`Date: ${date}`, "Time: 10:00 AM", "Duration: 1 hour", "Price: $44.00"]);
    expect(rows((await page(host, `/bookings/${id}`)).html).at(-1)).toBe("Your earnings: $32.00");
  });

  test("the profile sheet shows the other person with their real activity count and rating", async () => {
    const id = await accepted();
    const html = (await page(guest, `/bookings/${id}`)).html;
    expect(select(html, "details.profile-sheet summary")[0]!.attributes["aria-label"]).toBe("View Maya's profile");
    expect(select(html, "#profile-sheet-title")[0]!.text).toBe("Maya, 36");
    expect(select(html, "[data-activity-count]")[0]!.text).toBe("1");
    expect(select(html, "[data-rating]")[0]!.text).toBe("New");
    expect(select(html, "[data-profile-sheet]")[0]!.text).toContain("Coach since 2010.");
    expect(select(html, "[data-profile-sheet] li").map((l) => l.text)).toEqual(["tennis", "cooking", "French", ""]);
    expect(select(html, "[data-profile-sheet] img[alt='Photo 1 of 1']")).toHaveLength(1);
    expect(select(html, "[data-profile-sheet]")[0]!.text).toContain("Member since 2026");
    // The rating is the reviews the person received.
    await writeTransaction(t.db, (tx) => tx.insert(reviews).values({ id: crypto.randomUUID(), bookingId: id, reviewerId: guestId, reviewedUserId: hostId, stars: 4, createdAt: START, publishedAt: START }));
    expect(select((await page(guest, `/bookings/${id}`)).html, "[data-rating]")[0]!.text).toBe("★ 4.0 (1)");
  });

  test("the plain form sends a message and comes back to the conversation; a refusal keeps the text and says why", async () => {
    const id = await accepted();
    const res = await guest.postForm(`/bookings/${id}/messages`, { content: "Sent without JavaScript" });
    expect([res.status, res.headers.get("location")]).toEqual([303, `/bookings/${id}#latest`]);
    const html = (await page(host, `/bookings/${id}`)).html;
    expect(select(html, "li[data-mine=false] p").map((p) => p.text)).toEqual(["Sent without JavaScript"]);
    expect(select(html, "li#latest p")[0]!.text).toBe("Sent without JavaScript");
    // Opening it read it: the guest sees 'Seen' under their message.
    expect(select((await page(guest, `/bookings/${id}`)).html, "[data-seen]").map((s) => s.text)).toEqual(["Seen"]);
    const blank = await guest.postForm(`/bookings/${id}/messages`, { content: "   " });
    expect(blank.status).toBe(400);
    expect(select(await blank.text(), "#message-error")[0]!.text).toBe("Write something before sending.");
    const long = await guest.postForm(`/bookings/${id}/messages`, { content: "y".repeat(2001) });
    expect(long.status).toBe(400);
    expect(select(await long.text(), "textarea[name=content]")[0]!.text).toBe("y".repeat(2001));
    const pending = await request();
    const closed = await guest.postForm(`/bookings/${pending}/messages`, { content: "Hello?" });
    expect(closed.status).toBe(409);
    const closedHtml = await closed.text();
    expect(select(closedHtml, "#message-error")[0]!.text).toBe("Messages are only available after booking is accepted");
    expect(select(closedHtml, "textarea[name=content]")[0]!.text).toBe("Hello?");
    // Without the CSRF field the form is refused.
    expect((await guest.request(`/bookings/${id}/messages`, { method: "POST", form: { content: "forged" }, csrf: false })).status).toBe(403);
  });
});
