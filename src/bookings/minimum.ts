import { and, eq, gt, inArray, isNotNull } from "drizzle-orm";
import { one, type WriteTx } from "../../db/client";
import { activities, bookings, type Activity, type Booking } from "../../db/schema";
import type { Deps } from "../deps";
import { isDomainError } from "../../lib/domain-error";
import { writeTransaction } from "../../db/client";
import { schedule, sessionMinimumJob } from "./jobs";
import { jobKeys } from "./keys";
import { groupOf, minimumDeadline, sessionTaken } from "./sessions";
import { callOff, ENDED } from "./transitions";

/**
 * A group session's minimum to run (docs/decisions/0049): counted by a durable job at its
 * deadline (`minToRunHours` before the start). Short of it, the session is called off: every
 * booking of it is released or refunded in full (`callOff`), each through its own claim, and each
 * conversation is told why. The job runs again until none is left open, so a crash or a provider
 * that does not answer leaves nothing half done, and a booking released once is never released
 * again (its claim and its state say so).
 */

/** Inside the transaction that makes a group booking: its session's count is due at the deadline (once per session). */
export async function scheduleMinimum(tx: WriteTx, activity: Activity, booking: Pick<Booking, "startsAt" | "pricePerPersonCents">) {
  const group = groupOf(activity);
  if (!group || booking.pricePerPersonCents === null) return;
  const deadline = minimumDeadline(group, booking.startsAt);
  if (deadline === null) return;
  await schedule(tx, sessionMinimumJob, { activityId: group.id, startsAt: booking.startsAt }, { at: deadline, key: jobKeys.sessionMinimum(group.id, booking.startsAt, deadline) });
}

/**
 * After a change of the activity: its upcoming sessions with spots held are counted at their
 * (possibly new) deadline. A minimum added or moved later gets its job; one moved earlier runs
 * at once if due; the job of a removed minimum finds nothing to count.
 */
export async function scheduleMinimums(deps: Deps, activity: Activity) {
  const group = groupOf(activity);
  if (!group || !group.minToRun) return;
  const now = deps.now();
  const sessions = await deps.db
    .selectDistinct({ startsAt: bookings.startsAt })
    .from(bookings)
    .where(and(eq(bookings.activityId, group.id), gt(bookings.startsAt, now), isNotNull(bookings.pricePerPersonCents), inArray(bookings.status, [...OPEN_STATES])));
  if (!sessions.length) return;
  await writeTransaction(deps.db, async (tx) => {
    for (const s of sessions) await scheduleMinimum(tx, group, { startsAt: s.startsAt, pricePerPersonCents: group.pricePerPersonCents });
  });
}

const OPEN_STATES = ["awaiting_payment", "pending", "accepted"] as const;

/** The job: the session's minimum counted now; short of it, every open booking of it called off. */
export async function checkMinimum(deps: Deps, session: { activityId: string; startsAt: number }) {
  const activity = await one(deps.db.select().from(activities).where(eq(activities.id, session.activityId)));
  const group = activity ? groupOf(activity) : null;
  const deadline = group ? minimumDeadline(group, session.startsAt) : null;
  // The host removed the minimum, or the activity is no group any more: nothing to count.
  if (!group || deadline === null) return;
  const now = deps.now();
  // The host moved the deadline later: counted then, by the job of that deadline.
  if (now < deadline) {
    await writeTransaction(deps.db, (tx) => schedule(tx, sessionMinimumJob, session, { at: deadline, key: jobKeys.sessionMinimum(group.id, session.startsAt, deadline) }));
    return;
  }
  const { taken } = await sessionTaken(deps.db, session, group.capacity, now);
  if (taken >= group.minToRun!) return;
  const open = await deps.db
    .select({ id: bookings.id })
    .from(bookings)
    .where(and(eq(bookings.activityId, group.id), eq(bookings.startsAt, session.startsAt), isNotNull(bookings.pricePerPersonCents), inArray(bookings.status, [...OPEN_STATES])));
  let failure: unknown = null;
  for (const b of open) {
    try {
      await callOff(deps, b.id);
    } catch (err) {
      // Another change ended it first (the guest withdrew, the request expired): nothing left to do.
      if (isDomainError(err) && ENDED.has(err.key)) continue;
      failure ??= err;
    }
  }
  if (failure) throw failure;
  const left = await one(deps.db
    .select({ id: bookings.id, status: bookings.status })
    .from(bookings)
    .where(and(eq(bookings.activityId, group.id), eq(bookings.startsAt, session.startsAt), isNotNull(bookings.pricePerPersonCents), inArray(bookings.status, [...OPEN_STATES])))
    .limit(1));
  if (left) throw new Error(`session ${group.id} at ${session.startsAt} was called off but booking ${left.id} is still ${left.status}; the job looks again`);
}
