import { MAX_RANGES_PER_DAY } from "./limits";

/**
 * When an activity can be booked, as plain rules both the server and the islands read
 * (docs/decisions/0037-availability.md).
 *
 * Weekly hours are, per weekday (0 Monday … 6 Sunday), ranges of wall-clock minutes [from, to)
 * in the activity's zone, in half-hour steps, 00:00 to 24:00, not overlapping. A booking lies
 * wholly inside one range of the day it starts on. An activity whose host never set any has
 * none (null): every day, starts from 08:00 to 22:00 as the booking screens offer.
 */
export type DayRanges = [number, number][];
export type WeeklyHours = DayRanges[];

export const DAY_MINUTES = 24 * 60;
export const HOURS_STEP_MINUTES = 30;

/** Minimum notice choices (minutes) and the default (none beyond "not in the past"). */
export const NOTICE_CHOICES = [0, 60, 120, 240, 720, 1440, 2880, 4320, 10080] as const;
export const DEFAULT_NOTICE_MINUTES = 0;
/** How far ahead guests may book (days) and the default. */
export const HORIZON_CHOICES = [7, 14, 30, 60, 90, 180, 365] as const;
export const DEFAULT_HORIZON_DAYS = 90;

/** "09:30" for 570; "24:00" for the end of the day. The form's value, not what people read (`clockText`). */
export function minuteText(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;
}

const clockFormats = new Map<string, Intl.DateTimeFormat>();
/**
 * A minute of the day as people of the language read a clock, the same on every screen: English
 * 12-hour ("9:30 AM"), French 24-hour ("09:30"). The end of the day is "24:00" on a 24-hour clock.
 */
export function clockText(minute: number, locale: string): string {
  const twelve = !locale.startsWith("fr");
  if (minute === DAY_MINUTES && !twelve) return "24:00";
  let format = clockFormats.get(locale);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { hour: twelve ? "numeric" : "2-digit", minute: "2-digit", hour12: twelve, timeZone: "UTC" });
    clockFormats.set(locale, format);
  }
  return format.format(Date.UTC(2000, 0, 1, 0, minute % DAY_MINUTES));
}

/** 570 for "09:30"; "24:00" is 1440; null when not a half-hour wall-clock time. */
export function parseMinute(text: string): number | null {
  const m = /^(\d{2}):(\d{2})$/.exec(text.trim());
  if (!m) return null;
  const minute = Number(m[1]) * 60 + Number(m[2]);
  if (Number(m[2]) >= 60 || minute > DAY_MINUTES || minute % HOURS_STEP_MINUTES !== 0) return null;
  return minute;
}

export type WeeklyHoursProblem = "invalidTime" | "endBeforeStart" | "overlap" | "tooMany";

/**
 * Checks weekly hours as given (any order within a day) and answers them sorted, or the first
 * problem: a time that is not on the half hour, a range that ends before it starts, two ranges
 * of one day that overlap, or too many ranges on a day.
 */
export function checkWeeklyHours(days: DayRanges[]): { ok: true; hours: WeeklyHours } | { ok: false; problem: WeeklyHoursProblem; day: number } {
  const hours: WeeklyHours = [];
  for (let day = 0; day < 7; day++) {
    const ranges = [...(days[day] ?? [])].sort((a, b) => a[0] - b[0]);
    if (ranges.length > MAX_RANGES_PER_DAY) return { ok: false, problem: "tooMany", day };
    for (const [from, to] of ranges) {
      const valid = (m: number) => Number.isInteger(m) && m >= 0 && m <= DAY_MINUTES && m % HOURS_STEP_MINUTES === 0;
      if (!valid(from) || !valid(to)) return { ok: false, problem: "invalidTime", day };
      if (to <= from) return { ok: false, problem: "endBeforeStart", day };
    }
    for (let i = 1; i < ranges.length; i++) if (ranges[i]![0] < ranges[i - 1]![1]) return { ok: false, problem: "overlap", day };
    hours.push(ranges.map(([a, b]) => [a, b]));
  }
  return { ok: true, hours };
}

/**
 * Does [from, to) (local minutes of one day; `to` may pass 1440 for a booking running past
 * midnight) lie inside one of the day's ranges? Without weekly hours, a start from 08:00 to
 * 22:00 always does.
 */
export function insideWeeklyHours(hours: WeeklyHours | null, weekday: number, from: number, to: number): boolean {
  if (!hours) return true;
  return (hours[weekday] ?? []).some(([a, b]) => from >= a && to <= b);
}

/** The gaps of a day outside its ranges, as [from, to) minutes (all day when the day has none). */
export function closedRanges(hours: WeeklyHours | null, weekday: number): DayRanges {
  if (!hours) return [];
  const out: DayRanges = [];
  let at = 0;
  for (const [a, b] of hours[weekday] ?? []) {
    if (a > at) out.push([at, a]);
    at = Math.max(at, b);
  }
  if (at < DAY_MINUTES) out.push([at, DAY_MINUTES]);
  return out;
}

/** Weekend mornings and the like, as the host reads them back: "9:00 AM–12:00 PM, 2:00 PM–6:00 PM" / "09:00–12:00, 14:00–18:00". */
export const rangesText = (ranges: DayRanges, locale: string) => ranges.map(([a, b]) => `${clockText(a, locale)}–${clockText(b, locale)}`).join(", ");

/**
 * Whether a start hour is taken on a date for the booking screens: past (today in the
 * activity's city), or the shortest allowed booking from it would overlap a busy or closed range.
 */
export function startTaken(busy: Record<string, [number, number][]>, now: { date: string; minute: number }, date: string, hour: number, minMinutes: number): boolean {
  if (date < now.date || (date === now.date && hour * 60 <= now.minute)) return true;
  const from = hour * 60;
  const to = from + Math.max(minMinutes, HOURS_STEP_MINUTES);
  return (busy[date] ?? []).some(([a, b]) => from < b && to > a);
}
