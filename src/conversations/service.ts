import { dialect } from "../../db/dialect";
import { and, eq, gt, max, not, sql } from "drizzle-orm";
import { writeTransaction, one, written } from "../../db/client";
import { bookings, messages, type Booking } from "../../db/schema";
import { bookingFor } from "../bookings/service";
import { DomainError } from "../../lib/domain-error";
import type { Deps } from "../deps";
import type { MessageRow } from "../events";
import { latestMessageId, onBooking } from "../bookings/unread";
import { chronological, nextMessageSeq } from "../bookings/order";

export { isUnread, unreadConversations } from "../bookings/unread";

/**
 * The conversation of a booking (spec §2 "Conversation", §5 "Messages", §7): only its two
 * participants read it, write in it or mark it read (anyone else: 404, ARCHITECTURE decision 11).
 * A message is written in one transaction, then announced on `deps.events` for the live channel
 * and notifications. Refusals are `DomainError`s (catalogue key and status), answered by the app's
 * one error handler.
 */

/**
 * `POST /api/messages`: a participant writes in an accepted booking's conversation, the text
 * already read by the route's schema (`messageContent`: 400 before anything else). Checked in this
 * order: the booking is theirs (404), they are not sending too fast (429), the booking is accepted
 * (409, checked again inside the transaction). The message is counted against
 * `limits.messagesByUser` before it is written, so messages sent together are no more than the
 * limit; a refused one is given back.
 */
export async function sendMessage(deps: Deps, senderId: string, input: { bookingId: string | undefined; content: string }): Promise<{ message: MessageRow; booking: Booking }> {
  const { booking } = await bookingFor(deps, senderId, input.bookingId);
  const now = deps.now();
  const wait = await deps.limits.messagesByUser.take(senderId, now);
  if (wait > 0) throw new DomainError("messages.rateLimited", 429, { retryAfterMs: wait, extra: { retryAfterMs: wait } });
  let message: MessageRow | null;
  try {
    if (booking.status !== "accepted") throw new DomainError("messages.notAccepted", 409, { extra: { status: booking.status } });
    message = await writeTransaction(deps.db, async (tx) => {
      const current = await one(tx.select({ status: bookings.status }).from(bookings).where(eq(bookings.id, booking.id)));
      if (current?.status !== "accepted") return null;
      return await written(tx
        .insert(messages)
        .values({ id: crypto.randomUUID(), bookingId: booking.id, senderId, content: input.content, isSystemMessage: false, systemMessageType: null, readBy: [senderId], createdAt: now, seq: nextMessageSeq(booking.id) })
        .returning());
    });
    if (!message) throw new DomainError("messages.notAccepted", 409);
  } catch (err) {
    await deps.limits.messagesByUser.refund(senderId, now);
    throw err;
  }
  deps.events.emit({ type: "message.created", booking, message });
  return { message, booking };
}

/**
 * `GET /api/messages?bookingId=…[&after=…]`: the conversation oldest first; with `after` (a
 * message of this conversation), only what was written after it, for catching up after a
 * reconnection.
 */
export async function listMessages(deps: Deps, userId: string, bookingId: string | undefined, after?: string): Promise<MessageRow[]> {
  const { booking } = await bookingFor(deps, userId, bookingId);
  if (!after) return await deps.db.select().from(messages).where(eq(messages.bookingId, booking.id)).orderBy(...chronological);
  const mark = await one(deps.db
    .select({ seq: messages.seq })
    .from(messages)
    .where(and(eq(messages.id, after), eq(messages.bookingId, booking.id))));
  if (!mark) throw new DomainError("messages.afterUnknown", 400);
  return await deps.db
    .select()
    .from(messages)
    // What was written after the mark: its place in the conversation says so, whatever the clocks said.
    .where(and(eq(messages.bookingId, booking.id), gt(messages.seq, mark.seq)))
    .orderBy(...chronological);
}

/**
 * `POST /api/messages/{bookingId}/mark-read`: the reader is added to `readBy` of every message
 * they did not send (system messages with no sender included). Announced when it changed
 * something, so the other side's 'Seen' moves only when there was something new to read.
 */
export async function markRead(deps: Deps, readerId: string, bookingId: string): Promise<{ updated: number; at: number }> {
  const { booking } = await bookingFor(deps, readerId, bookingId);
  const at = deps.now();
  const updated = (await writeTransaction(deps.db, async (tx) =>
    await tx
      .update(messages)
      .set({ readBy: dialect.jsonListAppend(messages.readBy, readerId) })
      .where(
        and(
          eq(messages.bookingId, booking.id),
          sql`${messages.senderId} IS DISTINCT FROM ${readerId}`,
          not(dialect.jsonListHas(messages.readBy, readerId)),
        ),
      )
      .returning({ id: messages.id }),
  )).length;
  if (updated > 0) deps.events.emit({ type: "messages.read", booking, readerId, at });
  return { updated, at };
}

/**
 * How far `otherId` has read a conversation: the instant of the newest message they did not
 * send that holds them in `readBy` (they read everything up to it), or null.
 */
export async function readUpTo(deps: Deps, bookingId: string, otherId: string): Promise<number | null> {
  const row = await one(deps.db
    .select({ at: max(messages.createdAt) })
    .from(messages)
    .where(
      and(
        eq(messages.bookingId, bookingId),
        sql`${messages.senderId} IS DISTINCT FROM ${otherId}`,
        dialect.jsonListHas(messages.readBy, otherId),
      ),
    ));
  return row?.at ?? null;
}

/** `GET /api/bookings/last-messages`: the newest message of each of the person's bookings that has one. */
export async function lastMessages(deps: Deps, userId: string): Promise<MessageRow[]> {
  return (await deps.db
    .select({ message: messages })
    .from(bookings)
    .innerJoin(messages, eq(messages.id, latestMessageId))
    .where(onBooking(userId)))
    .map((r) => r.message);
}
