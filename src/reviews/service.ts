import { and, eq, isNull } from "drizzle-orm";
import { writeTransaction, type WriteTx, one } from "../../db/client";
import { activities, bookings, reviews, users, type Booking, type Review } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../../lib/domain-error";
import { cancelJob, defineJob, scheduleJob } from "../jobs";
import { publicUser, publicUserColumns, type PublicUserSource } from "../profiles/serialize";
import type { ReviewInput } from "./input";
import { reviewDeadline } from "./rules";
import { writtenReviewView, type WrittenReviewView } from "./serialize";

export type { ReviewView, WrittenReviewView } from "./serialize";


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
  refusal: DomainError | null;
}

/** The booking to review, for one of its two sides; anyone else gets 404 (ARCHITECTURE decision 11). */
export async function reviewTarget(deps: Deps, userId: string, found: { booking: Booking; role: ReviewRole } | null): Promise<ReviewTarget> {
  if (!found) throw new DomainError("reviews.bookingNotFound", 404);
  const { booking, role } = found;
  const otherId = role === "guest" ? booking.hostId : booking.guestId;
  const other = (await one(deps.db.select(publicUserColumns).from(users).where(eq(users.id, otherId))))!;
  const activity = (await one(deps.db.select({ title: activities.title }).from(activities).where(eq(activities.id, booking.activityId))))!;
  return { booking, role, other, activityTitle: activity.title, refusal: await refusalOf(deps, userId, booking) };
}

async function refusalOf(deps: Deps, userId: string, booking: Booking): Promise<DomainError | null> {
  if (booking.status !== "completed" || booking.completedAt === null) return new DomainError("reviews.notCompleted", 409);
  const written = await one(deps.db
    .select({ id: reviews.id })
    .from(reviews)
    .where(and(eq(reviews.bookingId, booking.id), eq(reviews.reviewerId, userId))));
  if (written) return new DomainError("reviews.alreadyReviewed", 409);
  if (deps.now() >= reviewDeadline(booking)) return new DomainError("reviews.windowClosed", 409);
  return null;
}

const publishKey = (bookingId: string) => `reviews.publish:${bookingId}`;

/**
 * Writes a review (spec §7 `POST /api/reviews`) of a booking the writer is a side of
 * (`reviewTarget`, 404 otherwise), its stars and text already checked (`reviewInput`). The writer
 * must review the other side, once, while the booking is completed and its 14 days last. It is written hidden; the second side's review
 * publishes both in the same transaction, and the first one schedules their publication at the
 * end of the 14 days (a durable job, cancelled if both arrive first).
 */
export async function submitReview(deps: Deps, userId: string, target: ReviewTarget, input: ReviewInput): Promise<{ review: WrittenReviewView; published: boolean }> {
  const { booking, role, other } = target;
  // The target is the caller's reading of `reviewTarget` for this person: never another's booking.
  if (booking.guestId !== userId && booking.hostId !== userId) throw new DomainError("reviews.bookingNotFound", 404);
  if (input.reviewedUserId !== other.id) throw new DomainError("reviews.otherSideOnly", 400);
  if (target.refusal) throw target.refusal;

  const now = deps.now();
  const deadline = reviewDeadline(booking);
  const written = await writeTransaction(deps.db, async (tx) => {
    const review = await one(tx
      .insert(reviews)
      .values({
        id: crypto.randomUUID(),
        bookingId: booking.id,
        reviewerId: userId,
        reviewedUserId: other.id,
        // The guest's review of the host also rates the activity; the host's of the guest does not.
        activityId: role === "guest" ? booking.activityId : null,
        stars: input.stars,
        text: input.text,
        publishedAt: null,
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning());
    // Two submissions at once: the unique index let the first one in.
    if (!review) return null;
    const theirs = await one(tx
      .select({ id: reviews.id })
      .from(reviews)
      .where(and(eq(reviews.bookingId, booking.id), eq(reviews.reviewerId, other.id))));
    if (!theirs) {
      await scheduleJob(tx, publishJob, { bookingId: booking.id }, { at: deadline, key: publishKey(booking.id) });
      return { review, published: [] as Review[] };
    }
    const published = await publishHidden(tx, booking.id, now);
    await cancelJob(tx, publishKey(booking.id));
    return { review: published.find((r) => r.id === review.id) ?? review, published };
  });
  if (!written) throw new DomainError("reviews.alreadyReviewed", 409);
  if (written.published.length) deps.events.emit({ type: "reviews.published", booking, reviews: written.published });
  const about = publicUser(other, new Date(now));
  return { review: writtenReviewView(written.review, { activityTitle: target.activityTitle, about, visibleBy: deadline, timeZone: booking.timeZone }), published: written.review.publishedAt !== null };
}

/** Publishes a booking's hidden reviews; returns them as published. */
async function publishHidden(tx: WriteTx, bookingId: string, now: number): Promise<Review[]> {
  return await tx
    .update(reviews)
    .set({ publishedAt: now })
    .where(and(eq(reviews.bookingId, bookingId), isNull(reviews.publishedAt)))
    .returning();
}

/**
 * The 14 days of a completed booking are over: whatever was written is published (job).
 * Idempotent: a second run finds nothing hidden.
 */
export async function publishDueReviews(deps: Deps, bookingId: string) {
  const booking = await one(deps.db.select().from(bookings).where(eq(bookings.id, bookingId)));
  if (!booking) return;
  const published = await writeTransaction(deps.db, (tx) => publishHidden(tx, bookingId, deps.now()));
  if (published.length) deps.events.emit({ type: "reviews.published", booking, reviews: published });
}

/** A completed booking's reviews are published 14 days after completion, whether or not both sides wrote. */
export const publishJob = defineJob<{ bookingId: string }>({ kind: "reviews.publish", run: ({ bookingId }, { deps }) => publishDueReviews(deps, bookingId) });
