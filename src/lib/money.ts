import type { Locale } from "./i18n";

/**
 * Money is integer cents inside the app; this is the one place that turns it into text.
 * `whole` rounds to whole dollars, as hourly rates are shown.
 */
export function formatMoney(cents: number, locale: Locale, opts: { whole?: boolean; currency?: string } = {}): string {
  const digits = opts.whole ? 0 : 2;
  return new Intl.NumberFormat(locale === "fr" ? "fr-FR" : "en-US", {
    style: "currency",
    currency: (opts.currency ?? "usd").toUpperCase(),
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(opts.whole ? Math.round(cents / 100) : cents / 100);
}

/** Cents as the API's decimal string: 1250 → "12.50". */
export const decimalFromCents = (cents: number) => (cents / 100).toFixed(2);
