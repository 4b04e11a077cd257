import { one, perDb } from "../../db/client";
import { and, eq, gt, lt, or, sql } from "drizzle-orm";
import type { Db, WriteTx } from "../../db/client";
import { bookings, externalBusy, hostBlocks, type Activity } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../../lib/domain-error";
import type { Slot } from "./times";
import { holdsTime, type Param } from "./holds";
import { groupOf, seatsRefusal, seatsRefused, type SessionKey, type SpotsChoice } from "./sessions";

/** The one condition "a row of `table` (a booking, a blocked time, an outside busy time) covers part of the host's [from, to)". */
const overlapping = (table: typeof bookings | typeof hostBlocks | typeof externalBusy, hostId: Param<string>, from: Param<number>, to: Param<number>) =>
  and(eq(table.hostId, hostId), lt(table.startsAt, to), gt(table.endsAt, from));

/**
 * Everything that keeps a host from being booked from `from` on, over the next `days` days (and
 * a day more, for zones ahead of UTC), for the picker: bookings that hold their time, their days
 * off and blocked times, and their outside calendar's busy times. A group activity's own sessions
 * are among the bookings, with their spots: its screens count them in spots (`heldSessions`).
 */
export async function busyIntervals(deps: Deps, hostId: string, from: number, days: number) {
  const to = from + (days + 2) * 24 * 60 * 60 * 1000;
  const { held, own, outside } = busyStatements(deps.db);
  const asked = { hostId, from, to, now: deps.now() };
  const [bookings, blocks, busy] = await Promise.all([held.execute(asked), own.execute(asked), outside.execute(asked)]);
  return { bookings, blocked: [...blocks, ...busy] };
}

/** A booking holding a host's time, as the booking screens read it. */
export type HeldBooking = Awaited<ReturnType<typeof busyIntervals>>["bookings"][number];

/**
 * `busyIntervals`' reads, prepared once per database: the activity page asks them for each
 * activity opened after any change, and building and preparing the SQL each time was most of it.
 */
/** What the open-times rule reads of a booking holding a host's time (with a group's spots). */
export const heldColumns = {
  startsAt: bookings.startsAt,
  endsAt: bookings.endsAt,
  activityId: bookings.activityId,
  startsAtLocal: bookings.startsAtLocal,
  durationMinutes: bookings.durationMinutes,
  spots: bookings.spots,
  privateGroup: bookings.privateGroup,
  group: bookings.pricePerPersonCents,
};

const busyStatements = perDb((db) => {
  const [hostId, from, to] = [sql.placeholder("hostId"), sql.placeholder("from"), sql.placeholder("to")];
  const covers = (table: typeof bookings | typeof hostBlocks | typeof externalBusy) => overlapping(table, hostId, from, to);
  return {
    held: db
      .select(heldColumns)
      .from(bookings)
      .where(and(covers(bookings), holdsTime(sql.placeholder("now"))))
      .prepare(),
    own: db.select({ startsAt: hostBlocks.startsAt, endsAt: hostBlocks.endsAt }).from(hostBlocks).where(covers(hostBlocks)).prepare(),
    outside: db.select({ startsAt: externalBusy.startsAt, endsAt: externalBusy.endsAt }).from(externalBusy).where(covers(externalBusy)).prepare(),
  };
});

/** The bookings holding `person`'s time over [startsAt, endsAt): as the host, or as either side. */
async function holding(db: WriteTx | Db, person: { hostId: string } | { anySide: string }, startsAt: number, endsAt: number, now: number) {
  const whose = "hostId" in person ? eq(bookings.hostId, person.hostId) : or(eq(bookings.guestId, person.anySide), eq(bookings.hostId, person.anySide));
  return await db
    .select({ id: bookings.id, activityId: bookings.activityId, startsAt: bookings.startsAt, group: bookings.pricePerPersonCents })
    .from(bookings)
    .where(and(whose, lt(bookings.startsAt, endsAt), gt(bookings.endsAt, startsAt), holdsTime(now)));
}

/** Is the host off over any of [startsAt, endsAt): a day off, a blocked time or an outside busy time? */
async function hostBlocked(db: WriteTx | Db, hostId: string, startsAt: number, endsAt: number) {
  const own = await one(db
    .select({ id: hostBlocks.id })
    .from(hostBlocks)
    .where(overlapping(hostBlocks, hostId, startsAt, endsAt))
    .limit(1));
  if (own) return true;
  const outside = await one(db
    .select({ id: externalBusy.id })
    .from(externalBusy)
    .where(overlapping(externalBusy, hostId, startsAt, endsAt))
    .limit(1));
  return outside !== undefined;
}

/**
 * What a booking's own check leaves aside: itself (a late payment of a lapsed hold), and for a
 * group session, the other bookings of that session, which share its time and are counted in spots.
 */
export interface Except {
  bookingId?: string;
  session?: SessionKey;
}

/** Does a booking (other than those `except` leaves aside) hold the host's time over [startsAt, endsAt)? */
const hostBooked = async (db: WriteTx | Db, hostId: string, startsAt: number, endsAt: number, now: number, except: Except = {}) =>
  (await holding(db, { hostId }, startsAt, endsAt, now)).some(
    (r) => r.id !== except.bookingId && !(except.session && r.group !== null && r.activityId === except.session.activityId && r.startsAt === except.session.startsAt),
  );

/**
 * Inside a write transaction: does anything hold the host's time over [startsAt, endsAt)? A
 * booking, or a day off, blocked time or outside busy time.
 */
export async function hostBusy(tx: WriteTx | Db, hostId: string, startsAt: number, endsAt: number, now: number, except?: Except): Promise<boolean> {
  return (await hostBooked(tx, hostId, startsAt, endsAt, now, except)) || (await hostBlocked(tx, hostId, startsAt, endsAt));
}

/**
 * Inside the write transaction that makes a booking: why the host's side of the slot cannot take
 * it. The host busy at that time (another booking, a day off, an outside busy time); for a group
 * session, the session's spots (`seatsRefusal`). `exceptId`: the booking itself, paid late.
 */
export async function slotRefusal(tx: WriteTx | Db, activity: Activity, slot: Pick<Slot, "startsAt" | "endsAt">, choice: SpotsChoice, now: number, exceptId?: string) {
  const group = groupOf(activity);
  const session = group ? { activityId: group.id, startsAt: slot.startsAt } : undefined;
  if (await hostBusy(tx, activity.hostId, slot.startsAt, slot.endsAt, now, { bookingId: exceptId, session })) return { key: "hostBusy" as const };
  if (group) return await seatsRefusal(tx, group, slot.startsAt, choice, now, exceptId);
  return null;
}

/** Inside a write transaction: does the guest already have somewhere to be then, as a guest or as a host? */
export async function guestBusy(tx: WriteTx | Db, guestId: string, startsAt: number, endsAt: number, now: number, exceptId?: string) {
  return (await holding(tx, { anySide: guestId }, startsAt, endsAt, now)).some((r) => r.id !== exceptId);
}

/**
 * Before anything is held: the host's time must be free, and the guest must not already be
 * booked elsewhere then (nobody can be at two activities at once).
 */
export async function checkSlotOpen(deps: Deps, activity: Activity, slot: Slot, guestId: string, choice: SpotsChoice) {
  const now = deps.now();
  const group = groupOf(activity);
  if (await hostBlocked(deps.db, activity.hostId, slot.startsAt, slot.endsAt)) throw new DomainError("booking.hostUnavailable", 409);
  if (await hostBooked(deps.db, activity.hostId, slot.startsAt, slot.endsAt, now, { session: group ? { activityId: group.id, startsAt: slot.startsAt } : undefined })) throw new DomainError("booking.slotTaken", 409);
  if (group) {
    const refusal = await seatsRefusal(deps.db, group, slot.startsAt, choice, now);
    if (refusal) throw seatsRefused(refusal);
  }
  if (await guestBusy(deps.db, guestId, slot.startsAt, slot.endsAt, now)) throw new DomainError("booking.guestBusy", 409);
}

/** How many requests and bookings hold the host's time somewhere in [startsAt, endsAt) (a new block over them). */
export async function heldCount(deps: Deps, hostId: string, startsAt: number, endsAt: number) {
  return (await holding(deps.db, { hostId }, startsAt, endsAt, deps.now())).length;
}
