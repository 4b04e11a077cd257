import type { Locale } from "./i18n";
import { cachedFormatter } from "./intl";

/**
 * Time, on native `Temporal` (never hand-written offset arithmetic). An activity's dates and
 * times are wall-clock times in its city's IANA zone ("2026-12-01T14:00" in "Europe/Paris");
 * instants are epoch milliseconds (UTC) for comparing and scheduling.
 */

/** A local date-time as stored: "YYYY-MM-DDTHH:MM:00". */
export type LocalDateTime = string;

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/** Parses "YYYY-MM-DDTHH:MM[:SS]", or null when it is not a real date and time. */
export function parseLocal(local: string): Temporal.PlainDateTime | null {
  if (!LOCAL.test(local)) return null;
  try {
    return Temporal.PlainDateTime.from(local, { overflow: "reject" });
  } catch {
    return null;
  }
}

/** Parses "YYYY-MM-DD", or null when it is not a real date. */
export function parseDate(text: string | undefined): Temporal.PlainDate | null {
  if (!text || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  try {
    return Temporal.PlainDate.from(text, { overflow: "reject" });
  } catch {
    return null;
  }
}

/**
 * The instant a wall-clock time in a zone happens. A time skipped by a daylight-saving jump is
 * refused (null) rather than moved, so nobody books an hour that does not exist.
 */
export function instantOf(local: string, timeZone: string): number | null {
  const plain = parseLocal(local);
  if (!plain) return null;
  try {
    return plain.toZonedDateTime(timeZone, { disambiguation: "reject" }).epochMilliseconds;
  } catch {
    return null;
  }
}

/** An instant (epoch ms) as the wall clock of a zone. */
export const zonedAt = (epochMs: number, timeZone: string) => Temporal.Instant.fromEpochMilliseconds(epochMs).toZonedDateTimeISO(timeZone);

/** The wall clock of an instant in a zone, as stored ("YYYY-MM-DDTHH:MM:00"). */
export function localOf(epochMs: number, timeZone: string): LocalDateTime {
  return zonedAt(epochMs, timeZone).toPlainDateTime().round({ smallestUnit: "minute", roundingMode: "floor" }).toString({ smallestUnit: "second" });
}

/** Today's date ("YYYY-MM-DD") in a zone. */
export const todayIn = (epochMs: number, timeZone: string) => zonedAt(epochMs, timeZone).toPlainDate().toString();

/** Wall clocks are formatted as if they were UTC, so no zone shifts them. */
const styles = {
  dateTime: cachedFormatter((l) => new Intl.DateTimeFormat(l, { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" })),
  longDate: cachedFormatter((l) => new Intl.DateTimeFormat(l, { weekday: "long", year: "numeric", month: "long", day: "numeric", timeZone: "UTC" })),
  time: cachedFormatter((l) => new Intl.DateTimeFormat(l, { hour: "numeric", minute: "2-digit", timeZone: "UTC" })),
  monthYear: cachedFormatter((l) => new Intl.DateTimeFormat(l, { month: "long", year: "numeric", timeZone: "UTC" })),
  date: cachedFormatter((l) => new Intl.DateTimeFormat(l, { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" })),
};

/**
 * A stored wall-clock time as the viewer reads it ("Dec 1, 2026, 2:00 PM"), shown as the
 * activity's local time, whatever the viewer's own zone.
 */
export function formatLocal(local: string, locale: Locale, style: "dateTime" | "longDate" | "time" = "dateTime"): string {
  const plain = parseLocal(local);
  if (!plain) return local;
  return styles[style](locale).format(plain.toZonedDateTime("UTC").epochMilliseconds);
}

/** "December 2026" of an instant (member since, review dates). */
export const formatMonthYear = (epochMs: number, locale: Locale) => styles.monthYear(locale).format(epochMs);

/**
 * A calendar date stored as YYYY-MM-DD (a date of birth) as people write it in their language:
 * "November 23, 2008", "23 novembre 2008". Anything else is given back as it is.
 */
export function formatDate(date: string, locale: Locale): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return date;
  try {
    return styles.date(locale).format(Temporal.PlainDate.from(date).toZonedDateTime("UTC").epochMilliseconds);
  } catch {
    return date;
  }
}
