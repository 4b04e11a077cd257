import { and, desc, eq, gt } from "drizzle-orm";
import { strToU8, zipSync, type Zippable } from "fflate";
import { readFileSync } from "node:fs";
import { one, writeTransaction } from "../../db/client";
import { dataExports, users, type DataExport, type User } from "../../db/schema";
import { DomainError } from "../../lib/domain-error";
import { translator, type Locale } from "../../lib/i18n";
import type { Deps } from "../deps";
import { defineJob, scheduleJob } from "../jobs";
import { composeEmail, queueEmail, sendQueuedEmails } from "../email/outbox";
import { recipientLocale, siteLink } from "../auth/emails";
import { exportContents, exportPhotos, exportRowCount } from "./export-data";

/**
 * A copy of a person's data (docs/decisions/0056). A normal account's copy is made while the
 * person waits and answered as a download. A large one (past `config.dataExport`'s rows or bytes
 * of photos) is prepared by a durable job into the file store; the person is emailed a link that
 * works once, for a day; the file is removed by a durable job an hour after its download (time
 * for the transfer to finish), or when the link expires.
 */

const HOUR = 60 * 60 * 1000;
/** How long an emailed link works. */
export const EXPORT_LINK_TTL_MS = 24 * HOUR;
/** How long a downloaded copy stays in the file store: the download under way finishes meanwhile. */
export const DOWNLOADED_FILE_KEPT_MS = HOUR;
/**
 * A copy still "preparing" this long after it was asked for is taken as given up (its job failed
 * every attempt): it no longer stops the person from asking again.
 */
export const PREPARING_STALE_MS = 12 * HOUR;
/** The largest photo read into a copy (a stored photo is a re-encoded webp, far smaller). */
const PHOTO_READ_LIMIT = 20 * 1024 * 1024;

/** A copy ready to hand over: its bytes, its type and the name the browser saves it under. */
export interface CopyFile {
  bytes: Uint8Array<ArrayBuffer>;
  contentType: "application/zip" | "application/json";
  fileName: string;
}

export type CopyAnswer = { kind: "file"; file: CopyFile } | { kind: "preparing"; exportId: string };

const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

/** `offline-data-<username>-<date>.zip`: the person's username (or "account") and the day it was made. */
function fileNameOf(user: User, now: number, ext: "zip" | "json") {
  const who = (user.username ?? "").replace(/[^a-z0-9_-]/gi, "") || "account";
  return `offline-data-${who}-${new Date(now).toISOString().slice(0, 10)}.${ext}`;
}

/**
 * The file of a person's copy: `data.json` alone when there are no files to carry, else a zip of
 * `data.json`, their photos (`photos/…`, read from the file store) and the emails the outbox kept
 * for them (`emails/…`). Photos are stored as-is (already compressed).
 */
export async function buildCopy(deps: Pick<Deps, "config" | "db" | "now" | "storage">, user: User): Promise<CopyFile> {
  const { data, photos, emailFiles } = await exportContents(deps, user);
  const entries: Zippable = {};
  const found: string[] = [];
  for (const photo of photos) {
    const bytes = await deps.storage.read(photo.key, PHOTO_READ_LIMIT);
    if (!bytes) continue; // Named by the profile, gone from the store: nothing to copy.
    entries[photo.name] = [bytes, { level: 0 }];
    found.push(photo.name);
  }
  for (const email of emailFiles) {
    try {
      entries[email.name] = readFileSync(email.path);
    } catch {
      // Removed from the outbox meanwhile.
    }
  }
  data.photos = found;
  const json = strToU8(JSON.stringify(data, null, 2));
  const now = deps.now();
  if (Object.keys(entries).length === 0) return { bytes: json as Uint8Array<ArrayBuffer>, contentType: "application/json", fileName: fileNameOf(user, now, "json") };
  const zipped = zipSync({ "data.json": json, ...entries }, { level: 6, mtime: new Date(now) });
  return { bytes: zipped as Uint8Array<ArrayBuffer>, contentType: "application/zip", fileName: fileNameOf(user, now, "zip") };
}

/** Whether a copy of `user`'s data is too large to make while they wait. */
async function isLarge(deps: Pick<Deps, "config" | "db" | "storage">, user: User): Promise<boolean> {
  const { atOnceMaxRows, atOnceMaxBytes } = deps.config.dataExport;
  if ((await exportRowCount(deps.db, user.id)) > atOnceMaxRows) return true;
  let bytes = 0;
  for (const photo of await exportPhotos(deps.db, user)) {
    bytes += (await deps.storage.size(photo.key)) ?? 0;
    if (bytes > atOnceMaxBytes) return true;
  }
  return false;
}

/** The person's copy being prepared (not given up on), if any. */
async function preparingExport(db: Deps["db"], userId: string, now: number): Promise<DataExport | undefined> {
  return one(
    db
      .select()
      .from(dataExports)
      .where(and(eq(dataExports.userId, userId), eq(dataExports.status, "preparing"), gt(dataExports.createdAt, now - PREPARING_STALE_MS)))
      .orderBy(desc(dataExports.createdAt))
      .limit(1),
  );
}

/** What the Settings card says of the person's latest copy: being prepared, or its link emailed and working until when. */
export type ExportStatus = { state: "none" } | { state: "preparing" } | { state: "ready"; expiresAt: number };

export async function exportStatus(deps: Pick<Deps, "db" | "now">, userId: string): Promise<ExportStatus> {
  const now = deps.now();
  const latest = await one(deps.db.select().from(dataExports).where(eq(dataExports.userId, userId)).orderBy(desc(dataExports.createdAt)).limit(1));
  if (latest?.status === "preparing" && latest.createdAt > now - PREPARING_STALE_MS) return { state: "preparing" };
  if (latest?.status === "ready" && latest.expiresAt && latest.expiresAt > now) return { state: "ready", expiresAt: latest.expiresAt };
  return { state: "none" };
}

/**
 * "Download my data", from Settings and from `GET /api/account/export` alike: the file at once,
 * or a copy being prepared (the one already under way, if the person asked before). Counted
 * against the person's limit, except when it only answers that the copy is under way.
 */
export async function takeCopy(deps: Deps, user: User, requestLocale: Locale): Promise<CopyAnswer> {
  const now = deps.now();
  const under = await preparingExport(deps.db, user.id, now);
  if (under) return { kind: "preparing", exportId: under.id };
  const wait = await deps.limits.dataExportsByUser.take(user.id, now);
  if (wait > 0) throw new DomainError("dataExport.tooMany", 429, { retryAfterMs: wait });
  if (!(await isLarge(deps, user))) return { kind: "file", file: await buildCopy(deps, user) };

  const locale = recipientLocale(deps, user, requestLocale);
  const started = await writeTransaction(deps.db, async (tx) => {
    // One copy prepared at a time: a second ask while the first is under way joins it.
    const already = await one(
      tx
        .select({ id: dataExports.id })
        .from(dataExports)
        .where(and(eq(dataExports.userId, user.id), eq(dataExports.status, "preparing"), gt(dataExports.createdAt, now - PREPARING_STALE_MS)))
        .limit(1),
    );
    if (already) return { id: already.id, jobKey: null };
    const id = crypto.randomUUID();
    await tx.insert(dataExports).values({ id, userId: user.id, status: "preparing", createdAt: now });
    const jobKey = `dataExport.prepare:${id}`;
    await scheduleJob(tx, prepareExportJob, { exportId: id, locale }, { at: now, key: jobKey });
    return { id, jobKey };
  });
  // Started at once, beside the answer; the job runner has it if this process stops first.
  if (started.jobKey) void deps.jobs.runNow([started.jobKey]).catch((err) => console.error(`preparing a data copy failed: ${String(err)}`));
  return { kind: "preparing", exportId: started.id };
}

/** When a link stops working, as the email and the screens say it: one instant for everyone, so in UTC, named. */
export const formatExpiry = (epochMs: number, locale: Locale) =>
  new Intl.DateTimeFormat(locale, { year: "numeric", month: "long", day: "numeric", hour: "2-digit", minute: "2-digit", timeZone: "UTC", timeZoneName: "short" }).format(epochMs);

/** The email with the link to a prepared copy, in the person's language. */
export function exportReadyEmail(deps: Pick<Deps, "config">, locale: Locale, to: string, token: string, expiresAt: number) {
  const t = translator(locale);
  const date = formatExpiry(expiresAt, locale);
  return composeEmail(deps, "data-export", to, {
    locale,
    subject: t("dataExport.email.subject"),
    heading: t("dataExport.email.heading"),
    paragraphs: [t("dataExport.email.body")],
    action: { label: t("dataExport.email.action"), url: siteLink(deps, `/account/export/${token}`) },
    after: [t("dataExport.email.after", { date })],
    footer: t("email.footer.account"),
  });
}

/**
 * Prepares a large copy: writes its file to the file store, then, in one transaction, marks it
 * ready with the link's token hash and its expiry, queues the email with the link and schedules
 * the file's removal at the expiry. Run again after a crash, it writes the same file again under
 * the same key, and the one that records it wins.
 */
export const prepareExportJob = defineJob<{ exportId: string; locale: Locale }>({
  kind: "dataExport.prepare",
  maxAttempts: 6,
  async run({ exportId, locale }, { deps }) {
    const row = await one(deps.db.select().from(dataExports).where(eq(dataExports.id, exportId)));
    if (!row || row.status !== "preparing") return;
    const user = await one(deps.db.select().from(users).where(eq(users.id, row.userId)));
    if (!user || user.deletedAt || !user.email) {
      await writeTransaction(deps.db, (tx) => tx.update(dataExports).set({ status: "expired" }).where(and(eq(dataExports.id, exportId), eq(dataExports.status, "preparing"))));
      return;
    }
    const file = await buildCopy(deps, user);
    const fileKey = `exports/${exportId}.${file.contentType === "application/zip" ? "zip" : "json"}`;
    await deps.storage.write(fileKey, file.bytes, file.contentType);
    const token = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
    const now = deps.now();
    const expiresAt = now + EXPORT_LINK_TTL_MS;
    const email = user.email;
    const jobKey = await writeTransaction(deps.db, async (tx) => {
      const [claimed] = await tx
        .update(dataExports)
        .set({ status: "ready", tokenHash: sha256(token), fileKey, bytes: file.bytes.length, expiresAt })
        .where(and(eq(dataExports.id, exportId), eq(dataExports.status, "preparing")))
        .returning({ id: dataExports.id });
      if (!claimed) return null;
      await scheduleJob(tx, removeExportJob, { exportId }, { at: expiresAt, key: `dataExport.remove:${exportId}` });
      return queueEmail(tx, deps, `data-export:${exportId}`, exportReadyEmail(deps, locale, email, token, expiresAt), now);
    });
    if (jobKey) sendQueuedEmails(deps, [jobKey]);
  },
});

/**
 * Removes a prepared copy's file once it was downloaded, or when its link expires (marking it
 * expired). Safe to run again: removing a file already gone changes nothing.
 */
export const removeExportJob = defineJob<{ exportId: string }>({
  kind: "dataExport.remove",
  async run({ exportId }, { deps }) {
    const now = deps.now();
    const row = await one(deps.db.select().from(dataExports).where(eq(dataExports.id, exportId)));
    if (!row?.fileKey) return;
    if (row.status === "ready") {
      if (!row.expiresAt || row.expiresAt > now) return; // Still working: its own removal comes at its expiry.
      await writeTransaction(deps.db, (tx) => tx.update(dataExports).set({ status: "expired" }).where(and(eq(dataExports.id, exportId), eq(dataExports.status, "ready"))));
    }
    await deps.storage.delete(row.fileKey);
    await writeTransaction(deps.db, (tx) => tx.update(dataExports).set({ fileKey: null }).where(eq(dataExports.id, exportId)));
  },
});

/** The copy an emailed link names, if it is the person's and still works (ready, not expired). */
export async function exportOfLink(deps: Pick<Deps, "db" | "now">, userId: string, token: string): Promise<DataExport | null> {
  const row = await one(deps.db.select().from(dataExports).where(eq(dataExports.tokenHash, sha256(token))));
  if (!row || row.userId !== userId || row.status !== "ready" || !row.expiresAt || row.expiresAt <= deps.now() || !row.fileKey) return null;
  return row;
}

/**
 * Follows an emailed link, once: marks the copy downloaded with a compare-and-set (a second use,
 * or one after the expiry, finds nothing) and schedules its file's removal; answers the file's
 * body, or null when the link no longer works.
 */
export async function useExportLink(deps: Deps, user: User, token: string): Promise<{ body: Blob | ReadableStream; fileKey: string; bytes: number | null; fileName: string } | null> {
  const now = deps.now();
  const row = await writeTransaction(deps.db, async (tx) => {
    const [used] = await tx
      .update(dataExports)
      .set({ status: "downloaded", usedAt: now })
      .where(and(eq(dataExports.tokenHash, sha256(token)), eq(dataExports.userId, user.id), eq(dataExports.status, "ready"), gt(dataExports.expiresAt, now)))
      .returning();
    if (!used) return null;
    await scheduleJob(tx, removeExportJob, { exportId: used.id }, { at: now + DOWNLOADED_FILE_KEPT_MS, key: `dataExport.removeDownloaded:${used.id}` });
    return used;
  });
  if (!row?.fileKey) return null;
  const body = await deps.storage.body(row.fileKey);
  if (!body) return null;
  const ext = row.fileKey.endsWith(".zip") ? "zip" : "json";
  return { body, fileKey: row.fileKey, bytes: row.bytes, fileName: fileNameOf(user, row.createdAt, ext) };
}
