import { and, avg, count, desc, eq, inArray, isNull, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { activities, reviews, users } from "../../db/schema";
import { ageOn } from "../lib/dates";
import { categoryPhoto } from "./categories";

export const DEFAULT_CITY = "New York";

export interface ActivityCard {
  id: string;
  title: string;
  category: string;
  hourlyRateCents: number;
  cover: string;
  rating: number | null;
  host: { firstName: string | null; photo: string | null; age: number | null };
}

/** Bookable activities of a city, newest first, with their host and real average rating. */
export function browseActivities(db: Db, opts: { city: string; category?: string; limit: number }) {
  return activityCards(
    db,
    and(eq(activities.city, opts.city), eq(activities.active, true), isNull(activities.archivedAt), opts.category ? eq(activities.category, opts.category) : undefined),
    opts.limit,
  );
}

/** A host's listed activities, newest first. */
export function hostActivities(db: Db, hostId: string, limit: number) {
  return activityCards(db, and(eq(activities.hostId, hostId), eq(activities.active, true), isNull(activities.archivedAt)), limit);
}

async function activityCards(db: Db, where: SQL | undefined, limit: number) {
  const [rows, total] = await Promise.all([
    db
      .select({ activity: activities, hostFirstName: users.firstName, hostPhoto: users.photo, hostBirth: users.dateOfBirth })
      .from(activities)
      .innerJoin(users, eq(users.id, activities.hostId))
      .where(where)
      .orderBy(desc(activities.createdAt), desc(activities.id))
      .limit(limit),
    db.select({ n: count() }).from(activities).where(where).get(),
  ]);
  const ids = rows.map((r) => r.activity.id);
  const ratings = ids.length
    ? await db
        .select({ activityId: reviews.activityId, stars: avg(reviews.stars) })
        .from(reviews)
        .where(inArray(reviews.activityId, ids))
        .groupBy(reviews.activityId)
    : [];
  const ratingOf = new Map(ratings.map((r) => [r.activityId, r.stars === null ? null : Number(r.stars)]));
  const cards: ActivityCard[] = rows.map(({ activity, hostFirstName, hostPhoto, hostBirth }) => ({
    id: activity.id,
    title: activity.title,
    category: activity.category,
    hourlyRateCents: activity.hourlyRateCents,
    cover: activity.photos[0] ?? categoryPhoto(activity.category),
    rating: ratingOf.get(activity.id) ?? null,
    host: { firstName: hostFirstName, photo: hostPhoto, age: ageOn(hostBirth) },
  }));
  return { cards, total: total?.n ?? 0 };
}
