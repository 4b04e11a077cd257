/**
 * Review texts.
 * English is the default; `fr` is typed against `en`, so a French key missing or extra fails
 * type-checking. Assembled into the catalogue by `src/lib/i18n.ts`.
 */
export const en = {
  "reviews.starsLabel": "{stars} out of 5 stars",
} as const;

export const fr: Record<keyof typeof en, string> = {
  "reviews.starsLabel": "{stars} étoiles sur 5",
};
