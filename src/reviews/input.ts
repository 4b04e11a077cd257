import { z } from "zod";
import { REVIEW_TEXT_MAX } from "../../shared/limits";
import { userText } from "../../lib/text";
import { textOrNone } from "../../lib/validation";

/** The comment: cleaned as every user text is (lib/text.ts); empty reads as none. */
export const reviewTextSchema = userText({
  kind: "multiline",
  invalid: "reviews.textInvalid",
  characters: "reviews.textCharacters",
  max: { length: REVIEW_TEXT_MAX, message: "reviews.textTooLong" },
}).transform((v) => v || null);

/**
 * The rating: a whole number of stars from 1 to 5, as JSON sends it (a number) or a form does
 * (a string). Absent or empty is "no rating yet"; anything else is not a rating.
 */
export function readStars(value: unknown): number | "missing" | "invalid" {
  if (value === undefined || value === null || value === "") return "missing";
  const n = typeof value === "number" ? value : typeof value === "string" && /^\s*\d\s*$/.test(value) ? Number(value) : Number.NaN;
  return Number.isInteger(n) && n >= 1 && n <= 5 ? n : "invalid";
}

/** The stars as `readStars` reads them, each refusal with its own message. */
const starsSchema = z.unknown().transform((value, ctx) => {
  const stars = readStars(value);
  if (typeof stars === "number") return stars;
  ctx.addIssue({ code: "custom", message: stars === "missing" ? "reviews.ratingRequiredBody" : "reviews.starsInvalid" });
  return z.NEVER;
});

/**
 * What `POST /api/reviews` and the review form send about the booking (`bookingId`, looked up
 * first: someone else's booking is 404 whatever else is sent). `reviewedUserId` is only compared:
 * one that is not text is not the other person, as an unknown one is not.
 */
export const reviewInput = z.object({
  reviewedUserId: z.string().catch(""),
  stars: starsSchema,
  text: reviewTextSchema.nullish().transform((v) => v ?? null),
});
export type ReviewInput = z.infer<typeof reviewInput>;

/** The booking a review is about, as sent: text, or nothing (anything else is no booking of theirs: 404). */
export const bookingIdOf = (body: unknown) => {
  const id = body && typeof body === "object" ? (body as { bookingId?: unknown }).bookingId : undefined;
  return typeof id === "string" ? id : undefined;
};
const bookingIdSchema = textOrNone;

/**
 * What `POST /api/reviews` and the review form send: the booking and the review. The route
 * declares it; the booking is looked up before the review is written, so someone else's is 404.
 */
export const reviewBody = reviewInput.extend({ bookingId: bookingIdSchema });

/** The review screen's address: `?bookingId=…` (`userType` only names the role, which the booking says). */
export const reviewQuery = z.object({ bookingId: bookingIdSchema });
