import type { Locale } from "./i18n";
import { cachedFormatter, intlLocale } from "./intl";

/**
 * Money is an integer in the minor unit of its currency inside the app (cents of a dollar, euro or
 * pound; whole yen): the fields are named `…Cents` whatever the currency. A currency is its ISO 4217
 * code, lower case ("usd", "eur", "jpy"). This is the one place that turns amounts into text and
 * text into amounts, and nothing converts one currency into another.
 */

const exponents = new Map<string, number>();

/**
 * How many decimals the currency's minor unit has (2 for USD and EUR, 0 for JPY), as ISO 4217 and
 * so `Intl` say: read once per currency, never from a list of our own.
 */
export function minorUnits(currency: string): number {
  const code = currency.toUpperCase();
  let digits = exponents.get(code);
  if (digits === undefined) {
    digits = new Intl.NumberFormat("en", { style: "currency", currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
    exponents.set(code, digits);
  }
  return digits;
}

/** How many minor units make one major unit: 100 for USD, 1 for JPY. */
export const minorPerMajor = (currency: string) => 10 ** minorUnits(currency);

const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * An amount in minor units as the reader's language writes it in its currency: "$12.50",
 * "12,50 €", "¥3,000". `whole` rounds to whole major units, as hourly rates are shown.
 */
export function formatMoney(amount: number, locale: Locale, opts: { currency: string; whole?: boolean }): string {
  const currency = opts.currency.toUpperCase();
  const exponent = minorUnits(currency);
  const digits = opts.whole ? 0 : exponent;
  const key = `${locale} ${currency} ${digits}`;
  let format = moneyFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(intlLocale(locale), { style: "currency", currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
    moneyFormats.set(key, format);
  }
  const major = amount / 10 ** exponent;
  return format.format(opts.whole ? Math.round(major) : major);
}

const countFormat = cachedFormatter((locale) => new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }));

/** A whole number as the locale writes it: 1,000 in English, 1 000 in French. */
export function formatCount(n: number, locale: Locale): string {
  return countFormat(locale).format(n);
}

/**
 * An amount in minor units as the API's decimal string, with as many decimals as its currency
 * has: 1250 euro cents → "12.50", 3000 yen → "3000".
 */
export function decimalFromCents(amount: number, currency: string): string {
  const exponent = minorUnits(currency);
  if (exponent === 0) return String(amount);
  const sign = amount < 0 ? "-" : "";
  const digits = String(Math.abs(amount)).padStart(exponent + 1, "0");
  return `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/**
 * An amount as people and clients send it, before its currency is known: a JSON number or a
 * decimal string ("45", "45.5", "45,50"), kept as the digits written. Null when it is no such
 * thing (negative, an exponent, words).
 */
export function readDecimal(value: unknown): string | null {
  const text = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "") : typeof value === "string" ? value.trim().replace(",", ".") : "";
  return /^\d{1,12}(\.\d{1,12})?$/.test(text) ? text : null;
}

/**
 * A decimal read by `readDecimal` in the currency's minor units: "45.5" euros → 4550, "3000" yen →
 * 3000. NaN when it has more decimals than the currency (zeros aside): "3000.5" yen is no amount.
 */
export function minorFromDecimal(decimal: string, currency: string): number {
  const exponent = minorUnits(currency);
  const [whole = "0", fraction = ""] = decimal.split(".");
  const kept = fraction.slice(0, exponent);
  if (/[^0]/.test(fraction.slice(exponent))) return Number.NaN;
  return Number(whole) * 10 ** exponent + Number(kept.padEnd(exponent, "0") || "0");
}

const symbols = new Map<string, string>();

/** The currency's sign as the reader's language writes it beside a price field: "$", "€", "£", "¥". */
export function currencySymbol(currency: string, locale: Locale): string {
  const code = currency.toUpperCase();
  const key = `${locale} ${code}`;
  let symbol = symbols.get(key);
  if (symbol === undefined) {
    const parts = new Intl.NumberFormat(intlLocale(locale), { style: "currency", currency: code, currencyDisplay: "narrowSymbol" }).formatToParts(0);
    symbol = parts.find((p) => p.type === "currency")?.value ?? code;
    symbols.set(key, symbol);
  }
  return symbol;
}

/** A price field's step, its currency's smallest amount: "0.01" for euros, "1" for yen. */
export const priceStep = (currency: string): string => decimalFromCents(1, currency);
