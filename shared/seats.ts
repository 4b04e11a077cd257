import type { MoneyFormat } from "./money";

/**
 * A group activity's seats as the booking screens offer them (docs/decisions/0049), shared by the
 * server's screens and the scripts that keep a choice's total current.
 */

/** The spots left per date and start hour (0: full; a start not listed is not open), the bounds of one booking, the prices. */
export interface SeatsOffer {
  spots: Record<string, Record<number, number>>;
  capacity: number;
  min: number;
  max: number;
  pricePerPersonCents: number;
  privateGroupPriceCents: number | null;
}

/**
 * What the page script (islands/shell/forms.ts) needs to keep a group booking's total current:
 * the prices, the bounds with and without a private group, and the words it writes, each made by
 * the server (views/bookings/Parts.tsx `SpotsFields`) in the person's language.
 */
export interface GroupTotalConfig extends Omit<SeatsOffer, "spots"> {
  locale: string;
  /** The activity's currency, which the prices are in. */
  money: MoneyFormat;
  /** Per count of spots, the subtotal's words: "3 spots × $25.00". */
  subtotalLabels: Record<number, string>;
  privateLabel: string;
  hint: string;
  privateHint: string;
}
