import { z } from "zod";
import { MAX_MESSAGE_LENGTH } from "../../shared/limits";
import { userText } from "../../lib/text";
import { textOrNone } from "../../lib/validation";

/**
 * What the conversation's calls and its form send (spec §7 "Messages"). A refusal of the text
 * is a 400 with its message, whatever the booking: nothing about the booking is told by it.
 */

/** A message's text as it is stored: cleaned like other user text, multi-line, 1–2,000 characters. */
export const messageContent = userText({
  kind: "multiline",
  invalid: "messages.invalid",
  required: "messages.blank",
  max: { length: MAX_MESSAGE_LENGTH, message: "messages.tooLong" },
  characters: "messages.characters",
});

/** The booking a call is about, as sent: text, or nothing (anything else is no booking of theirs: 404). */
const bookingRef = textOrNone;

/** What a client may tag its message with to recognise the answer (not stored): text of 100 characters at most, else nothing. */
const clientId = z.unknown().transform((v) => (typeof v === "string" && v.length <= 100 ? v : undefined)).optional();

/** `POST /api/messages`: the booking, the text, and the client's own tag. */
export const messageBody = z.object({ bookingId: bookingRef, content: messageContent, clientId });

/** The conversation screen's message form (`POST /bookings/:id/messages`): the text; the booking is in the address. */
export const messageForm = z.object({ content: messageContent });

/**
 * `GET /api/messages?bookingId=…[&after=…]`: `after` is a message of the conversation to catch up
 * from (empty: the whole conversation); one that cannot be a message id is refused as unknown.
 */
export const messagesQuery = z.object({
  bookingId: bookingRef,
  after: z
    .string({ error: "messages.afterUnknown" })
    .max(64, "messages.afterUnknown")
    .optional()
    .transform((after) => after || undefined),
});
