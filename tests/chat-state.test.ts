import { describe, expect, test } from "bun:test";
import type { MessageJSON } from "../shared/chat";
import { chatReducer, messageStamp, reconnectDelay, seenMessageId, unreadByViewer, type ChatState, type Outgoing } from "../shared/chat-state";

/**
 * The chat island's rules, apart from React and the network: each message shown once however it
 * arrives, optimistic messages replaced by the saved ones, 'Seen', unread, the status caught up
 * from a system message, the reconnection waits and the time stamps.
 */
const ME = "me";
const THEM = "them";
const reduce = chatReducer(ME);
let n = 0;
const at = (minute: number) => new Date(Date.UTC(2026, 5, 1, 12, minute)).toISOString();
/** A saved message, from the other side unless told, read by its sender, a minute after the previous one. */
function message(over: Partial<MessageJSON> = {}): MessageJSON {
  const id = `m${++n}`;
  const senderId = over.senderId === undefined ? THEM : over.senderId;
  return { id, bookingId: "b", senderId, content: `text ${id}`, isSystemMessage: false, systemMessageType: null, readBy: senderId ? [senderId] : [], createdAt: at(n), ...over };
}
const state = (over: Partial<ChatState> = {}): ChatState => ({ messages: [], outgoing: [], status: "accepted", otherReadAt: null, ...over });
const outgoing = (content: string, clientId = `c-${content}`): Outgoing => ({ clientId, content, createdAt: at(59), state: "sending" });

describe("messages are shown once", () => {
  test("the same message from the live frame, a catch-up and again is kept once, in time order", () => {
    const a = message();
    const b = message();
    const c = message();
    let s = reduce(state({ messages: [a] }), { type: "received", messages: [c] });
    s = reduce(s, { type: "received", messages: [b, c] });
    s = reduce(s, { type: "received", messages: [c] });
    expect(s.messages.map((m) => m.id)).toEqual([a.id, b.id, c.id]);
  });

  test("a sent message replaces its optimistic copy, whether its answer or its live frame comes first", () => {
    const written = reduce(state(), { type: "writing", outgoing: outgoing("Hello") });
    const saved = message({ senderId: ME, content: "Hello" });

    // The answer to the send first, then the frame.
    let s = reduce(written, { type: "received", messages: [saved], clientId: "c-Hello" });
    s = reduce(s, { type: "received", messages: [saved] });
    expect([s.messages.length, s.outgoing.length]).toEqual([1, 0]);

    // The frame first (no clientId on it), then the answer.
    s = reduce(written, { type: "received", messages: [saved] });
    expect([s.messages.length, s.outgoing.length]).toEqual([1, 0]);
    s = reduce(s, { type: "received", messages: [saved], clientId: "c-Hello" });
    expect([s.messages.length, s.outgoing.length]).toEqual([1, 0]);
  });

  test("a frame of the viewer's message takes only one copy of the same text, and never a failed one", () => {
    let s = reduce(state(), { type: "writing", outgoing: outgoing("ok", "c1") });
    s = reduce(s, { type: "writing", outgoing: outgoing("ok", "c2") });
    s = reduce(s, { type: "writing", outgoing: { ...outgoing("ok", "c3"), state: "failed" } });
    s = reduce(s, { type: "received", messages: [message({ senderId: ME, content: "ok" })] });
    expect(s.outgoing.map((o) => o.clientId)).toEqual(["c2", "c3"]);
    // The other side's message with the same text takes none.
    s = reduce(s, { type: "received", messages: [message({ content: "ok" })] });
    expect(s.outgoing.map((o) => o.clientId)).toEqual(["c2", "c3"]);
  });

  test("a failed message keeps its place and its reason until it is sent again", () => {
    let s = reduce(state(), { type: "writing", outgoing: outgoing("Hi") });
    s = reduce(s, { type: "failed", clientId: "c-Hi", error: "Too fast", waitsForNetwork: false });
    expect(s.outgoing[0]).toMatchObject({ state: "failed", error: "Too fast" });
    s = reduce(s, { type: "sending", clientId: "c-Hi" });
    expect(s.outgoing[0]).toMatchObject({ state: "sending", error: undefined });
  });
});

describe("read and seen", () => {
  test("'Seen' goes under the viewer's last message once the other side has read it", () => {
    const mine = message({ senderId: ME });
    let s = state({ messages: [message(), mine] });
    expect(seenMessageId(s, ME)).toBeNull();
    s = reduce(s, { type: "otherRead", at: mine.createdAt });
    expect(seenMessageId(s, ME)).toBe(mine.id);
    // A later message of the viewer is not seen yet; an older read instant changes nothing.
    const later = message({ senderId: ME });
    s = reduce(s, { type: "received", messages: [later] });
    s = reduce(s, { type: "otherRead", at: at(0) });
    expect(seenMessageId(s, ME)).toBeNull();
    // Read as the message itself says.
    expect(seenMessageId(state({ messages: [{ ...later, readBy: [ME, THEM] }] }), ME)).toBe(later.id);
  });

  test("unread are the other side's (and nobody's) messages without the viewer; reading marks them", () => {
    let s = state({ messages: [message({ senderId: ME })] });
    expect(unreadByViewer(s, ME)).toBe(false);
    s = reduce(s, { type: "received", messages: [message({ senderId: null, isSystemMessage: true, systemMessageType: "booking_expired" })] });
    expect(unreadByViewer(s, ME)).toBe(true);
    s = reduce(s, { type: "iRead" });
    expect(unreadByViewer(s, ME)).toBe(false);
  });
});

describe("status", () => {
  test("a status frame sets it; a system message caught up sets it when it is the newest", () => {
    let s = reduce(state({ status: "pending" }), { type: "status", status: "accepted" });
    expect(s.status).toBe("accepted");
    s = reduce(s, { type: "received", messages: [message({ isSystemMessage: true, systemMessageType: "booking_completed", senderId: THEM })] });
    expect(s.status).toBe("completed");
    // An older system message, caught up late, does not take it back.
    s = reduce(s, { type: "received", messages: [message({ isSystemMessage: true, systemMessageType: "booking_accepted", createdAt: at(0) })] });
    expect(s.status).toBe("completed");
  });
});

describe("reconnecting", () => {
  test("waits double from half a second up to 15 s, each drawn between half and all of its ceiling", () => {
    expect([0, 1, 2, 3].map((a) => reconnectDelay(a, () => 1))).toEqual([500, 1000, 2000, 4000]);
    expect([0, 1, 2].map((a) => reconnectDelay(a, () => 0))).toEqual([250, 500, 1000]);
    expect(reconnectDelay(20, () => 1)).toBe(15_000);
    expect(reconnectDelay(20, () => 0)).toBe(7_500);
  });
});

describe("time stamps", () => {
  test("the time under 24 hours, else the date (with the year when another), in the zone and language", () => {
    const now = Date.UTC(2026, 5, 2, 12);
    expect(messageStamp("en", now - 3600_000, now, "America/New_York")).toBe("7:00 AM");
    expect(messageStamp("fr", now - 3600_000, now, "Europe/Paris")).toBe("13:00");
    expect(messageStamp("en", now - 3 * 86_400_000, now, "America/New_York")).toBe("May 30");
    expect(messageStamp("fr", Date.UTC(2025, 11, 24, 12), now, "Europe/Paris")).toBe("24 déc. 2025");
  });
});
