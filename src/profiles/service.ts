import { and, eq, isNull, ne } from "drizzle-orm";
import { writeTransaction, type Db, type WriteTx, one } from "../../db/client";
import { isUniqueViolation } from "../../db/dialect";
import { sessions, users, type User } from "../../db/schema";
import type { Deps } from "../deps";
import { listFrom } from "../lib/http";
import { takeEach } from "../lib/rate-limit";
import { firstIssue } from "../lib/validation";
import type { Locale, MessageKey } from "../texts";
import { cancelEmailChange, requestEmailChange } from "../auth/account";
import { voidTokens } from "../auth/tokens";
import { cleanText } from "../lib/text";
import { ownedObjects } from "../uploads/service";
import { PROFILE_PHOTOS_MAX } from "../../shared/limits";
import {
  aboutSchema,
  bioSchema,
  birthdaySchema,
  firstNameSchema,
  interestsSchema,
  jsonOrObject,
  lastNameSchema,
  locationSchema,
  photosSchema,
  usernameSchema,
  visibilitySchema,
  type EmailChange,
  type PasswordChange,
} from "./input";

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
export async function checkUsername(deps: Deps, user: User, typed: unknown): Promise<UsernameCheck> {
  const parsed = usernameSchema.safeParse(typeof typed === "string" ? typed : "");
  if (!parsed.success) {
    const message = firstIssue(parsed.error);
    if (typeof typed !== "string" || !typed.trim()) return { state: "unknown", message };
    return { state: message === "profile.usernameTooShort" ? "tooShort" : "invalid", message };
  }
  if (parsed.data === user.username) return { state: "unchanged" };
  return { state: (await isUsernameTaken(deps.db, parsed.data, user.id)) ? "taken" : "available" };
}

export type FieldErrors = Record<string, MessageKey>;
export type UpdateFailure = { ok: false; status: number; errors: FieldErrors; retryAfterMs?: number };
/** `pendingEmail`: an email change waits for the link sent to this address; the user is unchanged. */
export type UpdateResult = { ok: true; user: User; pendingEmail?: string } | UpdateFailure;


/**
 * Applies any subset of profile fields (the spec's PUT /api/user/profile), each checked with
 * its rule. Nothing is written unless every given field is valid.
 */
export async function updateProfile(deps: Deps, user: User, input: Record<string, unknown>): Promise<UpdateResult> {
  const errors: FieldErrors = {};
  const set: Partial<typeof users.$inferInsert> = {};
  const has = (key: string) => input[key] !== undefined;

  // Names: firstName/lastName, or `name` split as the Name screen loads it (first word, rest).
  let firstName = input.firstName;
  let lastName = input.lastName;
  if (has("name") && !has("firstName") && !has("lastName")) {
    if (typeof input.name !== "string") errors.name = "profile.firstNameRequired";
    else {
      const [first = "", ...rest] = cleanText(input.name).split(/\s+/);
      firstName = first;
      lastName = rest.length ? rest.join(" ") : user.lastName ?? "";
    }
  }
  if (firstName !== undefined) {
    const r = firstNameSchema.safeParse(firstName);
    if (r.success) set.firstName = r.data;
    else errors.firstName = firstIssue(r.error);
  }
  if (lastName !== undefined) {
    const r = lastNameSchema.safeParse(lastName);
    if (r.success) set.lastName = r.data;
    else errors.lastName = firstIssue(r.error);
  }
  if (set.firstName !== undefined || set.lastName !== undefined) {
    set.name = [set.firstName ?? user.firstName, set.lastName ?? user.lastName].filter(Boolean).join(" ");
  }

  if (has("username")) {
    const r = usernameSchema.safeParse(input.username);
    if (!r.success) errors.username = firstIssue(r.error);
    else if (await isUsernameTaken(deps.db, r.data, user.id)) errors.username = "profile.usernameTaken";
    else set.username = r.data;
  }

  if (has("dateOfBirth")) {
    const r = birthdaySchema(() => new Date(deps.now())).safeParse(input.dateOfBirth);
    if (r.success) set.dateOfBirth = r.data;
    else errors.dateOfBirth = firstIssue(r.error);
  }

  if (has("country") || has("city")) {
    const r = locationSchema.safeParse({ country: has("country") ? input.country : user.country, city: input.city });
    if (r.success) Object.assign(set, r.data);
    else errors.city = firstIssue(r.error);
  }

  if (has("bio")) {
    const r = bioSchema.safeParse(input.bio ?? "");
    if (r.success) set.bio = r.data || null;
    else errors.bio = firstIssue(r.error);
  }

  if (has("photos") || has("photo")) {
    const r = photosSchema.safeParse(has("photos") ? listFrom(input.photos) : user.photos);
    if (!r.success) errors.photos = firstIssue(r.error);
    else if (has("photo") && input.photo !== null && typeof input.photo !== "string") errors.photos = "profile.photosInvalid";
    else {
      let list = [...new Set(r.data)];
      if (has("photo") && typeof input.photo === "string" && input.photo) list = [input.photo, ...list.filter((p) => p !== input.photo)];
      // Only photos this person uploaded, or already had, can be on their profile.
      const owned = await ownedObjects(deps, user.id, list);
      if (list.some((p) => !owned.has(p) && !user.photos.includes(p) && p !== user.photo)) errors.photos = "profile.photosInvalid";
      else if (list.length > PROFILE_PHOTOS_MAX) errors.photos = "profile.tooManyPhotos";
      // A profile keeps at least its main photo once it has one (onboarding asks for it).
      else if (list.length === 0 && user.photos.length > 0) errors.photos = "profile.photoRequired";
      else {
        set.photos = list;
        set.photo = list[0] ?? null;
        set.profileImageUrl = list[0] ?? null;
      }
    }
  }

  if (has("interests")) {
    const r = interestsSchema.safeParse(input.interests);
    if (r.success) set.interests = r.data;
    else errors.interests = firstIssue(r.error);
  }

  if (has("about")) {
    const raw = jsonOrObject.safeParse(input.about);
    const r = raw.success ? aboutSchema.safeParse(raw.data) : raw;
    if (r.success) set.about = JSON.stringify(r.data);
    else errors.about = firstIssue(r.error);
  }
  if (has("aboutVisibility")) {
    const raw = jsonOrObject.safeParse(input.aboutVisibility);
    const r = raw.success ? visibilitySchema.safeParse(raw.data) : raw;
    if (r.success) set.aboutVisibility = JSON.stringify(r.data);
    else errors.aboutVisibility = "profile.aboutInvalid";
  }

  if (Object.keys(errors).length) {
    return { ok: false, status: errors.username === "profile.usernameTaken" && Object.keys(errors).length === 1 ? 409 : 400, errors };
  }
  if (!Object.keys(set).length) return { ok: true, user };
  try {
    const [updated] = await writeTransaction(deps.db, (tx) => tx
      .update(users)
      .set({ ...set, updatedAt: deps.now() })
      .where(eq(users.id, user.id))
      .returning());
    return { ok: true, user: updated! };
  } catch (err) {
    if (isUniqueViolation(err) && set.username) return { ok: false, status: 409, errors: { username: "profile.usernameTaken" } };
    throw err;
  }
}

/**
 * Changing the email (`readEmailChange`) asks for the current password (when the account has one), then verifies the
 * new address before it replaces the old one (docs/decisions/0034): nothing changes here, a link
 * goes to the new address, and following it makes the change, ends the account's other sessions
 * and tells the old address. Asking for the current address again drops a pending change.
 */
export async function changeEmail(deps: Deps, user: User, input: EmailChange, keepSid: string | null, locale: Locale): Promise<UpdateResult> {
  const refused = await checkCurrentPassword(deps, user, input.currentPassword);
  if (refused) return refused;
  const email = input.email;
  if (email === user.email) {
    await cancelEmailChange(deps, user.id);
    return { ok: true, user };
  }
  // An operator's address (ADMIN_EMAILS) is for the operator's own account (docs/decisions/0024).
  if (deps.config.adminEmails.includes(email.toLowerCase())) return { ok: false, status: 409, errors: { email: "account.emailReserved" } };
  const taken = await one(deps.db.select({ id: users.id }).from(users).where(eq(users.email, email)));
  if (taken) return { ok: false, status: 409, errors: { email: "account.emailTaken" } };
  // Each change emails its new address: as many an hour as "Resend link" allows per account, and
  // within what one address may be sent whoever asks, so nobody (nor several accounts together)
  // can send a stranger's inbox a flood of links from here. Counted before the link is written.
  const now = deps.now();
  const limited = await takeEach(now, [deps.limits.verifyResend, user.id], [deps.limits.emailsToAddress, email]);
  if (limited.retryAfterMs > 0) {
    const message = limited.refusedBy === deps.limits.emailsToAddress ? "verify.addressTooMany" : "verify.tooMany";
    return { ok: false, status: 429, errors: { email: message }, retryAfterMs: limited.retryAfterMs };
  }
  await requestEmailChange(deps, user, email, keepSid, locale);
  return { ok: true, user, pendingEmail: email };
}

/**
 * Changing the password (`readPasswordChange`) asks for the current one (when there is one) and signs out every other
 * session of the account.
 */
export async function changePassword(deps: Deps, user: User, input: PasswordChange, keepSid: string | null): Promise<UpdateResult> {
  const refused = await checkCurrentPassword(deps, user, input.currentPassword);
  if (refused) return refused;
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
  return { ok: true, user: row };
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
 * limit); the right one clears the count.
 */
async function checkCurrentPassword(deps: Deps, user: User, current: string | undefined): Promise<UpdateFailure | null> {
  if (!user.passwordHash) return null;
  if (!current) return { ok: false, status: 400, errors: { currentPassword: "account.currentPasswordRequired" } };
  const wait = await deps.limits.currentPassword.take(user.id, deps.now());
  if (wait > 0) return { ok: false, status: 429, errors: { currentPassword: "error.tooMany" }, retryAfterMs: wait };
  if (await deps.passwords.verify(current, user.passwordHash)) {
    await deps.limits.currentPassword.reset(user.id);
    return null;
  }
  return { ok: false, status: 403, errors: { currentPassword: "account.currentPasswordWrong" } };
}

/** Someone's public profile by username; a suspended person's is gone with them (docs/decisions/0024). */
export async function findByUsername(db: Db, username: unknown): Promise<User | undefined> {
  if (typeof username !== "string") return undefined;
  const normalized = username.trim().toLowerCase();
  if (!normalized || normalized.length > 40) return undefined;
  return await one(db.select().from(users).where(and(eq(users.username, normalized), isNull(users.suspendedAt))));
}
