import { and, eq } from "drizzle-orm";
import { one, type WriteTx } from "../../db/client";
import { bookingRefunds, ledgerEntries, type Booking, type BookingClaim, type LedgerKind } from "../../db/schema";
import type { Deps } from "../deps";
import { bookingCallKeys, refundPartLedgerKey, reversalKey } from "./keys";
import { withheldOf } from "./host-debts";

/**
 * How a part of a booking's payment given back divides between the platform and the host, and
 * what it leaves of each (docs/decisions/0051). Both shares shrink in proportion to what was
 * given back, computed on the running total so that the rounding of one refund is made up by the
 * next: whatever the refunds, the parts add up to what was refunded, and once all of the
 * payment is back, nothing is left to either side.
 *
 * `claims.ts` records a partial refund through `partBackRows`; its call takes the host's part
 * back from a transfer already made (`takeBackHostPart`), which the recovery repeats safely. When
 * the provider refuses that for sure, the host's part is owed (`host-debts.ts`).
 */

type Amounts = Pick<Booking, "totalCents" | "hostEarningsCents" | "refundedCents">;

/** The host's part of the first `refundedCents` given back of a booking: in proportion to their share, to the nearest minor unit. */
export function hostPartOf(b: Pick<Booking, "totalCents" | "hostEarningsCents">, refundedCents: number): number {
  if (b.totalCents <= 0) return 0;
  return Math.round((refundedCents * b.hostEarningsCents) / b.totalCents);
}

/** The host's and the platform's parts of a refund of `amountCents` made after what `b` has given back already. */
export function refundParts(b: Amounts, amountCents: number): { hostCents: number; feeCents: number } {
  const hostCents = hostPartOf(b, b.refundedCents + amountCents) - hostPartOf(b, b.refundedCents);
  return { hostCents, feeCents: amountCents - hostCents };
}

/** What is left of each share once `b.refundedCents` has been given back: what completion writes to the ledger. */
export function sharesLeft(b: Amounts): { hostCents: number; feeCents: number } {
  const hostCents = b.hostEarningsCents - hostPartOf(b, b.refundedCents);
  return { hostCents, feeCents: b.totalCents - b.refundedCents - hostCents };
}

/** What remains to give back of a booking's payment. */
export const refundable = (b: Pick<Booking, "totalCents" | "refundedCents">) => b.totalCents - b.refundedCents;

/** A claim that gives part of the payment back and leaves the booking's status as it is (a host's partial refund). */
export const givesPartBack = (c: Pick<BookingClaim, "movement" | "from" | "to">) => c.movement === "refund" && c.from === c.to;

/** The provider id of the booking's transfer to its host, once recorded; null while the share has not been sent. */
async function recordedTransfer(db: WriteTx | Deps["db"], bookingId: string): Promise<string | null> {
  const row = await one(db.select({ ref: ledgerEntries.providerRef }).from(ledgerEntries).where(and(eq(ledgerEntries.bookingId, bookingId), eq(ledgerEntries.kind, "transfer"))));
  return row?.ref ?? null;
}

/** How much of the booking's transfer the ledger shows taken back. */
async function recordedReversed(db: WriteTx | Deps["db"], bookingId: string): Promise<number> {
  const rows = await db.select({ amountCents: ledgerEntries.amountCents }).from(ledgerEntries).where(and(eq(ledgerEntries.bookingId, bookingId), eq(ledgerEntries.kind, "reverse")));
  return rows.reduce((sum, r) => sum + r.amountCents, 0);
}

/**
 * After the provider refunded the guest for claim `c`: when the host's share was already sent,
 * their part of this refund is taken back from that transfer (a transfer reversal, which the
 * provider refuses when the host's balance no longer covers it: the caller then records the part
 * as owed). A share paid entirely by settling the host's debts has no transfer to take it from:
 * the part is owed at once. Safe to repeat: a reversal the provider already shows, beyond what
 * the ledger records, is this refund's (claims run one at a time), and is not made again.
 */
export async function takeBackHostPart(deps: Deps, b: Booking, c: BookingClaim): Promise<"taken back" | "owed" | "none"> {
  const { hostCents } = refundParts(b, c.amountCents ?? 0);
  if (hostCents <= 0 || b.status !== "completed") return "none";
  const transferId = await recordedTransfer(deps.db, b.id);
  if (!transferId) return (await withheldOf(deps.db, b.id)) > 0 ? "owed" : "none";
  const shown = (await deps.payments.transfersOf(bookingCallKeys.transferGroup(b.id))).find((t) => t.id === transferId);
  if (shown && shown.reversedCents > (await recordedReversed(deps.db, b.id))) return "taken back";
  await deps.payments.reverseTransfer(transferId, hostCents, reversalKey(c.key));
  return "taken back";
}

/** A ledger row to write: its kind, amount (negative: a share reduced), key and the provider's reference. */
export interface PartRow {
  kind: LedgerKind;
  amountCents: number;
  key: string;
  providerRef: string | null;
}

/**
 * Inside the transaction that records partial refund `c` (the booking `b` as it was claimed, its
 * refunds before this one): the `booking_refunds` row, and the ledger rows the caller writes.
 * - `refund`: what went back to the guest;
 * - once completed (the shares are in the ledger): `platform_fee` and `payout_pending` reduced by
 *   their parts (negative rows); before completion, completion writes the shares as they are left;
 * - once the share was sent: `reverse`, the host's part taken back from the transfer, or `owed`
 *   when the provider refused to take it back (`hostPartOwed`): the host owes it, and their next
 *   payouts settle it (`host-debts.ts`).
 */
export async function partBackRows(tx: WriteTx, deps: Deps, b: Booking, c: BookingClaim, providerRef: string, hostPartOwed = false): Promise<PartRow[]> {
  const amountCents = c.amountCents ?? 0;
  const { hostCents, feeCents } = refundParts(b, amountCents);
  await tx.insert(bookingRefunds)
    .values({ id: crypto.randomUUID(), bookingId: b.id, amountCents, currency: b.currency, reason: c.reason ?? null, byUserId: c.senderId, key: c.key, providerRef, createdAt: deps.now() })
    .onConflictDoNothing({ target: bookingRefunds.key });
  const rows: PartRow[] = [{ kind: "refund", amountCents, key: refundPartLedgerKey(c.key, "refund"), providerRef }];
  if (b.status === "completed") {
    rows.push({ kind: "platform_fee", amountCents: -feeCents, key: refundPartLedgerKey(c.key, "platform_fee"), providerRef: null });
    rows.push({ kind: "payout_pending", amountCents: -hostCents, key: refundPartLedgerKey(c.key, "payout_pending"), providerRef: null });
    const transferId = await recordedTransfer(tx, b.id);
    if (hostCents > 0 && hostPartOwed) rows.push({ kind: "owed", amountCents: hostCents, key: refundPartLedgerKey(c.key, "owed"), providerRef: transferId });
    else if (transferId && hostCents > 0) rows.push({ kind: "reverse", amountCents: hostCents, key: refundPartLedgerKey(c.key, "reverse"), providerRef: transferId });
  }
  return rows;
}
