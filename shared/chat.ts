/**
 * What the conversation page hands the chat island (views/bookings/Conversation.tsx renders it
 * in `<Island name="Chat">` around a server-rendered fallback). Types only: the server and the
 * island both import them, so this file imports nothing.
 */

/** A booking's status, as `bookingStatuses` in db/schema.ts (the server checks they agree). */
export type ChatBookingStatus =
  | "awaiting_payment"
  | "pending"
  | "accepted"
  | "rejected"
  | "expired"
  | "canceled"
  | "completed"
  | "no_show_guest"
  | "no_show_host";

/** The system messages a booking writes into its conversation when its status changes. */
export type ChatSystemMessageType =
  | "booking_request"
  | "booking_accepted"
  | "booking_declined"
  | "booking_expired"
  | "booking_canceled"
  | "booking_completed"
  | "session_not_running"
  /** The host gave part of the payment back; its content is the reason. The status is unchanged. */
  | "booking_refunded";

/** A message as the API shows it (`messageView` in src/conversations/serialize.ts). */
export interface MessageJSON {
  id: string;
  bookingId: string;
  /** Null for a system message nobody sent (an expiry, an automatic completion). */
  senderId: string | null;
  /** The text; for a system message, its type (the screen words it from `systemTexts`). */
  content: string;
  isSystemMessage: boolean;
  systemMessageType: ChatSystemMessageType | null;
  /** Who has read it; the sender always has. */
  readBy: string[];
  /** ISO 8601, UTC. */
  createdAt: string;
}

/** `POST /api/messages` answers with the message and the `clientId` it was sent with, unchanged. */
export type SentMessageJSON = MessageJSON & { clientId?: string };

export interface ChatTexts {
  /** The input's placeholder: 'Type a message...'. */
  placeholder: string;
  /** The input's accessible label. */
  inputLabel: string;
  send: string;
  retry: string;
  /** Under a message that could not be sent. */
  failed: string;
  /** Under the viewer's last message once the other side has read it. */
  seen: string;
  /** 'Messages are only available after booking is accepted'. */
  disabledBanner: string;
  /** The banner once the booking has ended without (or after) being accepted: no acceptance is coming. */
  closedBanner: string;
  rateLimited: string;
  /** The 2,000-character limit, worded for the person. */
  tooLong: string;
  offline: string;
  reconnecting: string;
  /** The message list's accessible name. */
  listLabel: string;
  /** Shown when the conversation has no messages yet. */
  empty: string;
}

export interface SystemText {
  mine: string;
  theirs: string;
  automatic: string;
}

export interface ChatProps {
  bookingId: string;
  viewerId: string;
  status: ChatBookingStatus;
  /** Oldest first. */
  messages: MessageJSON[];
  /**
   * How far the other side has read, as an ISO instant: every message of the viewer's created
   * at or before it has been read by them (null: nothing yet). Drives 'Seen'.
   */
  otherReadAt: string | null;
  locale: "en" | "fr";
  /**
   * The zone the server wrote the timestamps in. A message's time is always the reader's own
   * clock: the island writes it in the device's zone (`readerZone`, islands/Chat.tsx); the page
   * before it, which cannot know the device, in the zone of the reader's city, else the activity's.
   */
  timeZone: string;
  /** The longest message the server takes, in characters. */
  maxLength: number;
  texts: ChatTexts;
  /**
   * Each system message already worded for this viewer, names filled: `mine` when the viewer
   * sent it, `theirs` when the other side did, `automatic` when nobody did (`senderId` null: an
   * expiry, an automatic completion).
   */
  systemTexts: Record<ChatSystemMessageType, SystemText>;
  csrf: string;
}
