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
  const subtotalCents = Math.round((hourlyRateCents * durationMinutes) / 60);
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
