import { and, asc, count, eq, inArray, isNotNull, or } from "drizzle-orm";
import { closeSync, existsSync, openSync, readdirSync, readSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "../../db/client";
import {
  activities,
  bookingRefunds,
  bookings,
  hostBlocks,
  jobs,
  ledgerEntries,
  messages,
  notificationPreferences,
  oauthAccounts,
  pushSubscriptions,
  reports,
  reviews,
  savedActivities,
  sessions,
  users,
  type Booking,
  type LedgerKind,
  type User,
} from "../../db/schema";
import type { Deps } from "../deps";
import { photoKey, photoObjectId } from "../uploads/service";
import type { OutgoingEmail } from "../ports/mail";

/**
 * What a person's copy of their data holds (docs/decisions/0056): every row that is theirs, read
 * from the database, and nothing of anyone else's beyond what the person already saw in the app
 * (the other participant's first name in a booking, a conversation or a review). Secrets are
 * left out: the password hash, session ids, push keys, the calendar feed's link and the payment
 * provider's references.
 */

/** The format's name and version, first in `data.json`, for whoever reads the file later. */
export const EXPORT_FORMAT = "offline-data-export/1";

/**
 * The money lines a guest's copy shows of a booking: their card's story. The host's share, its
 * payout and the platform's fee are the host's and the platform's lines, not the guest's.
 */
const GUEST_LEDGER_KINDS: LedgerKind[] = ["authorize", "capture", "release", "refund"];

/** The first name of someone else, as the app shows it beside what they wrote. */
type Other = { firstName: string | null };

/** A stored photo named by a profile or an activity: the file store's key, and its name in the zip. */
export interface ExportPhoto {
  key: string;
  name: string;
}

/** An email kept in the outbox folder (`DATA_DIR/outbox`), addressed to the person: its file, its name in the zip. */
export interface ExportEmailFile {
  path: string;
  name: string;
}

export interface ExportContents {
  data: Record<string, unknown>;
  photos: ExportPhoto[];
  emailFiles: ExportEmailFile[];
}

const iso = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

/** `/objects/<uuid>`, the path of an uploaded photo, to its key in the file store (the large size). */
const largePhotoKey = (path: string) => {
  const id = photoObjectId(path);
  return id ? photoKey(id, "large") : null;
};

/** The person's own profile: every field they gave or chose, without the secrets. */
function profileOf(user: User) {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    emailVerified: user.emailVerified,
    hasPassword: Boolean(user.passwordHash),
    firstName: user.firstName,
    lastName: user.lastName,
    name: user.name,
    photos: user.photos,
    profileImageUrl: user.profileImageUrl,
    bio: user.bio,
    about: parseJson(user.about),
    aboutVisibility: parseJson(user.aboutVisibility),
    country: user.country,
    city: user.city,
    dateOfBirth: user.dateOfBirth,
    phone: user.phone,
    interests: user.interests,
    languages: user.languages,
    locale: user.locale,
    payoutAccountConnected: Boolean(user.stripeAccountId),
    payoutsEnabled: user.payoutsEnabled,
    suspendedAt: iso(user.suspendedAt),
    calendarFeedOn: user.calendarFeedVersion > 0,
    createdAt: iso(user.createdAt),
    updatedAt: iso(user.updatedAt),
  };
}

function parseJson(text: string | null): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A booking as its participant reads it: its times, its prices, its state, and the other side's first name. */
function bookingOf(b: Booking, activityTitle: string | null, other: Other, role: "guest" | "host") {
  return {
    id: b.id,
    role,
    activityId: b.activityId,
    activityTitle,
    [role === "guest" ? "host" : "guest"]: other,
    status: b.status,
    startsAtLocal: b.startsAtLocal,
    timeZone: b.timeZone,
    startsAt: iso(b.startsAt),
    endsAt: iso(b.endsAt),
    durationMinutes: b.durationMinutes,
    spots: b.spots,
    privateGroup: b.privateGroup,
    currency: b.currency,
    hourlyRateCents: b.hourlyRateCents,
    pricePerPersonCents: b.pricePerPersonCents,
    subtotalCents: b.subtotalCents,
    serviceFeeCents: b.serviceFeeCents,
    totalCents: b.totalCents,
    refundedCents: b.refundedCents,
    // What the host earns and what the platform keeps are the host's figures (their earnings screen).
    ...(role === "host" ? { platformFeeCents: b.platformFeeCents, hostEarningsCents: b.hostEarningsCents } : {}),
    cancellationPolicy: b.cancellationPolicy,
    canceledBy: b.canceledBy,
    message: b.message,
    paymentProvider: b.paymentProvider,
    respondBy: iso(b.respondBy),
    respondedAt: iso(b.respondedAt),
    completedAt: iso(b.completedAt),
    createdAt: iso(b.createdAt),
    updatedAt: iso(b.updatedAt),
  };
}

/**
 * How many rows a copy of `userId`'s data would hold, counted without reading them: what decides
 * whether it is answered at once or prepared by a job.
 */
export async function exportRowCount(db: Db, userId: string): Promise<number> {
  const theirBookings = db.select({ id: bookings.id }).from(bookings).where(or(eq(bookings.guestId, userId), eq(bookings.hostId, userId)));
  const counts = await Promise.all([
    db.select({ n: count() }).from(bookings).where(or(eq(bookings.guestId, userId), eq(bookings.hostId, userId))),
    db.select({ n: count() }).from(messages).where(inArray(messages.bookingId, theirBookings)),
    db.select({ n: count() }).from(ledgerEntries).where(inArray(ledgerEntries.bookingId, theirBookings)),
    db.select({ n: count() }).from(activities).where(eq(activities.hostId, userId)),
    db.select({ n: count() }).from(reviews).where(or(eq(reviews.reviewerId, userId), eq(reviews.reviewedUserId, userId))),
    db.select({ n: count() }).from(savedActivities).where(eq(savedActivities.userId, userId)),
  ]);
  return counts.reduce((sum, [row]) => sum + Number(row?.n ?? 0), 0);
}

/** The stored photos of the person's profile and of their activities, each once. */
export async function exportPhotos(db: Db, user: User): Promise<ExportPhoto[]> {
  const out = new Map<string, ExportPhoto>();
  for (const path of user.photos) {
    const key = largePhotoKey(path);
    if (key && !out.has(key)) out.set(key, { key, name: `photos/profile/${key.split("/")[1]}.webp` });
  }
  const hosted = await db.select({ id: activities.id, photos: activities.photos }).from(activities).where(eq(activities.hostId, user.id));
  for (const a of hosted) {
    for (const path of a.photos) {
      const key = largePhotoKey(path);
      if (key && !out.has(key)) out.set(key, { key, name: `photos/activities/${a.id}/${key.split("/")[1]}.webp` });
    }
  }
  return [...out.values()];
}

/** The first lines of a file (its headers): enough to read whom an email went to, without reading it whole. */
function headOf(path: string, bytes = 16 * 1024): string {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    const read = readSync(fd, buffer, 0, bytes, 0);
    const text = buffer.subarray(0, read).toString("latin1");
    const end = text.search(/\r?\n\r?\n/);
    return end === -1 ? text : text.slice(0, end);
  } finally {
    closeSync(fd);
  }
}

/** A header's value, its folded lines joined. */
function header(head: string, name: string): string | null {
  const m = new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, "im").exec(head);
  return m ? m[1]!.replace(/\r?\n[ \t]+/g, " ").trim() : null;
}

/** A subject as mail programs show it: RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `?B?`) decoded. */
export function decodeSubject(raw: string): string {
  return raw.replace(/\?=\s+=\?/g, "?==?").replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_, charset: string, enc: string, text: string) => {
    try {
      const bytes =
        enc.toUpperCase() === "B"
          ? Buffer.from(text, "base64")
          : Buffer.from(text.replace(/_/g, " ").replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), "latin1");
      return new TextDecoder(charset.toLowerCase() === "utf-8" ? "utf-8" : charset).decode(bytes);
    } catch {
      return text;
    }
  });
}

/**
 * The emails sent to `email` that the app still holds: those written to the outbox folder (when
 * no SMTP server is set, every email is kept there as an `.eml` file), and those waiting in the
 * email jobs (not sent yet, or given up on). An email handed to an SMTP server is not kept by the
 * app, so it cannot be in the copy.
 */
async function emailsTo(deps: Pick<Deps, "config" | "db">, email: string | null) {
  const files: ExportEmailFile[] = [];
  const listed: Record<string, unknown>[] = [];
  if (!email) return { files, listed };
  const address = email.toLowerCase();
  const dir = join(deps.config.dataDir, "outbox");
  if (existsSync(dir)) {
    for (const file of readdirSync(dir).filter((n) => n.endsWith(".eml")).sort()) {
      const path = join(dir, file);
      let head: string;
      try {
        head = headOf(path);
      } catch {
        continue; // Removed meanwhile by the operator: nothing to copy.
      }
      const to = (header(head, "To") ?? "").toLowerCase();
      // Addresses are written bare or as `Name <address>`; another address that ends the same is not theirs.
      if (!to.split(",").some((part) => (/<([^>]+)>/.exec(part)?.[1] ?? part).trim() === address)) continue;
      const name = `emails/${file}`;
      files.push({ path, name });
      const date = header(head, "Date");
      listed.push({
        status: "sent",
        sentAt: date && !Number.isNaN(Date.parse(date)) ? new Date(date).toISOString() : null,
        subject: decodeSubject(header(head, "Subject") ?? ""),
        file: name,
      });
    }
  }
  const waiting = await deps.db.select({ payload: jobs.payload, runAt: jobs.runAt, failedAt: jobs.failedAt }).from(jobs).where(eq(jobs.kind, "email.send"));
  for (const job of waiting) {
    const outgoing = (job.payload as { email?: OutgoingEmail }).email;
    if (!outgoing || outgoing.to.toLowerCase() !== address) continue;
    listed.push({ status: job.failedAt ? "not sent" : "waiting", due: iso(job.runAt), kind: outgoing.kind, subject: outgoing.subject, text: outgoing.text });
  }
  return { files, listed };
}

/** Everything the copy of `user`'s data holds: the rows as `data.json`, and the files to put beside it. */
export async function exportContents(deps: Pick<Deps, "config" | "db" | "now">, user: User): Promise<ExportContents> {
  const db = deps.db;
  const theirs = or(eq(bookings.guestId, user.id), eq(bookings.hostId, user.id));
  const [bookingRows, hosted, signIns, preferences, sessionRows, saved, subscriptions, blocks, filed, written, received] = await Promise.all([
    db.select().from(bookings).where(theirs).orderBy(asc(bookings.createdAt), asc(bookings.id)),
    db.select().from(activities).where(eq(activities.hostId, user.id)).orderBy(asc(activities.createdAt)),
    db.select({ provider: oauthAccounts.provider, createdAt: oauthAccounts.createdAt }).from(oauthAccounts).where(eq(oauthAccounts.userId, user.id)),
    db.select().from(notificationPreferences).where(eq(notificationPreferences.userId, user.id)),
    db.select({ createdAt: sessions.createdAt, expire: sessions.expire }).from(sessions).where(eq(sessions.userId, user.id)).orderBy(asc(sessions.createdAt)),
    db.select().from(savedActivities).where(eq(savedActivities.userId, user.id)).orderBy(asc(savedActivities.createdAt)),
    db
      .select({ endpoint: pushSubscriptions.endpoint, userAgent: pushSubscriptions.userAgent, locale: pushSubscriptions.locale, isActive: pushSubscriptions.isActive, createdAt: pushSubscriptions.createdAt })
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.userId, user.id)),
    db.select().from(hostBlocks).where(eq(hostBlocks.hostId, user.id)).orderBy(asc(hostBlocks.startsAt)),
    db.select().from(reports).where(eq(reports.reporterId, user.id)).orderBy(asc(reports.createdAt)),
    db.select().from(reviews).where(eq(reviews.reviewerId, user.id)).orderBy(asc(reviews.createdAt)),
    // A review about them is theirs to read once it is published (double-blind: docs/decisions/0023).
    db.select().from(reviews).where(and(eq(reviews.reviewedUserId, user.id), isNotNull(reviews.publishedAt))).orderBy(asc(reviews.createdAt)),
  ]);

  const bookingIds = db.select({ id: bookings.id }).from(bookings).where(theirs);
  const [messageRows, ledgerRows, refundRows] = await Promise.all([
    db.select().from(messages).where(inArray(messages.bookingId, bookingIds)).orderBy(asc(messages.bookingId), asc(messages.seq)),
    db.select().from(ledgerEntries).where(inArray(ledgerEntries.bookingId, bookingIds)).orderBy(asc(ledgerEntries.createdAt), asc(ledgerEntries.id)),
    db.select().from(bookingRefunds).where(inArray(bookingRefunds.bookingId, bookingIds)).orderBy(asc(bookingRefunds.createdAt)),
  ]);

  // The other people named: only their first names are read, never another of their fields.
  const otherIds = new Set<string>();
  for (const b of bookingRows) otherIds.add(b.guestId === user.id ? b.hostId : b.guestId);
  for (const r of [...written, ...received]) otherIds.add(r.reviewerId === user.id ? r.reviewedUserId : r.reviewerId);
  otherIds.delete(user.id);
  const firstNames = new Map<string, string | null>();
  const ids = [...otherIds];
  for (let i = 0; i < ids.length; i += 500) {
    const part = await db.select({ id: users.id, firstName: users.firstName }).from(users).where(inArray(users.id, ids.slice(i, i + 500)));
    for (const row of part) firstNames.set(row.id, row.firstName);
  }
  const other = (id: string | null): Other => ({ firstName: id ? (firstNames.get(id) ?? null) : null });

  // Titles of the activities booked, which the person saw on their bookings.
  const activityIds = [...new Set(bookingRows.map((b) => b.activityId))];
  const titles = new Map<string, string>();
  for (let i = 0; i < activityIds.length; i += 500) {
    const part = await db.select({ id: activities.id, title: activities.title }).from(activities).where(inArray(activities.id, activityIds.slice(i, i + 500)));
    for (const row of part) titles.set(row.id, row.title);
  }

  const byBooking = <T extends { bookingId: string }>(rows: T[]) => {
    const map = new Map<string, T[]>();
    for (const row of rows) map.set(row.bookingId, [...(map.get(row.bookingId) ?? []), row]);
    return map;
  };
  const ledgerOf = byBooking(ledgerRows);
  const refundsOf = byBooking(refundRows);
  const messagesOf = byBooking(messageRows);

  const asBooking = (b: Booking) => {
    const role = b.guestId === user.id ? "guest" : "host";
    const lines = (ledgerOf.get(b.id) ?? []).filter((l) => role === "host" || GUEST_LEDGER_KINDS.includes(l.kind));
    return {
      ...bookingOf(b, titles.get(b.activityId) ?? null, other(role === "guest" ? b.hostId : b.guestId), role),
      moneyLines: lines.map((l) => ({ kind: l.kind, amountCents: l.amountCents, currency: l.currency, provider: l.provider, at: iso(l.createdAt) })),
      refunds: (refundsOf.get(b.id) ?? []).map((r) => ({ amountCents: r.amountCents, currency: r.currency, reason: r.reason, byHost: r.byUserId !== null, at: iso(r.createdAt) })),
    };
  };

  const conversations = bookingRows
    .filter((b) => messagesOf.has(b.id))
    .map((b) => {
      const otherId = b.guestId === user.id ? b.hostId : b.guestId;
      return {
        bookingId: b.id,
        activityTitle: titles.get(b.activityId) ?? null,
        with: other(otherId),
        messages: (messagesOf.get(b.id) ?? []).map((m) => ({
          from: m.isSystemMessage ? "system" : m.senderId === user.id ? "you" : (firstNames.get(otherId) ?? null),
          direction: m.isSystemMessage ? "system" : m.senderId === user.id ? "sent" : "received",
          systemMessageType: m.systemMessageType,
          content: m.content,
          readByYou: m.readBy.includes(user.id),
          at: iso(m.createdAt),
        })),
      };
    });

  const review = (r: (typeof written)[number], direction: "written" | "received") => ({
    bookingId: r.bookingId,
    activityId: r.activityId,
    [direction === "written" ? "about" : "by"]: other(direction === "written" ? r.reviewedUserId : r.reviewerId),
    stars: r.stars,
    text: r.text,
    publishedAt: iso(r.publishedAt),
    createdAt: iso(r.createdAt),
  });

  const photos = await exportPhotos(db, user);
  const emails = await emailsTo(deps, user.email);
  const pref = preferences[0];

  const data = {
    format: EXPORT_FORMAT,
    exportedAt: new Date(deps.now()).toISOString(),
    profile: profileOf(user),
    signInProviders: signIns.map((s) => ({ provider: s.provider, linkedAt: iso(s.createdAt) })),
    notificationPreferences: pref
      ? {
          bookingRequests: pref.bookingRequests,
          bookingConfirmations: pref.bookingConfirmations,
          messages: pref.messages,
          reviews: pref.reviews,
          activityUpdates: pref.activityUpdates,
          paymentNotifications: pref.paymentNotifications,
          reminders: pref.reminders,
          marketingEmails: pref.marketingEmails,
          updatedAt: iso(pref.updatedAt),
        }
      : null,
    sessions: sessionRows.map((s) => ({ createdAt: iso(s.createdAt), expiresAt: iso(s.expire) })),
    pushSubscriptions: subscriptions.map((s) => ({ endpoint: s.endpoint, userAgent: s.userAgent, locale: s.locale, active: s.isActive, createdAt: iso(s.createdAt) })),
    outsideCalendar: { url: user.busyCalendarUrl, lastFetchedAt: iso(user.busyCalendarFetchedAt), lastError: user.busyCalendarError },
    activities: hosted.map((a) => ({ ...a, createdAt: iso(a.createdAt), updatedAt: iso(a.updatedAt), archivedAt: iso(a.archivedAt), hiddenAt: iso(a.hiddenAt) })),
    blockedTimes: blocks.map((b) => ({ startsAt: iso(b.startsAt), endsAt: iso(b.endsAt), timeZone: b.timeZone, allDay: b.allDay, note: b.note })),
    bookings: {
      asGuest: bookingRows.filter((b) => b.guestId === user.id).map(asBooking),
      asHost: bookingRows.filter((b) => b.hostId === user.id).map(asBooking),
    },
    conversations,
    reviews: { written: written.map((r) => review(r, "written")), received: received.map((r) => review(r, "received")) },
    savedActivities: saved.map((s) => ({ activityId: s.activityId, title: s.title, savedAt: iso(s.createdAt) })),
    reportsFiled: filed.map((r) => ({ about: r.targetActivityId ? "activity" : "person", activityId: r.targetActivityId, reason: r.reason, notes: r.notes, status: r.status, createdAt: iso(r.createdAt) })),
    emails: emails.listed,
    photos: photos.map((p) => p.name),
  };
  return { data, photos, emailFiles: emails.files };
}
