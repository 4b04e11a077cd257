import { writeTransaction, one } from "../../db/client";
import { and, eq, isNull } from "drizzle-orm";
import { paymentEvents } from "../../db/schema";
import type { Deps } from "../deps";
import type { PaymentEvent } from "../ports/payments";

/**
 * How long an event's handling may be under way: longer than any handling lasts (a few calls to
 * the provider of at most three 20-second tries each, and their records), as a claim's recovery
 * grace is (docs/decisions/0028). An event claimed longer ago and still not handled was cut short
 * by a crash, and the next delivery claims it again.
 */
export const WEBHOOK_LEASE_MS = 5 * 60 * 1000;

/** How long a delivery waits for another delivery of the same event, handling it in this process, to end. */
const WAIT_FOR_HANDLING_MS = 10_000;

/** The events this process (this app) is handling now, as `{app id} {event id}`. */
const handlingHere = new Set<string>();

/**
 * handled: handed on by this delivery; duplicate: handled already; busy: another delivery is
 * handling it and has not finished yet (answered with a failure, so the provider delivers it again
 * later, when it is known to be handled or the handling known to be lost).
 */
export type WebhookOutcome = "handled" | "duplicate" | "busy" | "invalid" | "unavailable";

/**
 * One delivery of a provider webhook: verified on its raw body, then handed on exactly once.
 * 1. **claim**: one transaction records the event id with the claim's time, or, when it is
 *    recorded but was never marked handled and its claim is older than `WEBHOOK_LEASE_MS` (the
 *    process handling it died), takes the claim over with a compare-and-set on that time;
 * 2. **handle**: only the claimant hands the event on;
 * 3. **mark**: the event is marked handled. When handling throws, the claim is removed, and the
 *    provider, answered with the failure, delivers the event again.
 * A delivery that meets a claim under way in this process waits for it (up to
 * `WAIT_FOR_HANDLING_MS`) and answers as it ended: handled, a duplicate; still under way, busy. One
 * under way elsewhere (another machine, or a process that died) is answered busy at once. Busy is
 * a failure, so the provider delivers the event again later rather than take it as received while
 * its handling may yet be lost. Handlers are idempotent, so a crash after handling and before the
 * mark costs one more handling, never a lost one.
 */
export async function receiveWebhook(deps: Deps, rawBody: string, signature: string | null): Promise<WebhookOutcome> {
  const provider = deps.payments;
  if (!provider || provider.name !== "stripe") return "unavailable";
  let event: PaymentEvent;
  try {
    event = await provider.parseWebhook(rawBody, signature);
  } catch {
    return "invalid";
  }
  const here = `${deps.id} ${event.id}`;
  const deadline = performance.now() + WAIT_FOR_HANDLING_MS;
  let claimedAt: number;
  let lookedAgain = false;
  for (;;) {
    const seen = await claimEvent(deps, event, here);
    if (seen === "handled") return "duplicate";
    if (typeof seen === "object") {
      claimedAt = seen.claimedAt;
      break;
    }
    if (performance.now() > deadline) return "busy";
    if (seen === "again") continue;
    if (!handlingHere.has(here)) {
      // Under way elsewhere, or its handling here ended (or its transaction is being run again)
      // between the read and this look: one more read tells which.
      if (lookedAgain) return "busy";
      lookedAgain = true;
      continue;
    }
    await Bun.sleep(20);
  }
  try {
    try {
      await deps.paymentEvents.dispatch(event);
    } catch (err) {
      // Only this delivery's own claim is let go: one that took it over after the lease stays.
      await writeTransaction(deps.db, (tx) => tx
        .delete(paymentEvents)
        .where(and(eq(paymentEvents.id, event.id), eq(paymentEvents.claimedAt, claimedAt), isNull(paymentEvents.handledAt))));
      throw err;
    }
    await writeTransaction(deps.db, (tx) => tx
      .update(paymentEvents)
      .set({ handledAt: deps.now() })
      .where(and(eq(paymentEvents.id, event.id), isNull(paymentEvents.handledAt))));
    return "handled";
  } finally {
    handlingHere.delete(here);
  }
}

/**
 * Step 1, in one transaction: the event claimed by this delivery (answers the claim's time), or
 * handled already, or under way in another delivery whose lease has not run out. A claim is known
 * as handled here (`here`) before its commit, so a delivery of this process meeting it waits.
 */
async function claimEvent(deps: Deps, event: PaymentEvent, here: string): Promise<{ claimedAt: number } | "handled" | "underWay" | "again"> {
  const now = deps.now();
  let claimed = false;
  const claim = () => {
    claimed = true;
    handlingHere.add(here);
    return { claimedAt: now };
  };
  try {
    return await writeTransaction(deps.db, async (tx) => {
      // A transaction PostgreSQL runs again starts from nothing claimed.
      if (claimed) {
        claimed = false;
        handlingHere.delete(here);
      }
      const fresh = await tx
        .insert(paymentEvents)
        .values({ id: event.id, type: event.type, receivedAt: now, claimedAt: now })
        .onConflictDoNothing()
        .returning({ id: paymentEvents.id });
      if (fresh.length) return claim();
      const row = await one(tx.select().from(paymentEvents).where(eq(paymentEvents.id, event.id)));
      // Removed meanwhile by a handling that failed: the next turn records it again.
      if (!row) return "again";
      if (row.handledAt !== null) return "handled";
      if (row.claimedAt > now - WEBHOOK_LEASE_MS) return "underWay";
      // Claimed so long ago that its handling cannot still be under way: the process died in it.
      const taken = await tx
        .update(paymentEvents)
        .set({ claimedAt: now })
        .where(and(eq(paymentEvents.id, row.id), isNull(paymentEvents.handledAt), eq(paymentEvents.claimedAt, row.claimedAt)))
        .returning({ id: paymentEvents.id });
      return taken.length ? claim() : "underWay";
    });
  } catch (err) {
    if (claimed) handlingHere.delete(here);
    throw err;
  }
}
