import type { MessageKey } from "../../lib/i18n";
import { minorFromDecimal, minorUnits } from "../../lib/money";
import { RATE_MAX_MINOR } from "../../shared/limits";

/**
 * An activity's prices are integers in the minor unit of its currency, its city's when it was
 * created (lib/places.ts). People type them as decimals ("45.5", "3000"), read here once the
 * currency is known. A move to a city of another currency changes the activity's currency only
 * while it has no bookings (a booking keeps the currency it was paid in, and its activity keeps
 * the one its bookings are in), and its prices must then be given again, in the new currency.
 */

/** Why a price typed is no price in its currency. */
export type PriceProblem = "invalid" | "decimals" | "zero" | "tooHigh";

/**
 * A price typed (a decimal, `readDecimal`) in the currency's minor units: "45.5" euros → 4550,
 * "3000" yen → 3000. Refused: more decimals than the currency has ("3000.5" yen, "45.505"
 * euros), zero, or over the cap (`RATE_MAX_MINOR`, the same number of minor units in every
 * currency).
 */
export function priceIn(decimal: string | null, currency: string): { cents: number } | { problem: PriceProblem } {
  if (decimal === null) return { problem: "invalid" };
  const cents = minorFromDecimal(decimal, currency);
  if (Number.isNaN(cents)) return { problem: "decimals" };
  if (cents <= 0) return { problem: "zero" };
  if (cents > RATE_MAX_MINOR) return { problem: "tooHigh" };
  return { cents };
}

/**
 * A refused price's message: a field's own, except for decimals in a currency that has none
 * ("Prices in this currency are whole amounts"), which would otherwise read as a typo.
 */
export function priceMessage(problem: PriceProblem, currency: string, own: MessageKey): MessageKey {
  return problem === "decimals" && minorUnits(currency) === 0 ? "activity.priceWholeUnits" : own;
}

