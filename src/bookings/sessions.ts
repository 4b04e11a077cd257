import { and, eq, isNotNull } from "drizzle-orm";
import type { Db, WriteTx } from "../../db/client";
import { bookings, type Activity, type Booking } from "../../db/schema";
import { DomainError } from "../../lib/domain-error";
import { groupPriceFor, priceFor, type Price } from "../../shared/pricing";
import { holdsTime } from "./holds";

/**
 * Group sessions (docs/decisions/0049): an activity sold by the seat. Its sessions share a start
 * and a fixed length; each booking takes some of its spots (a private group takes them all), and
 * what holds a spot is what holds a host's time (`holdsTime`): a pending or accepted booking, an
 * unpaid one while its hold lasts. The count and the insert of a booking are one write
 * transaction (SERIALIZABLE on PostgreSQL, one writer on SQLite), so buyers racing for the last
 * spots never take more than the capacity.
 */

/** The group fields of an activity, as the rules read them. */
export type GroupRules = Pick<Activity, "format" | "capacity" | "pricePerPersonCents" | "sessionMinutes" | "minSpots" | "maxSpots" | "privateGroupPriceCents" | "minToRun" | "minToRunHours">;

/** An activity sold by the seat, with every group field its rules need. */
export type GroupActivity = Activity & { format: "group"; capacity: number; pricePerPersonCents: number; sessionMinutes: number };

export const isGroup = <A extends Pick<Activity, "format">>(activity: A): boolean => activity.format === "group";

/** The group's fields, or null for a private activity (or a group row missing one, which no write makes). */
export function groupOf<A extends Activity>(activity: A): GroupActivity | null {
  if (activity.format !== "group" || !activity.capacity || !activity.pricePerPersonCents || !activity.sessionMinutes) return null;
  return activity as GroupActivity;
}

/** The fewest and most spots one booking may take. */
export const spotsBounds = (g: GroupActivity) => {
  const min = Math.min(Math.max(g.minSpots ?? 1, 1), g.capacity);
  return { min, max: Math.max(Math.min(g.maxSpots ?? g.capacity, g.capacity), min) };
};

/** How many of a session's spots a booking takes and whether it takes the session whole. */
export interface SpotsChoice {
  spots: number;
  privateGroup: boolean;
}

/** The choice of a private activity's booking. */
export const ONE_GUEST: SpotsChoice = { spots: 1, privateGroup: false };

/**
 * The spots a guest asks for, checked against the activity: a private activity takes one guest
 * and no private group; a group booking takes from its fewest to its most spots, a private group
 * from one to the capacity (the people coming), and only where the host offers it. Refused with
 * the field's message (400). `spots` undefined is one (or the fewest a booking may take).
 */
export function readSpots(activity: Activity, sent: { spots?: number; privateGroup?: boolean }): SpotsChoice {
  const refuse = (key: "booking.spotsInvalid" | "booking.spotsNotOffered" | "booking.privateGroupNotOffered", params?: Record<string, number>) =>
    new DomainError(key, 400, { fields: { [key === "booking.privateGroupNotOffered" ? "privateGroup" : "spots"]: key }, ...(params ? { params } : {}) });
  const group = groupOf(activity);
  const privateGroup = sent.privateGroup === true;
  if (!group) {
    if (privateGroup) throw refuse("booking.privateGroupNotOffered");
    if (sent.spots !== undefined && sent.spots !== 1) throw refuse("booking.spotsNotOffered");
    return ONE_GUEST;
  }
  if (privateGroup && group.privateGroupPriceCents === null) throw refuse("booking.privateGroupNotOffered");
  const bounds = privateGroup ? { min: 1, max: group.capacity } : spotsBounds(group);
  const spots = sent.spots ?? bounds.min;
  if (!Number.isInteger(spots) || spots < bounds.min || spots > bounds.max) throw refuse("booking.spotsInvalid", bounds);
  return { spots, privateGroup };
}

/** The server's price of a booking: by the hour for a private activity, by the spot for a group. */
export function bookingPrice(activity: Activity, slot: { durationMinutes: number }, choice: SpotsChoice): Price {
  const group = groupOf(activity);
  if (!group) return priceFor(activity.hourlyRateCents, slot.durationMinutes);
  return groupPriceFor(group.pricePerPersonCents, choice.spots, choice.privateGroup ? group.privateGroupPriceCents : null);
}

/** The group columns of a new booking. */
export const bookingSeats = (activity: Activity, choice: SpotsChoice) => {
  const group = groupOf(activity);
  return group ? { spots: choice.spots, pricePerPersonCents: group.pricePerPersonCents, privateGroup: choice.privateGroup } : { spots: 1, pricePerPersonCents: null, privateGroup: false };
};

/** A booking of a group session (rather than of a host's whole time). */
export const isGroupBooking = (b: Pick<Booking, "pricePerPersonCents">) => b.pricePerPersonCents !== null;

/** The session a group booking belongs to: its activity and its start. */
export interface SessionKey {
  activityId: string;
  startsAt: number;
}

/** The bookings holding spots of a session at `now`. */
const seatsOf = (db: WriteTx | Db, session: SessionKey, now: number) =>
  db
    .select({ id: bookings.id, spots: bookings.spots, privateGroup: bookings.privateGroup })
    .from(bookings)
    .where(and(eq(bookings.activityId, session.activityId), eq(bookings.startsAt, session.startsAt), isNotNull(bookings.pricePerPersonCents), holdsTime(now)));

/** Spots taken by these bookings of a session of `capacity` seats: all of them once one is a private group. */
export const spotsTaken = (rows: { spots: number; privateGroup: boolean }[], capacity: number) =>
  Math.min(rows.some((r) => r.privateGroup) ? capacity : rows.reduce((n, r) => n + r.spots, 0), capacity);

/** How many spots of a session are held now (`exceptId`'s aside). */
export async function sessionTaken(db: WriteTx | Db, session: SessionKey, capacity: number, now: number, exceptId?: string) {
  const rows = (await seatsOf(db, session, now)).filter((r) => r.id !== exceptId);
  return { taken: spotsTaken(rows, capacity), bookings: rows.length };
}

/** Why a session cannot take a booking of `choice` now. */
export type SeatsRefusal = { key: "booking.full" | "booking.privateGroupTaken" | "booking.sessionClosed" } | { key: "booking.spotsLeft"; left: number };

/**
 * Can the session take this booking now? Read inside the write transaction that inserts it (or
 * outside it, as the screens' early answer; the transaction decides). Full; fewer spots left than
 * asked; a private group on a session that has guests; or, past its minimum's deadline, a booking
 * that leaves the session short of it (the session was called off then, or would be now).
 */
export async function seatsRefusal(db: WriteTx | Db, group: GroupActivity, startsAt: number, choice: SpotsChoice, now: number, exceptId?: string): Promise<SeatsRefusal | null> {
  const { taken, bookings: held } = await sessionTaken(db, { activityId: group.id, startsAt }, group.capacity, now, exceptId);
  const left = group.capacity - taken;
  if (choice.privateGroup && held > 0) return { key: "booking.privateGroupTaken" };
  if (left <= 0) return { key: "booking.full" };
  if (choice.spots > left) return { key: "booking.spotsLeft", left };
  // A private group takes the session whole: it counts as full, as the minimum's count reads it (`spotsTaken`).
  const after = choice.privateGroup ? group.capacity : taken + choice.spots;
  if (minimumDue(group, startsAt, now) && after < group.minToRun!) return { key: "booking.sessionClosed" };
  return null;
}

/** The refusal as the guest reads it (409); `released`: the card held for it was let go. */
export function seatsRefused(refusal: SeatsRefusal, released = false): DomainError {
  const key = released ? (`${refusal.key}Released` as const) : refusal.key;
  return new DomainError(key, 409, { fields: { spots: key }, ...(refusal.key === "booking.spotsLeft" ? { params: { n: refusal.left } } : {}) });
}

/** When a session's minimum is counted: `minToRunHours` before its start (null: it has none). */
export const minimumDeadline = (group: GroupRules, startsAt: number): number | null =>
  group.minToRun ? startsAt - (group.minToRunHours ?? 24) * 60 * 60 * 1000 : null;

const minimumDue = (group: GroupRules, startsAt: number, now: number) => {
  const deadline = minimumDeadline(group, startsAt);
  return deadline !== null && now >= deadline;
};

/**
 * A group booking's session is past its minimum's deadline and short of it: it is being called off
 * (`minimum.ts`), whatever has run yet. A guest cancelling it then is refunded in full, as the
 * call-off would (docs/decisions/0050).
 */
export async function sessionCalledOff(db: WriteTx | Db, activity: Activity, b: Pick<Booking, "startsAt" | "pricePerPersonCents">, now: number): Promise<boolean> {
  const group = groupOf(activity);
  if (!group || b.pricePerPersonCents === null || !minimumDue(group, b.startsAt, now)) return false;
  const { taken } = await sessionTaken(db, { activityId: group.id, startsAt: b.startsAt }, group.capacity, now);
  return taken < group.minToRun!;
}

/** A session with spots held, on the activity's local clock: its day, its start and end minute, its spots taken. */
export interface SessionHeld {
  local: string;
  date: string;
  from: number;
  to: number;
  taken: number;
}

/**
 * For the booking screens: the sessions of a group activity with spots held, from the bookings
 * holding its host's time (`busyIntervals`), each with its local day, start and end minute and
 * its spots taken; and the host's other bookings, which are busy times.
 */
export function heldSessions<B extends { activityId: string; startsAtLocal: string; durationMinutes: number; spots: number; privateGroup: boolean; group: number | null }>(
  group: Pick<GroupActivity, "id" | "capacity">,
  held: B[],
): { sessions: SessionHeld[]; others: B[] } {
  const byStart = new Map<string, B[]>();
  const others: B[] = [];
  for (const r of held) {
    if (r.activityId !== group.id || r.group === null) others.push(r);
    else (byStart.get(r.startsAtLocal) ?? byStart.set(r.startsAtLocal, []).get(r.startsAtLocal)!).push(r);
  }
  const sessions = [...byStart].map(([local, rows]) => {
    const minute = Number(local.slice(11, 13)) * 60 + Number(local.slice(14, 16));
    const length = rows.reduce((m, r) => Math.max(m, r.durationMinutes), 0);
    return { local, date: local.slice(0, 10), from: minute, to: minute + length, taken: spotsTaken(rows, group.capacity) };
  });
  return { sessions, others };
}
