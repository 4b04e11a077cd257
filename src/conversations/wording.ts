import type { ChatSystemMessageType, SystemText } from "../../shared/chat";
import { systemWording } from "../../shared/chat-state";
import type { Booking } from "../../db/schema";
import type { Role } from "../bookings/service";
import type { Translate } from "../../lib/i18n";
import type { MessageRow } from "../events";
import { isSystemMessageType } from "./serialize";

/**
 * System messages worded for one viewer of one booking (spec §2 "Conversation"): the same row
 * reads 'You accepted Maya's request' to the host and 'Sam accepted your request' to the guest.
 * `otherName` is the other participant's first name. A cancelled request that was never
 * answered reads as withdrawn; one cancelled after it was accepted, as cancelled.
 */
export function systemTexts(t: Translate, role: Role, otherName: string | null, booking: Pick<Booking, "respondedAt">): Record<ChatSystemMessageType, SystemText> {
  const name = otherName || t("system.someone");
  const pair = (mine: string, theirs: string, automatic = theirs): SystemText => ({ mine, theirs, automatic });
  const expired = t(role === "guest" ? "system.expired.guest" : "system.expired.host");
  const withdrawn = booking.respondedAt === null;
  const notRunning = t(role === "guest" ? "system.notRunning.guest" : "system.notRunning.host");
  return {
    booking_request: pair(t("system.request.mine"), t("system.request.theirs", { name })),
    booking_accepted: pair(t("system.accepted.mine", { name }), t("system.accepted.theirs", { name })),
    booking_declined: pair(t("system.declined.mine", { name }), t("system.declined.theirs", { name })),
    booking_expired: pair(expired, expired),
    booking_canceled: withdrawn
      ? pair(t("system.withdrawn.mine"), t("system.withdrawn.theirs", { name }))
      : pair(t("system.canceled.mine"), t("system.canceled.theirs", { name })),
    booking_completed: pair(t("system.completed.mine"), t("system.completed.theirs", { name }), t("system.completed.automatic")),
    session_not_running: pair(notRunning, notRunning),
    booking_refunded: pair(t("system.refunded.mine"), t("system.refunded.theirs", { name })),
  };
}

/** The line a system message shows to `viewerId`; null for a person's own message or an unknown type. */
export function systemLine(texts: Record<ChatSystemMessageType, SystemText>, message: Pick<MessageRow, "isSystemMessage" | "systemMessageType" | "senderId">, viewerId: string): string | null {
  if (!message.isSystemMessage || !isSystemMessageType(message.systemMessageType)) return null;
  return systemWording(texts[message.systemMessageType], message.senderId, viewerId);
}
