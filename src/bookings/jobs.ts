import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import { defineJob } from "../jobs";
import { lapseHold } from "./checkout";
import { owedPayouts, payHost } from "./payouts";
import { reconcileIntent, recoverClaim, sweepPayments } from "./reconciliation";
import { autoComplete, expireRequest } from "./transitions";

/**
 * The bookings' timed work (docs/decisions/0011), each idempotent: it checks the state it would
 * change, and its provider calls go through the booking's claims (docs/decisions/0028). Keys
 * are built in `keys.ts`.
 */
type ById = { bookingId: string };

/** An awaiting-payment booking's 15-minute hold lapsed. */
export const holdJob = defineJob<ById>({ kind: "booking.hold", run: ({ bookingId }, { deps }) => lapseHold(deps, bookingId) });

/** A pending request unanswered 24 hours after it was sent, or at its start. */
export const expireJob = defineJob<ById>({ kind: "booking.expire", run: ({ bookingId }, { deps }) => expireRequest(deps, bookingId) });

/** An accepted booking nobody completed, 48 hours after its end. */
export const autoCompleteJob = defineJob<ById>({ kind: "booking.autocomplete", run: ({ bookingId }, { deps }) => autoComplete(deps, bookingId) });

/** A completed booking's host share, sent when the host has a payout account. */
export const payoutJob = defineJob<ById>({
  kind: "booking.payout",
  run: async ({ bookingId }, { deps }) => {
    await payHost(deps, bookingId);
  },
});

/** A money movement claimed and never recorded: finished from what the provider shows. */
export const recoverJob = defineJob<ById>({
  kind: "booking.recover",
  // Retried for about five hours while the provider does not answer, then listed as failed for the
  // operator; the 15-minute sweep still recovers the claim once the provider answers.
  maxAttempts: 12,
  run: async ({ bookingId }, { deps }) => {
    await recoverClaim(deps, bookingId);
  },
});

/** An authorisation with no booking 30 minutes on is released. */
export const reconcileJob = defineJob<{ intentId: string }>({ kind: "payments.reconcile", run: ({ intentId }, { deps }) => reconcileIntent(deps, intentId) });

/** Hourly: pending payouts of hosts who have since set up their payout account. */
export const payoutSweepJob = defineJob({
  kind: "bookings.payouts",
  every: 60 * 60 * 1000,
  run: async (_payload, { deps }) => {
    for (const id of owedPayouts(deps)) await payHost(deps, id).catch((err) => console.error(`payout of ${id} failed`, err));
  },
});

/** Every 15 minutes: open bookings compared with the provider, lost claims recovered. */
export const paymentsSweepJob = defineJob({
  kind: "payments.sweep",
  every: 15 * 60 * 1000,
  run: async (_payload, { deps }) => {
    const out = await sweepPayments(deps);
    if (out.recovered || out.repaired || out.flagged) console.log(`payments sweep: ${out.recovered} recovered, ${out.repaired} repaired, ${out.flagged} flagged`);
  },
});

export const bookingJobs = [holdJob, expireJob, autoCompleteJob, payoutJob, recoverJob, reconcileJob, payoutSweepJob, paymentsSweepJob];

/** The host whose payout account an `account.updated` event is about. */
export function hostOfAccount(deps: Parameters<typeof payHost>[0], accountId: string) {
  return deps.db.select({ id: users.id }).from(users).where(eq(users.stripeAccountId, accountId)).get()?.id ?? null;
}
