import { and, avg, count, desc, eq, inArray, isNull, lt, or, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { activities, reviews, users, type Activity, type User } from "../../db/schema";
import { ageOn } from "../lib/dates";
import { reviewsOfActivity } from "../reviews/service";
import { categoryPhoto } from "./categories";


export interface ActivityCard {
  id: string;
  createdAt: number;
  title: string;
  category: string;
  hourlyRateCents: number;
  cover: string;
  rating: number | null;
  reviewCount: number;
  host: { firstName: string | null; photo: string | null; age: number | null };
  /** The full records, for the JSON API. */
  row: Activity;
  hostRow: User;
}

/** Where a page of results ends: the last card's creation time and id. */
export function encodeCursor(card: { createdAt: number; id: string }) {
  return Buffer.from(`${card.createdAt}_${card.id}`).toString("base64url");
}

function decodeCursor(cursor: string | undefined): { createdAt: number; id: string } | null {
  if (!cursor) return null;
  const m = /^(\d{1,15})_([0-9a-f-]{36})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  return m ? { createdAt: Number(m[1]), id: m[2]! } : null;
}

/**
 * Bookable activities of a city, newest first, with their host and real average rating, a page
 * at a time (keyset paging on the browse index, so page 100 costs what page 1 does).
 */
export async function browseActivities(db: Db, opts: { city: string; category?: string; limit: number; cursor?: string }) {
  const after = decodeCursor(opts.cursor);
  const base = and(eq(activities.city, opts.city), eq(activities.active, true), isNull(activities.archivedAt), opts.category ? eq(activities.category, opts.category) : undefined);
  const page = after
    ? and(base, or(lt(activities.createdAt, after.createdAt), and(eq(activities.createdAt, after.createdAt), lt(activities.id, after.id))))
    : base;
  const result = await activityCards(db, page, opts.limit + 1, base);
  const more = result.cards.length > opts.limit;
  const cards = result.cards.slice(0, opts.limit);
  return { cards, total: result.total, nextCursor: more ? encodeCursor(cards[cards.length - 1]!) : null };
}

/** A host's listed activities, newest first. */
export function hostActivities(db: Db, hostId: string, limit: number) {
  return activityCards(db, and(eq(activities.hostId, hostId), eq(activities.active, true), isNull(activities.archivedAt)), limit);
}

async function activityCards(db: Db, where: SQL | undefined, limit: number, countWhere: SQL | undefined = where) {
  const [rows, total] = await Promise.all([
    db
      .select({ activity: activities, host: users })
      .from(activities)
      .innerJoin(users, eq(users.id, activities.hostId))
      .where(where)
      .orderBy(desc(activities.createdAt), desc(activities.id))
      .limit(limit),
    db.select({ n: count() }).from(activities).where(countWhere).get(),
  ]);
  const ids = rows.map((r) => r.activity.id);
  const ratings = ids.length
    ? await db
        .select({ activityId: reviews.activityId, stars: avg(reviews.stars), n: count() })
        .from(reviews)
        .where(inArray(reviews.activityId, ids))
        .groupBy(reviews.activityId)
    : [];
  const ratingOf = new Map(ratings.map((r) => [r.activityId, r.stars === null ? null : Math.round(Number(r.stars) * 10) / 10]));
  const countOf = new Map(ratings.map((r) => [r.activityId, r.n]));
  const cards: ActivityCard[] = rows.map(({ activity, host }) => ({
    id: activity.id,
    createdAt: activity.createdAt,
    title: activity.title,
    category: activity.category,
    hourlyRateCents: activity.hourlyRateCents,
    cover: activity.photos[0] ?? categoryPhoto(activity.category),
    rating: ratingOf.get(activity.id) ?? null,
    reviewCount: countOf.get(activity.id) ?? 0,
    host: { firstName: host.firstName, photo: host.photo, age: ageOn(host.dateOfBirth) },
    row: activity,
    hostRow: host,
  }));
  return { cards, total: total?.n ?? 0 };
}

/** Average rating (one decimal) and count of an activity's reviews. */
export async function activityRating(db: Db, activityId: string) {
  const { average, total } = await reviewsOfActivity(db, activityId, 0);
  return { average, count: total };
}

/** An activity's reviews, newest first, with who wrote them. */
export async function activityReviews(db: Db, activityId: string, limit?: number) {
  return (await reviewsOfActivity(db, activityId, limit)).reviews;
}
