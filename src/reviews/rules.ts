import type { Booking } from "../../db/schema";

/**
 * Reviews (ARCHITECTURE decision 9, docs/decisions/0023): once per side of a completed booking,
 * only about the other side, within 14 days of completion, and double-blind: a review stays
 * hidden until the other side has written theirs or the 14 days are over, so neither can answer
 * the other's. Everything shown or counted reads published reviews only.
 */
export const REVIEW_WINDOW_MS = 14 * 24 * 60 * 60 * 1000;

/** When writing closes for a completed booking, and its hidden reviews are published at the latest. */
export const reviewDeadline = (booking: Pick<Booking, "completedAt">) => (booking.completedAt ?? 0) + REVIEW_WINDOW_MS;
