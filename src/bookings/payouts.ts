import { one } from "../../db/client";
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import { bookings, ledgerEntries, users } from "../../db/schema";
import type { Deps } from "../deps";
import { move, shareOwed } from "./claims";
import { currentBooking } from "./service";

/**
 * The host's share of a completed booking (ARCHITECTURE decision 5): owed from completion
 * (`payout_pending`, less the host's part of any refund: docs/decisions/0051), sent to the host's payout account when they have one that can receive it
 * (`transfer`, `payHost`, through the same claim as every other movement), and the reads that
 * find what is still owed.
 */

/** The statuses whose host share is paid out: completed, and cancelled with part of the payment kept (docs/decisions/0050). */
const PAID_OUT = ["completed", "canceled"] as const;

/**
 * Sends a completed booking's host share (ARCHITECTURE decision 5), or the share of what a
 * cancellation kept, to the host's payout account, when they have one that can receive it, through
 * the same claim as every other movement; otherwise it stays a pending payout (the sweep and
 * `account.updated` retry). The amount sent is the share the ledger shows owed, less what the host
 * owes from refunds after earlier payouts, which it settles (`host-debts.ts`, docs/decisions/0051).
 */
export async function payHost(deps: Deps, bookingId: string): Promise<"sent" | "waiting" | "nothing"> {
  const b = await currentBooking(deps, bookingId);
  if (!b || !(PAID_OUT as readonly string[]).includes(b.status) || !b.paymentIntentId || b.claim || !(await shareOwed(deps.db, b.id))) return "nothing";
  const host = await one(deps.db.select({ accountId: users.stripeAccountId }).from(users).where(eq(users.id, b.hostId)));
  if (!host?.accountId) return "waiting";
  const account = await deps.payments.getConnectedAccount(host.accountId);
  if (!account?.payoutsEnabled) return "waiting";
  // The claim fixes the amount: the share owed when it is claimed (`shareOwed`).
  const sent = await move(deps, b, b.status, b.paymentIntentId, { movement: "transfer", to: b.status, canceledBy: b.canceledBy, message: null, senderId: null });
  // Null: another payout of this booking claimed it first, or sent it already.
  return sent ? "sent" : "nothing";
}

/** Completed (or cancelled, part kept) bookings whose host share is still owed (what is left of it after refunds and withholding is more than nothing), optionally for one host. */
export async function owedPayouts(deps: Pick<Deps, "db">, hostId?: string) {
  const done = await deps.db
    .select({ id: bookings.id, kind: ledgerEntries.kind, amountCents: ledgerEntries.amountCents })
    .from(bookings)
    .innerJoin(ledgerEntries, eq(ledgerEntries.bookingId, bookings.id))
    .where(and(inArray(bookings.status, [...PAID_OUT]), isNotNull(bookings.paymentIntentId), hostId ? eq(bookings.hostId, hostId) : undefined, inArray(ledgerEntries.kind, ["payout_pending", "debt_settled", "transfer"])));
  const byBooking = new Map<string, { owed: number; sent: boolean }>();
  for (const r of done) {
    const b = byBooking.get(r.id) ?? byBooking.set(r.id, { owed: 0, sent: false }).get(r.id)!;
    if (r.kind === "transfer") b.sent = true;
    // What was withheld to settle the host's debts was paid to them that way (docs/decisions/0051).
    else b.owed += r.kind === "debt_settled" ? -r.amountCents : r.amountCents;
  }
  return [...byBooking].filter(([, b]) => !b.sent && b.owed > 0).map(([id]) => id);
}

/** The host whose payout account an `account.updated` event is about. */
export async function hostOfAccount(deps: Pick<Deps, "db">, accountId: string) {
  return (await one(deps.db.select({ id: users.id }).from(users).where(eq(users.stripeAccountId, accountId))))?.id ?? null;
}
