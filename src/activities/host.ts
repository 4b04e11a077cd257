import { and, count, eq, isNull } from "drizzle-orm";
import { activities } from "../../db/schema";
import type { Deps } from "../deps";

export async function countOwnActivities(deps: Deps, hostId: string) {
  const row = await deps.db
    .select({ n: count() })
    .from(activities)
    .where(and(eq(activities.hostId, hostId), isNull(activities.archivedAt)))
    .get();
  return row?.n ?? 0;
}
