import { dialect } from "../../db/dialect";
import { and, count, eq, not, or, sql } from "drizzle-orm";
import { readCache, type Db, one } from "../../db/client";
import { bookings, messages } from "../../db/schema";

/**
 * Unread conversations (spec §2 "Bookings"): a conversation is unread when its newest message
 * was not sent by the viewer and does not hold the viewer in `readBy`. Kept apart from the rest
 * of the messages rules, here with the screens' frame, because every signed-in page asks (the
 * Bookings tab's badge, `viewOf`): it imports nothing but the database, and the conversations
 * and bookings read their unread marks from it too.
 */

/** The newest message of a booking: the one with the latest instant, the last written among equals. */
export const latestMessageId = sql`(SELECT latest.id FROM messages AS latest WHERE latest.booking_id = ${bookings.id} ORDER BY latest.created_at DESC, latest.seq DESC LIMIT 1)`;

/** Bookings a person is on, either side. */
export const onBooking = (userId: string) => or(eq(bookings.guestId, userId), eq(bookings.hostId, userId));

/** Whether a conversation whose newest message is `last` is unread for `viewerId`. */
export const isUnread = (last: Pick<typeof messages.$inferSelect, "senderId" | "readBy"> | null | undefined, viewerId: string) =>
  !!last && last.senderId !== viewerId && !last.readBy.includes(viewerId);

/** Counts kept until the database changes (decision 0018): the bottom navigation asks on every page. */
const unreadCounts = readCache<number>(10_000);

/** The count of `unreadConversations`, as one query: each of the person's bookings reaches its newest message through the (booking, instant) index. */
export const unreadCountQuery = (db: Db, userId: string) =>
  db
    .select({ n: count() })
    .from(bookings)
    .innerJoin(messages, eq(messages.id, latestMessageId))
    .where(
      and(
        onBooking(userId),
        sql`${messages.senderId} IS DISTINCT FROM ${userId}`,
        not(dialect.jsonListHas(messages.readBy, userId)),
      ),
    );

/** How many of the person's conversations are unread, by the rule of `isUnread`. */
export async function unreadConversations(deps: { db: Db }, userId: string): Promise<number> {
  return await unreadCounts(deps.db, userId, async () => (await one(unreadCountQuery(deps.db, userId)))?.n ?? 0);
}
