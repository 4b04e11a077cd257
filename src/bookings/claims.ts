import { and, eq, isNull } from "drizzle-orm";
import { writeTransaction, type WriteTx, one, written } from "../../db/client";
import { nextMessageSeq } from "./order";
import { bookingRefunds, bookings, ledgerEntries, messages, users, type Booking, type BookingClaim, type BookingStatus, type LedgerKind } from "../../db/schema";
import type { Deps } from "../deps";
import type { MessageRow } from "../events";
import { cancelJob } from "../jobs";
import { DomainError } from "../../lib/domain-error";
import { faultOf, loggable } from "../../db/faults";
import { PaymentError } from "../ports/payments";
import { autoCompleteJob, payoutJob, recoverJob, schedule } from "./jobs";
import { bookingCallKeys, jobKeys, ledgerKey, movementKey } from "./keys";
import { AUTO_COMPLETE_MS, providerRefusal, currentBooking, type SystemMessageType } from "./service";
import { keptSplit } from "./policies";
import { givesPartBack, partBackRows, refundable, takeBackHostPart } from "./refund-parts";
import { settlementRows, settlementsFor } from "./host-debts";

/**
 * The way a booking's money moves (docs/decisions/0028): claim, call, record, recover. Every
 * change that moves it (`transitions.ts`, `payouts.ts`, the checkout's payment in
 * `checkout-payment.ts`) goes through here, and `reconciliation.ts` recovers what was left.
 *
 * 1. **Claim.** One write transaction sets the booking's `claim` with a compare-and-set on its
 *    status and on no other claim being under way, numbers the attempt (its idempotency key), and
 *    schedules the recovery job. Whoever loses moves no money.
 * 2. **Call.** Only the claimant calls the provider, outside any transaction, with the claim's key.
 * 3. **Record.** One write transaction writes the new status, its ledger row, system message and
 *    jobs, and clears the claim, if the claim is still this one. A refusal from the provider rolls
 *    the claim back; no answer leaves it for the recovery job, which asks the provider what
 *    happened (`reconciliation.ts`).
 */

/**
 * After this long, a claim nobody recorded is finished from what the provider shows. Longer than
 * any live call lasts: a Stripe movement is at most two requests of three tries of 20 s each.
 */
export const RECOVERY_GRACE_MS = 5 * 60 * 1000;
/**
 * How long after the checkout claims a payment (docs/decisions/0046) its recovery asks the
 * provider what happened. A minute: once the provider holds the card, the host should hear of the
 * request soon, not when the 15-minute hold lapses. It may be shorter than a movement's grace
 * because that recovery only reads the intent and records what it shows, the same record whoever
 * makes it: overlapping a checkout still waiting for its answer does no harm.
 */
export const PAYMENT_RECOVERY_MS = 60 * 1000;
/** When a claim's recovery may finish it. */
export const recoveryDue = (b: Pick<Booking, "claim" | "claimedAt">) => (b.claimedAt ?? 0) + (b.claim?.movement === "authorize" ? PAYMENT_RECOVERY_MS : RECOVERY_GRACE_MS);
/** How long a request waits for another change of the same booking, under way in this process, to end before answering. */
const WAIT_FOR_CLAIM_MS = 10_000;

/**
 * The claims this process is working on now: claimed, their provider call or its record not yet
 * over. Only these are worth waiting for (`attempt`): they end within moments. Any other claim
 * was left to its recovery job (the provider's answer was lost, the process that made it
 * crashed) or is another process's; waiting would only delay the same answer.
 */
const claimsUnderWay = new Set<string>();

/** A claim made outside `move` (the checkout's payment), known as under way here from before its commit until `claimSettled`. */
export const claimUnderWay = (key: string) => void claimsUnderWay.add(key);
export const claimSettled = (key: string) => void claimsUnderWay.delete(key);
/** Whether a claim is worth waiting for: this process is working on it now. */
export const claimIsUnderWay = (key: string) => claimsUnderWay.has(key);

/** Writes a ledger row, once per key: by default the booking's one row of that kind (`key` for the rows a booking has several of). */
export async function ledger(tx: WriteTx, deps: Deps, booking: Pick<Booking, "id" | "currency">, kind: LedgerKind, amountCents: number, providerRef: string | null, key = ledgerKey(booking.id, kind)) {
  await tx.insert(ledgerEntries)
    .values({
      id: crypto.randomUUID(),
      bookingId: booking.id,
      kind,
      amountCents,
      currency: booking.currency,
      provider: deps.payments.name,
      providerRef,
      idempotencyKey: key,
      createdAt: deps.now(),
    })
    .onConflictDoNothing({ target: ledgerEntries.idempotencyKey });
}

/** Writes a system message; `content` is its own text when it carries one (a refund's reason), else its type. */
export async function systemMessage(tx: WriteTx, deps: Deps, bookingId: string, type: SystemMessageType, senderId: string | null, content: string = type): Promise<MessageRow> {
  return await written(tx
    .insert(messages)
    .values({ id: crypto.randomUUID(), bookingId, senderId, content, isSystemMessage: true, systemMessageType: type, readBy: senderId ? [senderId] : [], createdAt: deps.now(), seq: nextMessageSeq(bookingId) })
    .returning());
}

/** Tells the live channel and notifications, once committed, that a booking changed status (`instant`: accepted by instant booking). */
export function announce(deps: Deps, booking: Booking, from: BookingStatus | null, message: MessageRow | null = null, instant = false) {
  deps.events.emit({ type: "booking.changed", booking, from, message, ...(instant ? { instant } : {}) });
}

// ---------------------------------------------------------------------------------------------
// The claim protocol.

/** What a movement is to do; `claim` adds its key, its starting status and its intent. */
export type Plan = Omit<BookingClaim, "key" | "from" | "intentId">;

/**
 * What the provider answered a claim's call: the reference its ledger row keeps (null: nothing
 * was sent, a payout withheld entirely to settle the host's debts), and for a part given back
 * after the payout, whether the host's part was left owed (the provider refused to take it back).
 */
export interface CallAnswer {
  ref: string | null;
  hostPartOwed?: boolean;
}

/**
 * The host's share of a completed booking that is owed and not yet sent, by its ledger, in minor
 * units: what is left of it after the refunds (the sum of its `payout_pending` rows), less what was
 * withheld of it to settle the host's debts (`debt_settled`), until it is transferred; 0 when
 * nothing is owed (not completed, sent already, withheld entirely, or all given back).
 */
export async function shareOwed(db: WriteTx | Deps["db"], bookingId: string): Promise<number> {
  const rows = await db.select({ kind: ledgerEntries.kind, amountCents: ledgerEntries.amountCents }).from(ledgerEntries).where(eq(ledgerEntries.bookingId, bookingId));
  if (rows.some((r) => r.kind === "transfer")) return 0;
  const of = (kind: LedgerKind) => rows.filter((r) => r.kind === kind).reduce((sum, r) => sum + r.amountCents, 0);
  return Math.max(0, of("payout_pending") - of("debt_settled"));
}

/**
 * A booking cancelled with part or all of its payment kept (a guest's late cancellation under its
 * policy, docs/decisions/0050): what is kept is shared as a completion's would be, the platform's
 * fee and the host's share reduced in the refund's proportion, and the host's share is paid out by
 * the payout job like a completed booking's.
 */
export async function keepShares(tx: WriteTx, deps: Deps, b: Booking) {
  const { hostCents, platformCents } = keptSplit(b, b.totalCents - b.refundedCents);
  if (platformCents > 0) await ledger(tx, deps, b, "platform_fee", platformCents, null);
  if (hostCents <= 0) return;
  await ledger(tx, deps, b, "payout_pending", hostCents, null);
  await schedule(tx, payoutJob, { bookingId: b.id }, { at: deps.now(), key: jobKeys.payout(b.id) });
}

/** Step 1: claims the booking in status `from` for one movement, or null when another change got there first. */
async function claim(deps: Deps, bookingId: string, from: BookingStatus, intentId: string, plan: Plan): Promise<Booking | null> {
  const now = deps.now();
  // Known as under way before its commit, so that no request of this process reads the claim
  // without knowing it is live; forgotten if it does not commit.
  let key: string | undefined;
  try {
    const claimed = await claimIn(deps, bookingId, from, intentId, plan, now, (k) => claimsUnderWay.add((key = k)));
    if (!claimed && key) claimsUnderWay.delete(key);
    return claimed;
  } catch (err) {
    if (key) claimsUnderWay.delete(key);
    throw err;
  }
}

function claimIn(deps: Deps, bookingId: string, from: BookingStatus, intentId: string, plan: Plan, now: number, underWay: (key: string) => void): Promise<Booking | null> {
  return writeTransaction(deps.db, async (tx) => {
    const row = await one(tx.select().from(bookings).where(and(eq(bookings.id, bookingId), eq(bookings.status, from), isNull(bookings.claim))));
    if (!row) return null;
    // A payout is claimed only while the share is still owed: two payouts that both read it owed
    // before either claimed (the completion's own and its job) send it once, for what is owed then.
    // What the host owes from earlier refunds is withheld from it (docs/decisions/0051), held by this claim.
    if (plan.movement === "transfer") {
      const owed = await shareOwed(tx, row.id);
      if (!owed) return null;
      const settles = await settlementsFor(tx, row, owed);
      plan = { ...plan, amountCents: owed - settles.reduce((sum, s) => sum + s.amountCents, 0), ...(settles.length ? { settles } : {}) };
    }
    // A refund of an amount is claimed only while that much remains: two at once never give back more than was paid.
    if (plan.movement === "refund" && plan.amountCents !== undefined && plan.amountCents > refundable(row)) return null;
    const attempt = row.claims + 1;
    const claimed: BookingClaim = { ...plan, from, intentId, key: movementKey(row.id, plan.movement, attempt) };
    underWay(claimed.key);
    const updated = await one(tx.update(bookings).set({ claim: claimed, claimedAt: now, claims: attempt, updatedAt: now }).where(eq(bookings.id, row.id)).returning());
    await schedule(tx, recoverJob, { bookingId: row.id }, { at: now + RECOVERY_GRACE_MS, key: jobKeys.recover(row.id, attempt) });
    return updated ?? null;
  });
}

/** Step 2: the provider call of a claim; answers the provider's reference for the ledger. */
export async function callProvider(deps: Deps, booking: Booking, c: BookingClaim): Promise<CallAnswer> {
  switch (c.movement) {
    case "capture":
      return { ref: (await deps.payments.capture(c.intentId, c.key)).id };
    case "release":
      return { ref: (await deps.payments.release(c.intentId, c.key)).id };
    case "refund": {
      const refund = await deps.payments.refund(c.intentId, c.amountCents ?? null, c.key);
      if (!givesPartBack(c)) return { ref: refund.id };
      return { ref: refund.id, hostPartOwed: (await hostPartTakenBack(deps, booking, c)) === "owed" };
    }
    case "transfer": {
      // Withheld entirely to settle the host's debts: nothing to send, the settlements are recorded.
      if (c.amountCents === 0) return { ref: null };
      const host = await one(deps.db.select({ accountId: users.stripeAccountId }).from(users).where(eq(users.id, booking.hostId)));
      if (!host?.accountId) throw new PaymentError("The host has no payout account.", "invalid_request", 409);
      const transfer = await deps.payments.transfer(
        { amountCents: c.amountCents ?? booking.hostEarningsCents, currency: booking.currency, destinationAccountId: host.accountId, sourceIntentId: c.intentId, transferGroup: bookingCallKeys.transferGroup(booking.id) },
        c.key,
      );
      return { ref: transfer.id };
    }
    case "authorize":
      // The guest's card is confirmed by the guest (the card form, Stripe.js), never by us again:
      // its claim is settled from what the provider shows (`recoverPayment`).
      throw new Error(`booking ${booking.id}: an authorisation is not made again by its recovery`);
  }
}

/**
 * After the guest was refunded for a part given back after the payout: the host's part taken back
 * from the transfer, or left owed by the host when the provider refuses that for sure (their
 * balance no longer covers it). The claim must not be rolled back now: no answer is left, as any
 * lost answer is, to the recovery, which makes the reversal again with its key.
 */
export async function hostPartTakenBack(deps: Deps, booking: Booking, c: BookingClaim): Promise<"taken back" | "owed" | "none"> {
  try {
    return await takeBackHostPart(deps, booking, c);
  } catch (err) {
    if (refusedForSure(err)) return "owed";
    throw new PaymentError(`the refund was made, taking the host's part back was not: ${err instanceof Error ? err.message : String(err)}`, "provider_unavailable", 503);
  }
}

/**
 * Step 3: the provider's answer to claim `key`, recorded in one transaction with everything that
 * goes with the new status; null when the claim is no longer the booking's (recorded already).
 */
function record(deps: Deps, bookingId: string, key: string, answer: CallAnswer) {
  const providerRef = answer.ref;
  const now = deps.now();
  return writeTransaction(deps.db, async (tx) => {
    const row = await one(tx.select().from(bookings).where(eq(bookings.id, bookingId)));
    const c = row?.claim;
    if (!row || !c || c.key !== key) return null;
    const change: Partial<typeof bookings.$inferInsert> = { status: c.to, claim: null, claimedAt: null, updatedAt: now };
    if (c.to === "accepted" || c.to === "rejected") change.respondedAt = now;
    if (c.to === "canceled") change.canceledBy = c.canceledBy;
    // A refund gives back its claimed amount, or everything not given back yet.
    const refunded = c.movement === "refund" ? (c.amountCents ?? row.totalCents - row.refundedCents) : 0;
    if (refunded) change.refundedCents = row.refundedCents + refunded;
    const b = (await one(tx.update(bookings).set(change).where(eq(bookings.id, row.id)).returning()))!;
    switch (c.movement) {
      case "capture":
        await ledger(tx, deps, b, "capture", b.totalCents, providerRef);
        await cancelJob(tx, jobKeys.expire(b.id));
        await cancelJob(tx, jobKeys.expireLater(b.id));
        await cancelJob(tx, jobKeys.instantUnanswered(b.id));
        await schedule(tx, autoCompleteJob, { bookingId: b.id }, { at: b.endsAt + AUTO_COMPLETE_MS, key: jobKeys.autoComplete(b.id) });
        break;
      case "release":
        if (c.from === "pending") {
          await ledger(tx, deps, b, "release", b.totalCents, providerRef);
          await cancelJob(tx, jobKeys.expire(b.id));
          await cancelJob(tx, jobKeys.expireLater(b.id));
          await cancelJob(tx, jobKeys.instantUnanswered(b.id));
        } else {
          await cancelJob(tx, jobKeys.hold(b.id));
        }
        break;
      case "refund":
        if (givesPartBack(c)) {
          // A host's partial refund (docs/decisions/0051): its refund, its booking_refunds row and, once completed, the shares it takes back.
          for (const r of await partBackRows(tx, deps, row, c, providerRef ?? "", answer.hostPartOwed === true)) await ledger(tx, deps, b, r.kind, r.amountCents, r.providerRef, r.key);
          break;
        }
        await ledger(tx, deps, b, "refund", refunded, providerRef);
        await tx.insert(bookingRefunds)
          .values({ id: crypto.randomUUID(), bookingId: b.id, amountCents: refunded, currency: b.currency, reason: null, byUserId: null, key: c.key, providerRef, createdAt: now })
          .onConflictDoNothing({ target: bookingRefunds.key });
        // Cancelled with part of the payment kept: the kept part is shared and paid out (docs/decisions/0050).
        if (c.to === "canceled" && b.refundedCents < b.totalCents) await keepShares(tx, deps, b);
        await cancelJob(tx, jobKeys.autoComplete(b.id));
        break;
      case "transfer":
        if (providerRef) await ledger(tx, deps, b, "transfer", c.amountCents ?? b.hostEarningsCents, providerRef);
        for (const r of settlementRows(b, c)) await ledger(tx, deps, r.booking, r.kind, r.amountCents, null, r.key);
        break;
    }
    await cancelJob(tx, jobKeys.recover(b.id, b.claims));
    const message = c.message ? await systemMessage(tx, deps, b.id, c.message, c.senderId, c.reason) : null;
    return { booking: b, claim: c, message };
  });
}

/** Records claim `key`'s answer and tells whoever listens; answers the booking as it is then. */
export async function finishClaim(deps: Deps, bookingId: string, key: string, answer: CallAnswer): Promise<Booking> {
  const out = await record(deps, bookingId, key, answer);
  if (!out) return (await currentBooking(deps, bookingId))!;
  if (out.claim.movement === "transfer") {
    if (answer.ref) deps.events.emit({ type: "payout.sent", booking: out.booking, amountCents: out.claim.amountCents ?? out.booking.hostEarningsCents });
  } else if (givesPartBack(out.claim)) deps.events.emit({ type: "booking.refunded", booking: out.booking, amountCents: out.claim.amountCents ?? 0, reason: out.claim.reason ?? "", message: out.message });
  else announce(deps, out.booking, out.claim.from, out.message, out.claim.instant === true);
  return out.booking;
}

/** The provider refused claim `key`: nothing moved, the booking is free for the next change. */
export async function rollBackClaim(deps: Deps, bookingId: string, key: string) {
  await writeTransaction(deps.db, async (tx) => {
    const row = await one(tx.select().from(bookings).where(eq(bookings.id, bookingId)));
    if (!row?.claim || row.claim.key !== key) return;
    await tx.update(bookings).set({ claim: null, claimedAt: null, updatedAt: deps.now() }).where(eq(bookings.id, row.id));
    await cancelJob(tx, jobKeys.recover(row.id, row.claims));
  });
}

/** A refusal the provider gave for sure (the call was read and refused), as opposed to no answer. */
export const refusedForSure = (err: unknown): err is PaymentError => err instanceof PaymentError && err.status < 500;

/**
 * Claim, call, record: one movement of the booking's money. Null when another change claimed
 * the booking first. A refusal rolls the claim back and is thrown; a call that got no answer
 * leaves the claim to the recovery job and tells the person it is being finished.
 */
export async function move(deps: Deps, booking: Booking, from: BookingStatus, intentId: string, plan: Plan): Promise<Booking | null> {
  const claimed = await claim(deps, booking.id, from, intentId, plan);
  if (!claimed?.claim) return null;
  const c = claimed.claim;
  try {
    let ref: CallAnswer;
    try {
      ref = await callProvider(deps, claimed, c);
    } catch (err) {
      if (refusedForSure(err)) {
        await rollBackClaim(deps, claimed.id, c.key);
        throw providerRefusal(err, err.status === 404 ? 404 : 409);
      }
      console.error(`${c.movement} of booking ${claimed.id} got no answer; its recovery finishes it: ${loggable(err)}`);
      // The database itself failing under the call (the test provider keeps its payments there)
      // is the service being unavailable for a moment, not the provider failing: 503.
      const fault = faultOf(err);
      throw new DomainError("booking.paymentUnconfirmed", fault ? 503 : 502, { log: err instanceof Error ? err.message : String(err), ...(fault ? { retryAfterMs: fault.retryAfterS * 1000 } : {}) });
    }
    return await finishClaim(deps, claimed.id, c.key, ref);
  } finally {
    claimsUnderWay.delete(c.key);
  }
}

/**
 * A booking held by a claim this process is not working on: its recovery job finishes it (at the
 * latest once its grace has passed, decision 0028), so the person is told so at once, with when
 * to look again.
 */
export function beingFinished(deps: Deps, b: Pick<Booking, "claim" | "claimedAt">): DomainError {
  const now = deps.now();
  return new DomainError("booking.finishing", 409, { retryAfterMs: Math.max(10_000, recoveryDue(b) - now) });
}

/** One change a person or a job asks of a booking, as `attempt` runs it. */
export interface Change {
  /** The booking already is as this change would leave it: an identical retry gets the same answer. */
  done(b: Booking): boolean;
  /** Throws the refusal when the booking, as it is now, cannot take this change. */
  check(b: Booking): void | Promise<void>;
  /** Makes the change; null when another change got there first. */
  run(b: Booking): Promise<Booking | null>;
}

/**
 * Runs a change against the booking as it is now. When another change of it is under way in this
 * process or wins the race, waits for that one to end (up to `waitMs`), then answers from what it
 * left: the same answer for an identical request sent at the same time (a double click, two tabs,
 * a retry), the current state's refusal otherwise. A request made after the booking changed is
 * refused as usual ("already answered"). A claim no one here is working on (left to its recovery
 * after a lost answer or a crash, or another process's) is not waited for: the answer says at
 * once that the booking is being finished and finishes by itself (`beingFinished`).
 */
export async function attempt(deps: Deps, bookingId: string, change: Change, waitMs = WAIT_FOR_CLAIM_MS): Promise<Booking> {
  const deadline = performance.now() + waitMs;
  let raced = false;
  for (;;) {
    const b = await currentBooking(deps, bookingId);
    if (!b) throw new DomainError("booking.notFound", 404);
    if (raced && !b.claim && change.done(b)) return b;
    if (!b.claim) {
      await change.check(b);
      const out = await change.run(b);
      if (out) return out;
    } else if (!claimsUnderWay.has(b.claim.key)) throw beingFinished(deps, b);
    raced = true;
    if (performance.now() > deadline) throw new DomainError("booking.busy", 409);
    await Bun.sleep(20);
  }
}
