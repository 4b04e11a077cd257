import { and, eq, inArray, isNotNull } from "drizzle-orm";
import { bookings, ledgerEntries, users } from "../../db/schema";
import type { Deps } from "../deps";
import { currentBooking } from "./service";
import { move, shareOwed } from "./transitions";

/**
 * The host's share of a completed booking (ARCHITECTURE decision 5): owed from completion
 * (`payout_pending`), sent to the host's payout account when they have one that can receive it
 * (`transfer`), through the same claim as every other movement (docs/decisions/0028).
 */

/**
 * Sends a completed booking's host share to the host's payout account, when they have one that
 * can receive it; otherwise it stays a pending payout (the sweep and `account.updated` retry).
 */
export async function payHost(deps: Deps, bookingId: string): Promise<"sent" | "waiting" | "nothing"> {
  const b = currentBooking(deps, bookingId);
  if (!b || b.status !== "completed" || !b.paymentIntentId || b.claim || !shareOwed(deps.db, b.id)) return "nothing";
  const host = deps.db.select({ accountId: users.stripeAccountId }).from(users).where(eq(users.id, b.hostId)).get();
  if (!host?.accountId) return "waiting";
  const account = await deps.payments.getConnectedAccount(host.accountId);
  if (!account?.payoutsEnabled) return "waiting";
  const sent = await move(deps, b, "completed", b.paymentIntentId, { movement: "transfer", to: "completed", canceledBy: null, message: null, senderId: null });
  // Null: another payout of this booking claimed it first, or sent it already.
  return sent ? "sent" : "nothing";
}

/** Completed bookings whose host share is still owed, optionally for one host. */
export function owedPayouts(deps: Deps, hostId?: string) {
  const done = deps.db
    .select({ id: bookings.id, kinds: ledgerEntries.kind })
    .from(bookings)
    .innerJoin(ledgerEntries, eq(ledgerEntries.bookingId, bookings.id))
    .where(and(eq(bookings.status, "completed"), isNotNull(bookings.paymentIntentId), hostId ? eq(bookings.hostId, hostId) : undefined, inArray(ledgerEntries.kind, ["payout_pending", "transfer"])))
    .all();
  const byBooking = new Map<string, Set<string>>();
  for (const r of done) (byBooking.get(r.id) ?? byBooking.set(r.id, new Set()).get(r.id)!).add(r.kinds);
  return [...byBooking].filter(([, kinds]) => kinds.has("payout_pending") && !kinds.has("transfer")).map(([id]) => id);
}
