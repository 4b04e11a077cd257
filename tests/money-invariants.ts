/**
 * The money invariant, checked against the provider itself (docs/decisions/0028): for every
 * booking, its status, what the payment provider shows and our ledger agree.
 * - Every movement the provider shows is in the ledger exactly once, for the same amount:
 *   the capture, the release of a held card, each refund, each transfer.
 * - What was charged is accounted for: charged = platform fee + host payout + refunds, once the
 *   booking has ended; nothing but the charge while it is accepted.
 * - A cancelled charge was refunded by an amount its policy allows (docs/decisions/0050): in full,
 *   or the policy's share; what was kept is split between the platform and the host in the
 *   refund's proportion, to the unit; `refundedCents` and `booking_refunds` say the same.
 * - Each status has the provider state that goes with it, and no claim is left over.
 * - No card is held past the booking's deadline.
 */
import { eq } from "drizzle-orm";
import { bookingRefunds, bookings, ledgerEntries, type Booking } from "../db/schema";
import { keptSplit, possibleRefunds } from "../src/bookings/policies";
import type { Deps } from "../src/deps";

const sum = (xs: { amountCents: number }[]) => xs.reduce((s, x) => s + x.amountCents, 0);

export async function moneyViolations(deps: Deps, only?: string[]): Promise<string[]> {
  const out: string[] = [];
  const all = (await deps.db.select().from(bookings)).filter((b) => !only || only.includes(b.id));
  for (const b of all) out.push(...(await violationsOf(deps, b)).map((v) => `${b.id} (${b.status}): ${v}`));
  return out;
}

async function violationsOf(deps: Deps, b: Booking): Promise<string[]> {
  const out: string[] = [];
  const rows = await deps.db.select().from(ledgerEntries).where(eq(ledgerEntries.bookingId, b.id));
  const ledger = (kind: string) => rows.filter((r) => r.kind === kind);
  const has = (kind: string) => ledger(kind).length > 0;
  if (b.claim) out.push(`a claim is left under way (${b.claim.movement})`);
  for (const kind of new Set(rows.map((r) => r.kind))) if (ledger(kind).length > 1) out.push(`${ledger(kind).length} ledger rows of kind ${kind}`);
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
  if (transfers.length !== ledger("transfer").length || transferred !== sum(ledger("transfer"))) out.push(`provider transfers ${transferred} in ${transfers.length}, ledger ${sum(ledger("transfer"))} in ${ledger("transfer").length}`);

  // What was charged is accounted for.
  const charged = sum(ledger("capture"));
  const accounted = sum(ledger("platform_fee")) + sum(ledger("payout_pending")) + sum(ledger("refund"));
  if (b.status === "completed" || (b.status === "canceled" && has("capture"))) {
    if (charged !== accounted) out.push(`charged ${charged}, accounted ${accounted} (fee + payout + refunds)`);
  } else if (accounted !== 0) out.push(`${accounted} accounted before the booking ended`);
  if (transferred > sum(ledger("payout_pending"))) out.push(`transferred ${transferred}, more than the ${sum(ledger("payout_pending"))} owed`);

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
      expect(captured && refunds.length === 0, `accepted, the payment ${intent.status} with ${sum(refunds)} refunded`);
      break;
    case "completed":
      expect(captured && refunds.length === 0 && has("payout_pending"), `completed, the payment ${intent.status} with ${sum(refunds)} refunded`);
      break;
    case "canceled":
      if (has("capture")) {
        const refunded = sum(refunds);
        expect(possibleRefunds(b.cancellationPolicy, b.totalCents).includes(refunded), `cancelled after being charged, ${refunded} of ${b.totalCents} refunded, which the ${b.cancellationPolicy} policy never gives`);
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
