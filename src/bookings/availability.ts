import { and, eq, gt, inArray, lt, or } from "drizzle-orm";
import type { Db, WriteTx } from "../../db/client";
import { bookings, type Activity } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../lib/errors";
import type { Slot } from "./times";

/**
 * What holds a person's time (ARCHITECTURE decision 8): pending and accepted bookings, and an
 * awaiting-payment booking while its hold lasts. One host is never booked twice at once, and
 * nobody is at two activities at once, as a guest or as a host.
 */
export const HOLDING = ["pending", "accepted"] as const;

/** The one condition "this booking holds its time at `now`", for every query below. */
const holdsTime = (now: number) => or(inArray(bookings.status, [...HOLDING]), and(eq(bookings.status, "awaiting_payment"), gt(bookings.holdUntil, now)));

/** Bookings that hold a host's time from `from` on (for the picker and the overlap check). */
export function busyIntervals(deps: Deps, hostId: string, from: number) {
  return deps.db
    .select({ startsAt: bookings.startsAt, endsAt: bookings.endsAt })
    .from(bookings)
    .where(and(eq(bookings.hostId, hostId), gt(bookings.endsAt, from), holdsTime(deps.now())))
    .all();
}

/** The ids of bookings holding `person`'s time over [startsAt, endsAt): as the host, or as either side. */
function holding(db: WriteTx | Db, person: { hostId: string } | { anySide: string }, startsAt: number, endsAt: number, now: number) {
  const whose = "hostId" in person ? eq(bookings.hostId, person.hostId) : or(eq(bookings.guestId, person.anySide), eq(bookings.hostId, person.anySide));
  return db
    .select({ id: bookings.id })
    .from(bookings)
    .where(and(whose, lt(bookings.startsAt, endsAt), gt(bookings.endsAt, startsAt), holdsTime(now)))
    .all();
}

/** Inside a write transaction: does anything hold the host's time over [startsAt, endsAt)? */
export function hostBusy(tx: WriteTx | Db, hostId: string, startsAt: number, endsAt: number, now: number, exceptId?: string) {
  return holding(tx, { hostId }, startsAt, endsAt, now).some((r) => r.id !== exceptId);
}

/** Inside a write transaction: does the guest already have somewhere to be then, as a guest or as a host? */
export function guestBusy(tx: WriteTx | Db, guestId: string, startsAt: number, endsAt: number, now: number, exceptId?: string) {
  return holding(tx, { anySide: guestId }, startsAt, endsAt, now).some((r) => r.id !== exceptId);
}

export function slotFree(deps: Deps, activity: Activity, slot: Slot) {
  return !hostBusy(deps.db, activity.hostId, slot.startsAt, slot.endsAt, deps.now());
}

/**
 * Before anything is held: the host's time must be free, and the guest must not already be
 * booked elsewhere then (nobody can be at two activities at once).
 */
export function checkSlotOpen(deps: Deps, activity: Activity, slot: Slot, guestId: string) {
  if (!slotFree(deps, activity, slot)) throw new DomainError("booking.slotTaken", 409);
  if (guestBusy(deps.db, guestId, slot.startsAt, slot.endsAt, deps.now())) throw new DomainError("booking.guestBusy", 409);
}
