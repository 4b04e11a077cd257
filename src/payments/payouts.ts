import { one, writeTransaction } from "../../db/client";
import { and, eq, isNull } from "drizzle-orm";
import { users, type User } from "../../db/schema";
import type { Deps } from "../deps";
import type { MessageKey } from "../../lib/i18n";
import { DomainError } from "../../lib/domain-error";
import { returnBase } from "./choice";
import { PaymentError } from "../ports/payments";

/**
 * Payout setup: a host's connected payout account at the payment provider, its onboarding, and
 * whether it can receive transfers. Provider-agnostic: only `deps.payments` is called, and the
 * enabled state is always read from the provider (a return URL proves nothing).
 */

/** The one key of a host's account creation: a retry after a crash finds the same account. */
export const connectAccountKey = (userId: string) => `user:${userId}:connect-account`;

export type PayoutSetup =
  | { state: "none" }
  | { state: "incomplete"; missing: MessageKey[] }
  | { state: "enabled" };

/** Where the provider sends the host back (see `returnBase`). */
export function onboardingUrls(deps: Deps, request: Request) {
  const base = returnBase(deps, request);
  return { refreshUrl: `${base}/stripe-connect-setup?refresh=1`, returnUrl: `${base}/stripe-connect-setup?return=1` };
}

/** The host's connected account id, created at the provider the first time (once, whatever the retries). */
export async function ensureConnectedAccount(deps: Deps, user: User): Promise<string> {
  if (user.stripeAccountId) return user.stripeAccountId;
  const account = await deps.payments.createConnectedAccount({ userId: user.id, email: user.email }, connectAccountKey(user.id));
  // Compare-and-set: two tabs racing both got the same account (same key); the first write stays.
  await writeTransaction(deps.db, (tx) => tx
    .update(users)
    .set({ stripeAccountId: account.id, payoutsEnabled: account.payoutsEnabled, updatedAt: deps.now() })
    .where(and(eq(users.id, user.id), isNull(users.stripeAccountId))));
  const stored = await one(deps.db.select({ id: users.stripeAccountId }).from(users).where(eq(users.id, user.id)));
  return stored?.id ?? account.id;
}

/**
 * A fresh onboarding link for the host (creating their account first when needed). Payouts go to
 * whoever owns the account, so they wait for a verified address (docs/decisions/0034, 403): an
 * account made with someone else's address never sets up where that person's money goes. A
 * provider that fails is 503 when it is down, 502 otherwise; its own words go to the log.
 */
export async function startPayoutSetup(deps: Deps, user: User, request: Request): Promise<{ url: string }> {
  if (!user.emailVerified) throw new DomainError("payments.verifyFirstApi", 403);
  try {
    const accountId = await ensureConnectedAccount(deps, user);
    return await deps.payments.onboardingLink(accountId, onboardingUrls(deps, request));
  } catch (err) {
    console.error("Starting payout setup failed:", err instanceof Error ? err.message : err);
    const status = err instanceof PaymentError && err.code === "provider_unavailable" ? 503 : 502;
    throw new DomainError("payments.setupFailedBody", status, { log: err instanceof Error ? err.message : String(err) });
  }
}

/** What a provider's requirement names mean to a host, in the order a host would gather them. */
const REQUIREMENT_GROUPS: { match: RegExp; key: MessageKey }[] = [
  { match: /(^|\.)(verification|id_number)|document/, key: "payments.need.governmentId" },
  { match: /^external_account/, key: "payments.need.bankAccount" },
  { match: /^(business_type|business_profile|company)/, key: "payments.need.businessInfo" },
  { match: /tax_id|ssn_last_4/, key: "payments.need.taxId" },
  { match: /^tos_acceptance/, key: "payments.need.terms" },
  { match: /^(individual|representative|person)/, key: "payments.need.personalDetails" },
];

export function missingOf(requirements: string[]): MessageKey[] {
  const out = new Set<MessageKey>();
  for (const r of requirements) out.add(REQUIREMENT_GROUPS.find((g) => g.match.test(r))?.key ?? "payments.need.other");
  return [...out];
}

/** Stores what the provider says of an account on its host, when that changed. */
async function storePayoutsEnabled(deps: Deps, accountId: string, enabled: boolean) {
  await writeTransaction(deps.db, (tx) => tx.update(users).set({ payoutsEnabled: enabled, updatedAt: deps.now() }).where(and(eq(users.stripeAccountId, accountId), eq(users.payoutsEnabled, !enabled))));
}

/** The host's payout setup as the provider knows it now; stores whether payouts are enabled. */
export async function payoutSetup(deps: Deps, user: User): Promise<PayoutSetup> {
  if (!user.stripeAccountId) return { state: "none" };
  const account = await deps.payments.getConnectedAccount(user.stripeAccountId);
  if (!account) return { state: "none" };
  await storePayoutsEnabled(deps, account.id, account.payoutsEnabled);
  return account.payoutsEnabled ? { state: "enabled" } : { state: "incomplete", missing: missingOf(account.requirements) };
}

/** A provider said an account changed: read it again (events arrive late and out of order) and store its state. */
export async function refreshConnectedAccount(deps: Deps, accountId: string) {
  if (!accountId) return;
  const account = await deps.payments.getConnectedAccount(accountId);
  if (account) await storePayoutsEnabled(deps, account.id, account.payoutsEnabled);
}
