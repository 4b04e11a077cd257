import type { Deps } from "../deps";
import { sendQueuedEmails } from "../email/outbox";
import { queueEmailsFor } from "./booking-emails";
import { scheduleMessageEmail } from "./message-emails";

/**
 * The emails of notifications (docs/decisions/0025, 0034): the same changes, recipients and
 * preferences as the push notices of notices.ts, told by email to whoever has an address, so a
 * person without push still learns of every answer. Each is a durable email job written by the
 * listener right after the change commits (no wait before it), in the recipient's language, with
 * a one-click unsubscribe for its preference. A preference that is off sends neither push nor
 * email; `marketingEmails` sends nothing.
 *
 * Messages are batched: the first unread message from the other person in a ten-minute window
 * schedules one job per (recipient, booking, window), due `MESSAGE_EMAIL_DELAY_MS` after it; when
 * it runs, that window's messages still unread go out in one email, or none when they were all
 * read meanwhile.
 *
 * The parts: what every email is planned with and how it is queued (planned-emails.ts), the
 * booking emails (booking-emails.ts), the batched message emails (message-emails.ts).
 */

export { queueEmailsFor } from "./booking-emails";
export { MESSAGE_EMAIL_DELAY_MS, messageEmailJob, messageEmailKey, type MessageEmailPayload } from "./message-emails";

/**
 * Listens on the app's events. The emails of a change are written as jobs before this listener
 * waits for anything, so once a change is committed its emails are durable; then they are sent
 * at once, and retried by the job runner if that fails.
 */
export function listenForEmails(deps: Deps) {
  deps.events.on(async (event) => {
    sendQueuedEmails(deps, await queueEmailsFor(deps, event));
    if (event.type === "message.created") return scheduleMessageEmail(deps, event);
  });
}
