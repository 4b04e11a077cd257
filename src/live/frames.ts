import { z } from "zod";
import type { BookingStatus } from "../../db/schema";
import type { MessageJSON } from "../../shared/chat";

/**
 * The frames of `/ws`, JSON both ways. A client subscribes to the conversations it has open;
 * the server pushes what happens in them.
 */

const bookingId = z.string().min(1).max(100);

/** What a client may send; anything else is answered with an `error` frame. */
export const clientFrame = z.discriminatedUnion("type", [
  z.object({ type: z.literal("subscribe_booking"), bookingId }),
  z.object({ type: z.literal("unsubscribe_booking"), bookingId }),
  /** The conversation's screen is shown (or hidden): kept as presence, so its messages are not also pushed as notifications. */
  z.object({ type: z.literal("viewing"), bookingId, visible: z.boolean() }),
]);
export type ClientFrame = z.infer<typeof clientFrame>;

export type ServerFrame =
  | { type: "subscribed"; bookingId: string }
  | { type: "error"; bookingId?: string; message: string }
  | { type: "new_message"; bookingId: string; message: MessageJSON }
  | { type: "booking_status"; bookingId: string; status: BookingStatus; from: BookingStatus | null }
  | { type: "messages_read"; bookingId: string; readerId: string; at: string };

/** The topic of one booking's conversation (Bun pub/sub, and the broadcaster's). */
export const bookingTopic = (bookingId: string) => `booking:${bookingId}`;

/** The control topic: sessions that ended, whose sockets every process closes. */
export const SESSIONS_TOPIC = "sessions";
export interface EndedSessions {
  userId: string;
  /** Session ids (the stored `sid`), or every session of the user. */
  sessionIds: string[] | "all";
}

/** Close codes a client acts on. */
export const CLOSE = {
  /** The session ended (signed out elsewhere, password changed): do not reconnect with it. */
  signedOut: 4401,
  /** Too many frames: the client misbehaves. */
  policy: 1008,
  /** The server lost frames (its link to the other processes dropped): reconnect and fetch what was missed. */
  resync: 1012,
  /** The server is stopping: reconnect (to another process, or this one once restarted) and fetch what was missed. */
  goingAway: 1001,
} as const;
