import { eq } from "drizzle-orm";
import webpush from "web-push";
import { pushSubscriptions } from "../../db/schema";
import type { Deps } from "../context";
import { defineJob, scheduleJob } from "../lib/jobs";

/**
 * Sending one push message to one browser (docs/decisions/0025). `web-push` builds the request:
 * the VAPID signature, the payload encrypted for the browser (aes128gcm) and the TTL. It is sent
 * with `fetch`, because web-push's own sender uses `https.request`, which cannot reach a plain
 * http push service (the local one tests and development use), and has no overall timeout.
 */

/** What the service worker shows (islands/worker/sw.ts reads the same fields). */
export interface PushMessage {
  title: string;
  body: string;
  /** The page a click opens: a path of our own site. */
  url: string;
  /** Notifications with one tag replace each other (one per booking and topic). */
  tag: string;
}

type Subscription = typeof pushSubscriptions.$inferSelect;

/**
 * sent: the push service took it. gone: the browser's subscription no longer exists (404/410),
 * so it was deleted. refused: the push service will never take it (a malformed request, our keys
 * refused); logged. retry: the push service is busy or unreachable; worth trying again.
 */
export type Delivery = "sent" | "gone" | "refused" | "retry";

/** How long a push service keeps a message for a browser that is offline: a day. */
export const PUSH_TTL_SECONDS = 24 * 60 * 60;
/** A push service that has not answered by then is treated as unreachable. */
export const PUSH_TIMEOUT_MS = 10_000;

export async function deliver(deps: Deps, subscription: Subscription, message: PushMessage, ttlSeconds = PUSH_TTL_SECONDS): Promise<Delivery> {
  let request: ReturnType<typeof webpush.generateRequestDetails>;
  try {
    request = webpush.generateRequestDetails(
      { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dhKey, auth: subscription.authKey } },
      JSON.stringify(message),
      {
        vapidDetails: { subject: deps.config.vapid.subject, publicKey: deps.secrets.vapidPublicKey, privateKey: deps.secrets.vapidPrivateKey },
        TTL: ttlSeconds,
        contentEncoding: "aes128gcm",
      },
    );
  } catch (err) {
    console.error(`push to subscription ${subscription.id} could not be built:`, err);
    return "refused";
  }
  let response: Response;
  try {
    response = await fetch(request.endpoint, {
      method: "POST",
      headers: Object.entries(request.headers).map(([name, value]) => [name, String(value)] as [string, string]),
      body: request.body ? new Uint8Array(request.body) : null,
      // A push service answers; it never sends us elsewhere.
      redirect: "manual",
      signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
    });
  } catch (err) {
    console.error(`push service of subscription ${subscription.id} unreachable:`, err instanceof Error ? err.message : err);
    return "retry";
  }
  // The answer's body is never needed; reading it frees the connection.
  const detail = (await response.text().catch(() => "")).slice(0, 500);
  if (response.ok) return "sent";
  if (response.status === 404 || response.status === 410) {
    deps.db.delete(pushSubscriptions).where(eq(pushSubscriptions.id, subscription.id)).run();
    return "gone";
  }
  if (response.status === 429 || response.status >= 500) {
    console.error(`push service of subscription ${subscription.id} answered ${response.status}; retrying later`);
    return "retry";
  }
  console.error(`push service of subscription ${subscription.id} refused the message: ${response.status} ${detail}`);
  return "refused";
}

/**
 * One message for one browser, as a durable job: written before it is sent, so a crash or a
 * restart mid-way does not lose it, and retried while the push service is busy or unreachable.
 */
export const pushJob = defineJob<{ subscriptionId: string; message: PushMessage; ttlSeconds: number }>({
  kind: "notifications.push",
  // 30 s, 1, 2, 4 and 8 minutes: a notification that late is still worth having, one hours late is not.
  maxAttempts: 6,
  async run({ subscriptionId, message, ttlSeconds }, { deps }) {
    const subscription = deps.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.id, subscriptionId)).get();
    if (!subscription?.isActive) return;
    if ((await deliver(deps, subscription, message, ttlSeconds)) === "retry") throw new Error("push service busy or unreachable");
  },
});

/**
 * Queues each message as a job (its `key` makes queuing it twice harmless) and sends them at
 * once; those that fail are retried by the job runner.
 */
export async function queuePushes(deps: Deps, pushes: { key: string; subscriptionId: string; message: PushMessage; ttlSeconds?: number }[]) {
  const now = deps.now();
  for (const push of pushes) {
    scheduleJob(deps.db, pushJob, { subscriptionId: push.subscriptionId, message: push.message, ttlSeconds: push.ttlSeconds ?? PUSH_TTL_SECONDS }, { at: now, key: push.key });
  }
  await deps.jobs.runNow(pushes.map((p) => p.key));
}
