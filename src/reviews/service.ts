import { and, avg, count, desc, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import { roundRating } from "../lib/labels";
import { perDb, writeTransaction, type Db, type WriteTx } from "../../db/client";
import { activities, bookings, reviews, users, type Booking, type Review } from "../../db/schema";
import type { Deps } from "../deps";
import type { MessageKey } from "../texts";
import { cancelJob, defineJob, scheduleJob } from "../jobs";
import { firstIssue } from "../lib/validation";
import { participantBooking } from "../bookings/service";
import { publicUser, publicUserColumns, type PublicUserSource } from "../profiles/serialize";
import { readStars, reviewTextSchema } from "./input";
import { reviewView, writtenReviewView, type ReviewView, type WrittenReviewView } from "./serialize";

export type { ReviewView, WrittenReviewView } from "./serialize";

/**
 * Reviews (ARCHITECTURE decision 9, docs/decisions/0023): once per side of a completed booking,
 * only about the other side, within 14 days of completion, and double-blind: a review stays
 * hidden until the other side has written theirs or the 14 days are over, so neither can answer
 * the other's. Everything shown or counted reads published reviews only.
 */
export const REVIEW_WINDOW_MS = 14 * 24 * 60 * 60 * 1000;

/** A refusal worded for the person: a catalogue key and an HTTP status. */
export class ReviewError extends Error {
  constructor(
    readonly key: MessageKey,
    readonly status: number,
  ) {
    super(key);
  }
}

/** When writing closes for a completed booking, and its hidden reviews are published at the latest. */
export const reviewDeadline = (booking: Pick<Booking, "completedAt">) => (booking.completedAt ?? 0) + REVIEW_WINDOW_MS;

// ---------------------------------------------------------------------------------------------
// Reading: published reviews only.

/**
 * Published reviews of one activity or received by one person, newest first, and their count
 * and average: prepared once per database (the activity page and profiles read them on every view).
 */
const reviewStatements = perDb((db) => {
  const by = (column: typeof reviews.activityId | typeof reviews.reviewedUserId) => {
    const where = and(eq(column, sql.placeholder("id")), isNotNull(reviews.publishedAt));
    return {
      page: db
        .select({ review: reviews, by: publicUserColumns })
        .from(reviews)
        .innerJoin(users, eq(users.id, reviews.reviewerId))
        .where(where)
        .orderBy(desc(reviews.createdAt))
        .limit(sql.placeholder("limit"))
        .prepare(),
      stats: db.select({ n: count(), average: avg(reviews.stars) }).from(reviews).where(where).prepare(),
    };
  };
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
    .orderBy(desc(reviews.createdAt))
    .all();
  const today = new Date(deps.now());
  return rows.map((r) => writtenReviewView(r.review, { activityTitle: r.activityTitle, about: publicUser(r.about, today), visibleBy: reviewDeadline(r), timeZone: r.timeZone }));
}

/** Of these bookings, the ones the person may review now: completed, within their 14 days, not reviewed by them yet. */
export function bookingsToReview(deps: Deps, userId: string, list: Pick<Booking, "id" | "status" | "completedAt">[]): Set<string> {
  const now = deps.now();
  const open = list.filter((b) => b.status === "completed" && b.completedAt !== null && now < reviewDeadline(b)).map((b) => b.id);
  if (!open.length) return new Set();
  const done = deps.db
    .select({ bookingId: reviews.bookingId })
    .from(reviews)
    .where(and(eq(reviews.reviewerId, userId), inArray(reviews.bookingId, open)))
    .all();
  const reviewed = new Set(done.map((r) => r.bookingId));
  return new Set(open.filter((id) => !reviewed.has(id)));
}

// ---------------------------------------------------------------------------------------------
// Writing.


export type ReviewRole = "guest" | "host";

/** A booking as one of its sides sees it for reviewing: the other side, the activity, and whether they may write now. */
export interface ReviewTarget {
  booking: Booking;
  role: ReviewRole;
  other: PublicUserSource;
  activityTitle: string;
  /** Why the person cannot review it now, or null when they can. */
  refusal: ReviewError | null;
}

/** The booking to review, for one of its two sides; anyone else gets 404 (ARCHITECTURE decision 11). */
export function reviewTarget(deps: Deps, userId: string, bookingId: unknown): ReviewTarget {
  const found = participantBooking(deps, userId, bookingId);
  if (!found) throw new ReviewError("reviews.bookingNotFound", 404);
  const { booking, role } = found;
  const otherId = role === "guest" ? booking.hostId : booking.guestId;
  const other = deps.db.select(publicUserColumns).from(users).where(eq(users.id, otherId)).get()!;
  const activity = deps.db.select({ title: activities.title }).from(activities).where(eq(activities.id, booking.activityId)).get()!;
  return { booking, role, other, activityTitle: activity.title, refusal: refusalOf(deps, userId, booking) };
}

function refusalOf(deps: Deps, userId: string, booking: Booking): ReviewError | null {
  if (booking.status !== "completed" || booking.completedAt === null) return new ReviewError("reviews.notCompleted", 409);
  const written = deps.db
    .select({ id: reviews.id })
    .from(reviews)
    .where(and(eq(reviews.bookingId, booking.id), eq(reviews.reviewerId, userId)))
    .get();
  if (written) return new ReviewError("reviews.alreadyReviewed", 409);
  if (deps.now() >= reviewDeadline(booking)) return new ReviewError("reviews.windowClosed", 409);
  return null;
}

/** What `POST /api/reviews` and the review form send. */
export interface ReviewInput {
  bookingId: unknown;
  reviewedUserId: unknown;
  stars: unknown;
  text: unknown;
}

const publishKey = (bookingId: string) => `reviews.publish:${bookingId}`;

/**
 * Writes a review (spec §7 `POST /api/reviews`). The writer must be a side of the booking (404
 * otherwise), review the other side, give 1–5 stars and at most 500 characters, once, while the
 * booking is completed and its 14 days last. It is written hidden; the second side's review
 * publishes both in the same transaction, and the first one schedules their publication at the
 * end of the 14 days (a durable job, cancelled if both arrive first).
 */
export function submitReview(deps: Deps, userId: string, input: ReviewInput): { review: WrittenReviewView; published: boolean } {
  const target = reviewTarget(deps, userId, input.bookingId);
  const { booking, role, other } = target;
  if (input.reviewedUserId !== other.id) throw new ReviewError("reviews.otherSideOnly", 400);
  const stars = readStars(input.stars);
  if (stars === "missing") throw new ReviewError("reviews.ratingRequiredBody", 400);
  if (stars === "invalid") throw new ReviewError("reviews.starsInvalid", 400);
  const text = input.text === undefined || input.text === null ? { success: true as const, data: null } : reviewTextSchema.safeParse(input.text);
  if (!text.success) throw new ReviewError(firstIssue(text.error), 400);
  if (target.refusal) throw target.refusal;

  const now = deps.now();
  const deadline = reviewDeadline(booking);
  const written = writeTransaction(deps.db, (tx) => {
    const review = tx
      .insert(reviews)
      .values({
        id: crypto.randomUUID(),
        bookingId: booking.id,
        reviewerId: userId,
        reviewedUserId: other.id,
        // The guest's review of the host also rates the activity; the host's of the guest does not.
        activityId: role === "guest" ? booking.activityId : null,
        stars,
        text: text.data,
        publishedAt: null,
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning()
      .get();
    // Two submissions at once: the unique index let the first one in.
    if (!review) return null;
    const theirs = tx
      .select({ id: reviews.id })
      .from(reviews)
      .where(and(eq(reviews.bookingId, booking.id), eq(reviews.reviewerId, other.id)))
      .get();
    if (!theirs) {
      scheduleJob(tx, publishJob, { bookingId: booking.id }, { at: deadline, key: publishKey(booking.id) });
      return { review, published: [] as Review[] };
    }
    const published = publishHidden(tx, booking.id, now);
    cancelJob(tx, publishKey(booking.id));
    return { review: published.find((r) => r.id === review.id) ?? review, published };
  });
  if (!written) throw new ReviewError("reviews.alreadyReviewed", 409);
  if (written.published.length) deps.events.emit({ type: "reviews.published", booking, reviews: written.published });
  const about = publicUser(other, new Date(now));
  return { review: writtenReviewView(written.review, { activityTitle: target.activityTitle, about, visibleBy: deadline, timeZone: booking.timeZone }), published: written.review.publishedAt !== null };
}

/** Publishes a booking's hidden reviews; returns them as published. */
function publishHidden(tx: WriteTx, bookingId: string, now: number): Review[] {
  return tx
    .update(reviews)
    .set({ publishedAt: now })
    .where(and(eq(reviews.bookingId, bookingId), isNull(reviews.publishedAt)))
    .returning()
    .all();
}

/**
 * The 14 days of a completed booking are over: whatever was written is published (job).
 * Idempotent: a second run finds nothing hidden.
 */
export function publishDueReviews(deps: Deps, bookingId: string) {
  const booking = deps.db.select().from(bookings).where(eq(bookings.id, bookingId)).get();
  if (!booking) return;
  const published = writeTransaction(deps.db, (tx) => publishHidden(tx, bookingId, deps.now()));
  if (published.length) deps.events.emit({ type: "reviews.published", booking, reviews: published });
}

/** A completed booking's reviews are published 14 days after completion, whether or not both sides wrote. */
export const publishJob = defineJob<{ bookingId: string }>({ kind: "reviews.publish", run: ({ bookingId }, { deps }) => publishDueReviews(deps, bookingId) });
