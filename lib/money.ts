import type { Locale } from "./i18n";
import { cachedFormatter, intlLocale } from "./intl";

const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * Money is integer cents inside the app; this is the one place that turns it into text.
 * `whole` rounds to whole dollars, as hourly rates are shown.
 */
export function formatMoney(cents: number, locale: Locale, opts: { whole?: boolean; currency?: string } = {}): string {
  const digits = opts.whole ? 0 : 2;
  const currency = (opts.currency ?? "usd").toUpperCase();
  const key = `${locale} ${currency} ${digits}`;
  let format = moneyFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(intlLocale(locale), { style: "currency", currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
    moneyFormats.set(key, format);
  }
  return format.format(opts.whole ? Math.round(cents / 100) : cents / 100);
}

const countFormat = cachedFormatter((locale) => new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }));

/** A whole number as the locale writes it: 1,000 in English, 1 000 in French. */
export function formatCount(n: number, locale: Locale): string {
  return countFormat(locale).format(n);
}

/** Cents as the API's decimal string: 1250 → "12.50". */
export const decimalFromCents = (cents: number) => (cents / 100).toFixed(2);
