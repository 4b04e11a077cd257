import type { Activity } from "../../db/schema";
import { cityByName } from "../lib/places";
import { zonedAt } from "../lib/time";

/**
 * When an activity can be booked. Times are wall-clock times in the activity's city (its IANA
 * zone), converted with Temporal; the server stores the local start, the zone and the UTC
 * instants, and compares and schedules on UTC.
 */
export const BOOKING_WINDOW_DAYS = 90;
export const MAX_MINUTES = 240;

/** The two readings of the spec: the date-time screen and the booking dialog. */
export const FLOWS = {
  datetime: { firstHour: 8, lastHour: 22, durations: [30, 60, 90, 120, 150, 180, 210, 240] },
  dialog: { firstHour: 9, lastHour: 21, durations: [60, 120, 180, 240, 360, 480] },
} as const;
export type Flow = keyof typeof FLOWS;

export const activityZone = (activity: Pick<Activity, "city">) => cityByName(activity.city)?.timeZone ?? "UTC";
export const maxMinutesOf = (activity: Pick<Activity, "maxDurationMinutes">) => activity.maxDurationMinutes ?? MAX_MINUTES;

/** A duration the activity's host allows (within its minimum and maximum). */
export const durationAllowed = (activity: Pick<Activity, "minDurationMinutes" | "maxDurationMinutes">, minutes: number) =>
  minutes >= activity.minDurationMinutes && minutes <= maxMinutesOf(activity);

/** Today's date and the minute of the day in a zone. */
export function localNow(zone: string, now: number) {
  const z = zonedAt(now, zone);
  return { date: z.toPlainDate().toString(), minute: z.hour * 60 + z.minute };
}

/** The dates a guest may choose: today (in the city) and the next `days` days. */
export function bookableDates(zone: string, now: number, days = BOOKING_WINDOW_DAYS): string[] {
  const today = zonedAt(now, zone).toPlainDate();
  return Array.from({ length: days + 1 }, (_, i) => today.add({ days: i }).toString());
}

export type SlotError = "booking.dateRequired" | "booking.timeRequired" | "booking.durationRequired" | "booking.dateInvalid" | "booking.timeInvalid" | "booking.durationInvalid" | "booking.durationOutside" | "booking.inPast" | "booking.tooFar";

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
 * range, and works out its instants. The answer is a slot, or the first rule it breaks.
 */
export function readSlot(
  activity: Pick<Activity, "city" | "minDurationMinutes" | "maxDurationMinutes">,
  input: { date: unknown; time: unknown; durationMinutes: unknown },
  flow: Flow,
  now: number,
): { ok: true; slot: Slot } | { ok: false; error: SlotError } {
  const rules = FLOWS[flow];
  const date = typeof input.date === "string" ? input.date.trim() : "";
  const time = typeof input.time === "string" ? input.time.trim() : "";
  if (!date) return { ok: false, error: "booking.dateRequired" };
  if (!time) return { ok: false, error: "booking.timeRequired" };
  if (input.durationMinutes === undefined || input.durationMinutes === null || input.durationMinutes === "") return { ok: false, error: "booking.durationRequired" };
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return { ok: false, error: "booking.dateInvalid" };
  let plainDate: Temporal.PlainDate;
  try {
    plainDate = Temporal.PlainDate.from(date, { overflow: "reject" });
  } catch {
    return { ok: false, error: "booking.dateInvalid" };
  }
  const tm = /^(\d{2}):00(?::00)?$/.exec(time);
  const hour = tm ? Number(tm[1]) : -1;
  if (hour < rules.firstHour || hour > rules.lastHour) return { ok: false, error: "booking.timeInvalid" };
  const minutes = Number(input.durationMinutes);
  if (!Number.isInteger(minutes) || !(rules.durations as readonly number[]).includes(minutes)) return { ok: false, error: "booking.durationInvalid" };
  if (!durationAllowed(activity, minutes)) return { ok: false, error: "booking.durationOutside" };
  const zone = activityZone(activity);
  const start = plainDate.toPlainDateTime({ hour }).toZonedDateTime(zone, { disambiguation: "compatible" });
  const startsAt = start.epochMilliseconds;
  if (startsAt <= now) return { ok: false, error: "booking.inPast" };
  const today = zonedAt(now, zone).toPlainDate();
  if (Temporal.PlainDate.compare(plainDate, today.add({ days: BOOKING_WINDOW_DAYS })) > 0) return { ok: false, error: "booking.tooFar" };
  const hh = String(hour).padStart(2, "0");
  return {
    ok: true,
    slot: {
      date,
      time: `${hh}:00`,
      durationMinutes: minutes,
      startsAtLocal: `${date}T${hh}:00:00`,
      timeZone: zone,
      startsAt,
      endsAt: start.add({ minutes }).epochMilliseconds,
    },
  };
}

/** Splits the spec's proposedDatetime ('YYYY-MM-DDTHH:MM:00') into date and time. */
export function splitProposed(value: unknown): { date: string; time: string } {
  if (typeof value !== "string") return { date: "", time: "" };
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::00)?$/.exec(value.trim());
  return m ? { date: m[1]!, time: m[2]! } : { date: value.trim() ? "invalid" : "", time: value.trim() ? "invalid" : "" };
}

/** Hours (the API's durationHours, 0.5 steps) as minutes; NaN when not a number. */
export function hoursToMinutes(value: unknown): number {
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? Math.round(n * 60 * 1000) / 1000 : Number.NaN;
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

