import { avg, count, desc, eq, type SQL } from "drizzle-orm";
import { roundRating } from "../lib/labels";
import type { Db } from "../../db/client";
import { reviews, users } from "../../db/schema";
import { publicUser, publicUserColumns } from "../profiles/serialize";
import { reviewView, type ReviewView } from "./serialize";

export type { ReviewView } from "./serialize";

/** Reviews matching `where`, newest first, with their count and average to one decimal. */
export async function reviewsWhere(db: Db, where: SQL, limit?: number) {
  const query = db
    .select({ review: reviews, by: publicUserColumns })
    .from(reviews)
    .innerJoin(users, eq(users.id, reviews.reviewerId))
    .where(where)
    .orderBy(desc(reviews.createdAt));
  const [rows, stats] = await Promise.all([
    limit === 0 ? Promise.resolve([]) : limit ? query.limit(limit) : query,
    db.select({ n: count(), average: avg(reviews.stars) }).from(reviews).where(where).get(),
  ]);
  const list: ReviewView[] = rows.map(({ review, by }) => reviewView(review, publicUser(by)));
  const total = stats?.n ?? 0;
  return { reviews: list, total, average: total ? roundRating(stats!.average) : null };
}

/** Reviews a person received. */
export const reviewsOf = (db: Db, userId: string, limit?: number) => reviewsWhere(db, eq(reviews.reviewedUserId, userId), limit);

/** Reviews of an activity (written by its guests). */
export const reviewsOfActivity = (db: Db, activityId: string, limit?: number) => reviewsWhere(db, eq(reviews.activityId, activityId), limit);
