/**
 * Booking prices, all in integer cents. The guest pays the subtotal plus a 10% service fee;
 * the platform keeps 20% of the subtotal and the host earns the rest. Each figure is rounded
 * once, here, and the host's share is what is left so the parts always add up.
 */
export const GUEST_FEE_RATE = 0.1;
export const PLATFORM_FEE_RATE = 0.2;

export interface Price {
  subtotalCents: number;
  serviceFeeCents: number;
  totalCents: number;
  platformFeeCents: number;
  hostEarningsCents: number;
}

export function priceFor(hourlyRateCents: number, durationMinutes: number): Price {
  return priceOfSubtotal(Math.round((hourlyRateCents * durationMinutes) / 60));
}

/**
 * A group session's booking (docs/decisions/0049): spots × the price per person; booked whole as
 * a private group, the higher of that and the private group's price.
 */
export function groupPriceFor(pricePerPersonCents: number, spots: number, privateGroupPriceCents: number | null = null): Price {
  const perPerson = pricePerPersonCents * spots;
  return priceOfSubtotal(privateGroupPriceCents === null ? perPerson : Math.max(perPerson, privateGroupPriceCents));
}

/** The fee, the platform's part and the host's share of a subtotal. */
export function priceOfSubtotal(subtotalCents: number): Price {
  const serviceFeeCents = Math.round(subtotalCents * GUEST_FEE_RATE);
  const platformFeeCents = Math.round(subtotalCents * PLATFORM_FEE_RATE);
  return {
    subtotalCents,
    serviceFeeCents,
    totalCents: subtotalCents + serviceFeeCents,
    platformFeeCents,
    hostEarningsCents: subtotalCents - platformFeeCents,
  };
}
