import { one } from "../../db/client";
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import { bookings, ledgerEntries, users } from "../../db/schema";
import type { Deps } from "../deps";

/**
 * The host's share of a completed booking (ARCHITECTURE decision 5): owed from completion
 * (`payout_pending`), sent to the host's payout account when they have one that can receive it
 * (`transfer`, `payHost` in transitions.ts, through the same claim as every other movement).
 * These are the reads that find what is still owed.
 */

/** Completed bookings whose host share is still owed, optionally for one host. */
export async function owedPayouts(deps: Pick<Deps, "db">, hostId?: string) {
  const done = await deps.db
    .select({ id: bookings.id, kinds: ledgerEntries.kind })
    .from(bookings)
    .innerJoin(ledgerEntries, eq(ledgerEntries.bookingId, bookings.id))
    .where(and(eq(bookings.status, "completed"), isNotNull(bookings.paymentIntentId), hostId ? eq(bookings.hostId, hostId) : undefined, inArray(ledgerEntries.kind, ["payout_pending", "transfer"])));
  const byBooking = new Map<string, Set<string>>();
  for (const r of done) (byBooking.get(r.id) ?? byBooking.set(r.id, new Set()).get(r.id)!).add(r.kinds);
  return [...byBooking].filter(([, kinds]) => kinds.has("payout_pending") && !kinds.has("transfer")).map(([id]) => id);
}

/** The host whose payout account an `account.updated` event is about. */
export async function hostOfAccount(deps: Pick<Deps, "db">, accountId: string) {
  return (await one(deps.db.select({ id: users.id }).from(users).where(eq(users.stripeAccountId, accountId))))?.id ?? null;
}
