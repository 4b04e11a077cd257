import { and, eq, gt, isNull, ne, notInArray } from "drizzle-orm";
import { writeTransaction, type WriteTx, one } from "../../db/client";
import { emailTokens, oauthAccounts, sessions, users, type EmailToken, type User } from "../../db/schema";
import type { Deps } from "../deps";
import { queueEmail, sendQueuedEmails } from "../email/outbox";
import { takeEach } from "../lib/rate-limit";
import type { Locale } from "../texts";
import { emailChangedEmail, emailChangeEmail, linkAccountEmail, recipientLocale, resetEmail, verifyEmail } from "./emails";
import { consumeToken, findToken, hashToken, isChange, issueToken, voidTokens } from "./tokens";

/**
 * What email proves about an account (docs/decisions/0034): verifying its address, changing it,
 * resetting its password, and joining a provider's account to it. Every change and the email
 * that tells of it are written in one transaction; the emails are sent once it is committed.
 */

/** Queues the email that verifies the account's current address (in the caller's transaction). */
export async function queueVerification(tx: WriteTx, deps: Deps, user: Pick<User, "id" | "email" | "locale">, locale: Locale): Promise<string | null> {
  if (!user.email) return null;
  const now = deps.now();
  const token = await issueToken(tx, { userId: user.id, purpose: "verify", email: user.email, now });
  return queueEmail(tx, deps, `verify:${hashToken(token)}`, verifyEmail(deps, recipientLocale(deps, user, locale), user.email, token));
}

export type ResendResult =
  | { ok: true; email: string }
  | { ok: false; status: number; reason: "verify.alreadyVerified" | "verify.noEmail" | "verify.tooMany" | "verify.addressTooMany"; retryAfterMs?: number };

/**
 * "Resend link": the pending email change's link again when there is one, else the current
 * address's. Limited per account (`limits.verifyResend`) and per address (`limits.emailsToAddress`),
 * both counted before the email is written.
 */
export async function resendVerification(deps: Deps, user: User, locale: Locale, pendingEmail: string | null): Promise<ResendResult> {
  if (!pendingEmail && !user.email) return { ok: false, status: 400, reason: "verify.noEmail" };
  if (!pendingEmail && user.emailVerified) return { ok: false, status: 409, reason: "verify.alreadyVerified" };
  const now = deps.now();
  const refused = await takeEach(now, [deps.limits.verifyResend, user.id], [deps.limits.emailsToAddress, pendingEmail ?? user.email!]);
  if (refused.retryAfterMs > 0) {
    const reason = refused.refusedBy === deps.limits.emailsToAddress ? "verify.addressTooMany" : "verify.tooMany";
    return { ok: false, status: 429, reason, retryAfterMs: refused.retryAfterMs };
  }
  const jobKeys = await writeTransaction(deps.db, async (tx) => {
    if (pendingEmail) return [await queueEmailChange(tx, deps, user, pendingEmail, null, locale, true)];
    const key = await queueVerification(tx, deps, user, locale);
    return key ? [key] : [];
  });
  sendQueuedEmails(deps, jobKeys);
  return { ok: true, email: pendingEmail ?? user.email! };
}

/**
 * An email change waits for its link: voids any earlier pending change, writes the token for
 * the new address and queues its email. `keepSid` is the session that asked, kept when the
 * change is confirmed (the others are ended). `again` keeps that session from the earlier token.
 */
async function queueEmailChange(tx: WriteTx, deps: Deps, user: User, newEmail: string, keepSid: string | null, locale: Locale, again = false): Promise<string> {
  const now = deps.now();
  let sid = keepSid;
  if (again) sid = (await pendingChangeSid(tx, user.id, newEmail, now)) ?? null;
  await voidTokens(tx, user.id, "verify", now, "changes");
  const token = await issueToken(tx, { userId: user.id, purpose: "verify", email: newEmail, data: { change: true, sid }, now });
  return queueEmail(tx, deps, `email-change:${hashToken(token)}`, emailChangeEmail(deps, recipientLocale(deps, user, locale), newEmail, token));
}

async function pendingChangeSid(tx: WriteTx, userId: string, email: string, now: number): Promise<string | null | undefined> {
  const row = (await tx
    .select()
    .from(emailTokens)
    .where(and(eq(emailTokens.userId, userId), eq(emailTokens.purpose, "verify"), eq(emailTokens.email, email), isNull(emailTokens.usedAt), gt(emailTokens.expiresAt, now))))
    .find(isChange);
  return row?.data && "sid" in row.data ? row.data.sid : undefined;
}

/** Starts an email change (the checks were made by the caller): nothing changes until the link is followed. */
export async function requestEmailChange(deps: Deps, user: User, newEmail: string, keepSid: string | null, locale: Locale) {
  const key = await writeTransaction(deps.db, (tx) => queueEmailChange(tx, deps, user, newEmail, keepSid, locale));
  sendQueuedEmails(deps, [key]);
}

/** The account went back to its own address: a pending change is dropped. */
export async function cancelEmailChange(deps: Deps, userId: string) {
  await writeTransaction(deps.db, (tx) => voidTokens(tx, userId, "verify", deps.now(), "changes"));
}

export type ConfirmResult =
  | { kind: "verified"; user: User }
  | { kind: "changed"; user: User; ended: string[] }
  | { kind: "taken"; email: string }
  | { kind: "invalid" };

/**
 * Follows a verification link: the account's address is verified; for an email change, the new
 * address replaces the old one (if still free), is verified, the account's other sessions end
 * (all but the one that asked and `currentSid`, the browser following the link when it is the
 * account's) and the old address is told.
 */
export async function confirmEmail(deps: Deps, token: string | null, current: { userId: string; sid: string } | null, requestLocale: Locale): Promise<ConfirmResult> {
  const now = deps.now();
  const outcome = await writeTransaction(deps.db, async (tx): Promise<ConfirmResult & { jobKeys?: string[] }> => {
    const row = await consumeToken(tx, token, "verify", now);
    if (!row) return { kind: "invalid" };
    const user = await one(tx.select().from(users).where(eq(users.id, row.userId)));
    if (!user) return { kind: "invalid" };
    if (!isChange(row)) {
      // A link for an address the account no longer has proves nothing about the current one.
      if (user.email !== row.email) return { kind: "invalid" };
      const updated = user.emailVerified ? user : (await one(tx.update(users).set({ emailVerified: true, updatedAt: now }).where(eq(users.id, user.id)).returning()))!;
      return { kind: "verified", user: updated };
    }
    if (user.email === row.email) {
      const updated = (await one(tx.update(users).set({ emailVerified: true, updatedAt: now }).where(eq(users.id, user.id)).returning()))!;
      return { kind: "verified", user: updated };
    }
    const holder = await one(tx.select({ id: users.id }).from(users).where(and(eq(users.email, row.email), ne(users.id, user.id))));
    if (holder) return { kind: "taken", email: row.email };
    const updated = (await one(tx.update(users).set({ email: row.email, emailVerified: true, updatedAt: now }).where(eq(users.id, user.id)).returning()))!;
    // Links for the old address, or for another change, no longer mean anything.
    await voidTokens(tx, user.id, "verify", now);
    await voidTokens(tx, user.id, "reset", now);
    const keep = [row.data && "sid" in row.data ? row.data.sid : null, current?.userId === user.id ? current.sid : null].filter((s): s is string => !!s);
    const ended = (await tx
      .delete(sessions)
      .where(keep.length ? and(eq(sessions.userId, user.id), notInArray(sessions.sid, keep)) : eq(sessions.userId, user.id))
      .returning({ sid: sessions.sid }))
      .map((s) => s.sid);
    const jobKeys = user.email
      ? [await queueEmail(tx, deps, `email-changed:${hashToken(token!)}`, emailChangedEmail(deps, recipientLocale(deps, user, requestLocale), user.email, row.email))]
      : [];
    return { kind: "changed", user: updated, ended, jobKeys };
  });
  if (outcome.kind === "changed") {
    if (outcome.ended.length) deps.events.emit({ type: "sessions.ended", userId: outcome.user.id, sessionIds: outcome.ended });
    sendQueuedEmails(deps, outcome.jobKeys ?? []);
  }
  const { jobKeys: _, ...result } = outcome as ConfirmResult & { jobKeys?: string[] };
  return result as ConfirmResult;
}

/**
 * "Forgot password?": a reset link to the account with this address, if there is one (and it is
 * not suspended), voiding earlier ones. Says nothing of whether there was: the caller answers the
 * same either way.
 */
export async function requestPasswordReset(deps: Deps, email: string, requestLocale: Locale) {
  const now = deps.now();
  const key = await writeTransaction(deps.db, async (tx) => {
    const user = await one(tx.select().from(users).where(eq(users.email, email)));
    if (!user || user.suspendedAt !== null) return null;
    await voidTokens(tx, user.id, "reset", now);
    const token = await issueToken(tx, { userId: user.id, purpose: "reset", email, now });
    return queueEmail(tx, deps, `password-reset:${hashToken(token)}`, resetEmail(deps, recipientLocale(deps, user, requestLocale), email, token));
  });
  if (key) sendQueuedEmails(deps, [key]);
}

/** The address a reset link is for, while it works (the page shown from the link; nothing is used). */
export async function resetTokenEmail(deps: Deps, token: string | null): Promise<string | null> {
  return (await findToken(deps.db, token, "reset", deps.now()))?.email ?? null;
}

export type ResetResult = { ok: true; user: User } | { ok: false; reason: "invalid" | "suspended" };

/**
 * Sets a new password from a reset link: the link is used, the address counts as verified (the
 * person read its mail) and every session of the account ends.
 */
export async function resetPassword(deps: Deps, token: string | null, password: string): Promise<ResetResult> {
  if (!(await findToken(deps.db, token, "reset", deps.now()))) return { ok: false, reason: "invalid" };
  const passwordHash = await deps.passwords.hash(password);
  const now = deps.now();
  const outcome = await writeTransaction(deps.db, async (tx): Promise<ResetResult> => {
    const row = await consumeToken(tx, token, "reset", now);
    if (!row) return { ok: false, reason: "invalid" };
    const user = await one(tx.select().from(users).where(eq(users.id, row.userId)));
    if (!user || user.email !== row.email) return { ok: false, reason: "invalid" };
    if (user.suspendedAt !== null) return { ok: false, reason: "suspended" };
    const updated = (await one(tx.update(users).set({ passwordHash, emailVerified: true, updatedAt: now }).where(eq(users.id, user.id)).returning()))!;
    // Whoever held the account before the mailbox's owner took it back keeps nothing: no reset,
    // email-change or joining link of theirs works any more, and when the address was not
    // verified until now, no provider sign-in they joined to it either.
    await voidTokens(tx, user.id, "reset", now);
    await voidTokens(tx, user.id, "verify", now);
    await voidTokens(tx, user.id, "link", now);
    if (!user.emailVerified) await tx.delete(oauthAccounts).where(eq(oauthAccounts.userId, user.id));
    await tx.delete(sessions).where(eq(sessions.userId, user.id));
    return { ok: true, user: updated };
  });
  if (outcome.ok) deps.events.emit({ type: "sessions.ended", userId: outcome.user.id, sessionIds: "all" });
  return outcome;
}

/* Joining a provider's account to an existing one. */

export interface PendingLink {
  row: EmailToken;
  user: User;
  provider: string;
  subject: string;
  next: string;
}

/** The provider identity waiting to be joined to `user` (written at the callback, kept server-side). */
export async function startLink(deps: Deps, user: User, profile: { provider: string; subject: string; email: string | null }, next: string): Promise<string> {
  return await writeTransaction(deps.db, (tx) =>
    issueToken(tx, { userId: user.id, purpose: "link", email: user.email!, data: { provider: profile.provider, subject: profile.subject, providerEmail: profile.email, next }, now: deps.now() }),
  );
}

/** A link token that still works, with its account. */
export async function pendingLink(deps: Deps, token: string | null): Promise<PendingLink | null> {
  const row = await findToken(deps.db, token, "link", deps.now());
  if (!row?.data || !("provider" in row.data)) return null;
  const user = await one(deps.db.select().from(users).where(eq(users.id, row.userId)));
  if (!user || user.email !== row.email) return null;
  return { row, user, provider: row.data.provider, subject: row.data.subject, next: row.data.next };
}

/** "Email me a link": a new link token with the same provider identity, emailed to the account's address. */
export async function emailLink(deps: Deps, link: PendingLink, providerName: string, requestLocale: Locale) {
  const now = deps.now();
  const key = await writeTransaction(deps.db, async (tx) => {
    const token = await issueToken(tx, { userId: link.user.id, purpose: "link", email: link.row.email, data: link.row.data, now });
    return queueEmail(tx, deps, `link-account:${hashToken(token)}`, linkAccountEmail(deps, recipientLocale(deps, link.user, requestLocale), link.row.email, token, providerName));
  });
  sendQueuedEmails(deps, [key]);
}

export type LinkResult =
  | { ok: true; user: User; next: string }
  | { ok: false; reason: "invalid" | "suspended" | "unverified" | "takenByOther" };

/**
 * Joins the provider's account to the person's, using the link token (once). `byEmail`: the
 * person followed the emailed link, which verifies the address too; otherwise they proved the
 * password, and the address must already be verified.
 */
export async function completeLink(deps: Deps, token: string | null, byEmail: boolean): Promise<LinkResult> {
  const now = deps.now();
  return await writeTransaction(deps.db, async (tx): Promise<LinkResult> => {
    const row = await consumeToken(tx, token, "link", now);
    if (!row?.data || !("provider" in row.data)) return { ok: false, reason: "invalid" };
    const user = await one(tx.select().from(users).where(eq(users.id, row.userId)));
    if (!user || user.email !== row.email) return { ok: false, reason: "invalid" };
    if (user.suspendedAt !== null) return { ok: false, reason: "suspended" };
    if (!byEmail && !user.emailVerified) return { ok: false, reason: "unverified" };
    const { provider, subject, next } = row.data;
    const linked = await one(tx.select().from(oauthAccounts).where(and(eq(oauthAccounts.provider, provider), eq(oauthAccounts.subject, subject))));
    if (linked && linked.userId !== user.id) return { ok: false, reason: "takenByOther" };
    if (!linked) await tx.insert(oauthAccounts).values({ provider, subject, userId: user.id });
    const updated = byEmail && !user.emailVerified ? (await one(tx.update(users).set({ emailVerified: true, updatedAt: now }).where(eq(users.id, user.id)).returning()))! : user;
    await voidTokens(tx, user.id, "link", now);
    return { ok: true, user: updated, next };
  });
}
