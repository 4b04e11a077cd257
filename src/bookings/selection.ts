import { one, writeTransaction } from "../../db/client";
import { and, eq } from "drizzle-orm";
import { bookingSelections, type BookingSelection } from "../../db/schema";
import type { Deps } from "../deps";
import type { Slot } from "./times";
import type { SpotsChoice } from "./sessions";

/**
 * The date-time screen's choice (spec "Booking selection"), kept on the server per guest and
 * activity so a reload, a second tab or another device shows it; the success screen clears it.
 * A new choice gets a new nonce, which keys the payment made for it.
 */
export async function getSelection(deps: Deps, userId: string, activityId: string): Promise<BookingSelection | null> {
  return await one(deps.db.select().from(bookingSelections).where(and(eq(bookingSelections.userId, userId), eq(bookingSelections.activityId, activityId)))) ?? null;
}

export async function saveSelection(deps: Deps, userId: string, activityId: string, slot: Pick<Slot, "date" | "time" | "durationMinutes">, choice: SpotsChoice) {
  const current = await getSelection(deps, userId, activityId);
  if (current && current.date === slot.date && current.time === slot.time && current.durationMinutes === slot.durationMinutes && current.spots === choice.spots && current.privateGroup === choice.privateGroup) return current;
  const row = { userId, activityId, date: slot.date, time: slot.time, durationMinutes: slot.durationMinutes, spots: choice.spots, privateGroup: choice.privateGroup, nonce: crypto.randomUUID(), updatedAt: deps.now() };
  await writeTransaction(deps.db, (tx) => tx
    .insert(bookingSelections)
    .values(row)
    .onConflictDoUpdate({ target: [bookingSelections.userId, bookingSelections.activityId], set: { date: row.date, time: row.time, durationMinutes: row.durationMinutes, spots: row.spots, privateGroup: row.privateGroup, nonce: row.nonce, updatedAt: row.updatedAt } }));
  return row;
}

export async function clearSelections(deps: Deps, userId: string) {
  await writeTransaction(deps.db, (tx) => tx.delete(bookingSelections).where(eq(bookingSelections.userId, userId)));
}
