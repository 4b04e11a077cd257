import type { ChatBookingStatus, ChatSystemMessageType, MessageJSON } from "../../shared/chat";
import type { BookingStatus } from "../../db/schema";
import type { SystemMessageType } from "../bookings/service";
import type { MessageRow } from "../events";

/**
 * What the API shows of a message (docs/decisions/0007): an allow-list, the same for both
 * participants. The island and the server share the shape through shared/chat.ts.
 */
export type MessageView = MessageJSON;

export const MESSAGE_VIEW_KEYS = ["id", "bookingId", "senderId", "content", "isSystemMessage", "systemMessageType", "readBy", "createdAt"] as const satisfies readonly (keyof MessageView)[];

// The island's copies of the status and system message lists must be the server's, both ways.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const statusesAgree: Same<ChatBookingStatus, BookingStatus> = true;
const systemTypesAgree: Same<ChatSystemMessageType, SystemMessageType> = true;
void statusesAgree;
void systemTypesAgree;

const SYSTEM_TYPES: ReadonlySet<string> = new Set<SystemMessageType>(["booking_request", "booking_accepted", "booking_declined", "booking_expired", "booking_canceled", "booking_completed", "session_not_running", "booking_refunded"]);

export const isSystemMessageType = (type: string | null): type is SystemMessageType => type !== null && SYSTEM_TYPES.has(type);

export function messageView(row: MessageRow): MessageView {
  return {
    id: row.id,
    bookingId: row.bookingId,
    senderId: row.senderId,
    content: row.content,
    isSystemMessage: row.isSystemMessage,
    systemMessageType: row.isSystemMessage && isSystemMessageType(row.systemMessageType) ? row.systemMessageType : null,
    readBy: [...row.readBy],
    createdAt: new Date(row.createdAt).toISOString(),
  };
}

/** Spec §7 `GET /api/bookings/last-messages`: the newest message of each of the caller's bookings. */
export interface LastMessageView {
  bookingId: string;
  content: string;
  isSystemMessage: boolean;
  systemMessageType: ChatSystemMessageType | null;
  createdAt: string;
  senderId: string | null;
  readBy: string[];
}

export const LAST_MESSAGE_KEYS = ["bookingId", "content", "isSystemMessage", "systemMessageType", "createdAt", "senderId", "readBy"] as const satisfies readonly (keyof LastMessageView)[];

export function lastMessageView(row: MessageRow): LastMessageView {
  const m = messageView(row);
  return { bookingId: m.bookingId, content: m.content, isSystemMessage: m.isSystemMessage, systemMessageType: m.systemMessageType, createdAt: m.createdAt, senderId: m.senderId, readBy: m.readBy };
}
