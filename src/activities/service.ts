import { count, eq } from "drizzle-orm";
import { writeTransaction, one } from "../../db/client";
import { activities, bookings, type Activity, type User } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../../lib/domain-error";
import { currencyOf, findCity } from "../../lib/places";
import { ownedObjects } from "../uploads/service";
import { DURATION_MAX, DURATION_STEP } from "../../shared/limits";
import { groupChanges } from "./group";
import { priceIn, priceMessage, type PriceProblem } from "./prices";
import type { MessageKey } from "../../lib/i18n";
import { activityRefusal, DEFAULT_MIN_DURATION, onDurationGrid, type ActivityChanges, type ActivityErrors, type ActivityInput } from "./input";

/**
 * Milliseconds before the user may create another activity (`limits.activityCreate`), 0 when they
 * may: the create form asks it when it is refused, so someone over the limit is told that first.
 * `createActivity` decides.
 */
export const creationWait = (deps: Deps, userId: string): Promise<number> => deps.limits.activityCreate.retryAfter(userId, deps.now());

/**
 * The changes an activity as sent makes (`readActivity`), with what needs the host or the
 * activity itself: the durations together (the minimum on the 30-minute grid, the maximum absent
 * or at least 30 minutes more), the place (the activity's own, else the host's, unless given),
 * the currency (its city's) and the prices read in it, photos the host uploaded or the activity
 * already has. Refused with each field's message.
 */
async function activityChanges(deps: Deps, host: User, input: ActivityInput, existing?: Activity): Promise<ActivityChanges> {
  const errors: ActivityErrors = {};
  const changes: ActivityChanges = { ...input.changes };
  const creating = !existing;

  const { min: minGiven, max: maxGiven } = input.durations;
  const min = minGiven === undefined || minGiven === null ? (existing?.minDurationMinutes ?? DEFAULT_MIN_DURATION) : minGiven;
  const max = maxGiven === undefined ? (existing?.maxDurationMinutes ?? null) : maxGiven;
  if (!onDurationGrid(min)) errors.duration = "activity.durationInvalid";
  else if (max !== null && (!onDurationGrid(max) || max < min + DURATION_STEP || max > DURATION_MAX)) errors.maxDuration = "activity.maxDurationInvalid";
  else {
    if (minGiven !== undefined || creating) changes.minDurationMinutes = min;
    if (maxGiven !== undefined || creating) changes.maxDurationMinutes = max;
  }

  if (input.place) {
    const country = input.place.country ?? existing?.country ?? host.country;
    const found = findCity(country, input.place.city ?? existing?.city ?? host.city);
    if (!found) errors.city = "activity.placeInvalid";
    else {
      changes.country = String(country);
      changes.city = found.name;
    }
  }

  // The currency: its city's when created; a move to a city of another currency takes that one,
  // unless the activity has bookings, which keep theirs (src/activities/prices.ts).
  const cityCurrency = changes.city !== undefined ? currencyOf(changes.country, changes.city) : undefined;
  let currency = existing?.currency ?? cityCurrency ?? "usd";
  const currencyChanged = existing !== undefined && cityCurrency !== undefined && cityCurrency !== existing.currency;
  if (creating && cityCurrency) changes.currency = currency = cityCurrency;
  else if (currencyChanged) {
    if (await hasBookings(deps, existing.id)) errors.city = "activity.currencyHasBookings";
    else changes.currency = currency = cityCurrency;
  }

  if (input.hourlyRate !== undefined) {
    const read = priceIn(input.hourlyRate, currency);
    if ("cents" in read) changes.hourlyRateCents = read.cents;
    else errors.hourlyRate = priceMessage(read.problem, currency, RATE_REFUSALS[read.problem]);
  } else if (currencyChanged && !errors.city && (input.group.format ?? existing.format) === "private") errors.hourlyRate = "activity.priceInNewCurrency";

  const weeklyHours = changes.weeklyHours !== undefined ? changes.weeklyHours : (existing?.weeklyHours ?? null);
  await groupChanges(deps.db, input.group, { currency, currencyChanged: currencyChanged && !errors.city }, existing, weeklyHours, changes, errors, deps.now());

  if (input.photos) {
    const owned = await ownedObjects(deps, host.id, input.photos);
    if (input.photos.some((p) => !owned.has(p) && !(existing?.photos ?? []).includes(p))) errors.photos = "activity.photosInvalid";
    else changes.photos = input.photos;
  }

  if (Object.keys(errors).length) throw activityRefusal(errors);
  return changes;
}

/** An hourly rate's refusals, by what is wrong with it. */
const RATE_REFUSALS: Record<PriceProblem, MessageKey> = { invalid: "activity.rateInvalid", decimals: "activity.rateInvalid", zero: "activity.ratePositive", tooHigh: "activity.rateTooHigh" };

/** Has the activity any booking, of any status (each keeps the currency it was made in)? */
async function hasBookings(deps: Deps, activityId: string): Promise<boolean> {
  return Boolean(await one(deps.db.select({ id: bookings.id }).from(bookings).where(eq(bookings.activityId, activityId)).limit(1)));
}

/**
 * Creates an activity. Every creation, from any screen or call, is counted against
 * `limits.activityCreate` before it is written, in one step with the limit, so creations sent
 * together are no more than it allows; over it nothing is written (429). An activity refused
 * for what it holds is not counted.
 */
export async function createActivity(deps: Deps, host: User, input: ActivityInput): Promise<Activity> {
  const changes = await activityChanges(deps, host, input);
  const now = deps.now();
  const wait = await deps.limits.activityCreate.take(host.id, now);
  if (wait > 0) throw new DomainError("activity.tooManyCreated", 429, { retryAfterMs: wait });
  const [row] = await writeTransaction(deps.db, (tx) => tx
    .insert(activities)
    .values({ ...(changes as typeof activities.$inferInsert), id: crypto.randomUUID(), hostId: host.id, createdAt: now, updatedAt: now })
    .returning());
  return row!;
}

/** Changes the host's activity (`input`: only the fields given). */
export async function updateActivity(deps: Deps, host: User, activity: Activity, input: ActivityInput): Promise<Activity> {
  const changes = await activityChanges(deps, host, input, activity);
  const [row] = await writeTransaction(deps.db, (tx) => tx
    .update(activities)
    .set({ ...changes, updatedAt: deps.now() })
    .where(eq(activities.id, activity.id))
    .returning());
  return row!;
}

/**
 * Deletes an activity, or archives it when it has bookings: those bookings (and their reviews)
 * still point at it, so it stays in the database but is no longer listed or bookable.
 */
export async function deleteActivity(deps: Deps, activity: Activity): Promise<"deleted" | "archived"> {
  return writeTransaction(deps.db, async (tx) => {
    const used = await one(tx.select({ n: count() }).from(bookings).where(eq(bookings.activityId, activity.id)));
    if ((used?.n ?? 0) > 0) {
      await tx.update(activities).set({ active: false, archivedAt: deps.now(), updatedAt: deps.now() }).where(eq(activities.id, activity.id));
      return "archived" as const;
    }
    await tx.delete(activities).where(eq(activities.id, activity.id));
    return "deleted" as const;
  });
}

// TRANSITIONAL: reads other features still import from here (src/bookings/queries.ts,
// src/web/conversations/routes.tsx); they belong to queries.ts.
