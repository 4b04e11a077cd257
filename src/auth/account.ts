import { and, eq, gt, isNull, ne, notInArray } from "drizzle-orm";
import { writeTransaction, type WriteTx, one } from "../../db/client";
import { emailTokens, oauthAccounts, sessions, users, type EmailToken, type User } from "../../db/schema";
import type { Deps } from "../deps";
import { queueEmail, sendQueuedEmails } from "../email/outbox";
import { DomainError } from "../../lib/domain-error";
import { takeEach } from "../../lib/rate-limit";
import type { Locale } from "../../lib/i18n";
import { emailChangedEmail, emailChangeEmail, linkAccountEmail, recipientLocale, resetEmail, verifyEmail } from "./emails";
import { consumeToken, findToken, hashToken, isChange, issueToken, storedToken, voidTokens } from "./tokens";

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

/**
 * "Resend link": the pending email change's link again when there is one, else the current
 * address's; answers the address it was sent to. Limited per account (`limits.verifyResend`) and
 * per address (`limits.emailsToAddress`), both counted before the email is written. Refused
 * without an address (400), when it is verified already (409), and over a limit (429).
 */
export async function resendVerification(deps: Deps, user: User, locale: Locale, pendingEmail: string | null): Promise<string> {
  if (!pendingEmail && !user.email) throw new DomainError("verify.noEmail", 400);
  if (!pendingEmail && user.emailVerified) throw new DomainError("verify.alreadyVerified", 409);
  const now = deps.now();
  const refused = await takeEach(now, [deps.limits.verifyResend, user.id], [deps.limits.emailsToAddress, pendingEmail ?? user.email!]);
  if (refused.retryAfterMs > 0) {
    const key = refused.refusedBy === deps.limits.emailsToAddress ? "verify.addressTooMany" : "verify.tooMany";
    throw new DomainError(key, 429, { retryAfterMs: refused.retryAfterMs });
  }
  const jobKeys = await writeTransaction(deps.db, async (tx) => {
    if (pendingEmail) return [await queueEmailChange(tx, deps, user, pendingEmail, null, locale, true)];
    const key = await queueVerification(tx, deps, user, locale);
    return key ? [key] : [];
  });
  sendQueuedEmails(deps, jobKeys);
  return pendingEmail ?? user.email!;
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

/** What following a verification link did. */
export type ConfirmResult = { kind: "verified"; user: User } | { kind: "changed"; user: User; ended: string[] } | { kind: "alreadyVerified"; user: User };

/** A link's use that changed nothing but using it up: the link no longer works, or the new address was taken meanwhile. */
type ConfirmRefusal = { kind: "taken"; email: string } | { kind: "invalid" };

/**
 * A link opened again once it did its work: when its address is the account's and verified,
 * that is what the person wants to hear, not that the link no longer works.
 */
async function verifiedBefore(tx: WriteTx, token: string | null): Promise<{ kind: "alreadyVerified"; user: User } | undefined> {
  const row = await storedToken(tx, token, "verify");
  if (!row) return undefined;
  const user = await one(tx.select().from(users).where(eq(users.id, row.userId)));
  return user && user.emailVerified && user.email === row.email ? { kind: "alreadyVerified", user } : undefined;
}

/**
 * Follows a verification link: the account's address is verified; for an email change, the new
 * address replaces the old one (if still free), is verified, the account's other sessions end
 * (all but the one that asked and `currentSid`, the browser following the link when it is the
 * account's) and the old address is told. A link that no longer works is refused (400), and so
 * is a change to an address another account took meanwhile (409); the link is used up all the same.
 */
export async function confirmEmail(deps: Deps, token: string | null, current: { userId: string; sid: string } | null, requestLocale: Locale): Promise<ConfirmResult> {
  const now = deps.now();
  const outcome = await writeTransaction(deps.db, async (tx): Promise<(ConfirmResult & { jobKeys?: string[] }) | ConfirmRefusal> => {
    const row = await consumeToken(tx, token, "verify", now);
    if (!row) return (await verifiedBefore(tx, token)) ?? { kind: "invalid" };
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
  // Refused once the transaction is committed: the token stays used.
  if (outcome.kind === "invalid") throw new DomainError("verify.invalid", 400);
  if (outcome.kind === "taken") throw new DomainError("verify.taken", 409, { params: { email: outcome.email } });
  if (outcome.kind === "changed") {
    if (outcome.ended.length) deps.events.emit({ type: "sessions.ended", userId: outcome.user.id, sessionIds: outcome.ended });
    sendQueuedEmails(deps, outcome.jobKeys ?? []);
  }
  const { jobKeys: _, ...result } = outcome;
  return result;
}

/**
 * "Forgot password?" from `ip`: a reset link to the account with this address, if there is one
 * (`sendResetLink`). Limited per address asking (`limits.resetByIp`: refused, 429); over the
 * limits of the address asked about, nothing is sent and nothing is said, and they are counted
 * whether or not the address has an account, so they say nothing of it either.
 */
export async function requestPasswordReset(deps: Deps, email: string, ip: string, requestLocale: Locale) {
  const now = deps.now();
  const wait = await deps.limits.resetByIp.take(ip, now);
  if (wait > 0) throw new DomainError("forgot.tooMany", 429, { retryAfterMs: wait });
  const { retryAfterMs } = await takeEach(now, [deps.limits.resetByEmail, email], [deps.limits.emailsToAddress, email]);
  if (retryAfterMs === 0) await sendResetLink(deps, email, requestLocale);
}

/**
 * A reset link to the account with this address, if there is one (and it is not suspended),
 * voiding earlier ones. Says nothing of whether there was: the caller answers the same either way.
 */
async function sendResetLink(deps: Deps, email: string, requestLocale: Locale) {
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

/** A reset link's use that changed nothing but using it up. */
type ResetRefusal = { refused: "invalid" } | { refused: "suspended"; email: string };

/**
 * Sets a new password from a reset link: the link is used, the address counts as verified (the
 * person read its mail) and every session of the account ends. A link that no longer works is
 * refused (400), and so is a suspended account (403, with the account's `email` for the form),
 * whose link is used up all the same.
 */
export async function resetPassword(deps: Deps, token: string | null, password: string): Promise<User> {
  const invalid = () => new DomainError("reset.invalid", 400);
  if (!(await findToken(deps.db, token, "reset", deps.now()))) throw invalid();
  const passwordHash = await deps.passwords.hash(password);
  const now = deps.now();
  const outcome = await writeTransaction(deps.db, async (tx): Promise<{ user: User } | ResetRefusal> => {
    const row = await consumeToken(tx, token, "reset", now);
    if (!row) return { refused: "invalid" };
    const user = await one(tx.select().from(users).where(eq(users.id, row.userId)));
    if (!user || user.email !== row.email) return { refused: "invalid" };
    if (user.suspendedAt !== null) return { refused: "suspended", email: row.email };
    const updated = (await one(tx.update(users).set({ passwordHash, emailVerified: true, updatedAt: now }).where(eq(users.id, user.id)).returning()))!;
    // Whoever held the account before the mailbox's owner took it back keeps nothing: no reset,
    // email-change or joining link of theirs works any more, and when the address was not
    // verified until now, no provider sign-in they joined to it either.
    await voidTokens(tx, user.id, "reset", now);
    await voidTokens(tx, user.id, "verify", now);
    await voidTokens(tx, user.id, "link", now);
    if (!user.emailVerified) await tx.delete(oauthAccounts).where(eq(oauthAccounts.userId, user.id));
    await tx.delete(sessions).where(eq(sessions.userId, user.id));
    return { user: updated };
  });
  // Refused once the transaction is committed: the token stays used.
  if ("refused" in outcome) throw outcome.refused === "suspended" ? new DomainError("login.suspended", 403, { params: { email: outcome.email } }) : invalid();
  deps.events.emit({ type: "sessions.ended", userId: outcome.user.id, sessionIds: "all" });
  return outcome.user;
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

/**
 * "Email me a link": a new link token with the same provider identity, emailed to the account's
 * address. Counted per account (`limits.linkEmail`) and per address (`limits.emailsToAddress`)
 * before the email is written, in one step each; over either, refused (429).
 */
export async function emailLink(deps: Deps, link: PendingLink, providerName: string, requestLocale: Locale) {
  const now = deps.now();
  const { retryAfterMs } = await takeEach(now, [deps.limits.linkEmail, link.user.id], [deps.limits.emailsToAddress, link.row.email]);
  if (retryAfterMs > 0) throw new DomainError("link.tooMany", 429, { retryAfterMs });
  const key = await writeTransaction(deps.db, async (tx) => {
    const token = await issueToken(tx, { userId: link.user.id, purpose: "link", email: link.row.email, data: link.row.data, now });
    return queueEmail(tx, deps, `link-account:${hashToken(token)}`, linkAccountEmail(deps, recipientLocale(deps, link.user, requestLocale), link.row.email, token, providerName));
  });
  sendQueuedEmails(deps, [key]);
}

/** A provider's account joined to the person's: who is signed in, and where they were going. */
export interface Linked {
  user: User;
  next: string;
}

/** A link token's use that joined nothing but used it up. */
type LinkRefusal = { refused: "invalid" } | { refused: "suspended" } | { refused: "unverified"; email: string } | { refused: "takenByOther"; email: string };

/**
 * Joins the provider's account to the person's, using the link token (once). `byEmail`: the
 * person followed the emailed link, which verifies the address too; otherwise they proved the
 * password, and the address must already be verified. Refused, the token used up all the same:
 * a token that no longer works (400, `link.expired`), a suspended account (403), an unverified
 * address (403, `link.unverified`), a provider's account joined to someone else meanwhile (409).
 * `providerName` is the provider's name, as the messages say it.
 */
export async function completeLink(deps: Deps, token: string | null, byEmail: boolean, providerName: string): Promise<Linked> {
  const now = deps.now();
  const outcome = await writeTransaction(deps.db, async (tx): Promise<Linked | LinkRefusal> => {
    const row = await consumeToken(tx, token, "link", now);
    if (!row?.data || !("provider" in row.data)) return { refused: "invalid" };
    const user = await one(tx.select().from(users).where(eq(users.id, row.userId)));
    if (!user || user.email !== row.email) return { refused: "invalid" };
    if (user.suspendedAt !== null) return { refused: "suspended" };
    if (!byEmail && !user.emailVerified) return { refused: "unverified", email: row.email };
    const { provider, subject, next } = row.data;
    const linked = await one(tx.select().from(oauthAccounts).where(and(eq(oauthAccounts.provider, provider), eq(oauthAccounts.subject, subject))));
    if (linked && linked.userId !== user.id) return { refused: "takenByOther", email: row.email };
    if (!linked) await tx.insert(oauthAccounts).values({ provider, subject, userId: user.id });
    const updated = byEmail && !user.emailVerified ? (await one(tx.update(users).set({ emailVerified: true, updatedAt: now }).where(eq(users.id, user.id)).returning()))! : user;
    await voidTokens(tx, user.id, "link", now);
    return { user: updated, next };
  });
  if (!("refused" in outcome)) return outcome;
  // Refused once the transaction is committed: the token stays used.
  if (outcome.refused === "invalid") throw new DomainError("link.expired", 400);
  if (outcome.refused === "suspended") throw new DomainError("login.suspended", 403);
  if (outcome.refused === "unverified") throw new DomainError("link.unverified", 403, { params: { provider: providerName, email: outcome.email } });
  throw new DomainError("link.takenByOther", 409, { params: { provider: providerName, email: outcome.email } });
}
