import type { Booking, CancellationPolicy } from "../../db/schema";
import { zonedAt } from "../../lib/time";

/**
 * What a guest gets back on cancelling an accepted booking (docs/decisions/0050), by the policy
 * its host chose for the activity and the booking copied when it was requested:
 *
 * - flexible: everything up to 24 hours before the start, nothing after;
 * - moderate: everything up to 3 days before, half after, until the start;
 * - strict: half up to 7 days before, nothing after.
 *
 * A window ends at an instant: the start's wall clock N days earlier, in the activity's own zone
 * (Temporal's calendar arithmetic), so "3 days before 10:00" is 10:00 three days earlier whether or
 * not the clocks change in between. A window includes its last instant ("up to"). Amounts are
 * integers in the booking's minor unit, whatever its currency.
 */

/** What a window gives back: the whole payment, or half of it. */
export type RefundShare = "full" | "half";

/** Until `daysBefore` days before the start, the guest gets `share`; windows in order, the widest first. */
const WINDOWS: Record<CancellationPolicy, readonly { daysBefore: number; share: RefundShare }[]> = {
  flexible: [{ daysBefore: 1, share: "full" }],
  moderate: [
    { daysBefore: 3, share: "full" },
    { daysBefore: 0, share: "half" },
  ],
  strict: [{ daysBefore: 7, share: "half" }],
};

/** One window of a booking's policy: until `until` (inclusive), the guest gets `share`. */
export interface RefundWindow {
  share: RefundShare;
  until: number;
}

/** The instant `days` calendar days before `startsAt` on the wall clock of `timeZone` (a time skipped by a clock change moves forward). */
export function daysBefore(startsAt: number, timeZone: string, days: number): number {
  return zonedAt(startsAt, timeZone).subtract({ days }).epochMilliseconds;
}

/** The windows of a policy for a booking that starts at `startsAt` in `timeZone`. */
export function refundWindows(policy: CancellationPolicy, startsAt: number, timeZone: string): RefundWindow[] {
  return WINDOWS[policy].map((w) => ({ share: w.share, until: daysBefore(startsAt, timeZone, w.daysBefore) }));
}

/**
 * Half of an amount in minor units, rounded down (an odd amount's last unit stays with what is
 * kept), so what is given back and what is kept always add up to the amount.
 */
export const halfOf = (cents: number) => Math.floor(cents / 2);

const shareOf = (share: RefundShare | null, totalCents: number) => (share === "full" ? totalCents : share === "half" ? halfOf(totalCents) : 0);

/** Every amount a policy may give back of `totalCents` (the whole, whoever cancels, is always one: a host's cancellation). */
export function possibleRefunds(policy: CancellationPolicy, totalCents: number): number[] {
  return [...new Set([totalCents, ...WINDOWS[policy].map((w) => shareOf(w.share, totalCents)), 0])];
}

/** What a guest cancelling a booking now gets back, and until when that holds. */
export interface CancellationQuote {
  policy: CancellationPolicy;
  /** What comes back now (minor units): the policy's share less anything already refunded. */
  refundableCents: number;
  totalCents: number;
  currency: string;
  /** The share of the window now, or null once every window has closed. */
  share: RefundShare | null;
  /** When the current window closes (the refund becomes smaller), or null when none is open. */
  deadline: number | null;
}

/** What the guest of `b` gets back on cancelling it at `now`, by the policy copied onto it. */
export function cancellationQuote(b: Pick<Booking, "cancellationPolicy" | "startsAt" | "timeZone" | "totalCents" | "refundedCents" | "currency">, now: number): CancellationQuote {
  const open = refundWindows(b.cancellationPolicy, b.startsAt, b.timeZone).find((w) => now <= w.until) ?? null;
  const share = open?.share ?? null;
  return {
    policy: b.cancellationPolicy,
    refundableCents: Math.max(0, shareOf(share, b.totalCents) - b.refundedCents),
    totalCents: b.totalCents,
    currency: b.currency,
    share,
    deadline: open?.until ?? null,
  };
}

/**
 * How what a cancellation keeps of a payment is shared: the platform's fee and the host's share
 * are reduced in the same proportion as the refund. The host's part is `hostEarnings × kept /
 * total`, rounded half up on exact integers, and the platform's the rest, so the two add up to
 * what is kept in every currency.
 */
export function keptSplit(b: Pick<Booking, "totalCents" | "hostEarningsCents">, keptCents: number): { hostCents: number; platformCents: number } {
  if (keptCents <= 0 || b.totalCents <= 0) return { hostCents: 0, platformCents: 0 };
  const total = BigInt(b.totalCents);
  const hostCents = Number((2n * BigInt(b.hostEarningsCents) * BigInt(keptCents) + total) / (2n * total));
  return { hostCents, platformCents: keptCents - hostCents };
}
