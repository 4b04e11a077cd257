import { and, desc, eq, inArray, isNotNull, isNull, lt, or } from "drizzle-orm";
import { writeTransaction, one } from "../../db/client";
import { bookingRefunds, bookings, jobs, ledgerEntries, type Booking, type BookingClaim } from "../../db/schema";
import type { Deps } from "../deps";
import { cancelJob } from "../jobs";
import { reconcileJob, schedule } from "./jobs";
import { bookingCallKeys, jobKeys } from "./keys";
import { currentBooking, RECONCILE_MS } from "./service";
import { loggable } from "../../db/faults";
import { recoverPayment } from "./checkout-payment";
import { owedPayouts } from "./payouts";
import { givesPartBack, refundable } from "./refund-parts";
import { announce, callProvider, finishClaim, hostPartTakenBack, ledger, RECOVERY_GRACE_MS, recoveryDue, refusedForSure, rollBackClaim, shareOwed, systemMessage } from "./claims";

/**
 * Keeping our books and the provider's in agreement (docs/decisions/0028):
 * - `recoverClaim`: a movement claimed but never recorded (a crash, a deploy, a call that got no
 *   answer) is finished from what the provider shows, once, or done now with its own key; a
 *   checkout's claimed payment is recorded from what the provider shows (`recoverPayment`);
 * - `reconcileIntent`: an authorisation that pays for no booking is released;
 * - `sweepPayments`: every open booking is compared with its provider state; what differs is
 *   repaired when the provider shows a movement we did not record, and flagged for the operator
 *   otherwise.
 */

/**
 * What the provider shows of a claim's movement: made (with its reference, and for a part given
 * back after the payout, whether the host's part is left owed), not made yet, or made impossible.
 */
type Shown = { made: string; hostPartOwed?: boolean } | { notYet: true } | { impossible: string };

async function shownByProvider(deps: Deps, b: Booking, c: BookingClaim): Promise<Shown> {
  if (c.movement === "capture" || c.movement === "release") {
    const intent = await deps.payments.getIntent(c.intentId);
    if (!intent) return { impossible: `the payment ${c.intentId} does not exist at the provider` };
    const target = c.movement === "capture" ? "succeeded" : "canceled";
    if (intent.status === target) return { made: intent.id };
    if (c.movement === "capture" && intent.status !== "requires_capture") return { impossible: `the payment could not be captured: it is ${intent.status}` };
    if (c.movement === "release" && intent.status === "succeeded") return { impossible: "the payment was captured, not released" };
    return { notYet: true };
  }
  if (c.movement === "refund") {
    // This claim's refund is one the provider shows and our books do not have yet, of its amount.
    const amount = c.amountCents ?? refundable(b);
    const recorded = new Set([
      ...(await deps.db.select({ ref: ledgerEntries.providerRef }).from(ledgerEntries).where(and(eq(ledgerEntries.bookingId, b.id), eq(ledgerEntries.kind, "refund")))).map((r) => r.ref),
      ...(await deps.db.select({ ref: bookingRefunds.providerRef }).from(bookingRefunds).where(eq(bookingRefunds.bookingId, b.id))).map((r) => r.ref),
    ]);
    const unrecorded = (await deps.payments.refundsOf(c.intentId)).filter((r) => !recorded.has(r.id));
    const made = unrecorded.find((r) => r.amountCents === amount);
    if (made) {
      // A part given back after the payout: the host's part is taken back too, unless it was
      // already; refused for sure, it is owed by the host (docs/decisions/0051).
      if (givesPartBack(c)) return { made: made.id, hostPartOwed: (await hostPartTakenBack(deps, b, c)) === "owed" };
      return { made: made.id };
    }
    if (unrecorded.length) return { impossible: `the provider shows refunds of ${unrecorded.map((r) => r.amountCents).join(", ")} minor units our books do not have, not the ${amount} claimed` };
    return { notYet: true };
  }
  const transfers = await deps.payments.transfersOf(bookingCallKeys.transferGroup(b.id));
  const sent = transfers.find((t) => t.amountCents - t.reversedCents > 0);
  return sent ? { made: sent.id } : { notYet: true };
}

/**
 * Marks a booking for the operator, with what was found; `as` is the booking as it was read
 * before the provider was asked: if it changed since (a transition ran meanwhile), what was
 * found may be that transition's own doing, and the next sweep looks again instead.
 */
async function flag(deps: Deps, bookingId: string, issue: string, as?: Pick<Booking, "status" | "updatedAt">): Promise<boolean> {
  const unchanged = as ? and(eq(bookings.status, as.status), eq(bookings.updatedAt, as.updatedAt), isNull(bookings.claim)) : undefined;
  const flagged = await one(writeTransaction(deps.db, (tx) => tx
    .update(bookings)
    .set({ paymentIssue: issue.slice(0, 500), updatedAt: deps.now() })
    .where(and(eq(bookings.id, bookingId), unchanged))
    .returning({ id: bookings.id })));
  if (flagged) console.error(`payments: booking ${bookingId} needs an operator: ${issue}`);
  return !!flagged;
}

/**
 * The recovery job of a claim (`booking.recover:{id}:{attempt}`), due `RECOVERY_GRACE_MS` after
 * it was made (`PAYMENT_RECOVERY_MS` for a checkout's payment). Asks the provider what happened
 * and records exactly that; when nothing happened yet, does the movement now with the claim's
 * own key (a lost call is answered again by the provider, never made twice). A refusal rolls the
 * claim back (the booking's own jobs or the person try again); no answer throws, and the job is
 * retried.
 */
export async function recoverClaim(deps: Deps, bookingId: string): Promise<"none" | "recorded" | "rolled back"> {
  const b = await currentBooking(deps, bookingId);
  const c = b?.claim;
  if (!b || !c || recoveryDue(b) > deps.now()) return "none";
  // A checkout's claimed payment: the guest confirms a card, never we; what the provider shows is recorded.
  if (c.movement === "authorize") return await recoverPayment(deps, b.id, c);
  const shown = await shownByProvider(deps, b, c);
  if ("made" in shown) {
    await finishClaim(deps, b.id, c.key, { ref: shown.made, ...(shown.hostPartOwed ? { hostPartOwed: true } : {}) });
    return "recorded";
  }
  if ("impossible" in shown) {
    await rollBackClaim(deps, b.id, c.key);
    await flag(deps, b.id, `${c.movement} to ${c.to}: ${shown.impossible}`);
    return "rolled back";
  }
  try {
    await finishClaim(deps, b.id, c.key, await callProvider(deps, b, c));
    return "recorded";
  } catch (err) {
    if (!refusedForSure(err)) throw err;
    await rollBackClaim(deps, b.id, c.key);
    return "rolled back";
  }
}

/**
 * An intent with no booking 30 minutes after it was made (the guest left, or creating the
 * booking failed): its authorisation is released (job). An intent a request was made with
 * belongs to that request: its claims move it, and their recovery finishes them.
 */
export async function reconcileIntent(deps: Deps, intentId: string) {
  const booking = await one(deps.db.select().from(bookings).where(eq(bookings.paymentIntentId, intentId)));
  if (booking) {
    if (booking.status === "awaiting_payment" && (booking.holdUntil ?? 0) > deps.now()) {
      await writeTransaction(deps.db, (tx) => schedule(tx, reconcileJob, { intentId }, { at: booking.holdUntil! + RECONCILE_MS, key: jobKeys.reconcileIntentLater(intentId) }));
      return;
    }
    const authorised = await one(deps.db.select({ id: ledgerEntries.id }).from(ledgerEntries).where(and(eq(ledgerEntries.bookingId, booking.id), eq(ledgerEntries.kind, "authorize"))));
    if (authorised || booking.claim) return;
  }
  const intent = await deps.payments.getIntent(intentId);
  if (!intent || intent.status === "canceled" || intent.status === "succeeded") return;
  await deps.payments.release(intent.id, bookingCallKeys.releaseStray(intent.id));
}

/** Bookings looked at per sweep pass, oldest change first: the next pass takes the rest. */
const SWEEP_BATCH = 500;

/**
 * The periodic sweep: claims whose recovery job was lost are recovered, and every open booking
 * is compared with the provider.
 * - pending: the card must be held. Released at the provider (the authorisation lapsed, or was
 *   cancelled there): the request ends as expired, with the release recorded. Charged: flagged.
 * - accepted: the charge must stand. Refunded at the provider: flagged (who cancelled is not ours to guess).
 * - completed, or cancelled with part of the payment kept, with the host's share owed: a transfer
 *   the provider shows is recorded.
 * Answers how many bookings were repaired and flagged.
 */
export async function sweepPayments(deps: Deps): Promise<{ recovered: number; repaired: number; flagged: number }> {
  const out = { recovered: 0, repaired: 0, flagged: 0 };
  const stale = await deps.db
    .select({ id: bookings.id })
    .from(bookings)
    .where(and(isNotNull(bookings.claim), lt(bookings.claimedAt, deps.now() - RECOVERY_GRACE_MS)))
    .limit(SWEEP_BATCH);
  for (const { id } of stale) {
    try {
      if ((await recoverClaim(deps, id)) !== "none") out.recovered++;
    } catch (err) {
      console.error(`payments sweep: recovering booking ${id} failed: ${loggable(err)}`);
    }
  }
  // Open requests and bookings, and completed ones whose host share is still owed.
  const owed = await owedPayouts(deps);
  const open = await deps.db
    .select()
    .from(bookings)
    .where(
      and(
        or(inArray(bookings.status, ["pending", "accepted"]), owed.length ? inArray(bookings.id, owed) : undefined),
        isNotNull(bookings.paymentIntentId),
        isNull(bookings.claim),
        isNull(bookings.paymentIssue),
      ),
    )
    .orderBy(bookings.updatedAt)
    .limit(SWEEP_BATCH);
  for (const b of open) {
    try {
      const result = await compare(deps, b);
      if (result === "repaired") out.repaired++;
      if (result === "flagged") out.flagged++;
    } catch (err) {
      console.error(`payments sweep: comparing booking ${b.id} failed: ${loggable(err)}`);
    }
  }
  return out;
}

async function compare(deps: Deps, b: Booking): Promise<"same" | "repaired" | "flagged"> {
  const intentId = b.paymentIntentId!;
  if (b.status === "completed" || b.status === "canceled") {
    const transfers = await deps.payments.transfersOf(bookingCallKeys.transferGroup(b.id));
    const sent = transfers.find((t) => t.amountCents - t.reversedCents > 0);
    if (!sent) return "same";
    const recorded = await writeTransaction(deps.db, async (tx) => {
      const row = await one(tx.select().from(bookings).where(and(eq(bookings.id, b.id), eq(bookings.status, b.status), isNull(bookings.claim))));
      if (!row || !(await shareOwed(tx, row.id))) return null;
      await ledger(tx, deps, row, "transfer", sent.amountCents, sent.id);
      return row;
    });
    if (!recorded) return "same";
    deps.events.emit({ type: "payout.sent", booking: recorded, amountCents: sent.amountCents });
    return "repaired";
  }
  const intent = await deps.payments.getIntent(intentId);
  if (!intent) return await flag(deps, b.id, `${b.status}, but the payment ${intentId} does not exist at the provider`, b) ? "flagged" : "same";
  if (b.status === "pending") {
    if (intent.status === "requires_capture") return "same";
    if (intent.status === "canceled") return await expireReleased(deps, b, intent.id) ? "repaired" : "same";
    return await flag(deps, b.id, `a request whose payment is ${intent.status} at the provider`, b) ? "flagged" : "same";
  }
  // accepted
  if (intent.status !== "succeeded") return await flag(deps, b.id, `accepted, but the payment is ${intent.status} at the provider`, b) ? "flagged" : "same";
  // Parts the host gave back are recorded (`refundedCents`); anything more was refunded elsewhere.
  const refunded = (await deps.payments.refundsOf(intentId)).reduce((sum, r) => sum + r.amountCents, 0);
  if (refunded > b.refundedCents) return await flag(deps, b.id, `accepted, but ${refunded} of ${b.totalCents} cents were refunded at the provider (${b.refundedCents} recorded)`, b) ? "flagged" : "same";
  return "same";
}

/** A request whose authorisation the provider shows released: it ends as expired, the release recorded. */
async function expireReleased(deps: Deps, b: Booking, intentId: string): Promise<boolean> {
  const out = await writeTransaction(deps.db, async (tx) => {
    const changed = await one(tx
      .update(bookings)
      .set({ status: "expired", updatedAt: deps.now() })
      .where(and(eq(bookings.id, b.id), eq(bookings.status, "pending"), isNull(bookings.claim)))
      .returning());
    if (!changed) return null;
    await ledger(tx, deps, changed, "release", changed.totalCents, intentId);
    await cancelJob(tx, jobKeys.expire(changed.id));
    await cancelJob(tx, jobKeys.expireLater(changed.id));
    return { changed, message: await systemMessage(tx, deps, changed.id, "booking_expired", null) };
  });
  if (!out) return false;
  announce(deps, out.changed, "pending", out.message);
  return true;
}

/** A booking the reconciliation flagged, as the operator reads it. */
export interface FlaggedBooking {
  id: string;
  status: Booking["status"];
  totalCents: number;
  currency: string;
  issue: string;
  paymentIntentId: string | null;
  updatedAt: number;
}

/** What needs an operator: flagged bookings and timed work that gave up, newest first. */
export async function paymentsNeedingAttention(deps: Deps) {
  const flagged: FlaggedBooking[] = (await deps.db
    .select({ id: bookings.id, status: bookings.status, totalCents: bookings.totalCents, currency: bookings.currency, issue: bookings.paymentIssue, paymentIntentId: bookings.paymentIntentId, updatedAt: bookings.updatedAt })
    .from(bookings)
    .where(isNotNull(bookings.paymentIssue))
    .orderBy(desc(bookings.updatedAt))
    .limit(200))
    .map((b) => ({ ...b, issue: b.issue ?? "" }));
  const failed = await deps.db
    .select({ id: jobs.id, kind: jobs.kind, key: jobs.key, attempts: jobs.attempts, lastError: jobs.lastError, failedAt: jobs.failedAt })
    .from(jobs)
    .where(isNotNull(jobs.failedAt))
    .orderBy(desc(jobs.failedAt))
    .limit(200);
  return { flagged, failed };
}

/** The operator has dealt with a flagged booking: the sweep compares it again from now on. */
export async function clearPaymentIssue(deps: Deps, bookingId: string): Promise<boolean> {
  return !!await one(writeTransaction(deps.db, (tx) => tx.update(bookings).set({ paymentIssue: null, updatedAt: deps.now() }).where(and(eq(bookings.id, bookingId), isNotNull(bookings.paymentIssue))).returning({ id: bookings.id })));
}
