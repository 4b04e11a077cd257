/**
 * Saving and unsaving an activity (docs/decisions/0055). Both are idempotent: they set a state,
 * so a double tap or a request the service worker sends again after being offline changes
 * nothing more. Only a listed activity can be saved; unsaving works whatever became of it.
 */
import { and, eq } from "drizzle-orm";
import { writeTransaction } from "../../db/client";
import { savedActivities } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../../lib/domain-error";
import { uuidLike } from "../../lib/validation";
import { findListedActivity } from "../activities/queries";
import { countSaved, isSaved } from "./queries";
import { MAX_SAVED } from "./rules";

/** The listed activity an id names, or a 404 (whatever the id looks like). */
export async function savableActivity(deps: Deps, activityId: string) {
  const activity = uuidLike(activityId) ? await findListedActivity(deps, activityId) : undefined;
  if (!activity) throw new DomainError("saved.error.notFound", 404);
  return activity;
}

/**
 * Keeps a listed activity in the person's Saved list, with its title as it is now (the list
 * names it by that once it is gone). Already saved: nothing changes, and no write is made.
 * A person at MAX_SAVED is refused (409) until they remove some.
 */
export async function saveActivity(deps: Deps, userId: string, activityId: string): Promise<{ created: boolean; title: string }> {
  const activity = await savableActivity(deps, activityId);
  if (await isSaved(deps.db, userId, activity.id)) return { created: false, title: activity.title };
  const created = await writeTransaction(deps.db, async (tx) => {
    // Counted in the transaction that inserts, so two saves at once cannot pass the limit together.
    if ((await countSaved(tx, userId)) >= MAX_SAVED) throw new DomainError("saved.error.tooMany", 409, { params: { max: MAX_SAVED } });
    const rows = await tx
      .insert(savedActivities)
      .values({ userId, activityId: activity.id, title: activity.title, createdAt: deps.now() })
      .onConflictDoNothing()
      .returning({ activityId: savedActivities.activityId });
    return rows.length > 0;
  });
  return { created, title: activity.title };
}

/**
 * Takes an activity out of the person's Saved list; not saved (or no such activity) is no change.
 * Answers the title the heart names it by: as saved, else the listed activity's, else none.
 */
export async function unsaveActivity(deps: Deps, userId: string, activityId: string): Promise<{ removed: boolean; title: string }> {
  if (!(await isSaved(deps.db, userId, activityId))) {
    const activity = uuidLike(activityId) ? await findListedActivity(deps, activityId) : undefined;
    return { removed: false, title: activity?.title ?? "" };
  }
  const removed = await writeTransaction(deps.db, async (tx) =>
    tx.delete(savedActivities).where(and(eq(savedActivities.userId, userId), eq(savedActivities.activityId, activityId))).returning({ title: savedActivities.title }),
  );
  return { removed: removed.length > 0, title: removed[0]?.title ?? "" };
}
