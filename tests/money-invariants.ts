/**
 * The money invariant, checked against the provider itself (docs/decisions/0028): for every
 * booking, its status, what the payment provider shows and our ledger agree.
 * - Every movement the provider shows is in the ledger exactly once, for the same amount:
 *   the capture, the release of a held card, each refund, each transfer.
 * - What was charged is accounted for: charged = platform fee + host payout + refunds, once the
 *   booking has ended; nothing but the charge and its parts given back while it is accepted.
 * - A cancelled charge was refunded by an amount its policy allows (docs/decisions/0050): in full,
 *   or the policy's share; what was kept is split between the platform and the host in the
 *   refund's proportion, to the unit; `refundedCents` and `booking_refunds` say the same.
 * - Parts given back by the host (docs/decisions/0051): each is in `booking_refunds` and in the
 *   ledger once, under its own key, with the provider's refund; `refundedCents` is their sum, never
 *   more than was paid; once completed, each part's platform and host shares add up to it; the
 *   host's share sent, less what was taken back, is exactly what the ledger says they are owed.
 * - What a host owes from refunds after a payout (docs/decisions/0051): a booking's open debt is
 *   its `owed` less its `owed_settled`, never below 0, and what the app reads (`openDebtOf`); each
 *   `debt_settled` on a booking paid has its `owed_settled` on the booking owing, of the same
 *   amount, under the same payout's key; a booking paid sent its share less what it withheld
 *   (sent + withheld - owed = the host's share); per host, what was owed less what was settled is
 *   the sum of the open debts, and what was withheld is what was settled.
 * - Each status has the provider state that goes with it, and no claim is left over.
 * - No card is held past the booking's deadline.
 */
import { eq, inArray } from "drizzle-orm";
import { bookingRefunds, bookings, ledgerEntries, type Booking } from "../db/schema";
import { openDebtOf, openDebts } from "../src/bookings/host-debts";
import { keptSplit, possibleRefunds } from "../src/bookings/policies";
import { ledgerKey, refundPartLedgerKey } from "../src/bookings/keys";
import type { Deps } from "../src/deps";

const sum = (xs: { amountCents: number }[]) => xs.reduce((s, x) => s + x.amountCents, 0);

export async function moneyViolations(deps: Deps, only?: string[]): Promise<string[]> {
  const out: string[] = [];
  const all = (await deps.db.select().from(bookings)).filter((b) => !only || only.includes(b.id));
  for (const b of all) out.push(...(await violationsOf(deps, b)).map((v) => `${b.id} (${b.status}): ${v}`));
  for (const hostId of new Set(all.map((b) => b.hostId))) out.push(...(await debtViolationsOf(deps, hostId)).map((v) => `host ${hostId}: ${v}`));
  return out;
}

/** A settlement row's key: the payout's claim key (`booking:{paid}:transfer[:n]`), its kind and the booking owing. */
const SETTLEMENT_KEY = /^(booking:([^:]+):transfer(?::\d+)?):(debt_settled|owed_settled):(.+)$/;

/** Across a host's bookings: what was owed less what was settled is the open debts, and each amount withheld settled as much. */
async function debtViolationsOf(deps: Deps, hostId: string): Promise<string[]> {
  const out: string[] = [];
  const ids = (await deps.db.select({ id: bookings.id }).from(bookings).where(eq(bookings.hostId, hostId))).map((b) => b.id);
  if (!ids.length) return out;
  const rows = await deps.db.select().from(ledgerEntries).where(inArray(ledgerEntries.bookingId, ids));
  const of = (kind: string) => sum(rows.filter((r) => r.kind === kind));
  const open = sum((await openDebts(deps.db, hostId)).map((d) => ({ amountCents: d.openCents })));
  if (of("owed") - of("owed_settled") !== open) out.push(`owed ${of("owed")}, settled ${of("owed_settled")}, but ${open} open`);
  if (of("debt_settled") !== of("owed_settled")) out.push(`withheld ${of("debt_settled")} from payouts, settled ${of("owed_settled")} of debts`);
  return out;
}

async function violationsOf(deps: Deps, b: Booking): Promise<string[]> {
  const out: string[] = [];
  const rows = await deps.db.select().from(ledgerEntries).where(eq(ledgerEntries.bookingId, b.id));
  const ledger = (kind: string) => rows.filter((r) => r.kind === kind);
  const has = (kind: string) => ledger(kind).length > 0;
  if (b.claim) out.push(`a claim is left under way (${b.claim.movement})`);
  // One row of each kind for the booking itself; the others belong to a part given back, by its key.
  // The parts a host gave back (docs/decisions/0051) carry the reason the guest reads; a cancellation's refund (0050) has none.
  const parts = (await deps.db.select().from(bookingRefunds).where(eq(bookingRefunds.bookingId, b.id))).filter((p) => p.reason !== null);
  for (const kind of new Set(rows.map((r) => r.kind))) {
    const own = ledger(kind).filter((r) => r.idempotencyKey === ledgerKey(b.id, kind)).length;
    if (own > 1) out.push(`${own} ledger rows of kind ${kind}`);
  }
  for (const r of rows) {
    const settlement = SETTLEMENT_KEY.exec(r.idempotencyKey);
    if (settlement) {
      // A debt settled by a payout: its two rows, one on the booking paid and one on the booking owing, of the same amount.
      const [, transferKey, paid, kind, owing] = settlement;
      const onThis = kind === "debt_settled" ? paid : owing;
      const other = (await deps.db.select().from(ledgerEntries).where(eq(ledgerEntries.idempotencyKey, `${transferKey}:${kind === "debt_settled" ? "owed_settled" : "debt_settled"}:${owing}`)))[0];
      if (r.kind !== kind || r.bookingId !== onThis) out.push(`a ${r.kind} ledger row under a settlement's key of another kind or booking (${r.idempotencyKey})`);
      else if (!other || other.bookingId !== (kind === "debt_settled" ? owing : paid) || other.amountCents !== r.amountCents || r.amountCents <= 0) out.push(`the settlement ${r.idempotencyKey} of ${r.amountCents} has no matching row on the other booking`);
      continue;
    }
    if (r.kind === "debt_settled" || r.kind === "owed_settled") out.push(`a ${r.kind} ledger row of no payout (${r.idempotencyKey})`);
    else if (r.idempotencyKey !== ledgerKey(r.bookingId, r.kind) && !parts.some((p) => r.idempotencyKey === refundPartLedgerKey(p.key, r.kind))) out.push(`a ${r.kind} ledger row of no refund (${r.idempotencyKey})`);
  }
  // What the host owes of this booking, and what withholding paid of its share.
  const openDebt = sum(ledger("owed")) - sum(ledger("owed_settled"));
  if (openDebt < 0) out.push(`settled ${sum(ledger("owed_settled"))} of a debt of ${sum(ledger("owed"))}`);
  if (openDebt !== (await openDebtOf(deps.db, b.id))) out.push(`an open debt of ${openDebt} by the ledger, ${await openDebtOf(deps.db, b.id)} as the app reads it`);
  if (has("owed") && !has("transfer") && !has("debt_settled")) out.push(`owes ${sum(ledger("owed"))} of a share never paid`);
  const partsSum = sum(parts);
  if (b.refundedCents < 0 || b.refundedCents > b.totalCents) out.push(`refunded ${b.refundedCents} of ${b.totalCents}`);
  if (b.status !== "canceled" && partsSum !== b.refundedCents) out.push(`refunded ${b.refundedCents}, the parts given back add up to ${partsSum}`);
  if (!b.paymentIntentId) {
    if (rows.length) out.push("ledger rows without a payment");
    return out;
  }
  const intent = await deps.payments.getIntent(b.paymentIntentId);
  if (!intent) return [...out, "the payment does not exist at the provider"];
  const refunds = await deps.payments.refundsOf(intent.id);
  const transfers = await deps.payments.transfersOf(`booking:${b.id}`);
  const transferred = transfers.reduce((s, t) => s + t.amountCents - t.reversedCents, 0);
  const captured = intent.status === "succeeded";

  // Every movement the provider shows, in the ledger exactly once.
  if (captured !== has("capture")) out.push(`provider ${captured ? "captured" : "did not capture"}, ledger ${has("capture") ? "has" : "has no"} capture`);
  if (has("capture") && sum(ledger("capture")) !== intent.amountCents) out.push(`capture of ${sum(ledger("capture"))} for a payment of ${intent.amountCents}`);
  const released = intent.status === "canceled" && has("authorize");
  if (released !== has("release")) out.push(`provider ${released ? "released the held card" : "shows no release"}, ledger ${has("release") ? "has" : "has no"} release`);
  if (refunds.length !== ledger("refund").length || sum(refunds) !== sum(ledger("refund"))) out.push(`provider refunds ${sum(refunds)} in ${refunds.length}, ledger ${sum(ledger("refund"))} in ${ledger("refund").length}`);
  const netTransferred = sum(ledger("transfer")) - sum(ledger("reverse"));
  if (transfers.length !== ledger("transfer").length || transferred !== netTransferred) out.push(`provider transfers ${transferred} in ${transfers.length}, ledger ${netTransferred} in ${ledger("transfer").length}`);
  const reversed = transfers.reduce((s, t) => s + t.reversedCents, 0);
  if (reversed !== sum(ledger("reverse"))) out.push(`provider reversed ${reversed} of the transfers, ledger ${sum(ledger("reverse"))}`);
  const providerRefs = new Set(refunds.map((r) => r.id));
  for (const p of parts) {
    const row = rows.filter((r) => r.idempotencyKey === refundPartLedgerKey(p.key, "refund"));
    if (row.length !== 1 || row[0]!.amountCents !== p.amountCents || !providerRefs.has(row[0]!.providerRef ?? "") || p.providerRef !== row[0]!.providerRef) out.push(`the refund of ${p.amountCents} (${p.key}) is not in the ledger once with the provider's refund`);
    const fee = rows.filter((r) => r.idempotencyKey === refundPartLedgerKey(p.key, "platform_fee"));
    const host = rows.filter((r) => r.idempotencyKey === refundPartLedgerKey(p.key, "payout_pending"));
    if (fee.length !== host.length || fee.length > 1) out.push(`the refund ${p.key} has ${fee.length} platform and ${host.length} host parts`);
    else if (fee.length && (-fee[0]!.amountCents - host[0]!.amountCents !== p.amountCents || fee[0]!.amountCents > 0 || host[0]!.amountCents > 0)) out.push(`the parts of the refund ${p.key} (${fee[0]!.amountCents}, ${host[0]!.amountCents}) do not add up to ${p.amountCents}`);
    else if (!fee.length && b.status === "completed" && p.createdAt > (b.completedAt ?? 0)) out.push(`the refund ${p.key}, made once completed, has no platform and host parts`);
  }

  // What was charged is accounted for.
  const charged = sum(ledger("capture"));
  const accounted = sum(ledger("platform_fee")) + sum(ledger("payout_pending")) + sum(ledger("refund"));
  if (b.status === "completed" || (b.status === "canceled" && has("capture"))) {
    if (charged !== accounted) out.push(`charged ${charged}, accounted ${accounted} (fee + payout + refunds)`);
  } else if (accounted !== sum(ledger("refund")) || sum(ledger("refund")) !== b.refundedCents) out.push(`${accounted} accounted before the booking ended, ${b.refundedCents} given back`);
  // Paid: by a transfer, by withholding to settle the host's debts, or both; less what the host owes back.
  const paid = transferred + sum(ledger("debt_settled")) - sum(ledger("owed"));
  if (paid > sum(ledger("payout_pending"))) out.push(`paid ${paid} (transferred ${transferred}), more than the ${sum(ledger("payout_pending"))} owed`);
  if ((has("transfer") || has("debt_settled")) && paid !== sum(ledger("payout_pending"))) out.push(`paid ${paid} (transferred ${transferred}, withheld ${sum(ledger("debt_settled"))}, owing ${sum(ledger("owed"))}), the host is owed ${sum(ledger("payout_pending"))}`);
  if (sum(ledger("platform_fee")) < 0 || sum(ledger("payout_pending")) < 0) out.push(`a share below nothing: fee ${sum(ledger("platform_fee"))}, host ${sum(ledger("payout_pending"))}`);

  // What the booking says it gave back is what the provider and the refunds' records show.
  const recordedRefunds = await deps.db.select().from(bookingRefunds).where(eq(bookingRefunds.bookingId, b.id));
  if (b.refundedCents !== sum(refunds) || sum(recordedRefunds) !== sum(refunds)) out.push(`refunded ${b.refundedCents} by the booking, ${sum(recordedRefunds)} by its refunds' records, ${sum(refunds)} at the provider`);

  // The provider state each status goes with.
  const expect = (ok: boolean, what: string) => ok || out.push(what);
  switch (b.status) {
    case "pending":
      expect(intent.status === "requires_capture" && has("authorize"), `a request whose card is ${intent.status}`);
      break;
    case "accepted":
      expect(captured && sum(refunds) === b.refundedCents, `accepted, the payment ${intent.status} with ${sum(refunds)} refunded (${b.refundedCents} given back)`);
      break;
    case "completed":
      expect(captured && sum(refunds) === b.refundedCents && has("payout_pending"), `completed, the payment ${intent.status} with ${sum(refunds)} refunded (${b.refundedCents} given back)`);
      break;
    case "canceled":
      if (has("capture")) {
        const refunded = sum(refunds);
        // With parts given back by the host first, the cancellation gave what its policy gives beyond them, or nothing more.
        const allowed = parts.length ? refunded >= partsSum && refunded <= b.totalCents : possibleRefunds(b.cancellationPolicy, b.totalCents).includes(refunded);
        expect(allowed, `cancelled after being charged, ${refunded} of ${b.totalCents} refunded, which the ${b.cancellationPolicy} policy never gives`);
        const kept = keptSplit(b, b.totalCents - refunded);
        expect(
          sum(ledger("payout_pending")) === kept.hostCents && sum(ledger("platform_fee")) === kept.platformCents,
          `cancelled keeping ${b.totalCents - refunded}: host ${sum(ledger("payout_pending"))} and platform ${sum(ledger("platform_fee"))}, not ${kept.hostCents} and ${kept.platformCents}`,
        );
      }
      else expect(intent.status !== "requires_capture" && !captured, `cancelled, the payment ${intent.status}`);
      break;
    case "rejected":
    case "expired":
      expect(intent.status !== "requires_capture" && !captured, `${b.status}, the payment ${intent.status}`);
      break;
  }

  // Nothing held past its deadline.
  if (intent.status === "requires_capture") {
    const deadline = b.status === "pending" ? b.respondBy : b.status === "awaiting_payment" ? (b.holdUntil ?? 0) : 0;
    if (deps.now() > deadline) out.push("the card is held past the booking's deadline");
  }
  return out;
}
