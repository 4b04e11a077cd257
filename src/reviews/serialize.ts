import type { PublicUser } from "../profiles/serialize";

/**
 * What the app shows of a review (docs/decisions/0007): reviews are public to anyone signed in,
 * and who wrote one is shown from the writer's public view, never from their database row.
 */
export interface ReviewView {
  id: string;
  stars: number;
  text: string | null;
  createdAt: number;
  /** Who wrote it (spec: reviewer on user reviews, byUser on activity reviews). */
  reviewer: { name: string | null; photo: string | null; age: number | null; username: string | null };
  byUser: { name: string | null; photo: string | null };
}

export const REVIEW_KEYS = ["id", "stars", "text", "createdAt", "reviewer", "byUser"] as const satisfies readonly (keyof ReviewView)[];

/** A review as screens and the API show it; who wrote it comes from their public view only. */
export function reviewView(review: { id: string; stars: number; text: string | null; createdAt: number }, by: PublicUser): ReviewView {
  return {
    id: review.id,
    stars: review.stars,
    text: review.text,
    createdAt: review.createdAt,
    reviewer: { name: by.firstName, photo: by.photo, age: by.age, username: by.username },
    byUser: { name: by.firstName, photo: by.photo },
  };
}

/**
 * A review as the person who wrote it sees it: whom it is about (their public view) and, while
 * it is hidden (double-blind), the latest date it becomes visible.
 */
export interface WrittenReviewView {
  id: string;
  bookingId: string;
  reviewedUserId: string;
  stars: number;
  text: string | null;
  createdAt: number;
  activityTitle: string;
  published: boolean;
  /** While hidden: published when the other side reviews too, or at this instant at the latest; null once published. */
  visibleBy: number | null;
  /** The activity's time zone, in which its dates read. */
  timeZone: string;
  about: { name: string | null; photo: string | null; username: string | null };
}

export const WRITTEN_REVIEW_KEYS = [
  "id",
  "bookingId",
  "reviewedUserId",
  "stars",
  "text",
  "createdAt",
  "activityTitle",
  "published",
  "visibleBy",
  "timeZone",
  "about",
] as const satisfies readonly (keyof WrittenReviewView)[];

export function writtenReviewView(
  review: { id: string; bookingId: string; reviewedUserId: string; stars: number; text: string | null; createdAt: number; publishedAt: number | null },
  context: { activityTitle: string; about: PublicUser; visibleBy: number; timeZone: string },
): WrittenReviewView {
  const published = review.publishedAt !== null;
  return {
    id: review.id,
    bookingId: review.bookingId,
    reviewedUserId: review.reviewedUserId,
    stars: review.stars,
    text: review.text,
    createdAt: review.createdAt,
    activityTitle: context.activityTitle,
    published,
    visibleBy: published ? null : context.visibleBy,
    timeZone: context.timeZone,
    about: { name: context.about.firstName, photo: context.about.photo, username: context.about.username },
  };
}
