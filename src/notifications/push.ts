import { one, writeTransaction } from "../../db/client";
import { eq } from "drizzle-orm";
import webpush from "web-push";
import { pushSubscriptions } from "../../db/schema";
import type { Deps } from "../deps";
import { defineJob, scheduleJob } from "../jobs";
import { isDomainError } from "../../lib/domain-error";
import { checkDestination, pinnedRequest, systemResolver, type PushDestination, type Resolver } from "./destinations";
import { allowsLocalPushServices } from "./service";

/**
 * Sending one push message to one browser (docs/decisions/0025). `web-push` builds the request:
 * the VAPID signature, the payload encrypted for the browser (aes128gcm) and the TTL. It is sent
 * here (`post`), with `https.request` (`http.request` for a local push service on a development
 * machine), to the addresses checked just before (docs/decisions/0032), with one deadline for
 * the whole of it; web-push's own sender has no overall timeout and cannot reach plain http.
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
/** The most of a push service's answer that is read (only for the log). */
const ANSWER_DETAIL = 500;

export interface DeliveryOptions {
  /** How the push service's name is resolved; the system's resolver unless a test hands in its own. */
  resolve?: Resolver;
  /** When (`Date.now()` time) to give up: resolving, connecting and the answer all count. */
  deadline?: number;
}

/**
 * Posts the request to the checked addresses only (`pinnedRequest`). No redirect is followed.
 * Rejects when there is no answer by `deadline`.
 */
function post(destination: PushDestination, request: ReturnType<typeof webpush.generateRequestDetails>, deadline: number): Promise<{ status: number; detail: string }> {
  return new Promise((resolve, reject) => {
    let detail = "";
    let status = 0;
    const req = pinnedRequest(destination, "POST", Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])));
    const timer = setTimeout(() => {
      // Past the deadline: an answer's status is enough, no answer is unreachable.
      if (status) resolve({ status, detail });
      else reject(new Error("no answer in time"));
      req.destroy();
    }, Math.max(0, deadline - Date.now()));
    req.on("error", (err) => {
      clearTimeout(timer);
      if (status) resolve({ status, detail });
      else reject(err);
    });
    req.on("response", (res) => {
      status = res.statusCode ?? 0;
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        if (detail.length < ANSWER_DETAIL) detail += chunk.slice(0, ANSWER_DETAIL - detail.length);
      });
      res.on("end", () => {
        clearTimeout(timer);
        resolve({ status, detail });
      });
      res.on("error", () => {
        clearTimeout(timer);
        resolve({ status, detail });
      });
    });
    req.end(request.body ? Buffer.from(request.body) : undefined);
  });
}

/**
 * One message to one browser. The push service's address is checked again first (a name can
 * point elsewhere since the browser subscribed, docs/decisions/0032): one that is no longer on
 * the internet is refused without connecting.
 */
export async function deliver(deps: Deps, subscription: Subscription, message: PushMessage, ttlSeconds = PUSH_TTL_SECONDS, options: DeliveryOptions = {}): Promise<Delivery> {
  const deadline = options.deadline ?? Date.now() + PUSH_TIMEOUT_MS;
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
  let destination: PushDestination;
  try {
    destination = await checkDestination(subscription.endpoint, allowsLocalPushServices(deps), options.resolve ?? systemResolver, deadline - Date.now());
  } catch (err) {
    // The address refused for now (503: its name did not resolve) is tried again; any other reason is final.
    console.error(`push service of subscription ${subscription.id} not contacted: ${isDomainError(err) ? err.message : String(err)}`);
    return isDomainError(err) && err.status === 503 ? "retry" : "refused";
  }
  let answer: { status: number; detail: string };
  try {
    answer = await post(destination, request, deadline);
  } catch (err) {
    console.error(`push service of subscription ${subscription.id} unreachable:`, err instanceof Error ? err.message : err);
    return "retry";
  }
  const { status, detail } = answer;
  if (status >= 200 && status < 300) return "sent";
  if (status === 404 || status === 410) {
    await writeTransaction(deps.db, (tx) => tx.delete(pushSubscriptions).where(eq(pushSubscriptions.id, subscription.id)));
    return "gone";
  }
  if (status === 429 || status >= 500) {
    console.error(`push service of subscription ${subscription.id} answered ${status}; retrying later`);
    return "retry";
  }
  console.error(`push service of subscription ${subscription.id} refused the message: ${status} ${detail}`);
  return "refused";
}

/**
 * One message for one browser, as a durable job: written before it is sent, so a crash or a
 * restart mid-way does not lose it, and retried while the push service is busy or unreachable.
 */
export const pushJob = defineJob<{ subscriptionId: string; message: PushMessage; ttlSeconds: number }>({
  kind: "notifications.push",
  lane: "push",
  // 30 s, 1, 2, 4 and 8 minutes: a notification that late is still worth having, one hours late is not.
  maxAttempts: 6,
  async run({ subscriptionId, message, ttlSeconds }, { deps }) {
    const subscription = await one(deps.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.id, subscriptionId)));
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
    await writeTransaction(deps.db, (tx) => scheduleJob(tx, pushJob, { subscriptionId: push.subscriptionId, message: push.message, ttlSeconds: push.ttlSeconds ?? PUSH_TTL_SECONDS }, { at: now, key: push.key }));
  }
  await deps.jobs.runNow(pushes.map((p) => p.key));
}
