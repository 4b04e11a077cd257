/**
 * Money as the islands write it, the server's way (lib/money.ts `formatMoney`): an amount is an
 * integer in its currency's minor unit, and the server says which currency and how many decimals
 * its minor unit has (the islands never guess it).
 */
export interface MoneyFormat {
  /** ISO 4217 code ("USD", "EUR", "JPY"). */
  currency: string;
  /** Decimals of its minor unit: 2 for USD, 0 for JPY. */
  digits: number;
}

const formats = new Map<string, Intl.NumberFormat>();

/**
 * A formatter of minor units in `locale` ("fr-FR"): "45,00 €", "¥3,000". `whole` rounds to whole
 * units, as hourly rates are shown. Each Intl formatter is made once: a render formats many prices.
 */
export function moneyFormatter(locale: string, money: MoneyFormat, opts: { whole?: boolean } = {}): (minor: number) => string {
  const digits = opts.whole ? 0 : money.digits;
  const key = `${locale} ${money.currency} ${digits}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, { style: "currency", currency: money.currency.toUpperCase(), minimumFractionDigits: digits, maximumFractionDigits: digits });
    formats.set(key, format);
  }
  const unit = 10 ** money.digits;
  return (minor) => format.format(opts.whole ? Math.round(minor / unit) : minor / unit);
}
