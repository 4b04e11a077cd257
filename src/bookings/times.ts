import type { Activity } from "../../db/schema";
import { DomainError } from "../../lib/domain-error";
import { zoneOfCity } from "../../lib/places";
import { parseDate, zonedAt } from "../../lib/time";
import { closedRanges, DAY_MINUTES, insideWeeklyHours, startTaken } from "../../shared/availability";
import { DURATION_MAX } from "../../shared/limits";
import type { SessionHeld } from "./sessions";

/**
 * When an activity can be booked. Times are wall-clock times in the activity's city (its IANA
 * zone), converted with Temporal; the server stores the local start, the zone and the UTC
 * instants, and compares and schedules on UTC.
 */
/** The most days ahead any activity may be booked; each activity's own horizon is at most this. */
export const BOOKING_WINDOW_DAYS = 365;

/** The two readings of the spec: the date-time screen and the booking dialog. */
export const FLOWS = {
  datetime: { firstHour: 8, lastHour: 22, durations: [30, 60, 90, 120, 150, 180, 210, 240] },
  dialog: { firstHour: 9, lastHour: 21, durations: [60, 120, 180, 240, 360, 480] },
} as const;
export type Flow = keyof typeof FLOWS;
/** The booking dialog lists today and the next 29 days (the date-time screen, the activity's whole horizon). */
export const DIALOG_DAYS = 29;

export const activityZone = (activity: Pick<Activity, "city">) => zoneOfCity(activity.city);
/** How many days ahead the activity may be booked (its host's choice, within the platform's most). */
export const horizonOf = (activity: Pick<Activity, "horizonDays">) => Math.min(Math.max(activity.horizonDays, 0), BOOKING_WINDOW_DAYS);
export const maxMinutesOf = (activity: Pick<Activity, "maxDurationMinutes">) => activity.maxDurationMinutes ?? DURATION_MAX;

/** A duration the activity's host allows (within its minimum and maximum). */
export const durationAllowed = (activity: Pick<Activity, "minDurationMinutes" | "maxDurationMinutes">, minutes: number) =>
  minutes >= activity.minDurationMinutes && minutes <= maxMinutesOf(activity);

/** Today's date and the minute of the day in a zone. */
export function localNow(zone: string, now: number) {
  const z = zonedAt(now, zone);
  return { date: z.toPlainDate().toString(), minute: z.hour * 60 + z.minute };
}

/** The dates a guest may choose: today (in the city) and the next `days` days. */
export function bookableDates(zone: string, now: number, days: number): string[] {
  const today = zonedAt(now, zone).toPlainDate();
  return Array.from({ length: days + 1 }, (_, i) => today.add({ days: i }).toString());
}

export type SlotError =
  | "booking.dateRequired"
  | "booking.timeRequired"
  | "booking.durationRequired"
  | "booking.dateInvalid"
  | "booking.timeInvalid"
  | "booking.durationInvalid"
  | "booking.durationOutside"
  | "booking.inPast"
  | "booking.tooSoon"
  | "booking.tooFar"
  | "booking.outsideHours";

/** The parts of an activity that say when it can be booked. */
export type BookingRules = Pick<Activity, "city" | "minDurationMinutes" | "maxDurationMinutes" | "weeklyHours" | "noticeMinutes" | "horizonDays"> & Partial<Pick<Activity, "format" | "sessionMinutes">>;

/** A group activity's fixed session length, or null when the guest chooses the duration (private). */
export const sessionLengthOf = (activity: Partial<Pick<Activity, "format" | "sessionMinutes">>) => (activity.format === "group" ? (activity.sessionMinutes ?? null) : null);

/** Monday 0 … Sunday 6, as weekly hours count days. */
export const weekdayOf = (date: Temporal.PlainDate | Temporal.ZonedDateTime) => date.dayOfWeek - 1;

export interface Slot {
  date: string;
  time: string;
  durationMinutes: number;
  /** 'YYYY-MM-DDTHH:MM:00' in the activity's zone (the spec's proposedDatetime). */
  startsAtLocal: string;
  timeZone: string;
  startsAt: number;
  endsAt: number;
}

/**
 * Checks a chosen date, start time and duration against the flow's rules and the activity's
 * range, and works out its instants: the slot, or a 400 refusal naming the first rule it breaks.
 * A duration not chosen is `undefined`; one that is no number (NaN) is no offered duration.
 */
export function readSlot(activity: BookingRules, input: { date: string; time: string; durationMinutes: number | undefined }, flow: Flow, now: number): Slot {
  const broken = (error: SlotError, params?: Record<string, string | number>) => new DomainError(error, 400, params ? { params } : {});
  const rules = FLOWS[flow];
  const date = input.date.trim();
  const time = input.time.trim();
  if (!date) throw broken("booking.dateRequired");
  if (!time) throw broken("booking.timeRequired");
  // A group session has one length: a duration sent must be it, and none sent is it.
  const session = sessionLengthOf(activity);
  if (input.durationMinutes === undefined && !session) throw broken("booking.durationRequired");
  const plainDate = parseDate(date);
  if (!plainDate) throw broken("booking.dateInvalid");
  const tm = /^(\d{2}):00(?::00)?$/.exec(time);
  const hour = tm ? Number(tm[1]) : -1;
  if (hour < rules.firstHour || hour > rules.lastHour) throw broken("booking.timeInvalid");
  const minutes = session ?? input.durationMinutes!;
  if (session) {
    if (input.durationMinutes !== undefined && input.durationMinutes !== session) throw broken("booking.durationOutside");
  } else {
    if (!Number.isInteger(minutes) || !(rules.durations as readonly number[]).includes(minutes)) throw broken("booking.durationInvalid");
    if (!durationAllowed(activity, minutes)) throw broken("booking.durationOutside");
  }
  const zone = activityZone(activity);
  const start = plainDate.toPlainDateTime({ hour }).toZonedDateTime(zone, { disambiguation: "compatible" });
  const startsAt = start.epochMilliseconds;
  if (startsAt <= now) throw broken("booking.inPast");
  if (startsAt < now + activity.noticeMinutes * 60_000) throw broken("booking.tooSoon", { hours: Math.round((activity.noticeMinutes / 60) * 10) / 10 });
  const today = zonedAt(now, zone).toPlainDate();
  if (Temporal.PlainDate.compare(plainDate, today.add({ days: horizonOf(activity) })) > 0) throw broken("booking.tooFar", { days: horizonOf(activity) });
  const end = start.add({ minutes });
  // The host's hours are wall-clock hours: the end is read on the clock, so a night when the
  // clocks change counts the hour the clock skipped or repeated as the host would.
  const endMinute = end.toPlainDate().equals(plainDate) ? end.hour * 60 + end.minute : 24 * 60 + end.hour * 60 + end.minute;
  if (!insideWeeklyHours(activity.weeklyHours, weekdayOf(plainDate), start.hour * 60 + start.minute, endMinute)) throw broken("booking.outsideHours");
  const hh = String(hour).padStart(2, "0");
  return {
    date,
    time: `${hh}:00`,
    durationMinutes: minutes,
    startsAtLocal: `${date}T${hh}:00:00`,
    timeZone: zone,
    startsAt,
    endsAt: end.epochMilliseconds,
  };
}

/**
 * For the picker: per date, the local minute ranges [start, end) the host is busy, from busy
 * UTC intervals. A range crossing midnight is split over both days.
 */
export function busyByDate(intervals: { startsAt: number; endsAt: number }[], zone: string): Record<string, [number, number][]> {
  const out: Record<string, [number, number][]> = {};
  for (const b of intervals) {
    let start = zonedAt(b.startsAt, zone);
    const end = zonedAt(b.endsAt, zone);
    for (let guard = 0; guard < 10 && Temporal.ZonedDateTime.compare(start, end) < 0; guard++) {
      const day = start.toPlainDate().toString();
      const from = start.hour * 60 + start.minute;
      const sameDay = end.toPlainDate().toString() === day;
      const to = sameDay ? end.hour * 60 + end.minute : 24 * 60;
      (out[day] ??= []).push([from, to]);
      if (sameDay) break;
      start = start.toPlainDate().add({ days: 1 }).toZonedDateTime(zone);
    }
  }
  return out;
}


/**
 * What the booking screens offer for an activity: the dates with at least one start the flow's
 * hours, the host's week, the notice and everything holding the host's time leave open, and per
 * date the local minute ranges that are busy or closed (bookings, blocks, outside busy times, the
 * notice, the hours outside the host's week). The server checks every choice again. From `firstDay`
 * (days after today) to `days`: the times API answers one day.
 */
export function openTimes(activity: BookingRules & Partial<GroupSeats>, held: { startsAt: number; endsAt: number }[], now: number, flow: Flow, days = horizonOf(activity), sessions: SessionHeld[] = [], firstDay = 0) {
  const zone = activityZone(activity);
  const rules = FLOWS[flow];
  const notice = activity.noticeMinutes > 0 ? [{ startsAt: now, endsAt: now + activity.noticeMinutes * 60_000 }] : [];
  const heldByDate = busyByDate([...held, ...notice], zone);
  const today = zonedAt(now, zone).toPlainDate();
  const local = localNow(zone, now);
  const session = sessionLengthOf(activity);
  const shortest = session ?? Math.max(activity.minDurationMinutes, rules.durations[0]);
  const group = session && activity.capacity ? { capacity: activity.capacity, sessions: new Map(sessions.map((s) => [s.local, s])) } : null;
  // A group's sessions with spots held, by day: a day without any costs no more than a private activity's.
  const sessionsOn = new Map<string, SessionHeld[]>();
  for (const s of sessions) (sessionsOn.get(s.date) ?? sessionsOn.set(s.date, []).get(s.date)!).push(s);
  // Only the open dates are answered, with their busy and closed ranges and their open start hours;
  // a group activity's, with the spots left at each start (0: full).
  const dates: string[] = [];
  const busy: Record<string, [number, number][]> = {};
  const hours: Record<string, number[]> = {};
  const spots: Record<string, Record<number, number>> = {};
  // Per date and open start, the most minutes one booking may run from it (a private activity's):
  // up to the next busy or closed minute, that day's or the next's.
  const longest: Record<string, Record<number, number>> = {};
  // Each day's date and busy or closed ranges, from the first day to the one after the last (whose
  // ranges a booking late on the last may run into), worked out once: the dialog asks for 30 days
  // on every activity page, and a day's ranges are also the day before's ranges ahead.
  const last = Math.min(days, horizonOf(activity));
  const dayDates: string[] = [];
  const dayRanges: [number, number][][] = [];
  const closedOn: [number, number][][] = [];
  let at = today.add({ days: firstDay });
  for (let i = firstDay; i <= last + 1; i++) {
    const date = at.toString();
    const weekday = weekdayOf(at);
    const closed = (closedOn[weekday] ??= closedRanges(activity.weeklyHours, weekday));
    const heldOn = heldByDate[date];
    dayDates.push(date);
    dayRanges.push(heldOn ? [...heldOn, ...closed] : closed);
    at = at.add({ days: 1 });
  }
  for (let i = firstDay; i <= last; i++) {
    const date = dayDates[i - firstDay]!;
    const ranges = dayRanges[i - firstDay]!;
    const rangesNext = dayRanges[i - firstDay + 1]!;
    const onDay = { [date]: ranges };
    const open: number[] = [];
    const left: Record<number, number> = {};
    const dayHeld = sessionsOn.get(date);
    const fits: Record<number, number> = {};
    for (let hour = rules.firstHour; hour <= rules.lastHour; hour++) {
      if (!group) {
        if (startTaken(onDay, local, date, hour, shortest)) continue;
        open.push(hour);
        // Up to the first busy or closed minute after the start, that day's or the next's.
        const from = hour * 60;
        let until = 2 * DAY_MINUTES;
        for (const [a, b] of ranges) if (b > from && a < until) until = a;
        for (const [a, b] of rangesNext) if (b + DAY_MINUTES > from && a + DAY_MINUTES < until) until = a + DAY_MINUTES;
        fits[hour] = until - from;
        continue;
      }
      const held = dayHeld ? group.sessions.get(`${date}T${String(hour).padStart(2, "0")}:00:00`) : undefined;
      // The host runs one session at a time: another start's session overlapping this one takes it.
      const taken = dayHeld ? { [date]: [...ranges, ...dayHeld.filter((s) => s !== held).map((s): [number, number] => [s.from, s.to])] } : onDay;
      if (startTaken(taken, local, date, hour, shortest)) continue;
      const spotsLeft = group.capacity - (held?.taken ?? 0);
      // The most a booking could bring: its most spots, or the whole session as a private group while it is empty.
      const best = !held && activity.privateGroupPriceCents ? group.capacity : (held?.taken ?? 0) + Math.min(activity.maxSpots ?? spotsLeft, spotsLeft);
      if (spotsLeft > 0 && minimumMissed(activity, i * 24 * 60 + hour * 60 - local.minute, best)) continue;
      left[hour] = Math.max(spotsLeft, 0);
      if (spotsLeft > 0) open.push(hour);
    }
    if (group && Object.keys(left).length) spots[date] = left;
    if (!open.length) continue;
    dates.push(date);
    hours[date] = open;
    if (!group) longest[date] = fits;
    if (ranges.length) busy[date] = [...ranges];
  }
  return { zone, dates, busy, hours, longest, now: local, shortest, ...(group ? { spots, capacity: group.capacity } : {}) };
}

/** The seats of a group activity, as the booking screens read them. */
export type GroupSeats = Pick<Activity, "capacity" | "maxSpots" | "minToRun" | "minToRunHours" | "privateGroupPriceCents">;

/**
 * For the screens: past its minimum's deadline (`minutesAway` on the local clock), a session takes
 * only a booking that brings it to its minimum: none can when even the most spots one booking may
 * take (`best`, with those held) fall short. The server's rule is `seatsRefusal`'s, on instants.
 */
const minimumMissed = (activity: Partial<GroupSeats>, minutesAway: number, best: number) =>
  !!activity.minToRun && minutesAway <= (activity.minToRunHours ?? 24) * 60 && best < activity.minToRun;
