import { and, desc, eq, gt, inArray, isNotNull, isNull, or, sql } from "drizzle-orm";
import { one, writeTransaction, type Db, type WriteTx } from "../../db/client";
import {
  accountDeletions,
  activities,
  bookingSelections,
  bookings,
  dataExports,
  emailTokens,
  externalBusy,
  hostBlocks,
  jobs,
  notificationPreferences,
  oauthAccounts,
  pushSubscriptions,
  savedActivities,
  sessions,
  uploads,
  users,
  type User,
} from "../../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../../lib/domain-error";
import type { Locale, MessageKey } from "../../lib/i18n";
import { translator } from "../../lib/i18n";
import { defineJob, scheduleJob } from "../jobs";
import { composeEmail, queueEmail, sendQueuedEmails } from "../email/outbox";
import { recipientLocale, siteLink } from "../auth/emails";
import { owedPayouts } from "../bookings/payouts";
import { openDebts } from "../bookings/host-debts";
import { deletePhoto, photoObjectId, uploadKey } from "../uploads/service";
import { PREPARING_STALE_MS } from "./export";
import { loggable } from "../../db/faults";
import type { DeletionConfirmation } from "./delete-input";

/**
 * Deleting an account (docs/decisions/0057). The person's row stays as a tombstone, every personal
 * field emptied and the email and username freed, so that the bookings, money lines, messages and
 * reviews that point at it keep their meaning for the other side and the accounts. Everything that
 * is only theirs goes, in one write transaction, with the log row (`account_deletions`, no personal
 * data) and the job that removes their files; the job retries until every file is gone.
 */

/** Something the person must finish before their account can go, with where to finish it. */
export interface OpenItem {
  kind: "booking" | "paymentHold" | "claim" | "payout" | "debt" | "dataCopy";
  /** The booking it is about (empty for a copy of their data being prepared). */
  bookingId: string;
  activityTitle: string;
  /** Where to finish it. */
  href: string;
}

/** What each kind of open item tells the person to do first. */
export const OPEN_ITEM_TEXT: Record<OpenItem["kind"], MessageKey> = {
  booking: "deletion.open.booking",
  paymentHold: "deletion.open.paymentHold",
  claim: "deletion.open.claim",
  payout: "deletion.open.payout",
  debt: "deletion.open.debt",
  dataCopy: "deletion.open.dataCopy",
};

/**
 * What the person still has open, as guest or host: a pending or accepted booking (a group
 * session's spots are bookings too), a booking awaiting its payment (the card held, or the slot
 * held for the payment), a money movement under way (a claim, src/bookings/claims.ts), a host's
 * share still owed to them (src/bookings/payouts.ts), a debt from refunds after a payout
 * (src/bookings/host-debts.ts), a copy of their data being prepared. Read through `db`, which is the deletion's own transaction when
 * it checks again before deleting.
 */
export async function openItems(db: Db | WriteTx, userId: string, now: number): Promise<OpenItem[]> {
  const mine = or(eq(bookings.guestId, userId), eq(bookings.hostId, userId));
  const open = await db
    .select({ id: bookings.id, status: bookings.status, claim: bookings.claim, holdUntil: bookings.holdUntil, paymentIntentId: bookings.paymentIntentId, title: activities.title })
    .from(bookings)
    .innerJoin(activities, eq(activities.id, bookings.activityId))
    .where(and(mine, or(inArray(bookings.status, ["pending", "accepted", "awaiting_payment"]), isNotNull(bookings.claim))))
    .orderBy(bookings.startsAt);
  const items: OpenItem[] = [];
  const link = (id: string) => `/bookings/${id}`;
  for (const b of open) {
    if (b.claim) items.push({ kind: "claim", bookingId: b.id, activityTitle: b.title, href: link(b.id) });
    else if (b.status === "awaiting_payment") {
      // Past its hold and with no payment started, it holds nothing and expires by itself; a
      // payment started at the provider waits for the reconciliation to end it (a card may be held).
      if ((b.holdUntil ?? 0) > now || b.paymentIntentId) items.push({ kind: "paymentHold", bookingId: b.id, activityTitle: b.title, href: link(b.id) });
    } else items.push({ kind: "booking", bookingId: b.id, activityTitle: b.title, href: link(b.id) });
  }
  const reader = { db: db as Db };
  const owed = await owedPayouts(reader, userId);
  const debts = await openDebts(db, userId);
  const titles = async (ids: string[]) =>
    new Map(
      ids.length
        ? (await db.select({ id: bookings.id, title: activities.title }).from(bookings).innerJoin(activities, eq(activities.id, bookings.activityId)).where(inArray(bookings.id, ids))).map((r) => [r.id, r.title])
        : [],
    );
  const named = await titles([...owed, ...debts.map((d) => d.bookingId)]);
  for (const id of owed) items.push({ kind: "payout", bookingId: id, activityTitle: named.get(id) ?? "", href: "/stripe-connect-setup" });
  for (const d of debts) items.push({ kind: "debt", bookingId: d.bookingId, activityTitle: named.get(d.bookingId) ?? "", href: link(d.bookingId) });
  // A copy of their data being prepared (docs/decisions/0056) would write its file after the
  // deletion removed the rest: it is waited for, minutes at most.
  const preparing = await one(db.select({ id: dataExports.id }).from(dataExports).where(and(eq(dataExports.userId, userId), eq(dataExports.status, "preparing"), gt(dataExports.createdAt, now - PREPARING_STALE_MS))));
  if (preparing) items.push({ kind: "dataCopy", bookingId: "", activityTitle: "", href: "/settings#data-export" });
  return items;
}

/** The refusal while something is open: 409, the items in `details.open` for the screen and the API. */
export class AccountHasOpenItems extends DomainError {
  constructor(readonly open: OpenItem[]) {
    super("deletion.refusedOpen", 409, { extra: { open } });
  }
}

/** How the deletion was asked for: by the person, or by an operator on their behalf (asked by email). */
export type DeletionRequest = { by: "self"; confirmation: DeletionConfirmation } | { by: "operator"; operatorId: string };

/** Whether the account signs in with a password; otherwise it is confirmed by typing its email. */
export const confirmsWithPassword = (user: Pick<User, "passwordHash">) => Boolean(user.passwordHash);

/**
 * The person proves it is them once more: the password of an account that has one (wrong tries
 * limited per account, as for the email and password changes), else the account's email typed
 * out (its username, for a provider's account that has no address). Refused: nothing given
 * (400), over the limit (429), wrong (403).
 */
async function checkConfirmation(deps: Deps, user: User, confirmation: DeletionConfirmation) {
  if (user.passwordHash) {
    if (!confirmation.password) throw new DomainError("deletion.passwordRequired", 400, { fields: { password: "deletion.passwordRequired" } });
    const wait = await deps.limits.currentPassword.take(user.id, deps.now());
    if (wait > 0) throw new DomainError("error.tooMany", 429, { fields: { password: "error.tooMany" }, retryAfterMs: wait });
    if (!(await deps.passwords.verify(confirmation.password, user.passwordHash))) throw new DomainError("deletion.passwordWrong", 403, { fields: { password: "deletion.passwordWrong" } });
    await deps.limits.currentPassword.reset(user.id);
    return;
  }
  const expected = (user.email ?? user.username ?? "").trim().toLowerCase();
  const typed = (confirmation.email ?? "").trim().toLowerCase();
  if (!typed) throw new DomainError("deletion.emailRequired", 400, { fields: { email: "deletion.emailRequired" } });
  if (!expected || typed !== expected) throw new DomainError("deletion.emailWrong", 403, { fields: { email: "deletion.emailWrong" } });
}

/** The stored photo ids (`/objects/<id>`) among these paths: the person's own files. */
const objectIdsOf = (paths: (string | null | undefined)[]) => paths.map(photoObjectId).filter((id): id is string => Boolean(id));

/** What the file job removes: stored photos by id, unfinished uploads by id, prepared exports by key. */
export interface FilesToRemove {
  deletionId: string;
  photos: string[];
  uploads: string[];
  exports: string[];
}

/**
 * Deletes `user`'s account, once the confirmation (for the person themselves) is right and nothing
 * is open. One write transaction: the open items are read again inside it (a booking made while
 * the person was deciding refuses it all the same), the profile is emptied, their activities leave
 * every list, what is only theirs goes, the log row is written and the file job scheduled; then
 * the goodbye email and the file job run at once. Answers the log row's id.
 */
export async function deleteAccount(deps: Deps, user: User, request: DeletionRequest, requestLocale: Locale): Promise<string> {
  if (user.deletedAt !== null) throw new DomainError("deletion.alreadyDeleted", 404);
  if (request.by === "self") await checkConfirmation(deps, user, request.confirmation);
  const now = deps.now();
  const early = await openItems(deps.db, user.id, now);
  if (early.length) throw new AccountHasOpenItems(early);

  const address = user.email;
  const locale = recipientLocale(deps, user, requestLocale);
  const deletionId = crypto.randomUUID();
  const { emailKey, fileKey, endedSessions } = await writeTransaction(deps.db, async (tx) => {
    // Compare-and-set: a second deletion at the same time finds the row already a tombstone.
    const current = await one(tx.select().from(users).where(and(eq(users.id, user.id), isNull(users.deletedAt))));
    if (!current) throw new DomainError("deletion.alreadyDeleted", 404);
    const open = await openItems(tx, user.id, now);
    if (open.length) throw new AccountHasOpenItems(open);

    const theirActivities = await tx.select({ id: activities.id, photos: activities.photos }).from(activities).where(eq(activities.hostId, user.id));
    const theirUploads = await tx.select({ id: uploads.id, objectId: uploads.objectId }).from(uploads).where(eq(uploads.userId, user.id));
    const theirExports = await tx.select({ id: dataExports.id, fileKey: dataExports.fileKey }).from(dataExports).where(eq(dataExports.userId, user.id));
    const files: FilesToRemove = {
      deletionId,
      photos: [...new Set([...objectIdsOf([current.photo, current.profileImageUrl, ...current.photos, ...theirActivities.flatMap((a) => a.photos)]), ...theirUploads.flatMap((u) => (u.objectId ? [u.objectId] : []))])],
      uploads: theirUploads.filter((u) => !u.objectId).map((u) => u.id),
      // Its recorded key, and the two a preparation given up on may have left (src/account/export.ts).
      exports: [...new Set(theirExports.flatMap((e) => [e.fileKey, `exports/${e.id}.zip`, `exports/${e.id}.json`].filter((k): k is string => Boolean(k))))],
    };

    await tx
      .update(users)
      .set({
        username: null,
        email: null,
        emailVerified: false,
        passwordHash: null,
        firstName: null,
        lastName: null,
        name: null,
        profileImageUrl: null,
        photo: null,
        photos: [],
        bio: null,
        about: null,
        aboutVisibility: null,
        country: null,
        city: null,
        dateOfBirth: null,
        phone: null,
        interests: [],
        languages: [],
        locale: null,
        // Unlinked, not closed: a Stripe Connect account is the person's own with Stripe.
        stripeCustomerId: null,
        stripeAccountId: null,
        payoutsEnabled: false,
        // Every feed link made from the previous number stops working.
        calendarFeedVersion: current.calendarFeedVersion + 1,
        busyCalendarUrl: null,
        busyCalendarFetchedAt: null,
        busyCalendarError: null,
        deletedAt: now,
        updatedAt: now,
      })
      .where(eq(users.id, user.id));
    // Unlisted at once (open links say "no longer available"); kept as rows, as the other side's
    // bookings name them, but without the host's words, place or photos.
    await tx
      .update(activities)
      .set({ active: false, archivedAt: sql`coalesce(${activities.archivedAt}, ${now})`, hiddenAt: sql`coalesce(${activities.hiddenAt}, ${now})`, description: "", meetingPoint: null, hasMeetingPoint: false, photos: [], featured: false, updatedAt: now })
      .where(eq(activities.hostId, user.id));
    const ended = (await tx.delete(sessions).where(eq(sessions.userId, user.id)).returning({ sid: sessions.sid })).map((s) => s.sid);
    await tx.delete(oauthAccounts).where(eq(oauthAccounts.userId, user.id));
    await tx.delete(pushSubscriptions).where(eq(pushSubscriptions.userId, user.id));
    await tx.delete(emailTokens).where(eq(emailTokens.userId, user.id));
    await tx.delete(savedActivities).where(eq(savedActivities.userId, user.id));
    await tx.delete(bookingSelections).where(eq(bookingSelections.userId, user.id));
    await tx.delete(dataExports).where(eq(dataExports.userId, user.id));
    await tx.delete(notificationPreferences).where(eq(notificationPreferences.userId, user.id));
    await tx.delete(hostBlocks).where(eq(hostBlocks.hostId, user.id));
    await tx.delete(externalBusy).where(eq(externalBusy.hostId, user.id));
    await tx.delete(uploads).where(eq(uploads.userId, user.id));
    if (address) await dropWaitingEmails(tx, address);
    await tx.insert(accountDeletions).values({ id: deletionId, requestedBy: request.by, operatorId: request.by === "operator" ? request.operatorId : null, createdAt: now });
    const fileKey = `account.files:${deletionId}`;
    await scheduleJob(tx, removeFilesJob, files, { at: now, key: fileKey });
    const emailKey = address ? await queueEmail(tx, deps, `account-deleted:${deletionId}`, deletedEmail(deps, locale, address)) : null;
    return { emailKey, fileKey, endedSessions: ended };
  });
  if (endedSessions.length) deps.events.emit({ type: "sessions.ended", userId: user.id, sessionIds: endedSessions });
  if (emailKey) sendQueuedEmails(deps, [emailKey]);
  void deps.jobs.runNow([fileKey]).catch((err) => console.error(`removing a deleted account's files failed; the job retries: ${loggable(err)}`));
  return deletionId;
}

/**
 * Emails still waiting to go to the address (a reminder, a notice): the account they were about
 * is gone, so they are not sent. Those being sent now finish.
 */
async function dropWaitingEmails(tx: WriteTx, address: string) {
  const waiting = await tx.select({ id: jobs.id, payload: jobs.payload }).from(jobs).where(and(eq(jobs.kind, "email.send"), isNull(jobs.leaseUntil)));
  const theirs = waiting.filter((j) => (j.payload as { email?: { to?: string } } | null)?.email?.to?.toLowerCase() === address.toLowerCase()).map((j) => j.id);
  if (theirs.length) await tx.delete(jobs).where(inArray(jobs.id, theirs));
}

/** The goodbye: sent to the address the account had, in its language. */
export function deletedEmail(deps: Pick<Deps, "config">, locale: Locale, to: string) {
  const t = translator(locale);
  return composeEmail(deps, "account-deleted", to, {
    locale,
    subject: t("deletion.email.subject"),
    heading: t("deletion.email.heading"),
    paragraphs: [t("deletion.email.body"), t("deletion.email.kept")],
    after: [t("deletion.email.after", { url: siteLink(deps, "/") })],
    footer: t("deletion.email.footer"),
  });
}

/**
 * Removes a deleted account's files: every size of each stored photo, unfinished uploads, prepared
 * copies of their data. Deleting a file that is already gone succeeds, so a run cut short is
 * finished by the next; the log row is marked once everything is gone. Retried an hour apart at
 * most, for about a day and a half (a bucket down for a day still gets emptied); after that the
 * job stays as failed for the operator (`/admin/payments` lists failed jobs) and the log says the
 * files are still being removed.
 */
export const removeFilesJob = defineJob<FilesToRemove>({
  kind: "account.files",
  maxAttempts: 40,
  run: async (files, { deps }) => {
    for (const id of files.photos) await deletePhoto(deps.storage, id);
    for (const id of files.uploads) await deps.storage.delete(uploadKey(id));
    for (const key of files.exports) await removeExport(deps.storage, key);
    await writeTransaction(deps.db, (tx) => tx.update(accountDeletions).set({ filesRemovedAt: deps.now() }).where(and(eq(accountDeletions.id, files.deletionId), isNull(accountDeletions.filesRemovedAt))));
  },
});

/**
 * A prepared copy of the person's data. The file store refuses keys outside the ones it knows
 * (src/uploads/storage.ts); a key it refuses was never written there, so there is nothing to
 * remove, and retrying would never succeed.
 */
async function removeExport(storage: Deps["storage"], key: string) {
  try {
    await storage.delete(key);
  } catch (err) {
    if (err instanceof Error && err.message.startsWith("Refusing storage key")) return;
    throw err;
  }
}

/** Whether `userId` is a deleted account's tombstone: its old links (unsubscribe, feeds) lead nowhere. */
export async function isDeletedAccount(db: Db, userId: string): Promise<boolean> {
  const row = await one(db.select({ deletedAt: users.deletedAt }).from(users).where(eq(users.id, userId)));
  return row?.deletedAt != null;
}

/** The account an operator looks up by the address a deletion was asked from. */
export async function accountByEmail(db: Db, email: string): Promise<User | undefined> {
  const normalized = email.trim().toLowerCase();
  if (!normalized) return undefined;
  return await one(db.select().from(users).where(and(eq(users.email, normalized), isNull(users.deletedAt))));
}

/** The log of deletions, newest first: when, asked by whom, whether the files are gone. No personal data. */
export async function deletionLog(db: Db, limit = 100) {
  return await db.select().from(accountDeletions).orderBy(desc(accountDeletions.createdAt), desc(accountDeletions.id)).limit(limit);
}
