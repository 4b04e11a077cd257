import { and, eq, inArray, isNotNull } from "drizzle-orm";
import type { WriteTx } from "../../db/client";
import { bookings, ledgerEntries, type Booking, type BookingClaim, type LedgerKind } from "../../db/schema";
import type { Deps } from "../deps";
import { settlementKey } from "./keys";

/**
 * What a host owes from refunds made after their share was sent (docs/decisions/0051), and how
 * their next payouts settle it.
 *
 * A partial refund after the payout takes the host's part back from the booking's transfer. The
 * provider refuses that reversal when the host's balance cannot cover it (it went to their bank):
 * the guest keeps their refund and the host's part is recorded as `owed` on that booking. Each
 * later payout to the same host in the same currency withholds what is owed, oldest debt first,
 * down to nothing sent: the transfer claim carries the settlements (`settles`), fixed in its
 * claim's transaction, and its record writes `debt_settled` on the booking paid and
 * `owed_settled` on the booking owing, in the same transaction, once per claim (`settlementKey`).
 * While a payout is under way, what it withholds is held: another payout at the same time
 * settles only the rest, so no debt is settled twice. A payout withheld entirely sends nothing; its
 * `debt_settled` rows are what paid its share (`withheldOf`), so it is no longer owed.
 */

type Reader = WriteTx | Deps["db"];

/** A booking's debt still open: its `owed` rows less its `owed_settled` rows. */
export interface OpenDebt {
  bookingId: string;
  currency: string;
  openCents: number;
  /** When the first of its refunds made it owe: debts are settled oldest first. */
  since: number;
}

const sum = (xs: { amountCents: number }[]) => xs.reduce((s, x) => s + x.amountCents, 0);

/** The host's open debts, oldest first (in `currency` only, when given). */
export async function openDebts(db: Reader, hostId: string, currency?: string): Promise<OpenDebt[]> {
  const rows = await db
    .select({ bookingId: ledgerEntries.bookingId, kind: ledgerEntries.kind, amountCents: ledgerEntries.amountCents, currency: ledgerEntries.currency, createdAt: ledgerEntries.createdAt })
    .from(ledgerEntries)
    .innerJoin(bookings, eq(bookings.id, ledgerEntries.bookingId))
    .where(and(eq(bookings.hostId, hostId), inArray(ledgerEntries.kind, ["owed", "owed_settled"]), currency ? eq(ledgerEntries.currency, currency) : undefined));
  const byBooking = new Map<string, OpenDebt>();
  for (const r of rows) {
    const d = byBooking.get(r.bookingId) ?? byBooking.set(r.bookingId, { bookingId: r.bookingId, currency: r.currency, openCents: 0, since: Number.MAX_SAFE_INTEGER }).get(r.bookingId)!;
    if (r.kind === "owed") {
      d.openCents += r.amountCents;
      d.since = Math.min(d.since, r.createdAt);
    } else d.openCents -= r.amountCents;
  }
  return [...byBooking.values()].filter((d) => d.openCents > 0).sort((a, b) => a.since - b.since || a.bookingId.localeCompare(b.bookingId));
}

/** What is left open of one booking's debt. */
export async function openDebtOf(db: Reader, bookingId: string): Promise<number> {
  const rows = await db.select({ kind: ledgerEntries.kind, amountCents: ledgerEntries.amountCents }).from(ledgerEntries).where(and(eq(ledgerEntries.bookingId, bookingId), inArray(ledgerEntries.kind, ["owed", "owed_settled"])));
  return sum(rows.filter((r) => r.kind === "owed")) - sum(rows.filter((r) => r.kind === "owed_settled"));
}

/** How much of a booking's share was withheld to settle the host's debts: paid to the host as surely as a transfer. */
export async function withheldOf(db: Reader, bookingId: string): Promise<number> {
  return sum(await db.select({ amountCents: ledgerEntries.amountCents }).from(ledgerEntries).where(and(eq(ledgerEntries.bookingId, bookingId), eq(ledgerEntries.kind, "debt_settled"))));
}

/**
 * Inside the transaction that claims the payout of `shareCents` for booking `b`: the debts it
 * settles, oldest first, up to the share. What payouts of the host's other bookings under way
 * withhold already is held for them (their claims' `settles`), so two payouts at once never settle
 * the same debt twice (write transactions are serialised: SQLite's writer, PostgreSQL's
 * SERIALIZABLE).
 */
export async function settlementsFor(tx: WriteTx, b: Pick<Booking, "id" | "hostId" | "currency">, shareCents: number): Promise<NonNullable<BookingClaim["settles"]>> {
  const debts = await openDebts(tx, b.hostId, b.currency);
  if (!debts.length) return [];
  const held = new Map<string, number>();
  const underWay = await tx.select({ id: bookings.id, claim: bookings.claim }).from(bookings).where(and(eq(bookings.hostId, b.hostId), isNotNull(bookings.claim)));
  for (const other of underWay) {
    if (other.id === b.id) continue;
    for (const s of other.claim?.settles ?? []) held.set(s.bookingId, (held.get(s.bookingId) ?? 0) + s.amountCents);
  }
  const out: NonNullable<BookingClaim["settles"]> = [];
  let left = shareCents;
  for (const d of debts) {
    if (left <= 0) break;
    const take = Math.min(left, d.openCents - (held.get(d.bookingId) ?? 0));
    if (take <= 0) continue;
    out.push({ bookingId: d.bookingId, amountCents: take });
    left -= take;
  }
  return out;
}

/** A settlement's ledger row: which booking it is written on, its kind, amount and key. */
export interface SettlementRow {
  booking: Pick<Booking, "id" | "currency">;
  kind: Extract<LedgerKind, "debt_settled" | "owed_settled">;
  amountCents: number;
  key: string;
}

/** The rows that record the settlements of transfer claim `c` of booking `b` (written by its record, in its transaction). */
export function settlementRows(b: Pick<Booking, "id" | "currency">, c: Pick<BookingClaim, "key" | "settles">): SettlementRow[] {
  return (c.settles ?? []).flatMap((s) => [
    { booking: b, kind: "debt_settled" as const, amountCents: s.amountCents, key: settlementKey(c.key, s.bookingId, "debt_settled") },
    { booking: { id: s.bookingId, currency: b.currency }, kind: "owed_settled" as const, amountCents: s.amountCents, key: settlementKey(c.key, s.bookingId, "owed_settled") },
  ]);
}
