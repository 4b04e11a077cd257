import type { MessageKey } from "../../lib/i18n";

/** One category list everywhere (the union of the spec's two sets), each with a default photo. */
export const categories = [
  "sports",
  "fitness",
  "outdoor",
  "nature",
  "food",
  "art",
  "music",
  "entertainment",
  "learning",
  "technology",
  "lifestyle",
  "wellness",
  "chill",
  "fun",
  "serious",
] as const;

export type Category = (typeof categories)[number];

export const isCategory = (value: unknown): value is Category =>
  typeof value === "string" && (categories as readonly string[]).includes(value);

export const categoryLabelKey = (category: Category) => `category.${category}` as MessageKey;

/** The photo shown for an activity without photos of its own. */
export const categoryPhoto = (category: string) =>
  `/static/photos/${isCategory(category) ? category : "lifestyle"}-1.svg`;

/** An activity's cover: its first photo, or its category's photo. */
export const coverPhoto = (activity: { photos: readonly string[]; category: string }) => activity.photos[0] ?? categoryPhoto(activity.category);
