import { count, eq } from "drizzle-orm";
import { writeTransaction, one } from "../../db/client";
import { activities, bookings, type Activity, type User } from "../../db/schema";
import type { Deps } from "../deps";
import type { ActivityChanges } from "./input";

/**
 * Milliseconds before the user may create another activity (`limits.activityCreate`), 0 when they
 * may: asked before the form is read, so someone over the limit is told first. `createActivity` decides.
 */
export const creationWait = (deps: Deps, userId: string): Promise<number> => deps.limits.activityCreate.retryAfter(userId, deps.now());

/**
 * Creates an activity. Every creation, from any screen or call, is counted against
 * `limits.activityCreate` before it is written, in one step with the limit, so creations sent
 * together are no more than it allows; over it nothing is written.
 */
export async function createActivity(deps: Deps, host: User, changes: ActivityChanges): Promise<{ ok: true; activity: Activity } | { ok: false; retryAfterMs: number }> {
  const now = deps.now();
  const wait = await deps.limits.activityCreate.take(host.id, now);
  if (wait > 0) return { ok: false, retryAfterMs: wait };
  const [row] = await writeTransaction(deps.db, (tx) => tx
    .insert(activities)
    .values({ ...(changes as typeof activities.$inferInsert), id: crypto.randomUUID(), hostId: host.id, createdAt: now, updatedAt: now })
    .returning());
  return { ok: true, activity: row! };
}

export async function updateActivity(deps: Deps, activity: Activity, changes: ActivityChanges): Promise<Activity> {
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
// src/conversations/routes.tsx); they belong to queries.ts.
