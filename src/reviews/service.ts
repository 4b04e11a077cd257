import { avg, count, desc, eq, sql } from "drizzle-orm";
import { roundRating } from "../lib/labels";
import { perDb, type Db } from "../../db/client";
import { reviews, users } from "../../db/schema";
import { publicUser, publicUserColumns } from "../profiles/serialize";
import { reviewView, type ReviewView } from "./serialize";

export type { ReviewView } from "./serialize";

/**
 * Reviews of one activity or received by one person, newest first, and their count and average:
 * prepared once per database (the activity page and profiles read them on every view).
 */
const reviewStatements = perDb((db) => {
  const by = (column: typeof reviews.activityId | typeof reviews.reviewedUserId) => ({
    page: db
      .select({ review: reviews, by: publicUserColumns })
      .from(reviews)
      .innerJoin(users, eq(users.id, reviews.reviewerId))
      .where(eq(column, sql.placeholder("id")))
      .orderBy(desc(reviews.createdAt))
      .limit(sql.placeholder("limit"))
      .prepare(),
    stats: db.select({ n: count(), average: avg(reviews.stars) }).from(reviews).where(eq(column, sql.placeholder("id"))).prepare(),
  });
  return { activity: by(reviews.activityId), reviewed: by(reviews.reviewedUserId) };
});

/** Reviews of `kind` for `id`, newest first (`limit` of them; all when absent), with their count and average to one decimal. */
async function reviewsBy(db: Db, kind: "activity" | "reviewed", id: string, limit?: number) {
  const statements = reviewStatements(db)[kind];
  // SQLite reads LIMIT -1 as no limit.
  const rows = limit === 0 ? [] : await statements.page.all({ id, limit: limit ?? -1 });
  const stats = await statements.stats.get({ id });
  const list: ReviewView[] = rows.map(({ review, by }) => reviewView(review, publicUser(by)));
  const total = stats?.n ?? 0;
  return { reviews: list, total, average: total ? roundRating(stats!.average) : null };
}

/** Reviews a person received. */
export const reviewsOf = (db: Db, userId: string, limit?: number) => reviewsBy(db, "reviewed", userId, limit);

/** Reviews of an activity (written by its guests). */
export const reviewsOfActivity = (db: Db, activityId: string, limit?: number) => reviewsBy(db, "activity", activityId, limit);
