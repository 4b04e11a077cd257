import { one, perDb } from "../../db/client";
import { and, eq, gt, inArray, lt, or, sql, type Placeholder } from "drizzle-orm";
import type { Db, WriteTx } from "../../db/client";
import { bookings, externalBusy, hostBlocks, type Activity } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../../lib/domain-error";
import type { Slot } from "./times";

/**
 * What holds a person's time (ARCHITECTURE decision 8): pending and accepted bookings, and an
 * awaiting-payment booking while its hold lasts. One host is never booked twice at once, and
 * nobody is at two activities at once, as a guest or as a host.
 */
export const HOLDING = ["pending", "accepted"] as const;

/** A value of a condition below: given now, or a placeholder of a statement prepared once. */
type Param<T> = T | Placeholder;

/** The one condition "a row of `table` (a booking, a blocked time, an outside busy time) covers part of the host's [from, to)". */
const overlapping = (table: typeof bookings | typeof hostBlocks | typeof externalBusy, hostId: Param<string>, from: Param<number>, to: Param<number>) =>
  and(eq(table.hostId, hostId), lt(table.startsAt, to), gt(table.endsAt, from));

/** The one condition "this booking holds its time at `now`", for every query below. */
const holdsTime = (now: Param<number>) => or(inArray(bookings.status, [...HOLDING]), and(eq(bookings.status, "awaiting_payment"), gt(bookings.holdUntil, now)));

/**
 * Everything that keeps a host from being booked from `from` on, over the next `days` days (and
 * a day more, for zones ahead of UTC), for the picker: bookings that hold their time, their days
 * off and blocked times, and their outside calendar's busy times.
 */
export async function busyIntervals(deps: Deps, hostId: string, from: number, days: number) {
  const to = from + (days + 2) * 24 * 60 * 60 * 1000;
  const { held, own, outside } = busyStatements(deps.db);
  const asked = { hostId, from, to, now: deps.now() };
  return [...(await held.execute(asked)), ...(await own.execute(asked)), ...(await outside.execute(asked))];
}

/**
 * `busyIntervals`' reads, prepared once per database: the activity page asks them for each
 * activity opened after any change, and building and preparing the SQL each time was most of it.
 */
const busyStatements = perDb((db) => {
  const [hostId, from, to] = [sql.placeholder("hostId"), sql.placeholder("from"), sql.placeholder("to")];
  const covers = (table: typeof bookings | typeof hostBlocks | typeof externalBusy) => overlapping(table, hostId, from, to);
  return {
    held: db
      .select({ startsAt: bookings.startsAt, endsAt: bookings.endsAt })
      .from(bookings)
      .where(and(covers(bookings), holdsTime(sql.placeholder("now"))))
      .prepare(),
    own: db.select({ startsAt: hostBlocks.startsAt, endsAt: hostBlocks.endsAt }).from(hostBlocks).where(covers(hostBlocks)).prepare(),
    outside: db.select({ startsAt: externalBusy.startsAt, endsAt: externalBusy.endsAt }).from(externalBusy).where(covers(externalBusy)).prepare(),
  };
});

/** The ids of bookings holding `person`'s time over [startsAt, endsAt): as the host, or as either side. */
async function holding(db: WriteTx | Db, person: { hostId: string } | { anySide: string }, startsAt: number, endsAt: number, now: number) {
  const whose = "hostId" in person ? eq(bookings.hostId, person.hostId) : or(eq(bookings.guestId, person.anySide), eq(bookings.hostId, person.anySide));
  return await db
    .select({ id: bookings.id })
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

/** Does a booking (other than `exceptId`) hold the host's time over [startsAt, endsAt)? */
const hostBooked = async (db: WriteTx | Db, hostId: string, startsAt: number, endsAt: number, now: number, exceptId?: string) =>
  (await holding(db, { hostId }, startsAt, endsAt, now)).some((r) => r.id !== exceptId);

/**
 * Inside a write transaction: does anything hold the host's time over [startsAt, endsAt)? A
 * booking, or a day off, blocked time or outside busy time.
 */
export async function hostBusy(tx: WriteTx | Db, hostId: string, startsAt: number, endsAt: number, now: number, exceptId?: string): Promise<boolean> {
  return (await hostBooked(tx, hostId, startsAt, endsAt, now, exceptId)) || (await hostBlocked(tx, hostId, startsAt, endsAt));
}

/** Inside a write transaction: does the guest already have somewhere to be then, as a guest or as a host? */
export async function guestBusy(tx: WriteTx | Db, guestId: string, startsAt: number, endsAt: number, now: number, exceptId?: string) {
  return (await holding(tx, { anySide: guestId }, startsAt, endsAt, now)).some((r) => r.id !== exceptId);
}

/**
 * Before anything is held: the host's time must be free, and the guest must not already be
 * booked elsewhere then (nobody can be at two activities at once).
 */
export async function checkSlotOpen(deps: Deps, activity: Activity, slot: Slot, guestId: string) {
  if (await hostBlocked(deps.db, activity.hostId, slot.startsAt, slot.endsAt)) throw new DomainError("booking.hostUnavailable", 409);
  if (await hostBooked(deps.db, activity.hostId, slot.startsAt, slot.endsAt, deps.now())) throw new DomainError("booking.slotTaken", 409);
  if (await guestBusy(deps.db, guestId, slot.startsAt, slot.endsAt, deps.now())) throw new DomainError("booking.guestBusy", 409);
}

/** How many requests and bookings hold the host's time somewhere in [startsAt, endsAt) (a new block over them). */
export async function heldCount(deps: Deps, hostId: string, startsAt: number, endsAt: number) {
  return (await holding(deps.db, { hostId }, startsAt, endsAt, deps.now())).length;
}
