import { asc, sql } from "drizzle-orm";
import { messages } from "../../db/schema";

/**
 * How the messages of a conversation are ordered, the same on both engines: by instant, then by
 * their place in the conversation (`seq`), which is the order they were written in.
 */
export const chronological = [asc(messages.createdAt), asc(messages.seq)];

/**
 * The place of a new message in its conversation: one more than the last. Worked out inside the
 * transaction that writes the message, so two messages never share it (a unique index says so too).
 */
export const nextMessageSeq = (bookingId: string) => sql<number>`(SELECT coalesce(max(${messages.seq}), 0) + 1 FROM ${messages} WHERE ${messages.bookingId} = ${bookingId})`;
