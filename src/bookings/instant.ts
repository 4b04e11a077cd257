import { eq } from "drizzle-orm";
import { writeTransaction, one } from "../../db/client";
import { activities, bookings, type Booking } from "../../db/schema";
import type { Deps } from "../deps";
import { cancelJob, settledWithin } from "../jobs";
import { isDomainError } from "../../lib/domain-error";
import { loggable } from "../../db/faults";
import { jobKeys } from "./keys";
import { currentBooking } from "./service";
import { accept, ENDED, JOB_WAIT_MS } from "./transitions";

/**
 * Instant booking (docs/decisions/0037): a request to an activity that books instantly is
 * accepted by the system on its host's behalf, through the host's own Accept (`accept` in
 * `transitions.ts`, a capture through its claim), right after the commit that made it pending.
 */

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
