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
