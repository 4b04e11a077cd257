import { and, eq, inArray, isNotNull, isNull, or } from "drizzle-orm";
import { writeTransaction, type WriteTx, one, written } from "../../db/client";
import { nextMessageSeq } from "../conversations/order";
import { activities, bookings, ledgerEntries, messages, users, type Booking, type BookingClaim, type BookingStatus, type LedgerKind, type User } from "../../db/schema";
import type { Deps } from "../deps";
import type { MessageRow } from "../events";
import { cancelJob, settledWithin } from "../jobs";
import { DomainError, isDomainError } from "../lib/domain-error";
import { faultOf, loggable } from "../lib/faults";
import { PaymentError } from "../payments/provider";
import { autoCompleteJob, expireJob, payoutJob, recoverJob, schedule } from "./jobs";
import { bookingCallKeys, jobKeys, ledgerKey, movementKey } from "./keys";
import { AUTO_COMPLETE_MS, bookingFor, providerRefusal, currentBooking, GUEST_CANCEL_NOTICE_MS, type Action, type Role, type SystemMessageType } from "./service";

/**
 * The booking state machine (ARCHITECTURE decision 7) and the way its money moves
 * (docs/decisions/0028): claim, call, record, recover.
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

export async function ledger(tx: WriteTx, deps: Deps, booking: Pick<Booking, "id" | "currency">, kind: LedgerKind, amountCents: number, providerRef: string | null) {
  await tx.insert(ledgerEntries)
    .values({
      id: crypto.randomUUID(),
      bookingId: booking.id,
      kind,
      amountCents,
      currency: booking.currency,
      provider: deps.payments.name,
      providerRef,
      idempotencyKey: ledgerKey(booking.id, kind),
      createdAt: deps.now(),
    })
    .onConflictDoNothing({ target: ledgerEntries.idempotencyKey });
}

export async function systemMessage(tx: WriteTx, deps: Deps, bookingId: string, type: SystemMessageType, senderId: string | null): Promise<MessageRow> {
  return await written(tx
    .insert(messages)
    .values({ id: crypto.randomUUID(), bookingId, senderId, content: type, isSystemMessage: true, systemMessageType: type, readBy: senderId ? [senderId] : [], createdAt: deps.now(), seq: nextMessageSeq(bookingId) })
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

/** The host's share of a completed booking is owed and not yet sent, by its ledger. */
export async function shareOwed(db: WriteTx | Deps["db"], bookingId: string) {
  const kinds = new Set((await db.select({ kind: ledgerEntries.kind }).from(ledgerEntries).where(eq(ledgerEntries.bookingId, bookingId))).map((r) => r.kind));
  return kinds.has("payout_pending") && !kinds.has("transfer");
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
    // before either claimed (the completion's own and its job) send it once.
    if (plan.movement === "transfer" && !(await shareOwed(tx, row.id))) return null;
    const attempt = row.claims + 1;
    const claimed: BookingClaim = { ...plan, from, intentId, key: movementKey(row.id, plan.movement, attempt) };
    underWay(claimed.key);
    const updated = await one(tx.update(bookings).set({ claim: claimed, claimedAt: now, claims: attempt, updatedAt: now }).where(eq(bookings.id, row.id)).returning());
    await schedule(tx, recoverJob, { bookingId: row.id }, { at: now + RECOVERY_GRACE_MS, key: jobKeys.recover(row.id, attempt) });
    return updated ?? null;
  });
}

/** Step 2: the provider call of a claim; answers the provider's reference for the ledger. */
export async function callProvider(deps: Deps, booking: Booking, c: BookingClaim): Promise<string> {
  switch (c.movement) {
    case "capture":
      return (await deps.payments.capture(c.intentId, c.key)).id;
    case "release":
      return (await deps.payments.release(c.intentId, c.key)).id;
    case "refund":
      return (await deps.payments.refund(c.intentId, null, c.key)).id;
    case "transfer": {
      const host = await one(deps.db.select({ accountId: users.stripeAccountId }).from(users).where(eq(users.id, booking.hostId)));
      if (!host?.accountId) throw new PaymentError("The host has no payout account.", "invalid_request", 409);
      const transfer = await deps.payments.transfer(
        { amountCents: booking.hostEarningsCents, currency: booking.currency, destinationAccountId: host.accountId, sourceIntentId: c.intentId, transferGroup: bookingCallKeys.transferGroup(booking.id) },
        c.key,
      );
      return transfer.id;
    }
    case "authorize":
      // The guest's card is confirmed by the guest (the card form, Stripe.js), never by us again:
      // its claim is settled from what the provider shows (`recoverPayment`).
      throw new Error(`booking ${booking.id}: an authorisation is not made again by its recovery`);
  }
}

/**
 * Step 3: the provider's answer to claim `key`, recorded in one transaction with everything that
 * goes with the new status; null when the claim is no longer the booking's (recorded already).
 */
function record(deps: Deps, bookingId: string, key: string, providerRef: string) {
  const now = deps.now();
  return writeTransaction(deps.db, async (tx) => {
    const row = await one(tx.select().from(bookings).where(eq(bookings.id, bookingId)));
    const c = row?.claim;
    if (!row || !c || c.key !== key) return null;
    const change: Partial<typeof bookings.$inferInsert> = { status: c.to, claim: null, claimedAt: null, updatedAt: now };
    if (c.to === "accepted" || c.to === "rejected") change.respondedAt = now;
    if (c.to === "canceled") change.canceledBy = c.canceledBy;
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
        await ledger(tx, deps, b, "refund", b.totalCents, providerRef);
        await cancelJob(tx, jobKeys.autoComplete(b.id));
        break;
      case "transfer":
        await ledger(tx, deps, b, "transfer", b.hostEarningsCents, providerRef);
        break;
    }
    await cancelJob(tx, jobKeys.recover(b.id, b.claims));
    const message = c.message ? await systemMessage(tx, deps, b.id, c.message, c.senderId) : null;
    return { booking: b, claim: c, message };
  });
}

/** Records claim `key`'s answer and tells whoever listens; answers the booking as it is then. */
export async function finishClaim(deps: Deps, bookingId: string, key: string, providerRef: string): Promise<Booking> {
  const out = await record(deps, bookingId, key, providerRef);
  if (!out) return (await currentBooking(deps, bookingId))!;
  if (out.claim.movement === "transfer") deps.events.emit({ type: "payout.sent", booking: out.booking, amountCents: out.booking.hostEarningsCents });
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
    let ref: string;
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
interface Change {
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
async function attempt(deps: Deps, bookingId: string, change: Change, waitMs = WAIT_FOR_CLAIM_MS): Promise<Booking> {
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

// ---------------------------------------------------------------------------------------------
// The changes.

const intentOf = (b: Booking) => {
  if (!b.paymentIntentId) throw new DomainError("booking.paymentNotFound", 409);
  return b.paymentIntentId;
};

/**
 * The side of a booking whose person is suspended (docs/decisions/0024), the guest first, or null.
 * Such a booking's money is only ever released: no card of it is authorised into a request nor
 * captured, whoever asks (the host, the instant accept, the provider's news, a recovery).
 */
export async function suspendedSide(db: WriteTx | Deps["db"], b: Pick<Booking, "guestId" | "hostId">): Promise<Role | null> {
  const suspended = new Set((await db.select({ id: users.id }).from(users).where(and(inArray(users.id, [b.guestId, b.hostId]), isNotNull(users.suspendedAt)))).map((u) => u.id));
  return suspended.has(b.guestId) ? "guest" : suspended.has(b.hostId) ? "host" : null;
}

function accept(deps: Deps, bookingId: string, hostId: string, waitMs?: number, instant = false) {
  return attempt(
    deps,
    bookingId,
    {
    done: (b) => b.status === "accepted",
    check: async (b) => {
      if (b.status !== "pending") throw new DomainError("booking.notPending", 409);
      // Its answer was due (24 hours on, or its start if sooner): it is the expiry's to release,
      // however late its job runs; the card is never captured after that.
      if (deps.now() >= b.respondBy) throw new DomainError("booking.notPending", 409);
      // A suspended guest's card is never captured, nor a suspended host paid: the request ends
      // here, released, as the suspension ends it, whether or not its release has run yet.
      const suspended = await suspendedSide(deps.db, b);
      if (suspended) {
        await endPending(deps, b.id, suspended === "host" ? "rejected" : "canceled", null, JOB_WAIT_MS);
        throw new DomainError("booking.notPending", 409);
      }
      // A deleted (archived) or taken-down activity takes no more bookings: its requests are declined or expire.
      const activity = await one(deps.db.select({ archivedAt: activities.archivedAt, hiddenAt: activities.hiddenAt }).from(activities).where(eq(activities.id, b.activityId)));
      if (!activity || activity.archivedAt !== null || activity.hiddenAt !== null) throw new DomainError("booking.activityUnavailable", 409);
    },
    run: (b) => move(deps, b, "pending", intentOf(b), { movement: "capture", to: "accepted", canceledBy: null, message: "booking_accepted", senderId: hostId, ...(instant ? { instant: true as const } : {}) }),
    },
    waitMs,
  );
}

/** Releases a pending request's authorisation and ends it as `to` (declined, withdrawn, expired). */
function endPending(deps: Deps, bookingId: string, to: "rejected" | "canceled" | "expired", senderId: string | null, waitMs?: number) {
  const message = to === "rejected" ? "booking_declined" : to === "canceled" ? "booking_canceled" : "booking_expired";
  const canceledBy = to === "canceled" ? "guest" : null;
  return attempt(
    deps,
    bookingId,
    {
      done: (b) => b.status === to && b.canceledBy === canceledBy,
      check: (b) => {
        if (b.status !== "pending") throw new DomainError("booking.notPending", 409);
      },
      run: (b) => move(deps, b, "pending", intentOf(b), { movement: "release", to, canceledBy, message, senderId }),
    },
    waitMs,
  );
}

/** Cancels an accepted booking with a full refund; `senderId` null when no person did (a suspension). */
function cancelAccepted(deps: Deps, b: Booking, by: Role, senderId: string | null) {
  return move(deps, b, "accepted", intentOf(b), { movement: "refund", to: "canceled", canceledBy: by, message: "booking_canceled", senderId });
}

/**
 * Ends an awaiting-payment booking as `to`: its payment, if any, is released and its hold let go.
 * Null when it no longer awaits payment, or another change claimed it first.
 */
export async function endAwaitingPayment(deps: Deps, bookingId: string, to: "expired" | "canceled", by: Role | null): Promise<Booking | null> {
  for (let tries = 0; tries < 3; tries++) {
    const b = await currentBooking(deps, bookingId);
    if (!b || b.status !== "awaiting_payment" || b.claim) return null;
    if (b.paymentIntentId) return move(deps, b, "awaiting_payment", b.paymentIntentId, { movement: "release", to, canceledBy: by, message: null, senderId: null });
    const now = deps.now();
    // No payment to release, as long as none was attached meanwhile (then: read again, release it).
    const changed = await writeTransaction(deps.db, async (tx) => {
      const row = await one(tx
        .update(bookings)
        .set({ status: to, canceledBy: by, updatedAt: now })
        .where(and(eq(bookings.id, b.id), eq(bookings.status, "awaiting_payment"), isNull(bookings.claim), isNull(bookings.paymentIntentId)))
        .returning());
      if (row) await cancelJob(tx, jobKeys.hold(row.id));
      return row;
    });
    if (changed) {
      announce(deps, changed, "awaiting_payment");
      return changed;
    }
  }
  return null;
}

/** Accepted → completed in one transaction (no money moves yet); null when another change got there first. */
async function completeNow(deps: Deps, bookingId: string, by: string | null): Promise<Booking | null> {
  const now = deps.now();
  const out = await writeTransaction(deps.db, async (tx) => {
    const b = await one(tx
      .update(bookings)
      .set({ status: "completed", completedAt: now, updatedAt: now })
      .where(and(eq(bookings.id, bookingId), eq(bookings.status, "accepted"), isNull(bookings.claim)))
      .returning());
    if (!b) return null;
    await ledger(tx, deps, b, "platform_fee", b.totalCents - b.hostEarningsCents, null);
    await ledger(tx, deps, b, "payout_pending", b.hostEarningsCents, null);
    await cancelJob(tx, jobKeys.autoComplete(b.id));
    await schedule(tx, payoutJob, { bookingId: b.id }, { at: now, key: jobKeys.payout(b.id) });
    return { b, message: await systemMessage(tx, deps, b.id, "booking_completed", by) };
  });
  if (!out) return null;
  announce(deps, out.b, "accepted", out.message);
  return out.b;
}

/**
 * Accepted → completed: the platform's part and the host's share are written to the ledger; the
 * share is sent to the host's payout account by a job (at once when they have one).
 */
export async function completeBooking(deps: Deps, bookingId: string, by: string | null, waitMs?: number): Promise<Booking> {
  const b = await attempt(
    deps,
    bookingId,
    {
      done: (b) => b.status === "completed",
      check: (b) => {
        if (b.status !== "accepted") throw new DomainError("booking.notAccepted", 409);
        if (by && deps.now() < b.startsAt) throw new DomainError("booking.completeTooEarly", 409);
      },
      run: async (b) => completeNow(deps, b.id, by),
    },
    waitMs,
  );
  await payHost(deps, b.id).catch((err) => console.error(`payout after completion failed; the job retries: ${loggable(err)}`));
  return b;
}

/**
 * Sends a completed booking's host share (ARCHITECTURE decision 5) to the host's payout account,
 * when they have one that can receive it, through the same claim as every other movement;
 * otherwise it stays a pending payout (the sweep and `account.updated` retry).
 */
export async function payHost(deps: Deps, bookingId: string): Promise<"sent" | "waiting" | "nothing"> {
  const b = await currentBooking(deps, bookingId);
  if (!b || b.status !== "completed" || !b.paymentIntentId || b.claim || !(await shareOwed(deps.db, b.id))) return "nothing";
  const host = await one(deps.db.select({ accountId: users.stripeAccountId }).from(users).where(eq(users.id, b.hostId)));
  if (!host?.accountId) return "waiting";
  const account = await deps.payments.getConnectedAccount(host.accountId);
  if (!account?.payoutsEnabled) return "waiting";
  const sent = await move(deps, b, "completed", b.paymentIntentId, { movement: "transfer", to: "completed", canceledBy: null, message: null, senderId: null });
  // Null: another payout of this booking claimed it first, or sent it already.
  return sent ? "sent" : "nothing";
}

/** A cancellation by one side, whatever the booking's state allows (spec §4). */
function cancel(deps: Deps, bookingId: string, role: Role, senderId: string | null) {
  return attempt(deps, bookingId, {
    done: (b) => b.status === "canceled" && b.canceledBy === role,
    check: (b) => {
      if (b.status === "awaiting_payment" && role === "guest") return;
      if (b.status === "pending") {
        if (role !== "guest") throw new DomainError("booking.hostDeclineInstead", 409);
        return;
      }
      if (b.status === "accepted") {
        if (role === "guest" && senderId && b.startsAt - deps.now() < GUEST_CANCEL_NOTICE_MS) throw new DomainError("booking.cancelTooLate", 409);
        // Once started, a booking is completed (and reviewed), never refunded by its host's say-so
        // (docs/decisions/0030); a problem goes through a report.
        if (role === "host" && senderId && deps.now() >= b.startsAt) throw new DomainError("booking.cancelAfterStart", 409);
        return;
      }
      throw new DomainError("booking.cannotCancel", 409);
    },
    run: async (b) => {
      if (b.status === "awaiting_payment") return endAwaitingPayment(deps, b.id, "canceled", role);
      if (b.status === "pending") return move(deps, b, "pending", intentOf(b), { movement: "release", to: "canceled", canceledBy: "guest", message: "booking_canceled", senderId });
      return cancelAccepted(deps, b, role, senderId);
    },
  });
}

/** The guarded transitions of spec §4 and ARCHITECTURE decision 7, for either side. */
export async function act(deps: Deps, user: User, bookingId: unknown, action: Action): Promise<{ booking: Booking; role: Role }> {
  const { booking, role } = await bookingFor(deps, user.id, bookingId);
  const hostOnly = () => {
    if (role !== "host") throw new DomainError("booking.hostOnly", 403);
  };
  switch (action) {
    case "accept":
      hostOnly();
      return { booking: await accept(deps, booking.id, user.id), role };
    case "reject":
      hostOnly();
      return { booking: await endPending(deps, booking.id, "rejected", user.id), role };
    case "complete":
      hostOnly();
      return { booking: await completeBooking(deps, booking.id, user.id), role };
    case "cancel":
      return { booking: await cancel(deps, booking.id, role, user.id), role };
  }
}

/** The statuses of a booking a suspension ends (those under way once started are left to complete). */
const OPEN = new Set<BookingStatus>(["awaiting_payment", "pending", "accepted"]);

/** Refusals that mean another change already ended what a job or a suspension meant to end. */
const ENDED = new Set(["booking.notPending", "booking.notAccepted", "booking.cannotCancel", "booking.hostDeclineInstead"]);

/**
 * A suspended person's open bookings end through the usual transitions (docs/decisions/0024),
 * with no person as the sender of their system messages: requests to their activities are
 * declined and requests they sent withdrawn (the authorisation released either way), bookings
 * awaiting payment are cancelled (released), and accepted bookings that have not started are
 * cancelled with a full refund, whichever side was suspended. Bookings already under way are
 * left to be completed as usual. Each step claims the booking, so running this again (a retry
 * after a provider failure) only does what is left; the first failure is thrown once the rest ran.
 */
export async function endBookingsOfSuspended(deps: Deps, userId: string): Promise<number> {
  const open = await deps.db
    .select()
    .from(bookings)
    .where(and(or(eq(bookings.guestId, userId), eq(bookings.hostId, userId)), inArray(bookings.status, [...OPEN])));
  let ended = 0;
  let failure: unknown = null;
  for (const b of open) {
    const side: Role = b.guestId === userId ? "guest" : "host";
    try {
      if (b.status === "pending") await endPending(deps, b.id, side === "host" ? "rejected" : "canceled", null);
      else if (b.status === "awaiting_payment") {
        if (!(await endAwaitingPayment(deps, b.id, "canceled", side))) {
          // Not ended: its payment is claimed at checkout (its record or recovery may yet make it
          // a request), a release of it is under way, or it changed meanwhile. Looked at again
          // (the job is retried) until it has ended.
          const left = await currentBooking(deps, b.id);
          if (left && OPEN.has(left.status)) throw new Error(`booking ${b.id} of suspended ${userId} is still ${left.status}${left.claim ? ` (its ${left.claim.movement} is under way)` : ""}; its release looks again`);
          continue;
        }
      }
      else if (b.startsAt > deps.now()) await cancel(deps, b.id, side, null);
      else continue;
      ended++;
    } catch (err) {
      // Another change won the race (the guest withdrew, a job expired it): nothing left to do.
      if (isDomainError(err) && ENDED.has(err.key)) continue;
      failure ??= err;
    }
  }
  if (failure) throw failure;
  return ended;
}

/** A job's wait for another change of the booking: short, since the job is retried anyway. */
const JOB_WAIT_MS = 2_000;

/** A pending request nobody answered in time: released (job). */
export async function expireRequest(deps: Deps, bookingId: string) {
  const b = await currentBooking(deps, bookingId);
  if (!b || b.status !== "pending") return;
  if (deps.now() < b.respondBy) {
    await writeTransaction(deps.db, (tx) => schedule(tx, expireJob, { bookingId }, { at: b.respondBy, key: jobKeys.expireLater(b.id) }));
    return;
  }
  try {
    await endPending(deps, b.id, "expired", null, JOB_WAIT_MS);
  } catch (err) {
    if (!(isDomainError(err) && ENDED.has(err.key))) throw err;
  }
}

/** An accepted booking nobody marked complete, 48 hours after its end (job). */
export async function autoComplete(deps: Deps, bookingId: string) {
  const b = await currentBooking(deps, bookingId);
  if (!b || b.status !== "accepted") return;
  if (deps.now() < b.endsAt + AUTO_COMPLETE_MS) return;
  try {
    await completeBooking(deps, b.id, null, JOB_WAIT_MS);
  } catch (err) {
    if (!(isDomainError(err) && ENDED.has(err.key))) throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Instant booking (docs/decisions/0037).

/**
 * How long a guest's answer waits for the instant accept of the request it just made. The accept
 * runs right after the commit that made the request pending, as the job the same transaction
 * scheduled (`instantAcceptJob`, run through the runner so it is leased and never runs twice at
 * once). When it ends within this time (the test provider, Stripe answering as usual) the guest
 * is told "Booked"; a slow or unanswered provider does not hold the answer up any longer: the
 * guest is told the request was sent, the accept goes on in the background, and the job (retried)
 * and the capture's recovery job finish it.
 */
export const INSTANT_ANSWER_MS = 3_000;

/** How long an instant request may stay unaccepted before the host is asked to answer it (`instantUnansweredJob`). */
export const INSTANT_UNANSWERED_MS = 10 * 60 * 1000;

/** When the host of an instant request not yet accepted is asked to answer it: ten minutes on, or a minute before its answer is due if sooner. */
export const instantUnansweredAt = (booking: Pick<Booking, "respondBy">, now: number) => Math.max(now, Math.min(now + INSTANT_UNANSWERED_MS, booking.respondBy - 60_000));

/**
 * The instant accept's safety net: a request still pending, with no money movement under way, is
 * the host's to answer from now on. The instant accept stops (its waiting retry is cancelled) and
 * the host is told it as a request. A movement under way (a capture whose answer was lost, a
 * decline) is left to finish: this throws, and the job looks again later.
 */
export async function tellHostIfUnanswered(deps: Deps, bookingId: string) {
  const b = await writeTransaction(deps.db, async (tx) => {
    const row = await one(tx.select().from(bookings).where(eq(bookings.id, bookingId)));
    if (row?.status !== "pending") return null;
    if (row.claim) throw new Error(`booking ${bookingId}: a ${row.claim.movement} is under way; the host is asked once it is settled`);
    await cancelJob(tx, jobKeys.instantAccept(row.id));
    return row;
  });
  if (b) deps.events.emit({ type: "booking.awaitingHost", booking: b });
}

/** Refusals that leave an instant accept nothing to do: the booking moved on, or its activity takes no more bookings. */
const NOT_TO_ACCEPT = new Set([...ENDED, "booking.notFound", "booking.activityUnavailable", "booking.paymentUnconfirmed"]);

/**
 * The instant accept of a request (job `booking:{id}:instant-accept`): the host's own Accept, made
 * by the system on the host's behalf (the system message names the host as the one who accepted,
 * as a host's Accept does), so it goes through the same claim, capture with the claim's key,
 * record and recovery. Does nothing when the booking is no longer pending (the host declined or
 * the guest withdrew first: exactly one of them claims it) or its activity was taken down. A
 * capture already claimed (this accept's own, whose answer was lost, or the host's) is left to its
 * claim's recovery job, which records it or rolls it back (then the host answers as usual). A
 * refusal, or a booking busy with another change, is thrown: the job is retried.
 */
export async function acceptInstantly(deps: Deps, bookingId: string): Promise<void> {
  const b = await currentBooking(deps, bookingId);
  if (!b || b.status !== "pending" || b.claim?.movement === "capture") return;
  try {
    await accept(deps, b.id, b.hostId, JOB_WAIT_MS, true);
  } catch (err) {
    if (!isDomainError(err) || !NOT_TO_ACCEPT.has(err.key)) throw err;
  }
}

/**
 * Runs the instant accept the commit just scheduled, now, and waits for it up to `waitMs` (0: not
 * at all, for flows nobody waits on, such as the provider's webhooks); answers the booking as it
 * is then: accepted, or still pending while the accept goes on (or is left to its job). When
 * someone else runs the accept already (the provider's news of the payment got there first),
 * the wait is for the booking to be answered.
 */
export async function acceptInstantlyNow(deps: Deps, bookingId: string, waitMs: number): Promise<Booking | undefined> {
  const deadline = performance.now() + waitMs;
  const run = deps.jobs.runNow([jobKeys.instantAccept(bookingId)]).catch((err) => console.error(`the instant accept of booking ${bookingId} failed; its job retries: ${loggable(err)}`));
  if (waitMs > 0) await settledWithin(run, waitMs);
  let booking = await currentBooking(deps, bookingId);
  const instant = booking?.status === "pending" && (await one(deps.db.select({ on: activities.instantBooking }).from(activities).where(eq(activities.id, booking.activityId))))?.on;
  while (instant && booking?.status === "pending" && performance.now() < deadline) {
    await Bun.sleep(WAIT_FOR_ANSWER_POLL_MS);
    booking = await currentBooking(deps, bookingId);
  }
  return booking;
}

/** How often a guest's answer looks again for an instant accept that another caller runs. */
const WAIT_FOR_ANSWER_POLL_MS = 20;
