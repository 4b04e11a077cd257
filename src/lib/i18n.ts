import { IntlMessageFormat } from "intl-messageformat";
/**
 * The message catalogue: every user-facing text, in English (default) and French. Each feature
 * keeps its own texts next to its code, in `src/<feature>/messages.ts` (an `en` object and an
 * `fr` typed against it); this module joins them. A key defined by two features fails
 * type-checking here, and a test checks that no entry is empty.
 */
import * as activities from "../activities/messages";
import * as auth from "../auth/messages";
import * as bookings from "../bookings/messages";
import * as email from "../email/messages";
import * as live from "../live/messages";
import * as conversations from "../messages/messages";
import * as notifications from "../notifications/messages";
import * as payments from "../payments/messages";
import * as profiles from "../profiles/messages";
import * as reports from "../reports/messages";
import * as reviews from "../reviews/messages";
import * as shell from "../shell/messages";
import * as uploads from "../uploads/messages";

/** Every feature's texts, by feature. */
export const messagesByFeature = { shell, auth, profiles, activities, uploads, reviews, payments, bookings, conversations, reports, notifications, live, email };

type Features = typeof messagesByFeature;
type KeysOf<M> = M extends { en: infer E } ? keyof E : never;
/** Keys that more than one feature defines: there must be none. */
type SharedKeys = { [F in keyof Features]: KeysOf<Features[F]> & KeysOf<Features[Exclude<keyof Features, F>]> }[keyof Features];

export type MessageKey = KeysOf<Features[keyof Features]>;
export type Catalogue = Record<MessageKey, string>;

/**
 * One language's catalogue: every feature's entries in that language. `unique` is `true` only
 * when no key is defined by two features; otherwise its type names those keys and the calls
 * below fail to type-check.
 */
function join(locale: "en" | "fr", unique: [SharedKeys] extends [never] ? true : { keysDefinedByTwoFeatures: SharedKeys }): Catalogue {
  return Object.assign({}, ...Object.values(messagesByFeature).map((feature) => feature[locale])) as Catalogue;
}

const en = join("en", true);
const fr = join("fr", true);

export const catalogues = { en, fr } satisfies Record<string, Catalogue>;
export type Locale = keyof typeof catalogues;
export const locales = Object.keys(catalogues) as Locale[];

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

/**
 * A text that counts something says so in ICU MessageFormat (`{count, plural, one {# review}
 * other {# reviews}}`): the language's plural rules (`Intl.PluralRules`) pick the form and `#`
 * is the number written for that language ("1,5 heure"). Only such texts go through
 * intl-messageformat (compiled once per language); every other text is a plain `{name}` fill.
 */
export const COUNTED = /\{\s*\w+\s*,\s*(?:plural|selectordinal)\s*,/;

const compiled = new Map<string, IntlMessageFormat>();
function counted(locale: Locale, key: string, text: string) {
  const id = `${locale}\n${key}`;
  let format = compiled.get(id);
  if (!format) {
    // Tags are text here (`ignoreTag`): a catalogue entry is never markup.
    format = new IntlMessageFormat(text, locale, undefined, { ignoreTag: true });
    compiled.set(id, format);
  }
  return format;
}

/** The keys of each language whose text counts, found once. */
const countedKeys = Object.fromEntries(
  Object.entries(catalogues).map(([locale, catalogue]) => [locale, new Set(Object.keys(catalogue).filter((k) => COUNTED.test(catalogue[k as MessageKey])))]),
) as Record<Locale, Set<string>>;

export function translator(locale: Locale): Translate {
  const catalogue: Catalogue = catalogues[locale];
  // A fraction is written the language's way ("1,5" in French); whole numbers (counts, years)
  // as they are.
  const decimals = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  const fill = (value: string | number | undefined) => (typeof value === "number" && !Number.isInteger(value) ? decimals.format(value) : String(value));
  const countedHere = countedKeys[locale];
  return (key, params) => {
    const text = catalogue[key] ?? en[key] ?? key;
    if (!params) return text;
    if (countedHere.has(key) || (!catalogue[key] && countedKeys.en.has(key))) return String(counted(catalogue[key] ? locale : "en", key, text).format(params));
    return text.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? fill(params[name]) : m));
  };
}

/** Field errors (catalogue keys) in the visitor's language. */
export function translateErrors(t: Translate, errors: Record<string, MessageKey>, params?: Record<string, string | number>): Record<string, string> {
  return Object.fromEntries(Object.entries(errors).map(([field, key]) => [field, t(key, params)]));
}

export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(en, key);
}

/** Picks the interface language: the user's choice, then the `lang` cookie, then the browser's. */
export function pickLocale(opts: {
  userLocale?: string | null;
  cookie?: string | null;
  acceptLanguage?: string | null;
  fallback: Locale;
}): Locale {
  for (const candidate of [opts.userLocale, opts.cookie]) {
    if (candidate && (locales as string[]).includes(candidate)) return candidate as Locale;
  }
  if (opts.acceptLanguage) {
    const ranked = opts.acceptLanguage
      .split(",")
      .map((part) => {
        const [tag = "", ...rest] = part.trim().split(";");
        const q = rest.find((r) => r.trim().startsWith("q="));
        return { lang: tag.toLowerCase().split("-")[0] ?? "", q: q ? Number(q.trim().slice(2)) || 0 : 1 };
      })
      .sort((a, b) => b.q - a.q);
    for (const { lang } of ranked) if ((locales as string[]).includes(lang)) return lang as Locale;
  }
  return opts.fallback;
}
