import type { DomainEvent } from "../events";
import { messageView } from "./serialize";
import { bookingTopic } from "../live/frames";
import type { LiveHub } from "../live/hub";

/**
 * Turns committed changes (`deps.events`) into frames for the sockets of the booking's
 * conversation, in every process: a new message, a status change (with the system message it
 * wrote), a conversation read; and closes the sockets of sessions that ended.
 */
export function liveListener(hub: LiveHub) {
  return (event: DomainEvent) => {
    switch (event.type) {
      case "message.created": {
        const bookingId = event.booking.id;
        hub.publish(bookingTopic(bookingId), { type: "new_message", bookingId, message: messageView(event.message) });
        return;
      }
      case "booking.changed": {
        const bookingId = event.booking.id;
        hub.publish(bookingTopic(bookingId), { type: "booking_status", bookingId, status: event.booking.status, from: event.from });
        if (event.message) hub.publish(bookingTopic(bookingId), { type: "new_message", bookingId, message: messageView(event.message) });
        return;
      }
      case "booking.refunded": {
        // The status is unchanged: the conversation hears the refund's message only.
        if (event.message) hub.publish(bookingTopic(event.booking.id), { type: "new_message", bookingId: event.booking.id, message: messageView(event.message) });
        return;
      }
      case "messages.read": {
        const bookingId = event.booking.id;
        hub.publish(bookingTopic(bookingId), { type: "messages_read", bookingId, readerId: event.readerId, at: new Date(event.at).toISOString() });
        return;
      }
      case "sessions.ended":
        hub.endSessions({ userId: event.userId, sessionIds: event.sessionIds });
        return;
    }
  };
}
