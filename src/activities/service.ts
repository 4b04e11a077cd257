import { count, eq } from "drizzle-orm";
import { writeTransaction } from "../../db/client";
import { activities, bookings, type Activity, type User } from "../../db/schema";
import type { Deps } from "../deps";
import { listFrom } from "../lib/http";
import { firstIssue } from "../lib/validation";
import type { MessageKey } from "../texts";
import { cleanText } from "../lib/text";
import { findCity } from "../lib/places";
import { ownedObjects } from "../uploads/service";
import {
  categorySchema,
  DEFAULT_MIN_DURATION,
  DURATION_MAX,
  DURATION_STEP,
  descriptionSchema,
  durationMinutes,
  hourlyRateSchema,
  meetingPointSchema,
  onDurationGrid,
  photosListSchema,
  titleSchema,
} from "./input";

export type ActivityErrors = Record<string, MessageKey>;
export type ActivityChanges = Partial<typeof activities.$inferInsert>;

/** A yes/no as JSON or a form sends it; null for anything else. */
const asBool = (v: unknown): boolean | null => {
  if (v === true || v === "true" || v === "on" || v === "1") return true;
  if (v === false || v === "false" || v === "0" || v === "") return false;
  return null;
};

/**
 * Reads an activity from a form or the API (spec §7 field names; the wizard's duration and
 * maxDuration as hours in strings, or minutes). On create every required field must be there;
 * on update only the fields given are checked. Nothing is written here.
 */
export async function readActivityInput(
  deps: Deps,
  host: User,
  input: Record<string, unknown>,
  existing?: Activity,
): Promise<{ ok: true; changes: ActivityChanges } | { ok: false; errors: ActivityErrors }> {
  const errors: ActivityErrors = {};
  const changes: ActivityChanges = {};
  const creating = !existing;
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
  check("hourlyRate", hourlyRateSchema, (v) => (changes.hourlyRateCents = v));

  // Durations: minimum on the 30-minute grid; maximum absent, or at least minimum + 30.
  const minGiven = has("minDurationMinutes") ? durationMinutes(input.minDurationMinutes, "minutes") : has("duration") ? durationMinutes(input.duration, "hours") : undefined;
  const maxGiven = has("maxDurationMinutes") || "maxDurationMinutes" in input
    ? durationMinutes(input.maxDurationMinutes, "minutes")
    : has("maxDuration") || "maxDuration" in input
      ? durationMinutes(input.maxDuration, "hours")
      : undefined;
  const min = minGiven === undefined || minGiven === null ? (existing?.minDurationMinutes ?? DEFAULT_MIN_DURATION) : minGiven;
  const max = maxGiven === undefined ? (existing?.maxDurationMinutes ?? null) : maxGiven;
  if (!onDurationGrid(min)) errors.duration = "activity.durationInvalid";
  else if (max !== null && (!onDurationGrid(max) || max < min + DURATION_STEP || max > DURATION_MAX)) errors.maxDuration = "activity.maxDurationInvalid";
  else {
    if (minGiven !== undefined || creating) changes.minDurationMinutes = min;
    if (maxGiven !== undefined || creating) changes.maxDurationMinutes = max;
  }

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

  // Place: the host's own city unless another valid one is given.
  if (has("city") || has("country") || creating) {
    const country = has("country") ? input.country : (existing?.country ?? host.country);
    const city = has("city") ? input.city : (existing?.city ?? host.city);
    const found = findCity(country, city);
    if (!found) errors.city = "activity.placeInvalid";
    else {
      changes.country = String(country);
      changes.city = found.name;
    }
  }

  if (has("photos") || creating) {
    const r = photosListSchema.safeParse(listFrom(input.photos ?? []));
    if (!r.success) errors.photos = firstIssue(r.error);
    else {
      const list = [...new Set(r.data)];
      const owned = await ownedObjects(deps, host.id, list);
      if (list.some((p) => !owned.has(p) && !(existing?.photos ?? []).includes(p))) errors.photos = "activity.photosInvalid";
      else changes.photos = list;
    }
  }

  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, changes };
}

/** Milliseconds before the user may create another activity (`limits.activityCreate`), 0 when they may. */
export const creationWait = (deps: Deps, userId: string): number => deps.limits.activityCreate.retryAfter(userId, deps.now());

/** Creates an activity; every creation, from any screen or call, counts towards `creationWait`. */
export async function createActivity(deps: Deps, host: User, changes: ActivityChanges): Promise<Activity> {
  const now = deps.now();
  const [row] = await deps.db
    .insert(activities)
    .values({ ...(changes as typeof activities.$inferInsert), id: crypto.randomUUID(), hostId: host.id, createdAt: now, updatedAt: now })
    .returning();
  deps.limits.activityCreate.hit(host.id, now);
  return row!;
}

export async function updateActivity(deps: Deps, activity: Activity, changes: ActivityChanges): Promise<Activity> {
  const [row] = await deps.db
    .update(activities)
    .set({ ...changes, updatedAt: deps.now() })
    .where(eq(activities.id, activity.id))
    .returning();
  return row!;
}

/**
 * Deletes an activity, or archives it when it has bookings: those bookings (and their reviews)
 * still point at it, so it stays in the database but is no longer listed or bookable.
 */
export async function deleteActivity(deps: Deps, activity: Activity): Promise<"deleted" | "archived"> {
  return writeTransaction(deps.db, (tx) => {
    const used = tx.select({ n: count() }).from(bookings).where(eq(bookings.activityId, activity.id)).get();
    if ((used?.n ?? 0) > 0) {
      tx.update(activities).set({ active: false, archivedAt: deps.now(), updatedAt: deps.now() }).where(eq(activities.id, activity.id)).run();
      return "archived" as const;
    }
    tx.delete(activities).where(eq(activities.id, activity.id)).run();
    return "deleted" as const;
  });
}

// TRANSITIONAL: reads other features still import from here (src/bookings/queries.ts,
// src/conversations/routes.tsx); they belong to queries.ts.
