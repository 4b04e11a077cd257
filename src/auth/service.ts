import { and, eq, lt, sql } from "drizzle-orm";
import { perDb, readCache, writeTransaction, type Db, one, written } from "../../db/client";
import { isUniqueViolation } from "../../db/dialect";
import { oauthAccounts, sessions, users, type User } from "../../db/schema";
import type { Deps, SessionInfo } from "../deps";
import { queueEmail, sendQueuedEmails } from "../email/outbox";
import type { Locale } from "../../lib/i18n";
import { defineJob } from "../jobs";
import { takeEach } from "../../lib/rate-limit";
import { queueVerification } from "./account";
import { recipientLocale, signupAttemptEmail } from "./emails";
import { firstNameSchema, lastNameSchema } from "./input";
import { DomainError } from "../../lib/domain-error";
import type { Credentials } from "./input";

export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** A session used after half its life is extended, so active users stay signed in. */
const SESSION_RENEW_AFTER_MS = SESSION_TTL_MS / 2;

const randomToken = (bytes = 32) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64url");
const sha256 = (value: string) => Bun.SHA256.hash(value, "hex");

const validOrNull = (schema: typeof firstNameSchema, value: unknown) => {
  const r = schema.safeParse(value);
  return r.success ? r.data : null;
};


/** Starts a session; the returned token goes in the cookie, only its hash is stored. */
export async function createSession(db: Db, userId: string, now = Date.now()) {
  const token = randomToken();
  const csrf = randomToken();
  const expire = now + SESSION_TTL_MS;
  await writeTransaction(db, (tx) => tx.insert(sessions).values({ sid: sha256(token), userId, sess: { csrf }, expire, createdAt: now }));
  return { token, csrf, expire };
}

/** The session lookup runs on every signed-in request: prepared once per database. */
const sessionStatements = perDb((db) => ({
  find: db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(eq(sessions.sid, sql.placeholder("sid")))
    .prepare(),
}));

/**
 * Session rows (with their user) read once per database change, like browse pages: signing in
 * or out, an extended or removed session and any change to a user are writes, so they are seen
 * at once. The row is shared between requests: never modify it.
 */
const sessionRows = readCache<{ session: typeof sessions.$inferSelect; user: User } | null>(1000);

export async function loadSession(db: Db, token: string, now = Date.now()) {
  if (!token || token.length > 100) return null;
  const sid = sha256(token);
  const statements = sessionStatements(db);
  const row = await sessionRows(db, sid, async () => (await one(statements.find.execute({ sid }))) ?? null);
  // A suspension or a deletion deletes the person's sessions; one started in the meantime is refused all the same.
  if (!row || row.user.suspendedAt !== null || row.user.deletedAt !== null) return null;
  if (row.session.expire <= now) {
    await writeTransaction(db, (tx) => tx.delete(sessions).where(eq(sessions.sid, sid)));
    return null;
  }
  let expire = row.session.expire;
  const renewed = expire - now < SESSION_TTL_MS - SESSION_RENEW_AFTER_MS;
  if (renewed) {
    expire = now + SESSION_TTL_MS;
    await writeTransaction(db, (tx) => tx.update(sessions).set({ expire }).where(eq(sessions.sid, sid)));
  }
  return { session: { sid, csrf: row.session.sess.csrf, expire } satisfies SessionInfo, user: row.user, renewed };
}

export async function destroySession(db: Db, token: string) {
  await writeTransaction(db, (tx) => tx.delete(sessions).where(eq(sessions.sid, sha256(token))));
}

export async function deleteExpiredSessions(db: Db, now = Date.now()) {
  await writeTransaction(db, (tx) => tx.delete(sessions).where(lt(sessions.expire, now)));
}

/** Hourly: expired sessions are removed (they are refused anyway; this keeps the table small). */
export const expiredSessionsCleanup = defineJob({
  kind: "sessions.cleanup",
  every: 60 * 60 * 1000,
  run: (_, { deps }) => deleteExpiredSessions(deps.db, deps.now()),
});

// A real hash to verify against when the email is unknown, so both paths take the same time.
const dummyHashes = new WeakMap<Deps["passwords"], Promise<string>>();

export async function verifyCredentials(deps: Pick<Deps, "db" | "passwords">, email: string, password: string): Promise<User | null> {
  const user = await one(deps.db.select().from(users).where(eq(users.email, email)));
  if (!user?.passwordHash) {
    let dummy: Promise<string> | undefined = dummyHashes.get(deps.passwords);
    if (!dummy) dummyHashes.set(deps.passwords, (dummy = deps.passwords.hash("not-a-real-password")));
    await deps.passwords.verify(password, await dummy);
    return null;
  }
  return (await deps.passwords.verify(password, user.passwordHash)) ? user : null;
}

/**
 * A sign-in with a password from `ip`: the user, once the sign-in limits allow the check
 * (`signInLimits`), the password is right and the account is not suspended. Refused otherwise:
 * 429 with the wait, 401 for a wrong email or password (counted as a failure already), 403 for
 * a suspended account, told only to whoever knows its password, so it confirms the account to
 * nobody else.
 */
export async function signInWithPassword(deps: Deps, { email, password }: Credentials, ip: string): Promise<User> {
  const now = deps.now();
  const wait = await signInLimits.take(deps, email, ip, now);
  if (wait > 0) throw new DomainError("error.tooMany", 429, { retryAfterMs: wait });
  const user = await verifyCredentials(deps, email, password);
  if (!user) throw new DomainError("login.invalidCredentials", 401);
  await signInLimits.succeeded(deps, email, ip, now);
  if (user.suspendedAt !== null) throw new DomainError("login.suspended", 403);
  return user;
}

/**
 * The password that proves `user`'s account is the person's own, to join a provider's sign-in to
 * it (src/web/auth/link-routes.tsx), with the sign-in's own limits: 429 with the wait, 401 for a
 * wrong password (counted as a failure already).
 */
export async function proveAccountPassword(deps: Deps, user: User, password: string, ip: string) {
  const email = user.email!;
  const now = deps.now();
  const wait = await signInLimits.take(deps, email, ip, now);
  if (wait > 0) throw new DomainError("error.tooMany", 429, { retryAfterMs: wait });
  const right = user.passwordHash ? await deps.passwords.verify(password, user.passwordHash) : false;
  if (!right) throw new DomainError("link.wrongPassword", 401, { fields: { password: "link.wrongPassword" } });
  await signInLimits.succeeded(deps, email, ip, now);
}

/**
 * A password account, and the email that verifies its address, in one transaction (the email is
 * sent once it is committed). The person is signed in at once; the address is verified when they
 * follow the link. Sign-ups are limited per address (`limits.signupByIp`), then the email is
 * counted against its address before anything is written, so sign-ups naming one address from
 * anywhere reach its inbox a few times an hour at most; over that the sign-up is refused (429)
 * and nothing is made. An address that has an account is refused (409), and its holder told
 * (`noticeSignupAttempt`): the clear message stays, as the attempts are limited.
 */
export async function registerWithPassword(deps: Deps, { email, password }: Credentials, ip: string, locale: Locale): Promise<User> {
  const signups = await deps.limits.signupByIp.take(ip, deps.now());
  if (signups > 0) throw new DomainError("error.tooMany", 429, { retryAfterMs: signups });
  const taken = async () => {
    await noticeSignupAttempt(deps, email, locale);
    return new DomainError("login.emailTaken", 409, { fields: { email: "login.emailTaken" } });
  };
  const existing = await one(deps.db.select({ id: users.id }).from(users).where(eq(users.email, email)));
  if (existing) throw await taken();
  const now = deps.now();
  const wait = await deps.limits.emailsToAddress.take(email, now);
  // The address was sent as many emails this hour as it may be (`limits.emailsToAddress`).
  if (wait > 0) throw new DomainError("verify.addressTooMany", 429, { fields: { email: "verify.addressTooMany" }, retryAfterMs: wait });
  try {
    const passwordHash = await deps.passwords.hash(password);
    const { user, jobKey } = await writeTransaction(deps.db, async (tx) => {
      const user = await written(tx.insert(users).values({ id: crypto.randomUUID(), email, passwordHash }).returning());
      return { user, jobKey: await queueVerification(tx, deps, user, locale) };
    });
    if (jobKey) sendQueuedEmails(deps, [jobKey]);
    return user;
  } catch (err) {
    // Nothing was sent to the address: it keeps its allowance.
    await deps.limits.emailsToAddress.refund(email, now);
    // Two sign-ups with the same email at once: the unique index decides.
    if (isUniqueViolation(err)) throw await taken();
    throw err;
  }
}

/**
 * Failed sign-ins (with a password, on the sign-in screen or when joining a provider's account)
 * lock an (email, address) pair and an address, never an email everywhere: the right password
 * from another address still works, after a slow-down once the email is hammered. With
 * `REDIS_URL` every process counts them together.
 *
 * Every check is counted as a failure before the password is checked, in one step with the
 * limit (docs/decisions/0044), so checks sent together are no more than the limit allows; the
 * right password then gives its count back and clears the pair's failures.
 */
const signInPair = (email: string, ip: string) => `${email}\n${ip}`;
export const signInLimits = {
  /**
   * Counts a password check for this email from this address. Answers the milliseconds before
   * this pair may try again when a lock refuses it (then nothing is counted), else 0 once the
   * email's slow-down has been waited out: the password may be checked.
   */
  async take(deps: Deps, email: string, ip: string, now: number): Promise<number> {
    const { retryAfterMs } = await takeEach(now, [deps.limits.loginByPair, signInPair(email, ip)], [deps.limits.loginByIp, ip]);
    if (retryAfterMs > 0) return retryAfterMs;
    await deps.limits.loginByEmail.wait(email, now);
    return 0;
  },
  /** The right password: its check is no failure, and this pair's earlier failures are forgotten. */
  async succeeded(deps: Deps, email: string, ip: string, now: number) {
    await Promise.all([deps.limits.loginByPair.reset(signInPair(email, ip)), deps.limits.loginByIp.refund(ip, now), deps.limits.loginByEmail.refund(email, now)]);
  },
  /** A password reset from this address: this pair's failures are forgotten. */
  forget(deps: Deps, email: string, ip: string) {
    return deps.limits.loginByPair.reset(signInPair(email, ip));
  },
};

/**
 * A sign-up with an address that has an account: its holder is told (at most once an hour per
 * address, `limits.signupNotice`, and within the address's emails, `limits.emailsToAddress`, so
 * nobody can flood an inbox with sign-ups). Counted before the holder is looked up, so sign-ups
 * arriving together send one notice, not one each.
 */
export async function noticeSignupAttempt(deps: Deps, email: string, requestLocale: Locale) {
  const now = deps.now();
  const { retryAfterMs } = await takeEach(now, [deps.limits.signupNotice, email], [deps.limits.emailsToAddress, email]);
  if (retryAfterMs > 0) return;
  const holder = await one(deps.db.select().from(users).where(eq(users.email, email)));
  if (!holder) {
    await Promise.all([deps.limits.signupNotice.refund(email, now), deps.limits.emailsToAddress.refund(email, now)]);
    return;
  }
  const key = await writeTransaction(deps.db, (tx) => queueEmail(tx, deps, `signup-attempt:${holder.id}:${now}`, signupAttemptEmail(deps, recipientLocale(deps, holder, requestLocale), email)));
  sendQueuedEmails(deps, [key]);
}

export interface OAuthProfile {
  provider: string;
  subject: string;
  email?: string | null;
  emailVerified: boolean;
  firstName?: string | null;
  lastName?: string | null;
}

export type OAuthOutcome =
  /** The provider's account is linked to this user, or a new user was made for it. */
  | { kind: "user"; user: User }
  /**
   * An account with the provider's email exists and the provider's account is not linked to it:
   * nobody is signed in until the person proves the account is theirs (docs/decisions/0034).
   */
  | { kind: "existing"; user: User };

/** Who a provider's sign-in is: its linked user, an existing account to join first, or a new user. */
export async function signInWithProvider(db: Db, profile: OAuthProfile): Promise<OAuthOutcome> {
  const linked = await linkedUser(db, profile);
  if (linked) return { kind: "user", user: linked };
  const email = normalizedEmail(profile.email);
  // Verified or not by the provider: a provider that lets people choose their email vouches for nothing.
  const existing = email ? await one(db.select().from(users).where(eq(users.email, email))) : undefined;
  if (existing) return { kind: "existing", user: existing };
  return { kind: "user", user: await findOrCreateOAuthUser(db, profile) };
}

/** The user a provider's account is linked to, if it is. */
async function linkedUser(db: Db, profile: Pick<OAuthProfile, "provider" | "subject">): Promise<User | undefined> {
  const row = await one(db
    .select({ user: users })
    .from(oauthAccounts)
    .innerJoin(users, eq(users.id, oauthAccounts.userId))
    .where(and(eq(oauthAccounts.provider, profile.provider), eq(oauthAccounts.subject, profile.subject))));
  return row?.user;
}

const normalizedEmail = (email: string | null | undefined) => email?.trim().toLowerCase() || null;

/**
 * Finds the user linked to a provider account, or makes a new one linked to it. Never joins an
 * existing account: an address already taken is left off the new account (see
 * `signInWithProvider`, which offers to join it once the person proves it is theirs).
 */
export async function findOrCreateOAuthUser(db: Db, profile: OAuthProfile): Promise<User> {
  const linked = await linkedUser(db, profile);
  if (linked) return linked;

  const email = normalizedEmail(profile.email);
  return writeTransaction(db, async (tx) => {
    const emailFree = email ? !await one(tx.select({ id: users.id }).from(users).where(eq(users.email, email))) : false;
    // A provider's names follow the profile's rules; one that does not is asked for in onboarding.
    const firstName = validOrNull(firstNameSchema, profile.firstName);
    const lastName = validOrNull(lastNameSchema, profile.lastName);
    const user = await written(tx
      .insert(users)
      .values({
        id: crypto.randomUUID(),
        // Only an address the provider verified: an unverified one on the new account would let
        // whoever chose it keep the account once the address's owner recovered it.
        email: emailFree && profile.emailVerified ? email : null,
        emailVerified: emailFree && profile.emailVerified,
        firstName,
        lastName,
        name: [firstName, lastName].filter(Boolean).join(" ") || null,
      })
      .returning());
    await tx.insert(oauthAccounts).values({ provider: profile.provider, subject: profile.subject, userId: user.id });
    return user;
  });
}
