import { z } from "zod";
import { userText } from "../lib/text";

/** Spec §5 Review: the comment is optional, trimmed, at most 500 characters. */
export const REVIEW_TEXT_MAX = 500;

/** The comment: cleaned as every user text is (src/lib/text.ts); empty reads as none. */
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
