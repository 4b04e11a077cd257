import { writeTransaction } from "../../db/client";
import { eq } from "drizzle-orm";
import { paymentEvents } from "../../db/schema";
import type { Deps } from "../deps";

/** A provider notification is small; Stripe's are a few kilobytes. */
export const WEBHOOK_BODY_LIMIT = 512 * 1024;

export type WebhookOutcome = "handled" | "duplicate" | "invalid" | "unavailable";

/**
 * One delivery of a provider webhook: verified on its raw body, then handled the first time its
 * event id is seen. The id is recorded before handling, so deliveries racing each other hand the
 * event on once; when handling fails the record is removed and the failure reported, so the
 * provider delivers the event again later.
 */
export async function receiveWebhook(deps: Deps, rawBody: string, signature: string | null): Promise<WebhookOutcome> {
  const provider = deps.payments;
  if (!provider || provider.name !== "stripe") return "unavailable";
  let event;
  try {
    event = await provider.parseWebhook(rawBody, signature);
  } catch {
    return "invalid";
  }
  const fresh = await writeTransaction(deps.db, (tx) => tx
    .insert(paymentEvents)
    .values({ id: event.id, type: event.type, receivedAt: deps.now() })
    .onConflictDoNothing()
    .returning({ id: paymentEvents.id }));
  if (!fresh.length) return "duplicate";
  try {
    await deps.paymentEvents.dispatch(event);
  } catch (err) {
    await writeTransaction(deps.db, (tx) => tx.delete(paymentEvents).where(eq(paymentEvents.id, event.id)));
    throw err;
  }
  return "handled";
}
