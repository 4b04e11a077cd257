/**
 * Reading saved activities: whether one person saved some activities (the hearts), and their
 * list, newest first, each with its activity while it is still listed.
 */
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { dialect } from "../../db/dialect";
import { one, readCache, type Db } from "../../db/client";
import { activities, savedActivities, users, type Activity } from "../../db/schema";
import { publicUserColumns, type PublicUserSource } from "../profiles/serialize";

/**
 * Every activity id a person saved (at most MAX_SAVED), read once per database change: each page
 * of cards a signed-in person browses draws its hearts from it (as the unread badge is read).
 */
const savedIdsByUser = readCache<ReadonlySet<string>>(10_000);

/** The ids of the activities the person saved (the hearts of a page of cards). */
export function savedIdsOf(db: Db, userId: string): Promise<ReadonlySet<string>> {
  return savedIdsByUser(db, userId, async () => {
    const rows = await db.select({ id: savedActivities.activityId }).from(savedActivities).where(eq(savedActivities.userId, userId));
    return new Set(rows.map((row) => row.id));
  });
}

/** Whether the person saved this activity. */
export async function isSaved(db: Db, userId: string, activityId: string): Promise<{ createdAt: number } | undefined> {
  return one(db
    .select({ createdAt: savedActivities.createdAt })
    .from(savedActivities)
    .where(and(eq(savedActivities.userId, userId), eq(savedActivities.activityId, activityId))));
}

/** How many activities the person keeps. */
export async function countSaved(db: Pick<Db, "select">, userId: string): Promise<number> {
  const row = await one(db.select({ n: sql<number>`count(*)` }).from(savedActivities).where(eq(savedActivities.userId, userId)));
  return Number(row?.n ?? 0);
}

/**
 * One saved activity in the list: its activity and host while it is listed (active, not
 * archived, not hidden by an operator), else only what was kept when it was saved.
 */
export type SavedEntry =
  | { activityId: string; title: string; savedAt: number; available: true; activity: Activity; host: PublicUserSource | null }
  | { activityId: string; title: string; savedAt: number; available: false };

const listed = sql`${dialect.isTrue(activities.active)} AND ${activities.archivedAt} IS NULL AND ${activities.hiddenAt} IS NULL`;

/** The person's saved activities, newest first (at most MAX_SAVED: the list is bounded when saving). */
export async function savedList(db: Db, userId: string): Promise<SavedEntry[]> {
  const rows = await db
    .select({ saved: savedActivities, activity: activities, listed: sql<unknown>`CASE WHEN ${listed} THEN 1 ELSE 0 END` })
    .from(savedActivities)
    .leftJoin(activities, eq(activities.id, savedActivities.activityId))
    .where(eq(savedActivities.userId, userId))
    .orderBy(desc(savedActivities.createdAt), desc(savedActivities.activityId));
  const hostIds = [...new Set(rows.flatMap((row) => (row.activity && Number(row.listed) === 1 ? [row.activity.hostId] : [])))];
  const hosts = hostIds.length
    ? new Map((await db.select(publicUserColumns).from(users).where(inArray(users.id, hostIds))).map((host) => [host.id, host]))
    : new Map<string, PublicUserSource>();
  return rows.map(({ saved, activity, listed: isListed }): SavedEntry => {
    const base = { activityId: saved.activityId, title: saved.title, savedAt: saved.createdAt };
    if (!activity || Number(isListed) !== 1) return { ...base, available: false };
    return { ...base, title: activity.title, available: true, activity, host: hosts.get(activity.hostId) ?? null };
  });
}
