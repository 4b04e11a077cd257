import { and, eq, inArray, isNotNull, isNull, or } from "drizzle-orm";
import { writeTransaction, type WriteTx, one } from "../../db/client";
import { activities, bookings, users, type Booking, type BookingStatus, type User } from "../../db/schema";
import type { Deps } from "../deps";
import { cancelJob } from "../jobs";
import { DomainError, isDomainError } from "../../lib/domain-error";
import { loggable } from "../../db/faults";
import { announce, attempt, keepShares, ledger, move, systemMessage } from "./claims";
import { expireJob, payoutJob, schedule } from "./jobs";
import { jobKeys } from "./keys";
import { payHost } from "./payouts";
import { AUTO_COMPLETE_MS, bookingFor, currentBooking, type Action, type Role } from "./service";
import { cancellationQuote, type CancellationQuote } from "./policies";
import { sessionCalledOff } from "./sessions";
import { sharesLeft } from "./refund-parts";

/**
 * The booking state machine (ARCHITECTURE decision 7): the changes a person or a job asks of a
 * booking, each checked against the booking as it is now and run through `attempt`. The ones that
 * move money do it through a claim (`move`, `claims.ts`): the host's accept captures; a decline, a
 * withdrawal and an expiry release; a cancellation releases or refunds. Completing writes the
 * host's share, which `payHost` (`payouts.ts`) sends; instant booking's accept is `instant.ts`.
 */

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

export function accept(deps: Deps, bookingId: string, hostId: string, waitMs?: number, instant = false) {
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

/**
 * Cancels an accepted booking. A guest who cancels gets back what the booking's policy gives now
 * (docs/decisions/0050): everything, part (a refund of that amount, the rest kept and shared), or
 * nothing (no money moves: the whole payment is kept and shared). A host's cancellation, and one
 * made because somebody was suspended (`senderId` null), refund everything.
 */
async function cancelAccepted(deps: Deps, b: Booking, by: Role, senderId: string | null) {
  const plan = { movement: "refund" as const, to: "canceled" as const, canceledBy: by, message: "booking_canceled" as const, senderId };
  if (by !== "guest" || !senderId) return move(deps, b, "accepted", intentOf(b), plan);
  const refund = cancellationQuote(b, deps.now()).refundableCents;
  if (refund >= b.totalCents - b.refundedCents || (await calledOff(deps, b))) return move(deps, b, "accepted", intentOf(b), plan);
  const out = refund > 0 ? await move(deps, b, "accepted", intentOf(b), { ...plan, amountCents: refund }) : await cancelKeepingAll(deps, b.id, senderId);
  if (out) await payHost(deps, out.id).catch((err) => console.error(`payout after a cancellation failed; the job retries: ${loggable(err)}`));
  return out;
}

/** A group booking whose session is being called off for want of its minimum (docs/decisions/0049): its guest loses nothing by cancelling. */
async function calledOff(deps: Deps, b: Booking) {
  if (b.pricePerPersonCents === null) return false;
  const activity = await one(deps.db.select().from(activities).where(eq(activities.id, b.activityId)));
  return !!activity && (await sessionCalledOff(deps.db, activity, b, deps.now()));
}

/**
 * Accepted → cancelled by its guest with nothing given back: no money moves, so no claim (like a
 * completion): one compare-and-set writes the status, the kept shares and the payout's job.
 * Null when another change got there first.
 */
async function cancelKeepingAll(deps: Deps, bookingId: string, senderId: string): Promise<Booking | null> {
  const now = deps.now();
  const out = await writeTransaction(deps.db, async (tx) => {
    const b = await one(tx
      .update(bookings)
      .set({ status: "canceled", canceledBy: "guest", updatedAt: now })
      .where(and(eq(bookings.id, bookingId), eq(bookings.status, "accepted"), isNull(bookings.claim)))
      .returning());
    if (!b) return null;
    await keepShares(tx, deps, b);
    await cancelJob(tx, jobKeys.autoComplete(b.id));
    return { b, message: await systemMessage(tx, deps, b.id, "booking_canceled", senderId) };
  });
  if (!out) return null;
  announce(deps, out.b, "accepted", out.message);
  return out.b;
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
    // The shares as they are left after any part given back while accepted (docs/decisions/0051).
    const left = sharesLeft(b);
    await ledger(tx, deps, b, "platform_fee", left.feeCents, null);
    await ledger(tx, deps, b, "payout_pending", left.hostCents, null);
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

/** Throws why `role` cannot cancel `b` now (`senderId` null: nobody did, a suspension), if they cannot. */
function checkCancel(b: Booking, role: Role, senderId: string | null, now: number) {
  if (b.status === "awaiting_payment" && role === "guest") return;
  if (b.status === "pending") {
    if (role !== "guest") throw new DomainError("booking.hostDeclineInstead", 409);
    return;
  }
  if (b.status === "accepted") {
    // Once started, a booking is completed (and reviewed), never cancelled by either side's say-so
    // (docs/decisions/0030, 0050); a problem goes through a report. Before, a guest may cancel
    // and gets back what the booking's policy gives (`cancelAccepted`).
    if (senderId && now >= b.startsAt) throw new DomainError(role === "guest" ? "booking.cancelTooLate" : "booking.cancelAfterStart", 409);
    return;
  }
  throw new DomainError("booking.cannotCancel", 409);
}

/**
 * What comes back if `role` cancels `b` now: a guest's accepted booking by its policy; a pending
 * request's hold, a host's cancellation, everything left.
 */
export function cancelQuote(b: Booking, role: Role, now: number): CancellationQuote {
  const quote = cancellationQuote(b, now);
  if (b.status === "accepted" && role === "guest") return quote;
  return { ...quote, refundableCents: b.totalCents - b.refundedCents, deadline: null };
}

/** What the person would get back (or give back, a host) by cancelling now: refused as the cancellation would be. */
export async function cancellationPreview(deps: Deps, user: User, bookingId: string): Promise<{ booking: Booking; role: Role; quote: CancellationQuote }> {
  const { booking, role } = await bookingFor(deps, user.id, bookingId);
  const now = deps.now();
  checkCancel(booking, role, user.id, now);
  return { booking, role, quote: cancelQuote(booking, role, now) };
}

/**
 * A cancellation by one side, whatever the booking's state allows (spec §4). `expectedRefundCents`:
 * what the guest was shown would come back; refused when it is no longer so (a window closed meanwhile).
 */
function cancel(deps: Deps, bookingId: string, role: Role, senderId: string | null, expectedRefundCents?: number) {
  return attempt(deps, bookingId, {
    done: (b) => b.status === "canceled" && b.canceledBy === role,
    check: (b) => {
      checkCancel(b, role, senderId, deps.now());
      if (expectedRefundCents !== undefined && b.status === "accepted" && cancelQuote(b, role, deps.now()).refundableCents !== expectedRefundCents) {
        throw new DomainError("booking.refundChanged", 409);
      }
    },
    run: async (b) => {
      if (b.status === "awaiting_payment") return endAwaitingPayment(deps, b.id, "canceled", role);
      if (b.status === "pending") return move(deps, b, "pending", intentOf(b), { movement: "release", to: "canceled", canceledBy: "guest", message: "booking_canceled", senderId });
      return cancelAccepted(deps, b, role, senderId);
    },
  });
}

/** The guarded transitions of spec §4 and ARCHITECTURE decision 7, for either side. */
export async function act(deps: Deps, user: User, bookingId: string, action: Action, opts: { expectedRefundCents?: number } = {}): Promise<{ booking: Booking; role: Role }> {
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
      return { booking: await cancel(deps, booking.id, role, user.id, opts.expectedRefundCents), role };
  }
}

/**
 * A group session called off for want of its minimum (docs/decisions/0049, `minimum.ts`): the
 * booking ends as cancelled on the host's side, with its money given back in full whatever its
 * state (an unpaid hold let go, a request's card released, an accepted booking refunded), and its
 * conversation told why. Null when it had already ended.
 */
export async function callOff(deps: Deps, bookingId: string): Promise<Booking | null> {
  const b = await currentBooking(deps, bookingId);
  if (!b || !OPEN.has(b.status)) return null;
  if (b.status === "awaiting_payment") return endAwaitingPayment(deps, b.id, "canceled", "host");
  const plan = { to: "canceled" as const, canceledBy: "host" as const, message: "session_not_running" as const, senderId: null };
  return attempt(
    deps,
    b.id,
    {
      done: (x) => x.status === "canceled",
      check: (x) => {
        if (x.status !== "pending" && x.status !== "accepted") throw new DomainError("booking.cannotCancel", 409);
      },
      run: (x) => move(deps, x, x.status, intentOf(x), { ...plan, movement: x.status === "pending" ? "release" : "refund" }),
    },
    JOB_WAIT_MS,
  );
}

/** The statuses of a booking a suspension ends (those under way once started are left to complete). */
const OPEN = new Set<BookingStatus>(["awaiting_payment", "pending", "accepted"]);

/** Refusals that mean another change already ended what a job or a suspension meant to end. */
export const ENDED = new Set(["booking.notPending", "booking.notAccepted", "booking.cannotCancel", "booking.hostDeclineInstead"]);

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
export const JOB_WAIT_MS = 2_000;

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
