import type { Activity } from "../../db/schema";
import { formatMoney } from "../../lib/money";
import { activityGroupPrice, type ActivityCard } from "../../src/activities/queries";
import type { View } from "../../src/shell/view";

type Texts = Pick<View, "t" | "locale">;

/**
 * How an activity's price reads (docs/decisions/0049): "$45" "/hour" for a private activity,
 * "€25" "/ person" for a group, in its own currency. Whole units, as every rate on a card or
 * chip is shown.
 */
export function priceParts(view: Texts, price: { hourlyRateCents: number; currency: string; group: ActivityCard["group"] }): { amount: string; unit: string } {
  const { t } = view;
  const money = { currency: price.currency, whole: true };
  if (price.group) return { amount: formatMoney(price.group.pricePerPersonCents, view.locale, money), unit: ` ${t("activity.perPerson")}` };
  return { amount: formatMoney(price.hourlyRateCents, view.locale, money), unit: t("browse.perHour") };
}

/** The same for an activity row. */
export const activityPriceParts = (view: Texts, activity: Activity) => priceParts(view, { hourlyRateCents: activity.hourlyRateCents, currency: activity.currency, group: activityGroupPrice(activity) });

/** "45 min" under an hour, otherwise hours ("1 h", "1.5 h"), as spec §9 says. */
export function formatDuration(view: Pick<View, "t">, minutes: number) {
  if (minutes < 60) return view.t("activity.minutes", { n: minutes });
  const hours = minutes / 60;
  return view.t("activity.hours", { n: Math.round(hours * 10) / 10 });
}

/** "2 h session": how long a group's sessions last. */
export const sessionText = (view: Pick<View, "t">, minutes: number) => view.t("activity.sessionOf", { duration: formatDuration(view, minutes) });
