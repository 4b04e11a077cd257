import { and, avg, count, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { literalLimit, one, perDb, perLimit, type Db } from "../../db/client";
import { activities, bookings, reviews, users, type Booking } from "../../db/schema";
import type { Deps } from "../deps";
import { roundRating } from "../../lib/labels";
import { publicUser, publicUserColumns } from "../profiles/serialize";
import { reviewView, writtenReviewView, type ReviewView, type WrittenReviewView } from "./serialize";
import { reviewDeadline } from "./rules";

/** Reading reviews: published ones only (what is shown or counted), and what is left to write. */

/**
 * Published reviews of one activity or received by one person, newest first, and their count
 * and average: prepared once per database (the activity page and profiles read them on every view).
 */
const reviewStatements = perDb((db) => {
  const by = (column: typeof reviews.activityId | typeof reviews.reviewedUserId) => {
    const where = and(eq(column, sql.placeholder("id")), isNotNull(reviews.publishedAt));
    const page = () => db.select({ review: reviews, by: publicUserColumns }).from(reviews).innerJoin(users, eq(users.id, reviews.reviewerId)).where(where).orderBy(desc(reviews.createdAt));
    return {
      all: page().prepare(),
      // Each caller's limit is a constant, written into its statement (`literalLimit`).
      page: perLimit((limit) => page().limit(literalLimit(limit)).prepare()),
      stats: db.select({ n: count(), average: avg(reviews.stars) }).from(reviews).where(where).prepare(),
    };
  };
  return { activity: by(reviews.activityId), reviewed: by(reviews.reviewedUserId) };
});

/** Reviews of `kind` for `id`, newest first (`limit` of them; all when absent), with their count and average to one decimal. */
async function reviewsBy(db: Db, kind: "activity" | "reviewed", id: string, limit?: number) {
  const statements = reviewStatements(db)[kind];
  // Both at once: one round trip on PostgreSQL, not two.
  const [rows, stats] = await Promise.all([limit === 0 ? [] : (limit === undefined ? statements.all : statements.page(limit)).execute({ id }), one(statements.stats.execute({ id }))]);
  const list: ReviewView[] = rows.map(({ review, by }) => reviewView(review, publicUser(by)));
  const total = stats?.n ?? 0;
  return { reviews: list, total, average: total ? roundRating(stats!.average) : null };
}

/** Published reviews a person received. */
export const reviewsOf = (db: Db, userId: string, limit?: number) => reviewsBy(db, "reviewed", userId, limit);

/** Published reviews of an activity (written by its guests). */
export const reviewsOfActivity = (db: Db, activityId: string, limit?: number) => reviewsBy(db, "activity", activityId, limit);

/** The reviews a person wrote, newest first, published or still hidden, with whom and what they are about. */
export async function writtenReviews(deps: Deps, userId: string): Promise<WrittenReviewView[]> {
  const rows = await deps.db
    .select({ review: reviews, completedAt: bookings.completedAt, timeZone: bookings.timeZone, activityTitle: activities.title, about: publicUserColumns })
    .from(reviews)
    .innerJoin(bookings, eq(bookings.id, reviews.bookingId))
    .innerJoin(activities, eq(activities.id, bookings.activityId))
    .innerJoin(users, eq(users.id, reviews.reviewedUserId))
    .where(eq(reviews.reviewerId, userId))
    .orderBy(desc(reviews.createdAt));
  const today = new Date(deps.now());
  return rows.map((r) => writtenReviewView(r.review, { activityTitle: r.activityTitle, about: publicUser(r.about, today), visibleBy: reviewDeadline(r), timeZone: r.timeZone }));
}

/** Of these bookings, the ones the person may review now: completed, within their 14 days, not reviewed by them yet. */
export async function bookingsToReview(deps: Deps, userId: string, list: Pick<Booking, "id" | "status" | "completedAt">[]): Promise<Set<string>> {
  const now = deps.now();
  const open = list.filter((b) => b.status === "completed" && b.completedAt !== null && now < reviewDeadline(b)).map((b) => b.id);
  if (!open.length) return new Set();
  const done = await deps.db
    .select({ bookingId: reviews.bookingId })
    .from(reviews)
    .where(and(eq(reviews.reviewerId, userId), inArray(reviews.bookingId, open)));
  const reviewed = new Set(done.map((r) => r.bookingId));
  return new Set(open.filter((id) => !reviewed.has(id)));
}

