import { and, desc, eq, ne, notInArray } from "drizzle-orm";
import { writeTransaction, type Db, one } from "../../db/client";
import { notificationPreferences, pushSubscriptions, users } from "../../db/schema";
import type { Deps } from "../deps";
import type { Locale } from "../../lib/i18n";
import { DomainError, isDomainError } from "../../lib/domain-error";
import type { SubscriptionInput } from "./input";
import { DEFAULT_PREFERENCES, PREFERENCE_KEYS, type PreferenceKey, type Preferences } from "./rules";
import { allowsLoopbackPushServices, checkAddressText, resolveDestination, systemResolver, type Resolver } from "./destinations";
import { MAX_ENDPOINT_LENGTH, MAX_SUBSCRIPTIONS_PER_USER } from "../../shared/limits";

/**
 * Notification preferences and push subscriptions (docs/decisions/0025): which kinds of
 * notification a person wants, and the browsers they have turned push notifications on in.
 */


/** A person's preferences: their row, or the defaults when they never changed one. */
export async function preferencesOf(db: Db, userId: string): Promise<Preferences> {
  const row = await one(db.select().from(notificationPreferences).where(eq(notificationPreferences.userId, userId)));
  if (!row) return { ...DEFAULT_PREFERENCES };
  return Object.fromEntries(PREFERENCE_KEYS.map((key) => [key, row[key]])) as Preferences;
}

async function writePreferences(deps: Deps, userId: string, change: Partial<Preferences>) {
  const now = deps.now();
  await writeTransaction(deps.db, (tx) => tx
    .insert(notificationPreferences)
    .values({ userId, ...DEFAULT_PREFERENCES, ...change, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({ target: notificationPreferences.userId, set: { ...change, updatedAt: now } }));
}

/**
 * Changes some of a person's preferences (`POST /api/notifications/preferences` changes one, the
 * Settings form without JavaScript all of them, an email's unsubscribe link one); returns them all.
 */
export async function changePreferences(deps: Deps, userId: string, change: Partial<Preferences>): Promise<Preferences> {
  await writePreferences(deps, userId, change);
  return await preferencesOf(deps.db, userId);
}

/**
 * An email's one-click unsubscribe, its token read (`/email/unsubscribe`): that kind turned off.
 * Someone whose account is gone gets no email anyway: nothing is written for them.
 */
export async function unsubscribeFromEmails(deps: Deps, userId: string, kind: PreferenceKey): Promise<void> {
  const exists = await one(deps.db.select({ id: users.id }).from(users).where(eq(users.id, userId)));
  if (exists) await writePreferences(deps, userId, { [kind]: false });
}

// ---------------------------------------------------------------------------------------------
// Push subscriptions

/** A subscription as kept: its address, and the browser's keys as unpadded base64url. */
export interface Subscription {
  endpoint: string;
  p256dh: string;
  auth: string;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** base64url text (browsers send it unpadded; padding is tolerated) as bytes, or null. */
function base64urlBytes(value: string): Uint8Array<ArrayBuffer> | null {
  const bare = value.replace(/={1,2}$/, "");
  return BASE64URL.test(bare) ? new Uint8Array(Buffer.from(bare, "base64url")) : null;
}

/**
 * Where a push service receives our messages, as text (docs/decisions/0032): the server posts to
 * this address, so it must look like a push service on the internet: https, a host name (no IP
 * address, no localhost, no single label or special-use domain), no credentials. A development
 * machine (`allowLocal`, see `allowsLocalPushServices`) may also use a push service on itself
 * (`http://localhost:…`, `http://127.0.0.1:…`). What the name resolves to is checked by
 * `readSubscription`, and again before each message.
 */
export function checkEndpoint(value: string, allowLocal: boolean): string {
  if (!value || value.length > MAX_ENDPOINT_LENGTH) throw new DomainError("notifications.error.subscription", 400);
  if (!URL.canParse(value)) throw new DomainError("notifications.error.subscription", 400);
  try {
    return checkAddressText(value, allowLocal).href;
  } catch (err) {
    if (isDomainError(err)) throw new DomainError("notifications.error.endpoint", 400);
    throw err;
  }
}

/**
 * A browser's push subscription as `PushSubscription.toJSON()` gives it (`subscriptionInput`):
 * the endpoint and the browser's keys, a P-256 public key (65 bytes, a point on the curve) and a
 * 16-byte secret. Checked here so that encrypting for it later cannot fail.
 */
export async function readSubscription(input: SubscriptionInput, allowLocal: boolean, resolve: Resolver = systemResolver): Promise<Subscription> {
  const endpoint = checkEndpoint(input.endpoint, allowLocal);
  const p256dh = base64urlBytes(input.keys.p256dh);
  const auth = base64urlBytes(input.keys.auth);
  if (!p256dh || p256dh.length !== 65 || p256dh[0] !== 0x04 || !auth || auth.length !== 16) {
    throw new DomainError("notifications.error.subscription", 400);
  }
  try {
    await crypto.subtle.importKey("raw", p256dh, { name: "ECDH", namedCurve: "P-256" }, false, []);
  } catch {
    throw new DomainError("notifications.error.subscription", 400);
  }
  // Every address the push service's name resolves to must be on the internet (or, on a
  // development machine, this machine): whatever the reason, the same refusal.
  try {
    await resolveDestination(new URL(endpoint), allowLocal, resolve);
  } catch (err) {
    if (isDomainError(err)) throw new DomainError("notifications.error.endpoint", 400);
    throw err;
  }
  const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
  return { endpoint, p256dh: text(p256dh), auth: text(auth) };
}

/**
 * A development machine may use a push service on itself: only when PUBLIC_URL is plain http on
 * `localhost` or a loopback address, never with an https PUBLIC_URL (docs/decisions/0032).
 */
export const allowsLocalPushServices = (deps: Deps) => allowsLoopbackPushServices(deps.config.publicUrl);

/**
 * `POST /api/notifications/subscribe`: keeps the browser's subscription for this person. The
 * endpoint identifies the browser: subscribing it again renews it, and a browser someone else
 * had subscribed (a shared device) now notifies this person only.
 */
export async function subscribe(
  deps: Deps,
  userId: string,
  input: SubscriptionInput,
  from: { userAgent: string | null; locale: Locale },
  resolve: Resolver = systemResolver,
): Promise<"created" | "renewed"> {
  const sub = await readSubscription(input, allowsLocalPushServices(deps), resolve);
  const now = deps.now();
  const userAgent = from.userAgent?.slice(0, 300) ?? null;
  return writeTransaction(deps.db, async (tx) => {
    const renewed = await one(tx
      .update(pushSubscriptions)
      .set({ userId, p256dhKey: sub.p256dh, authKey: sub.auth, userAgent, locale: from.locale, isActive: true, updatedAt: now })
      .where(eq(pushSubscriptions.endpoint, sub.endpoint))
      .returning({ id: pushSubscriptions.id }));
    const id = renewed?.id ?? crypto.randomUUID();
    if (!renewed) {
      await tx.insert(pushSubscriptions)
        .values({ id, userId, endpoint: sub.endpoint, p256dhKey: sub.p256dh, authKey: sub.auth, userAgent, locale: from.locale, createdAt: now, updatedAt: now });
    }
    // This one and the most recently renewed others, up to the limit.
    const kept = (await tx
      .select({ id: pushSubscriptions.id })
      .from(pushSubscriptions)
      .where(and(eq(pushSubscriptions.userId, userId), ne(pushSubscriptions.id, id)))
      .orderBy(desc(pushSubscriptions.updatedAt))
      .limit(MAX_SUBSCRIPTIONS_PER_USER - 1))
      .map((s) => s.id);
    await tx.delete(pushSubscriptions).where(and(eq(pushSubscriptions.userId, userId), notInArray(pushSubscriptions.id, [id, ...kept])));
    return renewed ? "renewed" : "created";
  });
}

/** `POST /api/notifications/unsubscribe` with `endpoint`: only one of the caller's own (404 otherwise). */
export async function unsubscribe(deps: Deps, userId: string, endpoint: string) {
  const gone = await one(writeTransaction(deps.db, (tx) => tx
    .delete(pushSubscriptions)
    .where(and(eq(pushSubscriptions.endpoint, endpoint), eq(pushSubscriptions.userId, userId)))
    .returning({ id: pushSubscriptions.id })));
  if (!gone) throw new DomainError("notifications.error.notFound", 404);
}

/** The browsers a person has push notifications on in. */
export async function subscriptionsOf(db: Db, userId: string) {
  return await db
    .select()
    .from(pushSubscriptions)
    .where(and(eq(pushSubscriptions.userId, userId), eq(pushSubscriptions.isActive, true)));
}
