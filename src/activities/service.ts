import { and, avg, count, desc, eq, inArray, isNull, lt, or, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { activities, reviews, users, type Activity } from "../../db/schema";
import { publicUser, publicUserColumns, type PublicUser } from "../profiles/serialize";
import { reviewsOfActivity } from "../reviews/service";
import { coverPhoto } from "./categories";
import { roundRating } from "../lib/labels";

/** A listed activity with its host's public view and its rating, for the JSON API and for cards. */
export interface ActivityListing {
  activity: Activity;
  host: PublicUser;
  rating: { average: number | null; count: number };
}

/** What the browse and profile screens show of an activity: nothing more. */
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
}

export function activityCard({ activity, host, rating }: ActivityListing): ActivityCard {
  return {
    id: activity.id,
    createdAt: activity.createdAt,
    title: activity.title,
    category: activity.category,
    hourlyRateCents: activity.hourlyRateCents,
    cover: coverPhoto(activity),
    rating: rating.average,
    reviewCount: rating.count,
    host: { firstName: host.firstName, photo: host.photo, age: host.age },
  };
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
export async function browseListings(db: Db, opts: { city: string; category?: string; limit: number; cursor?: string }, today = new Date()) {
  const after = decodeCursor(opts.cursor);
  const base = and(eq(activities.city, opts.city), eq(activities.active, true), isNull(activities.archivedAt), opts.category ? eq(activities.category, opts.category) : undefined);
  const page = after
    ? and(base, or(lt(activities.createdAt, after.createdAt), and(eq(activities.createdAt, after.createdAt), lt(activities.id, after.id))))
    : base;
  const result = await listings(db, page, opts.limit + 1, today, base);
  const more = result.listings.length > opts.limit;
  const list = result.listings.slice(0, opts.limit);
  return { listings: list, total: result.total, nextCursor: more ? encodeCursor(list[list.length - 1]!.activity) : null };
}

/** A browse page as cards. */
export async function browseActivities(db: Db, opts: { city: string; category?: string; limit: number; cursor?: string }) {
  const { listings: list, ...page } = await browseListings(db, opts);
  return { cards: list.map(activityCard), ...page };
}

/** A host's listed activities, newest first. */
export function hostListings(db: Db, hostId: string, limit: number, today = new Date()) {
  return listings(db, and(eq(activities.hostId, hostId), eq(activities.active, true), isNull(activities.archivedAt)), limit, today);
}

/** A host's listed activities as cards. */
export async function hostActivities(db: Db, hostId: string, limit: number) {
  const { listings: list, total } = await hostListings(db, hostId, limit);
  return { cards: list.map(activityCard), total };
}

async function listings(db: Db, where: SQL | undefined, limit: number, today: Date, countWhere: SQL | undefined = where) {
  const [rows, total] = await Promise.all([
    db
      .select({ activity: activities, host: publicUserColumns })
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
  const ratingOf = new Map(ratings.map((r) => [r.activityId, roundRating(r.stars)]));
  const countOf = new Map(ratings.map((r) => [r.activityId, r.n]));
  const list: ActivityListing[] = rows.map(({ activity, host }) => ({
    activity,
    host: publicUser(host, today),
    rating: { average: ratingOf.get(activity.id) ?? null, count: countOf.get(activity.id) ?? 0 },
  }));
  return { listings: list, total: total?.n ?? 0 };
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
