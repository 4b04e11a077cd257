import { describe, expect, test } from "bun:test";
import { priceFor } from "../shared/pricing";

describe("prices", () => {
  test.each([
    // rate (cents), minutes, subtotal, guest fee, total, platform fee, host earnings
    [4500, 60, 4500, 450, 4950, 900, 3600],
    [4500, 90, 6750, 675, 7425, 1350, 5400],
    [3333, 30, 1667, 167, 1834, 333, 1334],
    [1, 30, 1, 0, 1, 0, 1],
    [99999, 240, 399996, 40000, 439996, 79999, 319997],
  ])("%i¢/h for %i min", (rate, minutes, subtotal, fee, total, platform, host) => {
    const p = priceFor(rate, minutes);
    expect(p).toEqual({ subtotalCents: subtotal, serviceFeeCents: fee, totalCents: total, platformFeeCents: platform, hostEarningsCents: host });
    expect(p.platformFeeCents + p.hostEarningsCents).toBe(p.subtotalCents);
  });
});
