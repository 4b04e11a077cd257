/**
 * The lifestyle "about" section (spec §3): its fields, their choice lists and the keys of
 * their visibility flags (lowercase names, as the spec stores them: `jobtitle` for jobTitle).
 * A field is hidden only when its flag is explicitly false.
 */
import type { Translate } from "../../lib/i18n";

export const aboutChoices = {
  politics: ["Liberal", "Conservative", "Moderate", "Progressive", "Libertarian", "Other", "Prefer not to say"],
  spokenLanguages: ["English", "Spanish", "French", "German", "Italian", "Portuguese", "Russian", "Chinese", "Japanese", "Arabic", "Hindi", "Other"],
  gender: ["Man", "Woman", "Non-binary", "Gender fluid", "Other", "Prefer not to say"],
  sexuality: ["Straight", "Gay", "Lesbian", "Bisexual", "Pansexual", "Asexual", "Other", "Prefer not to say"],
  children: ["Don't have kids", "Have kids", "Want kids", "Don't want kids", "Open to kids"],
  astrologicalSign: ["Aries", "Taurus", "Gemini", "Cancer", "Leo", "Virgo", "Libra", "Scorpio", "Sagittarius", "Capricorn", "Aquarius", "Pisces"],
  diet: ["Omnivore", "Vegetarian", "Vegan", "Pescatarian", "Keto", "Paleo", "Other"],
  smoking: ["Non-smoker", "Social smoker", "Regular smoker", "Trying to quit"],
  marijuana: ["Never", "Sometimes", "Often", "Prefer not to say"],
  drugs: ["Never", "Sometimes", "Often", "Prefer not to say"],
} as const;

/** Every value of every choice list. */
export type AboutChoice = (typeof aboutChoices)[keyof typeof aboutChoices][number];

export type AboutKey =
  | "work"
  | "jobTitle"
  | "school"
  | "hometown"
  | "height"
  | keyof typeof aboutChoices;

export interface AboutField {
  key: AboutKey;
  /** The key of its visibility flag. */
  visibilityKey: string;
  section: "virtues" | "vitals" | "vices";
  kind: "text" | "choice" | "multi";
}

export const aboutFields: AboutField[] = [
  { key: "work", visibilityKey: "work", section: "virtues", kind: "text" },
  { key: "jobTitle", visibilityKey: "jobtitle", section: "virtues", kind: "text" },
  { key: "school", visibilityKey: "school", section: "virtues", kind: "text" },
  { key: "hometown", visibilityKey: "hometown", section: "virtues", kind: "text" },
  { key: "politics", visibilityKey: "politics", section: "virtues", kind: "choice" },
  { key: "spokenLanguages", visibilityKey: "spokenLanguages", section: "virtues", kind: "multi" },
  { key: "gender", visibilityKey: "gender", section: "vitals", kind: "choice" },
  { key: "sexuality", visibilityKey: "sexuality", section: "vitals", kind: "choice" },
  { key: "height", visibilityKey: "height", section: "vitals", kind: "text" },
  { key: "children", visibilityKey: "children", section: "vitals", kind: "choice" },
  { key: "astrologicalSign", visibilityKey: "astrologicalSign", section: "vitals", kind: "choice" },
  { key: "diet", visibilityKey: "diet", section: "vices", kind: "choice" },
  { key: "smoking", visibilityKey: "smoking", section: "vices", kind: "choice" },
  { key: "marijuana", visibilityKey: "marijuana", section: "vices", kind: "choice" },
  { key: "drugs", visibilityKey: "drugs", section: "vices", kind: "choice" },
];

export type About = Partial<Record<AboutKey, string | string[]>>;
export type AboutVisibility = Record<string, boolean>;

/** Reads stored about JSON; anything unparseable or unknown is ignored, as the spec says. */
export function parseAbout(json: string | null | undefined): About {
  if (!json) return {};
  try {
    const data = JSON.parse(json) as Record<string, unknown>;
    const out: About = {};
    for (const field of aboutFields) {
      const value = data?.[field.key];
      if (field.kind === "multi" && Array.isArray(value)) out[field.key] = value.filter((v): v is string => typeof v === "string");
      else if (field.kind !== "multi" && typeof value === "string" && value.trim()) out[field.key] = value;
    }
    return out;
  } catch {
    return {};
  }
}

export function parseVisibility(json: string | null | undefined): AboutVisibility {
  if (!json) return {};
  try {
    const data = JSON.parse(json) as Record<string, unknown>;
    const out: AboutVisibility = {};
    for (const field of aboutFields) if (typeof data?.[field.visibilityKey] === "boolean") out[field.visibilityKey] = data[field.visibilityKey] as boolean;
    return out;
  } catch {
    return {};
  }
}

export const isVisible = (visibility: AboutVisibility, field: AboutField) => visibility[field.visibilityKey] !== false;

/** The about fields other people may see. */
export function visibleAbout(about: About, visibility: AboutVisibility): About {
  const out: About = {};
  for (const field of aboutFields) if (about[field.key] !== undefined && isVisible(visibility, field)) out[field.key] = about[field.key];
  return out;
}

/** A choice value's label in the visitor's language (stored values stay the spec's English ones). */
export function choiceLabel(value: string, t: Translate): string {
  // Every choice has its label (src/profiles/about-texts.ts is typed so); anything else shows as stored.
  return isAboutChoice(value) ? t(`about.choice.${value}`) : value;
}

const everyChoice: ReadonlySet<string> = new Set(Object.values(aboutChoices).flat());
const isAboutChoice = (value: string): value is AboutChoice => everyChoice.has(value);
