import { and, eq, gt, inArray, isNotNull, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { activities, activityFormats, bookings, type Activity, type ActivityFormat } from "../../db/schema";
import type { MessageKey } from "../../lib/i18n";
import { readDecimal } from "../../lib/money";
import type { WeeklyHours } from "../../shared/availability";
import { priceIn, priceMessage } from "./prices";

/** The changes and the refusals by field the service collects (`ActivityChanges`, `ActivityErrors` of `input.ts`). */
type Changes = Partial<typeof activities.$inferInsert>;
type Errors = Record<string, MessageKey | { key: MessageKey; day: number }>;

/**
 * How an activity is sold (docs/decisions/0049): "private", one booking holds the host's time,
 * priced by the hour; or "group", sessions of a fixed length, sold by the spot. This reads the
 * group's fields as a form or the API sends them (`readGroup`) and checks them together, with
 * the activity as it is and the spots its sessions hold (`groupChanges`).
 */

export const CAPACITY_MIN = 2;
export const CAPACITY_MAX = 50;
/** A session lasts from 30 minutes to 8 hours, in 30-minute steps. */
export const SESSION_MIN = 30;
export const SESSION_MAX = 480;
export const SESSION_STEP = 30;
/** How long before a session its minimum to run is counted, in hours. */
export const MIN_TO_RUN_HOURS = [2, 4, 12, 24, 48, 72] as const;
export const DEFAULT_MIN_TO_RUN_HOURS = 24;

/** The group fields as sent: each read into its type (NaN: unreadable; null: cleared), absent when not sent. */
export interface GroupInput {
  format?: ActivityFormat | "invalid";
  capacity?: number;
  /** Typed as a decimal (null: unreadable); in minor units once the currency is known (`priceIn`). */
  pricePerPerson?: TypedPrice;
  sessionMinutes?: number;
  minSpots?: number | null;
  maxSpots?: number | null;
  privateGroupPrice?: TypedPrice | null;
  minToRun?: number | null;
  minToRunHours?: number | null;
}

const given = (v: unknown) => v !== undefined;
const empty = (v: unknown) => v === null || v === "";

/** A whole number from a number or a string of digits; NaN otherwise. */
const wholeNumber = (v: unknown): number => (typeof v === "number" ? v : typeof v === "string" && /^\s*\d{1,6}\s*$/.test(v) ? Number(v) : Number.NaN);

/** A price as typed: its decimal (`readDecimal`), null when it is none. */
export interface TypedPrice {
  decimal: string | null;
}

const typedPrice = (v: unknown): TypedPrice => ({ decimal: readDecimal(v) });

/**
 * The group fields of a form or the API: `format`, `capacity`, `pricePerPerson` (like
 * `hourlyRate`), `sessionMinutes` (or `sessionHours`), `minSpots`, `maxSpots`,
 * `privateGroupPrice` and `minToRun` (empty or null: none), `minToRunHours`.
 */
export function readGroup(input: Record<string, unknown>): GroupInput {
  const out: GroupInput = {};
  if (given(input.format)) out.format = (activityFormats as readonly unknown[]).includes(input.format) ? (input.format as ActivityFormat) : "invalid";
  if (given(input.capacity) && !empty(input.capacity)) out.capacity = wholeNumber(input.capacity);
  if (given(input.pricePerPerson) && !empty(input.pricePerPerson)) out.pricePerPerson = typedPrice(input.pricePerPerson);
  if (given(input.sessionMinutes) && !empty(input.sessionMinutes)) out.sessionMinutes = wholeNumber(input.sessionMinutes);
  else if (given(input.sessionHours) && !empty(input.sessionHours)) {
    const h = typeof input.sessionHours === "number" ? input.sessionHours : typeof input.sessionHours === "string" && /^\s*\d+(\.\d+)?\s*$/.test(input.sessionHours) ? Number(input.sessionHours) : Number.NaN;
    out.sessionMinutes = Math.round(h * 60);
  }
  for (const key of ["minSpots", "maxSpots", "minToRun", "minToRunHours"] as const) {
    if (given(input[key])) out[key] = empty(input[key]) ? null : wholeNumber(input[key]);
  }
  if (given(input.privateGroupPrice)) out.privateGroupPrice = empty(input.privateGroupPrice) ? null : typedPrice(input.privateGroupPrice);
  return out;
}

/** Spots held in a session of the activity that has not ended, per session (the most any one holds). */
export async function mostSpotsHeld(db: Db, activityId: string, now: number): Promise<{ most: number; sessions: number }> {
  const rows = await db
    .select({ startsAt: bookings.startsAt, spots: sql<number>`sum(${bookings.spots})` })
    .from(bookings)
    .where(
      and(
        eq(bookings.activityId, activityId),
        isNotNull(bookings.pricePerPersonCents),
        gt(bookings.endsAt, now),
        or(inArray(bookings.status, ["pending", "accepted"]), and(eq(bookings.status, "awaiting_payment"), gt(bookings.holdUntil, now))),
      ),
    )
    .groupBy(bookings.startsAt);
  return { most: rows.reduce((m, r) => Math.max(m, Number(r.spots)), 0), sessions: rows.length };
}

/** Does a session of `minutes` fit in some day of the weekly hours (none set: any start 08:00–22:00 does)? */
export const sessionFits = (hours: WeeklyHours | null, minutes: number) => !hours || hours.some((day) => day.some(([a, b]) => b - a >= minutes));

/**
 * The group fields an activity ends with, checked together against the activity as it is (on a
 * change) and the spots its upcoming sessions hold: a capacity of 2 to 50, a price per person, a
 * session length on the 30-minute grid that fits the weekly hours, the spots per booking within
 * the capacity, a private group's price, a minimum to run within the capacity. A private activity
 * has none of them (cleared when it stops being a group). Errors go into `errors`, by field.
 */
export async function groupChanges(
  db: Db,
  input: GroupInput,
  /** The activity's currency (its prices' minor units); `currencyChanged`: its prices must be given again in it. */
  money: { currency: string; currencyChanged: boolean },
  existing: Activity | undefined,
  weeklyHours: WeeklyHours | null,
  changes: Changes,
  errors: Errors,
  now: number,
): Promise<void> {
  if (input.format === "invalid") {
    errors.format = "activity.formatInvalid";
    return;
  }
  const format = input.format ?? existing?.format ?? "private";
  const held = existing ? await mostSpotsHeld(db, existing.id, now) : { most: 0, sessions: 0 };
  const wasGroup = existing?.format === "group";
  // A change of how upcoming sessions are sold would strand their bookings: refused while any is held.
  if (held.sessions > 0 && wasGroup && format !== "group") {
    errors.format = "activity.formatHasBookings";
    return;
  }
  if (format === "private") {
    if (input.format !== undefined || wasGroup) Object.assign(changes, { format, capacity: null, pricePerPersonCents: null, sessionMinutes: null, minSpots: null, maxSpots: null, privateGroupPriceCents: null, minToRun: null, minToRunHours: null });
    return;
  }
  const fail = (field: string, key: MessageKey) => (errors[field] ??= key);
  // Prices typed are read in the activity's currency; one it had in another currency is no price in this one.
  const { currency, currencyChanged } = money;
  const cents = (field: string, typed: TypedPrice, own: MessageKey): number => {
    const read = priceIn(typed.decimal, currency);
    if ("cents" in read) return read.cents;
    fail(field, priceMessage(read.problem, currency, own));
    return Number.NaN;
  };
  const typed: Partial<Pick<Activity, "pricePerPersonCents" | "privateGroupPriceCents">> = {};
  if (input.pricePerPerson !== undefined) typed.pricePerPersonCents = cents("pricePerPerson", input.pricePerPerson, "activity.pricePerPersonInvalid");
  if (input.privateGroupPrice !== undefined) typed.privateGroupPriceCents = input.privateGroupPrice === null ? null : cents("privateGroupPrice", input.privateGroupPrice, "activity.privateGroupPriceInvalid");
  const given = { ...input, ...typed };
  const isPrice = (key: string) => key === "pricePerPersonCents" || key === "privateGroupPriceCents";
  const pick = <K extends keyof typeof given & keyof Activity>(key: K) => (given[key] !== undefined ? given[key] : wasGroup && !(currencyChanged && isPrice(key)) ? existing![key] : undefined);
  if (currencyChanged && wasGroup) {
    if (input.pricePerPerson === undefined) fail("pricePerPerson", "activity.priceInNewCurrency");
    if (input.privateGroupPrice === undefined && existing!.privateGroupPriceCents !== null) fail("privateGroupPrice", "activity.priceInNewCurrency");
  }

  const capacity = pick("capacity");
  if (capacity === undefined || capacity === null) fail("capacity", "activity.capacityRequired");
  else if (!Number.isInteger(capacity) || capacity < CAPACITY_MIN || capacity > CAPACITY_MAX) fail("capacity", "activity.capacityInvalid");
  else if (capacity < held.most) fail("capacity", "activity.capacityBelowHeld");

  const price = pick("pricePerPersonCents");
  if (price === undefined || price === null) fail("pricePerPerson", "activity.pricePerPersonRequired");
  else if (Number.isNaN(price)) fail("pricePerPerson", "activity.pricePerPersonInvalid");


  const session = pick("sessionMinutes");
  if (session === undefined || session === null) fail("sessionMinutes", "activity.sessionRequired");
  else if (!Number.isInteger(session) || session < SESSION_MIN || session > SESSION_MAX || session % SESSION_STEP !== 0) fail("sessionMinutes", "activity.sessionInvalid");
  else if (!sessionFits(weeklyHours, session)) fail("sessionMinutes", "activity.sessionOutsideHours");
  else if (wasGroup && held.sessions > 0 && session !== existing!.sessionMinutes) fail("sessionMinutes", "activity.sessionHasBookings");

  const cap = typeof capacity === "number" && Number.isInteger(capacity) ? capacity : CAPACITY_MAX;
  const minSpots = pick("minSpots") ?? 1;
  const maxSpots = pick("maxSpots") ?? cap;
  if (!Number.isInteger(minSpots) || minSpots < 1 || minSpots > cap) fail("minSpots", "activity.minSpotsInvalid");
  else if (!Number.isInteger(maxSpots) || maxSpots < minSpots || maxSpots > cap) fail("maxSpots", "activity.maxSpotsInvalid");

  const privateGroup = pick("privateGroupPriceCents") ?? null;
  if (privateGroup !== null && Number.isNaN(privateGroup)) fail("privateGroupPrice", "activity.privateGroupPriceInvalid");

  const minToRun = pick("minToRun") ?? null;
  const minToRunHours = minToRun === null ? null : (pick("minToRunHours") ?? DEFAULT_MIN_TO_RUN_HOURS);
  if (minToRun !== null && (!Number.isInteger(minToRun) || minToRun < 2 || minToRun > cap)) fail("minToRun", "activity.minToRunInvalid");
  else if (minToRunHours !== null && !(MIN_TO_RUN_HOURS as readonly number[]).includes(minToRunHours)) fail("minToRunHours", "activity.minToRunHoursInvalid");

  Object.assign(changes, {
    format,
    capacity,
    pricePerPersonCents: price,
    // The lists sorted or shown by price read the hourly rate: a group's is its price per person.
    hourlyRateCents: price,
    sessionMinutes: session,
    minSpots,
    maxSpots,
    privateGroupPriceCents: privateGroup,
    minToRun,
    minToRunHours,
  });
}
