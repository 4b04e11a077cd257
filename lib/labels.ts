import type { Translate } from "./i18n";

/** An average of stars to one decimal, as every rating is shown; null when there are none. */
export function roundRating(average: number | string | null | undefined): number | null {
  if (average === null || average === undefined) return null;
  const n = Number(average);
  return Number.isFinite(n) ? Math.round(n * 10) / 10 : null;
}

/** "★ 4.7", with the count when given ("★ 4.7 (12)"), or "New" when nothing is rated yet. */
export function ratingLabel(t: Translate, rating: number | null, count?: number): string {
  if (rating === null) return t("browse.new");
  return count === undefined ? `★ ${rating.toFixed(1)}` : `★ ${rating.toFixed(1)} (${count})`;
}

/** "Maya, 34": a first name and an age, leaving out what is unknown. */
export const nameAndAge = (name: string | null | undefined, age: number | null | undefined) =>
  [name, age].filter((v) => v !== null && v !== undefined && v !== "").join(", ");
