import { IntlMessageFormat } from "intl-messageformat";
/**
 * Translation machinery, apart from any catalogue: the languages, picking one for a request,
 * and a translator over a catalogue. The app's catalogue (src/texts.ts) registers its keys in
 * `TextKeys`, so `MessageKey` here is every key the features define, and a typo in a key fails
 * type-checking even in code that imports only this module.
 */

/** The interface languages; English is the default. */
export type Locale = "en" | "fr";
export const locales: Locale[] = ["en", "fr"];

/** A person's chosen language when it is one we speak, else `fallback` (the server's default). */
export const chosenLocale = (chosen: string | null | undefined, fallback: Locale): Locale => ((locales as (string | null | undefined)[]).includes(chosen) ? (chosen as Locale) : fallback);

/** Filled in by the app's catalogue (src/texts.ts): one member per catalogue key. */
export interface TextKeys {}
export type MessageKey = keyof TextKeys & string;
export type Catalogue = Record<MessageKey, string>;

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

/**
 * Makes the translator of each language over a catalogue: a missing entry falls back to English,
 * then to the key itself.
 */
export function makeTranslators(catalogues: Record<Locale, Catalogue>): (locale: Locale) => Translate {
  const en = catalogues.en;
  // The keys of each language whose text counts, found once.
  const countedKeys = Object.fromEntries(
    Object.entries(catalogues).map(([locale, catalogue]) => [locale, new Set(Object.keys(catalogue).filter((k) => COUNTED.test(catalogue[k as MessageKey])))]),
  ) as Record<Locale, Set<string>>;
  const made = Object.fromEntries(locales.map((locale) => [locale, translatorOf(locale)])) as Record<Locale, Translate>;
  return (locale) => made[locale];

  function translatorOf(locale: Locale): Translate {
  const catalogue: Catalogue = catalogues[locale];
  // A fraction is written the language's way ("1,5" in French); whole numbers (counts, years)
  // as they are.
  const decimals = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  const fill = (value: string | number | undefined) => (typeof value === "number" && !Number.isInteger(value) ? decimals.format(value) : String(value));
  const countedHere = countedKeys[locale];
  // Each text split once at its {params}: literal, name, literal, name, … literal. A page fills
  // the same few texts many times (a card's price, a heart's label), so no pattern runs per call.
  // Keyed by the text (French elision makes at most a second spelling of a text).
  const split = new Map<string, string[]>();
  const piecesOf = (text: string) => {
    let pieces = split.get(text);
    if (!pieces) split.set(text, (pieces = text.split(/\{(\w+)\}/)));
    return pieces;
  };
  return (key, params) => {
    const text = catalogue[key] ?? en[key] ?? key;
    if (!params) return text;
    if (countedHere.has(key) || (!catalogue[key] && countedKeys.en.has(key))) return String(counted(catalogue[key] ? locale : "en", key, text).format(params));
    const pieces = piecesOf(locale === "fr" ? elideDe(text, params) : text);
    let filled = pieces[0]!;
    for (let i = 1; i < pieces.length; i += 2) {
      const name = pieces[i]!;
      filled += (name in params ? fill(params[name]) : `{${name}}`) + pieces[i + 1]!;
    }
    return filled;
  };
}
}

/**
 * French elides "de" before a vowel: "la carte de {name}" is "la carte d'Alex" but "de Maya", and
 * "l'heure de {zone}" is "l'heure d'Amsterdam". The name is only known when the text is filled,
 * so the preposition is chosen here, for every French text at once.
 */
function elideDe(text: string, params: Record<string, string | number>): string {
  if (!text.includes("e {")) return text;
  return text.replace(/\b([Dd])e \{(\w+)\}/g, (m, d: string, name: string) => (name in params && /^[aeiouyàâäéèêëîïôöùûü]/i.test(String(params[name])) ? `${d}'{${name}}` : m));
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

/**
 * The catalogue the app speaks, registered once by src/texts.ts, which joins every feature's
 * texts. Features translate through the functions below and never import the catalogue itself:
 * it imports every feature's texts, so importing it back would tie every feature to every other.
 */
let registered: { translators: (locale: Locale) => Translate; en: Catalogue } | null = null;

export function registerCatalogues(catalogues: Record<Locale, Catalogue>) {
  registered = { translators: makeTranslators(catalogues), en: catalogues.en };
}

function catalogue() {
  if (!registered) throw new Error("No catalogue registered: import src/texts.ts before translating.");
  return registered;
}

/** The translator of a language (made once each). */
export const translator = (locale: Locale): Translate => catalogue().translators(locale);

/** Whether a key is one of the catalogue's (a schema's message left to its library's default is not). */
export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(catalogue().en, key);
}
