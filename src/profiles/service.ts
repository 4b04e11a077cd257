import { and, eq, isNull, ne } from "drizzle-orm";
import { writeTransaction, type Db, type WriteTx, one } from "../../db/client";
import { isUniqueViolation } from "../../db/dialect";
import { sessions, users, type User } from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../../lib/domain-error";
import { findCity } from "../../lib/places";
import { takeEach } from "../../lib/rate-limit";
import type { Locale, MessageKey } from "../../lib/i18n";
import { cancelEmailChange, requestEmailChange } from "../auth/account";
import { voidTokens } from "../auth/tokens";
import { ownedObjects } from "../uploads/service";
import { PROFILE_PHOTOS_MAX } from "../../shared/limits";
import type { EmailChange, PasswordChange, ProfileChanges, TypedUsername } from "./input";

export async function isUsernameTaken(db: Db, username: string, exceptUserId?: string): Promise<boolean> {
  const row = await one(db
    .select({ id: users.id })
    .from(users)
    .where(exceptUserId ? and(eq(users.username, username), ne(users.id, exceptUserId)) : eq(users.username, username)));
  return Boolean(row);
}

/** What a typed username would be: the onboarding field's status and the API's `available`. */
export type UsernameCheck =
  | { state: "unchanged" | "taken" | "available" }
  /** Nothing typed: the field shows no status; the API says why it is not available. */
  | { state: "unknown" | "tooShort" | "invalid"; message: MessageKey };

/** Checks a username as typed, for `user` (their current one is "unchanged"). */
export async function checkUsername(deps: Deps, user: User, typed: TypedUsername): Promise<UsernameCheck> {
  if ("state" in typed) return typed;
  if (typed.username === user.username) return { state: "unchanged" };
  return { state: (await isUsernameTaken(deps.db, typed.username, user.id)) ? "taken" : "available" };
}

/** A refusal of a profile change, with each refused field's message; the first is the answer's message. */
function refusedFields(fields: Record<string, MessageKey>, status = 400, retryAfterMs?: number) {
  return new DomainError(Object.values(fields)[0]!, status, { fields, retryAfterMs });
}

/**
 * Applies a profile change (`ProfileChanges`, each field already checked by its rule) after the
 * checks that need the account: a username nobody else has (409 when that is the only refusal),
 * photos this person uploaded or already had (at most six, and at least the main one once there
 * is one), a city in the account's own country, a last name kept when `name` gave none. Nothing
 * is written unless everything is accepted.
 */
export async function updateProfile(deps: Deps, user: User, changes: ProfileChanges): Promise<User> {
  const refused: Record<string, MessageKey> = {};
  const set: Partial<typeof users.$inferInsert> = {};

  if (changes.firstName !== undefined) set.firstName = changes.firstName;
  if (changes.lastName !== undefined) set.lastName = changes.lastName;
  if (changes.keepsLastName && !user.lastName) refused.lastName = "profile.lastNameRequired";
  if (set.firstName !== undefined || set.lastName !== undefined) {
    set.name = [set.firstName ?? user.firstName, set.lastName ?? user.lastName].filter(Boolean).join(" ");
  }

  if (changes.username !== undefined) {
    if (await isUsernameTaken(deps.db, changes.username, user.id)) refused.username = "profile.usernameTaken";
    else set.username = changes.username;
  }

  if (changes.dateOfBirth !== undefined) set.dateOfBirth = changes.dateOfBirth;

  if (changes.place) {
    const country = "country" in changes.place ? changes.place.country : user.country;
    const city = findCity(country, changes.place.city);
    if (!city) refused.city = "profile.locationRequired";
    else Object.assign(set, { country, city: city.name });
  }

  if (changes.bio !== undefined) set.bio = changes.bio;

  if (changes.photos !== undefined || changes.photo !== undefined) {
    let list = changes.photos ?? [...new Set(user.photos)];
    const main = changes.photo;
    if (main) list = [main, ...list.filter((p) => p !== main)];
    // Only photos this person uploaded, or already had, can be on their profile.
    const owned = await ownedObjects(deps, user.id, list);
    if (list.some((p) => !owned.has(p) && !user.photos.includes(p) && p !== user.photo)) refused.photos = "profile.photosInvalid";
    else if (list.length > PROFILE_PHOTOS_MAX) refused.photos = "profile.tooManyPhotos";
    // A profile keeps at least its main photo once it has one (onboarding asks for it).
    else if (list.length === 0 && user.photos.length > 0) refused.photos = "profile.photoRequired";
    else {
      set.photos = list;
      set.photo = list[0] ?? null;
      set.profileImageUrl = list[0] ?? null;
    }
  }

  if (changes.interests !== undefined) set.interests = changes.interests;
  if (changes.about !== undefined) set.about = JSON.stringify(changes.about);
  if (changes.aboutVisibility !== undefined) set.aboutVisibility = JSON.stringify(changes.aboutVisibility);

  const fields = Object.keys(refused);
  if (fields.length) throw refusedFields(refused, refused.username === "profile.usernameTaken" && fields.length === 1 ? 409 : 400);
  if (!Object.keys(set).length) return user;
  try {
    const [updated] = await writeTransaction(deps.db, (tx) => tx
      .update(users)
      .set({ ...set, updatedAt: deps.now() })
      .where(eq(users.id, user.id))
      .returning());
    return updated!;
  } catch (err) {
    if (isUniqueViolation(err) && set.username) throw refusedFields({ username: "profile.usernameTaken" }, 409);
    throw err;
  }
}

/**
 * Changing the email asks for the current password (when the account has one), then verifies the
 * new address before it replaces the old one (docs/decisions/0034): nothing changes here, a link
 * goes to the new address, and following it makes the change, ends the account's other sessions
 * and tells the old address. Answers the address waiting for its link, or null when the account
 * asked for its own address again, which drops a pending change. Refused: an operator's address
 * or one another account has (409), over the limits of links sent (429).
 */
export async function changeEmail(deps: Deps, user: User, input: EmailChange, keepSid: string | null, locale: Locale): Promise<string | null> {
  await checkCurrentPassword(deps, user, input.currentPassword);
  const email = input.email;
  if (email === user.email) {
    await cancelEmailChange(deps, user.id);
    return null;
  }
  // An operator's address (ADMIN_EMAILS) is for the operator's own account (docs/decisions/0024).
  if (deps.config.adminEmails.includes(email.toLowerCase())) throw refusedFields({ email: "account.emailReserved" }, 409);
  const taken = await one(deps.db.select({ id: users.id }).from(users).where(eq(users.email, email)));
  if (taken) throw refusedFields({ email: "account.emailTaken" }, 409);
  // Each change emails its new address: as many an hour as "Resend link" allows per account, and
  // within what one address may be sent whoever asks, so nobody (nor several accounts together)
  // can send a stranger's inbox a flood of links from here. Counted before the link is written.
  const now = deps.now();
  const limited = await takeEach(now, [deps.limits.verifyResend, user.id], [deps.limits.emailsToAddress, email]);
  if (limited.retryAfterMs > 0) {
    const message = limited.refusedBy === deps.limits.emailsToAddress ? "verify.addressTooMany" : "verify.tooMany";
    throw refusedFields({ email: message }, 429, limited.retryAfterMs);
  }
  await requestEmailChange(deps, user, email, keepSid, locale);
  return email;
}

/**
 * Changing the password asks for the current one (when there is one) and signs out every other
 * session of the account.
 */
export async function changePassword(deps: Deps, user: User, input: PasswordChange, keepSid: string | null): Promise<User> {
  await checkCurrentPassword(deps, user, input.currentPassword);
  const passwordHash = await deps.passwords.hash(input.newPassword);
  const { row, ended } = await writeTransaction(deps.db, async (tx) => {
    const row = await one(tx.update(users).set({ passwordHash, updatedAt: deps.now() }).where(eq(users.id, user.id)).returning());
    // A new password shuts out whoever knew the old one: their pending email change or
    // provider joining goes with their sessions.
    await voidTokens(tx, user.id, "verify", deps.now(), "changes");
    await voidTokens(tx, user.id, "link", deps.now());
    await voidTokens(tx, user.id, "reset", deps.now());
    return { row: row!, ended: await endOtherSessions(tx, user.id, keepSid) };
  });
  announceEnded(deps, user.id, ended);
  return row;
}

/**
 * Signs the account out everywhere but the session making the change (inside its transaction);
 * returns the ids of the sessions it ended.
 */
async function endOtherSessions(tx: WriteTx, userId: string, keepSid: string | null): Promise<string[]> {
  return (await tx
    .delete(sessions)
    .where(keepSid ? and(eq(sessions.userId, userId), ne(sessions.sid, keepSid)) : eq(sessions.userId, userId))
    .returning({ sid: sessions.sid }))
    .map((s) => s.sid);
}

/** Once committed: the live channel closes the sockets those sessions opened. */
function announceEnded(deps: Deps, userId: string, sessionIds: string[]) {
  if (sessionIds.length) deps.events.emit({ type: "sessions.ended", userId, sessionIds });
}

/**
 * The current-password check of the email and password changes. Wrong tries are limited per
 * account (`limits.currentPassword`, shared by both changes): once over, every try is refused,
 * the right password too, until the window ends, so a borrowed session cannot guess it. Each
 * try counts as wrong before the password is checked (tries sent together are no more than the
 * limit); the right one clears the count. Refused: no password given (400), over the limit
 * (429), a wrong one (403).
 */
async function checkCurrentPassword(deps: Deps, user: User, current: string | undefined) {
  if (!user.passwordHash) return;
  if (!current) throw refusedFields({ currentPassword: "account.currentPasswordRequired" });
  const wait = await deps.limits.currentPassword.take(user.id, deps.now());
  if (wait > 0) throw refusedFields({ currentPassword: "error.tooMany" }, 429, wait);
  if (!(await deps.passwords.verify(current, user.passwordHash))) throw refusedFields({ currentPassword: "account.currentPasswordWrong" }, 403);
  await deps.limits.currentPassword.reset(user.id);
}

/** Someone's public profile by username; a suspended person's is gone with them (docs/decisions/0024). */
export async function findByUsername(db: Db, username: string): Promise<User | undefined> {
  const normalized = username.trim().toLowerCase();
  if (!normalized || normalized.length > 40) return undefined;
  return await one(db.select().from(users).where(and(eq(users.username, normalized), isNull(users.suspendedAt))));
}
