import type { Locale, Translate } from "./i18n";

/** An average of stars to one decimal, as every rating is shown; null when there are none. */
export function roundRating(average: number | string | null | undefined): number | null {
  if (average === null || average === undefined) return null;
  const n = Number(average);
  return Number.isFinite(n) ? Math.round(n * 10) / 10 : null;
}

const ratingFormats = new Map<Locale, Intl.NumberFormat>();
/** A rating to one decimal, written the language's way: "4.9" in English, "4,9" in French. */
export function ratingNumber(rating: number, locale: Locale): string {
  let format = ratingFormats.get(locale);
  if (!format) {
    format = new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
    ratingFormats.set(locale, format);
  }
  return format.format(rating);
}

/** "★ 4.7", with the count when given ("★ 4.7 (12)"), or "New" when nothing is rated yet. */
export function ratingLabel(view: { t: Translate; locale: Locale }, rating: number | null, count?: number): string {
  if (rating === null) return view.t("browse.new");
  const stars = `★ ${ratingNumber(rating, view.locale)}`;
  return count === undefined ? stars : `${stars} (${count})`;
}

/** "Maya, 34": a first name and an age, leaving out what is unknown. */
export const nameAndAge = (name: string | null | undefined, age: number | null | undefined) =>
  [name, age].filter((v) => v !== null && v !== undefined && v !== "").join(", ");
