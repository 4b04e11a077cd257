import type { Deps } from "../deps";
import type { JobKind } from "../jobs";
import { checkoutEnded, lapseHold, paymentAuthorised } from "./requests";
import { autoCompleteJob, expireJob, handle, holdJob, instantAcceptJob, instantUnansweredJob, payoutJob, payoutSweepJob, paymentsSweepJob, reconcileJob, recoverJob, sessionMinimumJob } from "./jobs";
import { checkMinimum } from "./minimum";
import { loggable } from "../../db/faults";
import { acceptInstantly, tellHostIfUnanswered } from "./instant";
import { hostOfAccount, owedPayouts, payHost } from "./payouts";
import { reconcileIntent, recoverClaim, sweepPayments } from "./reconciliation";
import { autoComplete, expireRequest } from "./transitions";

/**
 * What runs the bookings' timed work and answers the payment provider's news: the handlers
 * attached to the job kinds `jobs.ts` declares, and the listener of `deps.paymentEvents`. The
 * feature's plugin (`index.ts`) registers them once.
 */
export const bookingJobs: JobKind<never>[] = [
  handle(holdJob, ({ bookingId }, { deps }) => lapseHold(deps, bookingId)),
  handle(expireJob, ({ bookingId }, { deps }) => expireRequest(deps, bookingId)),
  handle(instantAcceptJob, ({ bookingId }, { deps }) => acceptInstantly(deps, bookingId)),
  handle(instantUnansweredJob, async ({ bookingId }, { deps }) => tellHostIfUnanswered(deps, bookingId)),
  handle(autoCompleteJob, ({ bookingId }, { deps }) => autoComplete(deps, bookingId)),
  handle(sessionMinimumJob, (session, { deps }) => checkMinimum(deps, session)),
  handle(payoutJob, async ({ bookingId }, { deps }) => {
    await payHost(deps, bookingId);
  }),
  handle(recoverJob, async ({ bookingId }, { deps }) => {
    await recoverClaim(deps, bookingId);
  }),
  handle(reconcileJob, ({ intentId }, { deps }) => reconcileIntent(deps, intentId)),
  handle(payoutSweepJob, async (_payload, { deps }) => {
    for (const id of await owedPayouts(deps)) await payHost(deps, id).catch((err) => console.error(`payout of ${id} failed: ${loggable(err)}`));
  }),
  handle(paymentsSweepJob, async (_payload, { deps }) => {
    const out = await sweepPayments(deps);
    if (out.recovered || out.repaired || out.flagged) console.log(`payments sweep: ${out.recovered} recovered, ${out.repaired} repaired, ${out.flagged} flagged`);
  }),
] as JobKind<never>[];

/** The provider's news (webhooks, or the test provider's own events), handled idempotently. */
export function listenToPayments(deps: Deps) {
  deps.paymentEvents.on(async (event) => {
    const bookingId = event.metadata.bookingId;
    if ((event.type === "checkout.session.completed" || event.type === "payment_intent.amount_capturable_updated") && bookingId && event.paymentIntentId) {
      // An instant booking's accept runs in the background: the provider's delivery waits for nobody.
      await paymentAuthorised(deps, bookingId, event.paymentIntentId);
    }
    if (event.type === "checkout.session.expired" && bookingId) await checkoutEnded(deps, bookingId, event.objectId);
    if (event.type === "account.updated") {
      const hostId = await hostOfAccount(deps, event.objectId);
      if (hostId) for (const id of await owedPayouts(deps, hostId)) await payHost(deps, id);
    }
  });
}

/** Makes the bookings' jobs runnable and starts listening to the provider: once per app. */
export function wireBookings(deps: Deps) {
  deps.jobs.register(...bookingJobs);
  listenToPayments(deps);
}
