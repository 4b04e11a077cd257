import { one, writeTransaction } from "../../db/client";
import { chronological } from "../bookings/order";
import { dialect } from "../../db/dialect";
import { and, eq, gte, lt, not } from "drizzle-orm";
import { bookings, messages } from "../../db/schema";
import type { Deps } from "../deps";
import { sendQueuedEmails } from "../email/outbox";
import type { DomainEvent } from "../events";
import { defineJob, scheduleJob } from "../jobs";
import { formatLocal } from "../../lib/time";
import { preview } from "./notices";
import { preferencesOf } from "./service";
import { absolute, conversationPath, factsOf, localeOf, personOf, queuePlanned, type PlannedEmail } from "./planned-emails";

/**
 * Messages while away, batched (docs/decisions/0025): the first unread message from the other
 * person in a ten-minute window schedules one job per (recipient, booking, window), due
 * `MESSAGE_EMAIL_DELAY_MS` after it; when it runs, that window's messages still unread go out in
 * one email, or none when they were all read meanwhile.
 */

/** How long a new message waits, unread, before it is told by email (with those that follow it). */
export const MESSAGE_EMAIL_DELAY_MS = 10 * 60 * 1000;
/** How many messages one email quotes. */
const MESSAGES_QUOTED = 5;

export interface MessageEmailPayload {
  bookingId: string;
  recipientId: string;
  /** When the first message of this batch was written: the email tells of those since. */
  since: number;
  /** The end of the batch's window (exclusive): later messages belong to the next batch. */
  until?: number;
}

/** What the message-email jobs of one (booking, recipient) have in common: their keys start with it. */
export const messageEmailKey = (bookingId: string, recipientId: string) => `email.messages:${bookingId}:${recipientId}`;

/**
 * The batch a message belongs to: the delay-long window of time it was written in. One job per
 * window: a message joins the job of its window while that job waits, and a message written
 * while a batch is being sent belongs to the next window, never to a job that is already past
 * it. A window's job is due a full delay after its first message, so the window has ended by then.
 */
const messageWindow = (createdAt: number) => Math.floor(createdAt / MESSAGE_EMAIL_DELAY_MS) * MESSAGE_EMAIL_DELAY_MS;

/**
 * Sends the messages of one conversation that its recipient still has not read, in one email:
 * those from the other person since the first that scheduled it. None were left unread (they
 * read the conversation meanwhile), or the recipient turned message notifications off: nothing.
 */
export const messageEmailJob = defineJob<MessageEmailPayload>({
  kind: "email.messages",
  lane: "email",
  async run({ bookingId, recipientId, since, until }, { deps }) {
    const booking = await one(deps.db.select().from(bookings).where(eq(bookings.id, bookingId)));
    if (!booking || (recipientId !== booking.guestId && recipientId !== booking.hostId)) return;
    const person = await personOf(deps, recipientId);
    if (!person?.email || person.suspended || !(await preferencesOf(deps.db, recipientId)).messages) return;
    const senderId = recipientId === booking.guestId ? booking.hostId : booking.guestId;
    const unread = await deps.db
      .select({ id: messages.id, content: messages.content })
      .from(messages)
      .where(
        and(
          eq(messages.bookingId, bookingId),
          eq(messages.senderId, senderId),
          eq(messages.isSystemMessage, false),
          gte(messages.createdAt, since),
          until === undefined ? undefined : lt(messages.createdAt, until),
          not(dialect.jsonListHas(messages.readBy, recipientId)),
        ),
      )
      .orderBy(...chronological);
    if (!unread.length) return;
    const f = await factsOf(deps, booking);
    if (!f) return;
    const sender = senderId === booking.guestId ? f.guest : f.host;
    const side = recipientId === booking.guestId ? "guest" : "host";
    const planned: PlannedEmail = {
      to: person,
      type: "messages",
      key: `messages:${bookingId}:${recipientId}:${since}`,
      kind: "messages",
      content: (t) => {
        const params = { name: sender.firstName, activity: f.activity.title, count: unread.length };
        const title = t(unread.length === 1 ? "notifications.email.messages.one" : "notifications.email.messages.many", params);
        const quoted = unread.slice(0, MESSAGES_QUOTED).map((m) => t("notifications.email.messages.quote", { text: preview(m.content) }));
        const more = unread.length > MESSAGES_QUOTED ? [t("notifications.email.messages.more", { count: unread.length - MESSAGES_QUOTED })] : [];
        return {
          subject: title,
          heading: title,
          preheader: quoted[0],
          paragraphs: [...quoted, ...more],
          details: [
            { label: t("notifications.email.detail.activity"), value: f.activity.title },
            { label: t("notifications.email.detail.when"), value: formatLocal(booking.startsAtLocal, localeOf(deps, person), "dateTime") },
            { label: t(side === "guest" ? "notifications.email.detail.host" : "notifications.email.detail.guest"), value: sender.firstName },
          ],
          action: { label: t("notifications.email.reply"), url: absolute(deps, conversationPath(bookingId)) },
        };
      },
    };
    sendQueuedEmails(deps, await queuePlanned(deps, [planned]));
  },
});

/**
 * A message to someone not reading that conversation: one email job per (booking, recipient),
 * due after the delay; later messages join the one already waiting.
 */
export async function scheduleMessageEmail(deps: Deps, event: Extract<DomainEvent, { type: "message.created" }>) {
  const { booking, message } = event;
  if (message.isSystemMessage || !message.senderId) return;
  const recipient = message.senderId === booking.guestId ? booking.hostId : booking.guestId;
  if (!(await preferencesOf(deps.db, recipient)).messages) return;
  // Reading the conversation right now: the message is already on their screen.
  if (await deps.presence.isViewing(recipient, booking.id)) return;
  const window = messageWindow(message.createdAt);
  await writeTransaction(deps.db, (tx) =>
    scheduleJob(
      tx,
      messageEmailJob,
      { bookingId: booking.id, recipientId: recipient, since: message.createdAt, until: window + MESSAGE_EMAIL_DELAY_MS },
      { at: message.createdAt + MESSAGE_EMAIL_DELAY_MS, key: `${messageEmailKey(booking.id, recipient)}:${window}` },
    ),
  );
}
