import { z } from "zod";
import { ACTIVITY_DESCRIPTION_MAX, ACTIVITY_PHOTOS_MAX, ACTIVITY_TITLE_MAX, DURATION_MAX, DURATION_MIN, DURATION_STEP, MAX_RANGES_PER_DAY, MEETING_POINT_MAX } from "../../shared/limits";
import { cancellationPolicies, type activities, type CancellationPolicy } from "../../db/schema";
import { listFrom } from "../../lib/http";
import { firstIssue } from "../../lib/validation";
import type { MessageKey } from "../../lib/i18n";
import { cleanText, userText } from "../../lib/text";
import { cityByName, DEFAULT_CITY_NAME } from "../../lib/places";
import { readDecimal } from "../../lib/money";
import { DomainError } from "../../lib/domain-error";
import { categories, isCategory, type Category } from "./categories";
import { readGroup, type GroupInput } from "./group";
import { checkWeeklyHours, HORIZON_CHOICES, minuteText, NOTICE_CHOICES, parseMinute, type DayRanges, type WeeklyHours, type WeeklyHoursProblem } from "../../shared/availability";

const msg = (key: MessageKey) => ({ message: key });

export const DEFAULT_MIN_DURATION = 60;

export const titleSchema = userText({
  invalid: "activity.titleRequired",
  required: "activity.titleRequired",
  max: { length: ACTIVITY_TITLE_MAX, message: "activity.titleTooLong" },
  characters: "activity.titleCharacters",
});
export const descriptionSchema = userText({
  kind: "multiline",
  invalid: "activity.descriptionRequired",
  required: "activity.descriptionRequired",
  max: { length: ACTIVITY_DESCRIPTION_MAX, message: "activity.descriptionTooLong" },
  characters: "activity.descriptionCharacters",
});
export const categorySchema = z.enum(categories, msg("activity.categoryRequired"));

/**
 * The hourly rate as people type it ("45", "45.5", "45,50") or as a number, kept as the decimal
 * typed: what it is in minor units depends on the activity's currency, which the service knows
 * (`priceIn`). Empty, unreadable or zero is refused here.
 */
export const hourlyRateSchema = z
  .union([z.string(), z.number()], msg("activity.rateInvalid"))
  .transform((v, ctx) => {
    if (!String(v).trim()) {
      ctx.addIssue({ code: "custom", message: "activity.rateRequired" });
      return z.NEVER;
    }
    const decimal = readDecimal(v);
    if (decimal === null) {
      ctx.addIssue({ code: "custom", message: "activity.rateInvalid" });
      return z.NEVER;
    }
    if (!/[1-9]/.test(decimal)) {
      ctx.addIssue({ code: "custom", message: "activity.ratePositive" });
      return z.NEVER;
    }
    return decimal;
  });

/**
 * A duration given as hours (the wizard's strings, "1.5") or minutes, as a plain decimal string
 * or a number; must be on the 30-minute grid between 30 and 240 minutes. Anything else
 * (booleans, lists, "0x3C", "1e1") is NaN, which no grid accepts.
 */
function durationMinutes(value: unknown, unit: "hours" | "minutes"): number | null {
  if (value === null || value === undefined || value === "") return null;
  let n: number;
  if (typeof value === "number") n = value;
  else if (typeof value === "string" && /^\s*\d+(\.\d+)?\s*$/.test(value)) n = Number(value);
  else return Number.NaN;
  if (!Number.isFinite(n)) return Number.NaN;
  return Math.round(unit === "hours" ? n * 60 : n);
}

export const onDurationGrid = (m: number) => Number.isInteger(m) && m >= DURATION_MIN && m <= DURATION_MAX && m % DURATION_STEP === 0;

export const photosListSchema = z
  .array(z.string(msg("activity.photosInvalid")).min(1, msg("activity.photosInvalid")).max(300, msg("activity.photosInvalid")), msg("activity.photosInvalid"))
  .max(ACTIVITY_PHOTOS_MAX, msg("activity.tooManyPhotos"));

export const meetingPointSchema = userText({
  invalid: "activity.meetingPointInvalid",
  max: { length: MEETING_POINT_MAX, message: "activity.meetingPointTooLong" },
  characters: "activity.meetingPointCharacters",
});

/** A page of browse results holds this many activities; the API may ask for 1 to 100. */
export const PAGE_SIZE = 20;
const API_PAGE_MAX = 100;

export interface BrowseQuery {
  city: string;
  category?: Category;
  limit: number;
  cursor?: string;
}

/**
 * What a browse request asks for, read the same way by the page and `GET /api/activities`: a
 * listed city (else the person's own, else the default), a known category or all, a page size
 * (the API's `limit`, clamped), and the cursor of the page before.
 */
export function readBrowseQuery(query: Record<string, unknown>, person: { city: string | null } | null, opts: { sizeFromQuery?: boolean } = {}): BrowseQuery {
  const city = cityByName(query.city)?.name ?? cityByName(person?.city)?.name ?? DEFAULT_CITY_NAME;
  const category = isCategory(query.category) ? query.category : undefined;
  const asked = Number(query.limit);
  const limit = opts.sizeFromQuery && Number.isFinite(asked) && asked >= 1 ? Math.min(Math.floor(asked), API_PAGE_MAX) : PAGE_SIZE;
  return { city, category, limit, cursor: typeof query.cursor === "string" ? query.cursor : undefined };
}

/** A field's refusal: a catalogue key, or one that names a weekday (`{day}`) of the weekly hours. */
export type ActivityError = MessageKey | { key: MessageKey; day: number };
export type ActivityErrors = Record<string, ActivityError>;

/** The weekday's name in the language, 0 Monday … 6 Sunday. */
export const dayNameKey = (day: number) => `activity.day${day}` as MessageKey;
export const dayShortKey = (day: number) => `activity.dayShort${day}` as MessageKey;

/**
 * The refusal of an activity as sent: each refused field's message, the first one the answer's;
 * a refusal about one weekday names it (`{day}`, said in the person's language).
 */
export function activityRefusal(errors: ActivityErrors): DomainError {
  const fields: Record<string, MessageKey> = {};
  let params: Record<string, string | number> | undefined;
  for (const [field, e] of Object.entries(errors)) {
    if (typeof e === "string") fields[field] = e;
    else {
      fields[field] = e.key;
      params = { day: dayNameKey(e.day), max: MAX_RANGES_PER_DAY };
    }
  }
  return new DomainError(Object.values(fields)[0]!, 400, { fields, params });
}

/** The weekday a refusal of the weekly hours is about (its field is marked), if it is about one. */
export function hoursErrorDay(error: DomainError): number | undefined {
  const day = error.details.params?.day;
  const match = typeof day === "string" ? /^activity\.day(\d)$/.exec(day) : null;
  return match ? Number(match[1]) : undefined;
}

// ---- When the activity can be booked (docs/decisions/0037-availability.md) ----

const HOURS_PROBLEM: Record<WeeklyHoursProblem | "format", MessageKey> = {
  format: "activity.hoursFormat",
  invalidTime: "activity.hoursInvalidTime",
  endBeforeStart: "activity.hoursEndBeforeStart",
  overlap: "activity.hoursOverlap",
  tooMany: "activity.hoursTooMany",
};

/** A minute from "09:30" or "9:30" ("9h30" too); NaN (refused as not a half-hour time) when off the grid. */
const minuteOf = (hours: string, minutes: string): number => {
  if (Number(minutes) >= 60) return Number.NaN;
  return parseMinute(`${hours.padStart(2, "0")}:${minutes}`) ?? Number.NaN;
};

/**
 * One day's ranges as people write them: "09:00-12:00, 14:00-18:00" (a hyphen or a dash between
 * the two times, commas or semicolons between ranges); empty means closed. Null when the text
 * cannot be read as ranges.
 */
export function parseDayText(text: string): DayRanges | null {
  const parts = text.split(/[,;]/).map((p) => p.trim()).filter(Boolean);
  const ranges: DayRanges = [];
  for (const part of parts) {
    const m = /^(\d{1,2})[:h.](\d{2})\s*[-–—]\s*(\d{1,2})[:h.](\d{2})$/i.exec(part);
    if (!m) return null;
    ranges.push([minuteOf(m[1]!, m[2]!), minuteOf(m[3]!, m[4]!)]);
  }
  return ranges;
}

/** A day's ranges written back as the form's text: "09:00-12:00, 14:00-18:00". */
export const dayText = (ranges: DayRanges | undefined) => (ranges ?? []).map(([a, b]) => `${minuteText(a)}-${minuteText(b)}`).join(", ");

/** A weekday's ranges as the JSON API takes them: pairs of minutes, or the text form. */
const dayJsonSchema = z.union([z.array(z.tuple([z.number(), z.number()])), z.string(), z.null()]);

/** Weekly hours as read: the hours (null: any day), or why they cannot be. */
export type WeeklyHoursReading = { hours: WeeklyHours | null } | { problem: ActivityError };

/**
 * Weekly hours from the JSON API or the plain form, checked with the shared rules.
 *
 * - API: `weeklyHours` is `null` or `"any"` (never set: any day, starts 08:00–22:00), or a list
 *   of seven days, Monday first, each either a list of `[from, to]` minute pairs
 *   (`[[540, 720]]`), or the text form (`"09:00-12:00, 14:00-18:00"`); `[]`, `""` or `null`
 *   is a closed day.
 * - Form (no JavaScript): `hoursMode` is `any` or `weekly`; with `weekly`, `hours0` (Monday) …
 *   `hours6` (Sunday) hold each day's ranges as text, empty for closed.
 *
 * Undefined when neither is given (nothing to change).
 */
export function readWeeklyHours(input: Record<string, unknown>): WeeklyHoursReading | undefined {
  let days: (DayRanges | null)[];
  if (input.weeklyHours !== undefined) {
    const v = input.weeklyHours;
    if (v === null || v === "any") return { hours: null };
    if (!Array.isArray(v) || v.length !== 7) return { problem: "activity.hoursInvalid" };
    days = [];
    for (const day of v) {
      const r = dayJsonSchema.safeParse(day);
      if (!r.success) return { problem: "activity.hoursInvalid" };
      days.push(r.data === null ? [] : typeof r.data === "string" ? parseDayText(r.data) : r.data);
    }
  } else if (input.hoursMode !== undefined) {
    if (input.hoursMode === "any") return { hours: null };
    if (input.hoursMode !== "weekly") return { problem: "activity.hoursInvalid" };
    days = [0, 1, 2, 3, 4, 5, 6].map((d) => {
      const text = input[`hours${d}`] ?? "";
      return typeof text === "string" ? parseDayText(text) : null;
    });
  } else return undefined;
  const unreadable = days.findIndex((d) => d === null);
  if (unreadable >= 0) return { problem: { key: HOURS_PROBLEM.format, day: unreadable } };
  const checked = checkWeeklyHours(days as DayRanges[]);
  if (!checked.ok) return { problem: { key: HOURS_PROBLEM[checked.problem], day: checked.day } };
  if (checked.hours.every((d) => d.length === 0)) return { problem: "activity.hoursEmpty" };
  return { hours: checked.hours };
}

/** One of a list of numbers, given as a number or a string of digits (a form's select). */
const choiceSchema = (choices: readonly number[], message: MessageKey) =>
  z.union([z.number(), z.string()], msg(message)).transform((v, ctx) => {
    const n = typeof v === "number" ? v : /^\s*\d+\s*$/.test(v) ? Number(v) : Number.NaN;
    if (!choices.includes(n)) {
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    }
    return n;
  });
export const noticeSchema = choiceSchema(NOTICE_CHOICES, "activity.noticeInvalid");
export const horizonSchema = choiceSchema(HORIZON_CHOICES, "activity.horizonInvalid");
export type ActivityChanges = Partial<typeof activities.$inferInsert>;

/** A yes/no as JSON or a form sends it; null for anything else. */
const asBool = (v: unknown): boolean | null => {
  if (v === true || v === "true" || v === "on" || v === "1") return true;
  if (v === false || v === "false" || v === "0" || v === "") return false;
  return null;
};

/**
 * An activity as sent, each field checked by its rule, in the domain's terms. What needs the host
 * or the activity itself is left to the service (`activityChanges`): the durations together, the
 * place (the host's or the activity's own unless given), whose photos these are.
 */
export interface ActivityInput {
  /** The fields that need nothing else: title, description, category, hours, notice, horizon, instant booking, meeting point. */
  changes: ActivityChanges;
  /** The hourly rate typed, as a decimal: its minor units are the activity's currency's (`priceIn`). */
  hourlyRate?: string;
  /** Durations given, in minutes (NaN: unreadable; a null maximum: none); each left as it is when absent. */
  durations: { min?: number | null; max?: number | null };
  /** The place given (either part, or neither on creation: the host's own). */
  place?: { country?: string; city?: string };
  /** The photos, in order, without repeats. */
  photos?: string[];
  /** How it is sold and, for a group, its sessions' fields (checked together by the service). */
  group: GroupInput;
}

/**
 * Reads an activity from a form or the API (spec §7 field names; the wizard's duration and
 * maxDuration as hours in strings, or minutes). On creation every required field must be there;
 * on a change only the fields given are read. Refused with every field's message at once,
 * thrown as it is rather than as a schema's issues, as a refusal about one weekday names it.
 */
export function readActivity(input: Record<string, unknown>, creating: boolean): ActivityInput {
  const errors: ActivityErrors = {};
  const changes: ActivityChanges = {};
  const has = (k: string) => input[k] !== undefined && input[k] !== null;

  const check = <T>(key: string, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { message: string }[] } } }, apply: (v: T) => void) => {
    if (!has(key) && !creating) return;
    const r = schema.safeParse(has(key) ? input[key] : "");
    if (r.success) apply(r.data);
    else errors[key] = firstIssue(r.error);
  };
  check("title", titleSchema, (v) => (changes.title = v));
  check("description", descriptionSchema, (v) => (changes.description = v));
  if (has("category") || creating) {
    const r = categorySchema.safeParse(input.category);
    if (r.success) changes.category = r.data;
    else errors.category = "activity.categoryRequired";
  }
  let hourlyRate: string | undefined;
  // A group is priced per person (`group.ts`): its hourly rate is not asked for.
  const group = readGroup(input);
  // The plain form posts its hourly rate field empty when a group is chosen: not given either.
  if (group.format !== "group" || (has("hourlyRate") && input.hourlyRate !== "")) check("hourlyRate", hourlyRateSchema, (v) => (hourlyRate = v));

  // When it can be booked: left as they are (or the defaults) unless given.
  const hours = readWeeklyHours(input);
  if (hours && "problem" in hours) errors.weeklyHours = hours.problem;
  else if (hours) changes.weeklyHours = hours.hours;
  for (const [key, schema] of [["noticeMinutes", noticeSchema], ["horizonDays", horizonSchema]] as const) {
    if (!has(key)) continue;
    const r = schema.safeParse(input[key]);
    if (r.success) changes[key] = r.data;
    else errors[key] = firstIssue(r.error);
  }
  // A checkbox sends "on" when ticked and nothing otherwise: on the form (`hoursMode` given) or
  // on creation, a missing box is off; through the API, a missing field is left as it is.
  if (has("instantBooking") || creating || input.hoursMode !== undefined) {
    const on = has("instantBooking") ? asBool(input.instantBooking) : false;
    if (on === null) errors.instantBooking = "activity.instantBookingInvalid";
    else changes.instantBooking = on;
  }

  // What guests get back on cancelling (docs/decisions/0050): flexible unless chosen; left as it is on a change that does not say.
  if (has("cancellationPolicy") || creating) {
    const policy = has("cancellationPolicy") ? input.cancellationPolicy : "flexible";
    if (typeof policy === "string" && (cancellationPolicies as readonly string[]).includes(policy)) changes.cancellationPolicy = policy as CancellationPolicy;
    else errors.cancellationPolicy = "activity.policyInvalid";
  }

  // Durations: the minimum as minutes or as the wizard's hours; the maximum too, where an empty
  // one (or null) means none.
  const durations: ActivityInput["durations"] = {};
  if (has("minDurationMinutes")) durations.min = durationMinutes(input.minDurationMinutes, "minutes");
  else if (has("duration")) durations.min = durationMinutes(input.duration, "hours");
  if (has("maxDurationMinutes") || "maxDurationMinutes" in input) durations.max = durationMinutes(input.maxDurationMinutes, "minutes");
  else if (has("maxDuration") || "maxDuration" in input) durations.max = durationMinutes(input.maxDuration, "hours");

  // Meeting point: "share later" clears it.
  if (has("hasMeetingPoint") || has("meetingPoint") || creating) {
    const point = input.meetingPoint;
    const wants = has("hasMeetingPoint") ? asBool(input.hasMeetingPoint) : has("meetingPoint") ? typeof point !== "string" || Boolean(cleanText(point)) : false;
    if (wants === null) errors.meetingPoint = "activity.meetingPointRequired";
    else if (wants) {
      const r = meetingPointSchema.safeParse(input.meetingPoint ?? "");
      if (!r.success) errors.meetingPoint = firstIssue(r.error);
      else if (!r.data) errors.meetingPoint = "activity.meetingPointRequired";
      else {
        changes.meetingPoint = r.data;
        changes.hasMeetingPoint = true;
      }
    } else {
      changes.meetingPoint = null;
      changes.hasMeetingPoint = false;
    }
  }

  // Place: the host's own city unless another is given (found by the service).
  let place: ActivityInput["place"];
  if (has("city") || has("country") || creating) {
    const country = has("country") ? input.country : undefined;
    const city = has("city") ? input.city : undefined;
    if ((country !== undefined && typeof country !== "string") || (city !== undefined && typeof city !== "string")) errors.city = "activity.placeInvalid";
    else place = { country, city };
  }

  let photos: string[] | undefined;
  if (has("photos") || creating) {
    const r = photosListSchema.safeParse(listFrom(input.photos ?? []));
    if (!r.success) errors.photos = firstIssue(r.error);
    else photos = [...new Set(r.data)];
  }

  if (Object.keys(errors).length) throw activityRefusal(errors);
  return { changes, hourlyRate, durations, place, photos, group };
}

/** `POST /api/activities`: a new activity (every required field). */
export const activityCreateBody = z.record(z.string(), z.unknown()).transform((sent) => readActivity(sent, true));

/** `PATCH /api/activities/:id`: the fields to change. */
export const activityUpdateBody = z.record(z.string(), z.unknown()).transform((sent) => readActivity(sent, false));

/** The fields of when an activity can be booked, on its own form (a form without JavaScript, so `hoursMode` is "any" unless sent). */
const HOURS_FIELD = /^(hoursMode|hours[0-6]|noticeMinutes|horizonDays|instantBooking)$/;

/** An activity's hours form: only the fields of when it can be booked are read; anything else sent is not. */
export const activityHoursBody = z
  .record(z.string(), z.unknown())
  .transform((sent) => readActivity({ hoursMode: "any", ...Object.fromEntries(Object.entries(sent).filter(([k]) => HOURS_FIELD.test(k))) }, false));
