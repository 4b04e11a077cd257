import type { Locale } from "./i18n";

/** The Intl locale a language is formatted in. */
export const intlLocale = (locale: Locale) => (locale === "fr" ? "fr-FR" : "en-US");

/**
 * Builds an Intl formatter once per language, then hands back the same one: building one costs
 * far more than formatting with it, and a page formats dozens of prices and dates.
 */
export function cachedFormatter<F>(make: (locale: string) => F): (locale: Locale) => F {
  const made = new Map<Locale, F>();
  return (locale) => {
    let formatter = made.get(locale);
    if (!formatter) {
      formatter = make(intlLocale(locale));
      made.set(locale, formatter);
    }
    return formatter;
  };
}
