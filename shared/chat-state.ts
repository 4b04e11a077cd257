/**
 * The chat island's state and its rules, apart from React and the network so they can be tested
 * on their own (tests/chat-state.test.ts): messages are kept once each, whichever way they arrive
 * (the answer to a send, the live frame, a catch-up after reconnecting); a message being sent
 * shows at once and leaves its place to the saved one; a system message caught up after a
 * reconnection also tells the booking's new status.
 */
import type { ChatBookingStatus, ChatSystemMessageType, MessageJSON, SystemText } from "./chat";

/** A message the viewer wrote that the server has not confirmed yet. */
export interface Outgoing {
  /** The island's own id for it, sent along and echoed in the answer. */
  clientId: string;
  content: string;
  createdAt: string;
  state: "sending" | "failed";
  /** Why it failed, worded for the person. */
  error?: string;
  /** It failed for want of a network: it is sent again, by itself, once the browser is back online. */
  waitsForNetwork?: boolean;
}

export interface ChatState {
  /** Saved messages, oldest first, each id once. */
  messages: MessageJSON[];
  /** The viewer's messages on their way, in the order they were written. */
  outgoing: Outgoing[];
  status: ChatBookingStatus;
  /** How far the other side has read (ISO instant): the viewer's messages up to it are seen. */
  otherReadAt: string | null;
}

export type ChatAction =
  | { type: "received"; messages: MessageJSON[]; clientId?: string }
  | { type: "writing"; outgoing: Outgoing }
  | { type: "sending"; clientId: string }
  | { type: "failed"; clientId: string; error: string; waitsForNetwork: boolean }
  | { type: "status"; status: ChatBookingStatus }
  | { type: "otherRead"; at: string }
  | { type: "iRead" };

/** The status a booking has once it wrote this system message; null: the status it had (a partial refund). */
export const STATUS_AFTER: Record<ChatSystemMessageType, ChatBookingStatus | null> = {
  booking_request: "pending",
  booking_accepted: "accepted",
  booking_declined: "rejected",
  booking_expired: "expired",
  booking_canceled: "canceled",
  booking_completed: "completed",
  session_not_running: "canceled",
  booking_refunded: null,
};

const chronological = (a: MessageJSON, b: MessageJSON) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0);

/** The reducer of the island's state; `viewerId` is the person looking. */
export function chatReducer(viewerId: string) {
  return (state: ChatState, action: ChatAction): ChatState => {
    switch (action.type) {
      case "received":
        return receive(state, action.messages, viewerId, action.clientId);
      case "writing":
        return { ...state, outgoing: [...state.outgoing, action.outgoing] };
      case "sending":
        return { ...state, outgoing: state.outgoing.map((o) => (o.clientId === action.clientId ? { ...o, state: "sending", error: undefined, waitsForNetwork: undefined } : o)) };
      case "failed":
        return {
          ...state,
          outgoing: state.outgoing.map((o) => (o.clientId === action.clientId ? { ...o, state: "failed", error: action.error, waitsForNetwork: action.waitsForNetwork } : o)),
        };
      case "status":
        return action.status === state.status ? state : { ...state, status: action.status };
      case "otherRead":
        return state.otherReadAt !== null && state.otherReadAt >= action.at ? state : { ...state, otherReadAt: action.at };
      case "iRead":
        return unreadByViewer(state, viewerId)
          ? { ...state, messages: state.messages.map((m) => (m.senderId !== viewerId && !m.readBy.includes(viewerId) ? { ...m, readBy: [...m.readBy, viewerId] } : m)) }
          : state;
    }
  };
}

/**
 * Adds saved messages. One already shown (same id) is not added again. A message of the viewer
 * replaces its outgoing copy: the one with its `clientId` (the answer to the send), or, for the
 * live frame that may arrive before that answer, the oldest one on its way with the same text.
 */
function receive(state: ChatState, incoming: MessageJSON[], viewerId: string, clientId?: string): ChatState {
  let outgoing = state.outgoing;
  if (clientId !== undefined) outgoing = outgoing.filter((o) => o.clientId !== clientId);
  const known = new Set(state.messages.map((m) => m.id));
  const added: MessageJSON[] = [];
  for (const message of incoming) {
    if (known.has(message.id)) continue;
    known.add(message.id);
    added.push(message);
    if (clientId === undefined && message.senderId === viewerId && !message.isSystemMessage) {
      const copy = outgoing.findIndex((o) => o.state === "sending" && o.content.trim() === message.content.trim());
      if (copy >= 0) outgoing = outgoing.filter((_, i) => i !== copy);
    }
  }
  if (!added.length) return outgoing === state.outgoing ? state : { ...state, outgoing };
  const messages = [...state.messages, ...added].sort(chronological);
  // A status change caught up after a reconnection arrives as its system message only: the
  // newest system message, when it is new here, says what the status is now.
  const latestSystem = messages.findLast((m) => m.isSystemMessage && m.systemMessageType !== null && STATUS_AFTER[m.systemMessageType] !== null);
  const status = latestSystem?.systemMessageType && added.includes(latestSystem) ? (STATUS_AFTER[latestSystem.systemMessageType] ?? state.status) : state.status;
  return { ...state, messages, outgoing, status };
}

/** Messages from the other side (or nobody: an expiry) the viewer has not read. */
/**
 * Whether the conversation may still open: a booking waiting for payment or for the host's
 * answer can still be accepted; any other status that is not accepted has ended (declined,
 * expired, cancelled, completed), and saying messages come "after acceptance" there misleads.
 */
export const mayStillOpen = (status: ChatBookingStatus) => status === "awaiting_payment" || status === "pending";

export const unreadByViewer = (state: ChatState, viewerId: string) => state.messages.some((m) => m.senderId !== viewerId && !m.readBy.includes(viewerId));

/** The viewer's last saved message, when the other side has read it ('Seen' goes under it). */
export function seenMessageId(state: ChatState, viewerId: string): string | null {
  const lastMine = state.messages.findLast((m) => !m.isSystemMessage && m.senderId === viewerId);
  if (!lastMine) return null;
  const read = lastMine.readBy.some((id) => id !== viewerId) || (state.otherReadAt !== null && state.otherReadAt >= lastMine.createdAt);
  return read ? lastMine.id : null;
}

/** The id of the newest saved message: what a catch-up asks for messages after. */
export const lastMessageId = (state: ChatState) => state.messages.at(-1)?.id;

/**
 * How long to wait before reconnecting attempt `attempt` (0, 1, 2, ...): doubling from 0.5 s up
 * to 15 s, each wait drawn between half and all of it, so that clients dropped together (a
 * server restart) do not all come back at the same instant.
 */
export function reconnectDelay(attempt: number, random: () => number = Math.random) {
  const ceiling = Math.min(15_000, 500 * 2 ** attempt);
  return ceiling / 2 + random() * (ceiling / 2);
}

/**
 * The wording of a system message a viewer reads (the server's list and the island alike): what
 * nobody did (an expiry, an automatic completion) reads `automatic`; the viewer's own act, `mine`.
 */
export const systemWording = (text: SystemText, senderId: string | null, viewerId: string) => (senderId === null ? text.automatic : senderId === viewerId ? text.mine : text.theirs);

/**
 * A message's time as the conversation shows it (spec §2), in the page's list, the inbox and the
 * island alike: the time alone under 24 hours old, otherwise the date (with the year when it is
 * another year's), in `timeZone`. Formatters are made once per language, zone and form.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
export function messageStamp(locale: "en" | "fr", at: number, now: number, timeZone: string) {
  const form = now - at < 24 * 60 * 60 * 1000 ? "time" : new Date(at).getUTCFullYear() === new Date(now).getUTCFullYear() ? "date" : "dateYear";
  const key = `${locale}|${timeZone}|${form}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    const options: Intl.DateTimeFormatOptions =
      form === "time" ? { hour: "numeric", minute: "2-digit" } : form === "date" ? { month: "short", day: "numeric" } : { year: "numeric", month: "short", day: "numeric" };
    formatter = new Intl.DateTimeFormat(locale === "fr" ? "fr-FR" : "en-US", { ...options, timeZone });
    formatters.set(key, formatter);
  }
  return formatter.format(at);
}
