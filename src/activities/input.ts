import { z } from "zod";
import { ACTIVITY_DESCRIPTION_MAX, ACTIVITY_PHOTOS_MAX, ACTIVITY_TITLE_MAX, DURATION_MAX, DURATION_MIN, DURATION_STEP, MEETING_POINT_MAX } from "../../shared/limits";
import type { MessageKey } from "../texts";
import { userText } from "../lib/text";
import { cityByName, DEFAULT_CITY_NAME } from "../lib/places";
import { categories, isCategory, type Category } from "./categories";

const msg = (key: MessageKey) => ({ message: key });

export { DURATION_MAX, DURATION_MIN, DURATION_STEP } from "../../shared/limits";
export const DEFAULT_MIN_DURATION = 60;
/** Highest hourly rate accepted, in dollars: a typo guard, not a business rule. */
export const RATE_MAX = 10_000;

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
 * The hourly rate as people type it ("45", "45.5", "45.50") or as a number; becomes cents.
 * More than two decimals, zero or less, or over the cap are refused.
 */
export const hourlyRateSchema = z
  .union([z.string(), z.number()], msg("activity.rateInvalid"))
  .transform((v, ctx) => {
    const text = String(v).trim().replace(",", ".");
    if (!text) {
      ctx.addIssue({ code: "custom", message: "activity.rateRequired" });
      return z.NEVER;
    }
    if (!/^\d+(\.\d{1,2})?$/.test(text)) {
      ctx.addIssue({ code: "custom", message: "activity.rateInvalid" });
      return z.NEVER;
    }
    const [whole = "0", fraction = ""] = text.split(".");
    const cents = Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
    if (cents <= 0) {
      ctx.addIssue({ code: "custom", message: "activity.ratePositive" });
      return z.NEVER;
    }
    if (cents > RATE_MAX * 100) {
      ctx.addIssue({ code: "custom", message: "activity.rateTooHigh" });
      return z.NEVER;
    }
    return cents;
  });

/**
 * A duration given as hours (the wizard's strings, "1.5") or minutes, as a plain decimal string
 * or a number; must be on the 30-minute grid between 30 and 240 minutes. Anything else
 * (booleans, lists, "0x3C", "1e1") is NaN, which no grid accepts.
 */
export function durationMinutes(value: unknown, unit: "hours" | "minutes"): number | null {
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
