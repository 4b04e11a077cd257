/**
 * Browse's "when" filters (docs/decisions/0054-find-by-when.md): a date, a time of day, how many
 * people, a most price and the order, read the same way by the browse page and
 * `GET /api/activities`. Each refused value names its field; the others still apply.
 */
import type { MessageKey } from "../../lib/i18n";
import { minorFromDecimal, readDecimal } from "../../lib/money";
import { cityByName, zoneOfCity } from "../../lib/places";
import { parseDate, zonedAt } from "../../lib/time";
import { DAY_MINUTES } from "../../shared/availability";

export const DATE_WORDS = ["today", "tomorrow", "weekend"] as const;
export type DateWord = (typeof DATE_WORDS)[number];
export const TIMES_OF_DAY = ["morning", "afternoon", "evening"] as const;
export type TimeOfDay = (typeof TIMES_OF_DAY)[number];
export const SORTS = ["recommended", "price", "rating", "newest"] as const;
export type Sort = (typeof SORTS)[number];
export const PEOPLE_MAX = 10;
/** The most days ahead a date may be: the longest horizon a host may choose. */
export const DATE_DAYS_MAX = 365;
/** With a time of day or people but no date, starts are looked for over this many days from today (decision 0054). */
export const ANY_DAY_DAYS = 7;

/** The local start minutes [from, to) of each time of day, in the activity's own zone. */
export const TIME_WINDOWS: Record<TimeOfDay, [number, number]> = {
  morning: [0, 12 * 60],
  afternoon: [12 * 60, 17 * 60],
  evening: [17 * 60, DAY_MINUTES],
};

/** The filters as they apply: every field left out is "any". */
export interface BrowseFilters {
  /** As asked, normalized: a word or a YYYY-MM-DD date. */
  date?: DateWord | string;
  timeOfDay?: TimeOfDay;
  people?: number;
  /** As typed (a decimal in the city's currency), and in its minor units. */
  maxPrice?: string;
  maxPriceCents?: number;
  sort: Sort;
}

export type FilterField = "date" | "timeOfDay" | "people" | "maxPrice" | "sort";
export type FilterErrors = Partial<Record<FilterField, MessageKey>>;

/** The filters of a request, and the message of each refused one (left out of the filters). */
export interface ReadFilters {
  filters: BrowseFilters;
  errors: FilterErrors;
  /** What was sent for each field, as typed: a refused value is shown again beside its message. */
  sent: Partial<Record<FilterField | "day", string>>;
}

const text = (v: unknown): string => (typeof v === "string" ? v.trim() : Array.isArray(v) ? text(v[v.length - 1]) : "");

/**
 * Reads the filters of a browse query for a city (its zone says what "today" is, its currency
 * what the price is in). `date` is today, tomorrow, weekend or YYYY-MM-DD; the page's form also
 * sends `day` (its calendar), which applies when `date` is "day" or empty. Empty means any.
 */
export function readBrowseFilters(query: Record<string, unknown>, city: string, now: number): ReadFilters {
  const errors: FilterErrors = {};
  const filters: BrowseFilters = { sort: "recommended" };
  const sent: ReadFilters["sent"] = {};
  for (const field of ["date", "day", "timeOfDay", "people", "maxPrice", "sort"] as const) {
    const value = text(query[field]);
    if (value) sent[field] = value;
  }

  const dateText = sent.date === "day" || !sent.date ? sent.day : sent.date;
  if (dateText) {
    if ((DATE_WORDS as readonly string[]).includes(dateText)) filters.date = dateText;
    else {
      const day = parseDate(dateText);
      const today = zonedAt(now, zoneOfCity(city)).toPlainDate();
      if (!day) errors.date = "browse.dateInvalid";
      else if (Temporal.PlainDate.compare(day, today) < 0) errors.date = "browse.datePast";
      else if (Temporal.PlainDate.compare(day, today.add({ days: DATE_DAYS_MAX })) > 0) errors.date = "browse.dateTooFar";
      else filters.date = day.toString();
    }
  } else if (sent.date && sent.date !== "day") errors.date = "browse.dateInvalid";

  if (sent.timeOfDay) {
    if ((TIMES_OF_DAY as readonly string[]).includes(sent.timeOfDay)) filters.timeOfDay = sent.timeOfDay as TimeOfDay;
    else errors.timeOfDay = "browse.timeOfDayInvalid";
  }

  if (sent.people) {
    const n = /^\d{1,2}$/.test(sent.people) ? Number(sent.people) : Number.NaN;
    if (n >= 1 && n <= PEOPLE_MAX) filters.people = n;
    else errors.people = "browse.peopleInvalid";
  }

  if (sent.maxPrice) {
    const decimal = readDecimal(sent.maxPrice);
    const cents = decimal === null ? Number.NaN : minorFromDecimal(decimal, cityByName(city)?.currency ?? "usd");
    if (Number.isSafeInteger(cents) && cents > 0) {
      filters.maxPrice = decimal!;
      filters.maxPriceCents = cents;
    } else errors.maxPrice = "browse.maxPriceInvalid";
  }

  if (sent.sort) {
    if ((SORTS as readonly string[]).includes(sent.sort)) filters.sort = sent.sort as Sort;
    else errors.sort = "browse.sortInvalid";
  }
  return { filters, errors, sent };
}

/** Does any filter ask for an open start (a date, a time of day, people)? Price and order alone are read in SQL. */
export const asksWhen = (f: BrowseFilters) => f.date !== undefined || f.timeOfDay !== undefined || f.people !== undefined;

/** Any filter or order other than the plain browse's. */
export const anyFilter = (f: BrowseFilters) => asksWhen(f) || f.maxPriceCents !== undefined || f.sort !== "recommended";

/**
 * The local dates (in the city's zone) a date filter covers: today, tomorrow, the coming weekend
 * (Saturday and Sunday; on a Sunday, that Sunday alone), or the day itself. Without a date, the
 * next ANY_DAY_DAYS days from today.
 */
export function datesOf(date: BrowseFilters["date"], zone: string, now: number): string[] {
  const today = zonedAt(now, zone).toPlainDate();
  if (date === undefined) return Array.from({ length: ANY_DAY_DAYS }, (_, i) => today.add({ days: i }).toString());
  if (date === "today") return [today.toString()];
  if (date === "tomorrow") return [today.add({ days: 1 }).toString()];
  if (date === "weekend") {
    if (today.dayOfWeek === 7) return [today.toString()];
    const saturday = today.add({ days: 6 - today.dayOfWeek });
    return [saturday.toString(), saturday.add({ days: 1 }).toString()];
  }
  return [date];
}

/** The filters as query parameters, in one order (the address, the cache's key, the links that keep them). */
export function filterParams(f: BrowseFilters): [string, string][] {
  const out: [string, string][] = [];
  if (f.date) out.push(["date", f.date]);
  if (f.timeOfDay) out.push(["timeOfDay", f.timeOfDay]);
  if (f.people) out.push(["people", String(f.people)]);
  if (f.maxPrice) out.push(["maxPrice", f.maxPrice]);
  if (f.sort !== "recommended") out.push(["sort", f.sort]);
  return out;
}
