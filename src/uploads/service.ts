import { dialect } from "../../db/dialect";
import { and, eq, inArray, lt, notExists, or, sql } from "drizzle-orm";
import { createHmac, timingSafeEqual } from "node:crypto";
import { writeTransaction, one } from "../../db/client";
import { activities, uploads, users } from "../../db/schema";
import type { Deps } from "../deps";
import { bodyRefusal, readBody } from "../../lib/body";
import { DomainError } from "../../lib/domain-error";
import { defineJob, scheduleJob } from "../jobs";
import { loadSharp } from "./sharp";
import { MAX_PIXELS, MAX_UPLOAD_BYTES } from "../../shared/limits";

const UPLOAD_TTL_MS = 10 * 60 * 1000;
/** How long a received upload may wait to be turned into a photo. */
const PROCESS_TTL_MS = 60 * 60 * 1000;
const ACCEPTED = new Set(["jpeg", "png", "webp", "gif", "avif"]);

export const SIZES = {
  thumb: { width: 480, height: 480, quality: 78 },
  large: { width: 1600, height: 1600, quality: 82 },
} as const;
export type PhotoSize = keyof typeof SIZES;

/** The id of an uploaded photo from its path (`/objects/<uuid>`); undefined for any other path (a shipped image). */
export const photoObjectId = (path: string | null | undefined): string | undefined => (path ? /^\/objects\/([0-9a-f-]{36})$/.exec(path)?.[1] : undefined);

/** Where an upload waits in the file store until it is made a photo. */
export const uploadKey = (uploadId: string) => `tmp/${uploadId}`;

/** Where one size of an uploaded photo is in the file store. */
export const photoKey = (objectId: string, size: PhotoSize) => `photos/${objectId}/${size}.webp`;

/** Removes every size of an uploaded photo from the file store (one already gone is no error). */
export async function deletePhoto(storage: Deps["storage"], objectId: string) {
  for (const size of Object.keys(SIZES) as PhotoSize[]) await storage.delete(photoKey(objectId, size));
}


const sign = (secret: string, id: string, userId: string, expires: number) =>
  createHmac("sha256", secret).update(`${id}.${userId}.${expires}`).digest("base64url");

/**
 * Starts an upload for a signed-in user: a pending record and a short-lived way to send the file.
 * Locally, a URL of ours to PUT to: relative, so it works at whatever address the browser opened
 * the app. With a bucket, a presigned POST form whose policy makes the bucket itself refuse a
 * file over `MAX_UPLOAD_BYTES` (a presigned PUT cannot limit the size), and `imageURL`, the
 * object's address to hand back to `PUT /api/profile-images`.
 * A person gets a limited number of uploads an hour (`deps.limits.uploadsByUser`), and none
 * while their hourly allowance of bytes (`deps.limits.uploadBytesByUser`) is spent.
 */
export async function createUpload(deps: Deps, userId: string): Promise<StartedUpload> {
  // Bytes are counted as they arrive (`receiveUpload`, `processUpload`): here only whether any
  // are left. The upload itself is counted before its record is written.
  const bytesWait = await deps.limits.uploadBytesByUser.retryAfter(userId, deps.now(), 1);
  const wait = bytesWait > 0 ? bytesWait : await deps.limits.uploadsByUser.take(userId, deps.now());
  if (wait > 0) throw new DomainError("upload.tooMany", 429, { retryAfterMs: wait });
  const id = crypto.randomUUID();
  const expiresAt = deps.now() + UPLOAD_TTL_MS;
  await writeTransaction(deps.db, (tx) => tx.insert(uploads).values({ id, userId, expiresAt, createdAt: deps.now() }));
  const { presignPost, objectUrl } = deps.storage;
  if (presignPost && objectUrl) {
    const form = presignPost(uploadKey(id), { expiresInSeconds: UPLOAD_TTL_MS / 1000, minBytes: 1, maxBytes: MAX_UPLOAD_BYTES });
    return { method: "POST", uploadURL: form.url, fields: form.fields, imageURL: objectUrl(uploadKey(id)), maxBytes: MAX_UPLOAD_BYTES };
  }
  const sig = sign(deps.secrets.sessionSecret, id, userId, expiresAt);
  const uploadURL = `/api/uploads/${id}?expires=${expiresAt}&sig=${sig}`;
  return { method: "PUT", uploadURL, imageURL: uploadURL, maxBytes: MAX_UPLOAD_BYTES };
}

/**
 * How the browser sends the file: PUT the raw bytes to `uploadURL` (local storage), or POST a
 * multipart form with `fields` and then the file as `file` (a bucket). Either way it then hands
 * `imageURL` to `PUT /api/profile-images` or `/api/activity-images`.
 */
export type StartedUpload =
  | { method: "PUT"; uploadURL: string; imageURL: string; maxBytes: number }
  | { method: "POST"; uploadURL: string; fields: Record<string, string>; imageURL: string; maxBytes: number };

/**
 * The PUT to a local upload URL. The signature and expiry are checked before the body is read
 * at all; then the raw bytes are read (whatever type they are sent as) up to the upload limit,
 * within the uploader's hourly allowance of stored bytes (`deps.limits.uploadBytesByUser`).
 */
export async function receiveUpload(deps: Deps, id: string, expires: string | undefined, sig: string | undefined, request: Request) {
  const row = await one(deps.db.select().from(uploads).where(eq(uploads.id, id)));
  if (!row || row.status !== "pending" || !sig || String(row.expiresAt) !== expires) throw new DomainError("upload.invalid", 403);
  const expected = Buffer.from(sign(deps.secrets.sessionSecret, id, row.userId, row.expiresAt));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new DomainError("upload.invalid", 403);
  if (row.expiresAt < deps.now()) throw new DomainError("upload.expired", 403);

  const refuse = (wait: number) => {
    if (wait > 0) throw new DomainError("upload.tooMany", 429, { retryAfterMs: wait });
  };
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_UPLOAD_BYTES) throw new DomainError("upload.tooLarge", 413);
  // The declared length is only looked at, so a body over the allowance is never read.
  refuse(await deps.limits.uploadBytesByUser.retryAfter(row.userId, deps.now(), Math.max(declared, 1)));
  let data: Uint8Array;
  try {
    data = await readBody(request, MAX_UPLOAD_BYTES);
  } catch (err) {
    if (bodyRefusal(err)) throw new DomainError("upload.tooLarge", 413);
    throw new DomainError("upload.failed", 400);
  }
  if (data.length === 0) throw new DomainError("upload.notImage", 400);
  // The bytes received are counted before they are stored, and given back if they are not.
  const now = deps.now();
  refuse(await deps.limits.uploadBytesByUser.take(row.userId, now, data.length));
  const unstored = () => deps.limits.uploadBytesByUser.refund(row.userId, now, data.length);
  // Claimed first: of two PUTs racing with the same URL, one stores its bytes, the other is refused.
  const claimed = await writeTransaction(deps.db, async (tx) =>
    await tx.update(uploads).set({ status: RECEIVING }).where(and(eq(uploads.id, id), eq(uploads.status, "pending"))).returning({ id: uploads.id }),
  );
  if (!claimed.length) {
    await unstored();
    throw new DomainError("upload.invalid", 403);
  }
  try {
    await deps.storage.write(uploadKey(id), data, "application/octet-stream");
  } catch (err) {
    await writeTransaction(deps.db, (tx) => tx.update(uploads).set({ status: "pending" }).where(eq(uploads.id, id)));
    await unstored();
    throw err;
  }
  await writeTransaction(deps.db, (tx) => tx.update(uploads).set({ status: "received" }).where(eq(uploads.id, id)));
}

const UPLOAD_ID = "([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})";
const OWN_UPLOAD_PATH = new RegExp(`^/api/uploads/${UPLOAD_ID}$`);
const BUCKET_UPLOAD_PATH = new RegExp(`/tmp/${UPLOAD_ID}$`);

/**
 * The upload id inside an upload URL we handed out: ours, relative or absolute at the address the
 * browser uses (or PUBLIC_URL), or the bucket's presigned one. Any other host's URL is refused.
 */
function uploadIdFrom(deps: Deps, imageURL: string, requestOrigin: string): string | null {
  let url: URL;
  try {
    url = new URL(imageURL, requestOrigin);
  } catch {
    return null;
  }
  if (url.origin === requestOrigin || url.origin === new URL(deps.config.publicUrl).origin) {
    return OWN_UPLOAD_PATH.exec(url.pathname)?.[1] ?? null;
  }
  if (deps.storage.uploadOrigin && url.origin === deps.storage.uploadOrigin) return BUCKET_UPLOAD_PATH.exec(url.pathname)?.[1] ?? null;
  return null;
}

/**
 * An upload's life: `pending` (URL handed out), `receiving` then `received` (local PUT stored),
 * `processing` (claimed by one request turning it into a photo), then `processed` (with its
 * `objectId`) or `failed`. The schema's column is plain text; these are all the values it holds.
 */
export type UploadStatus = "pending" | "receiving" | "received" | "processing" | "processed" | "failed";
const status = (value: UploadStatus) => sql`${value}`;
const RECEIVING = status("receiving");

/**
 * Turns a received upload into a stored photo: checks by content that it is an image within the
 * size and pixel limits, applies its orientation, drops all metadata (location included) and
 * writes the sizes the screens use. Returns the photo's path, e.g. `/objects/<uuid>`.
 *
 * An upload makes one photo at most. One write transaction claims it (a compare-and-set from
 * `pending`/`received` to `processing`) before anything is read; a second call while it is being
 * processed gets 409, and a call after a failure gets 409 too (the upload is spent: the person
 * starts a new one). A call after success answers the same photo again (an identical retry, for
 * a browser whose answer was lost): no new photo, nothing read, nothing counted.
 *
 * The stored object's size is asked first (a HEAD on a bucket) and the bytes are then read with
 * a cap, so an object over the limit is refused without reading it, and deleted. The bytes
 * processed count toward the uploader's hourly allowance (`deps.limits.uploadBytesByUser`); the
 * local PUT counted them already as it received them.
 */
export async function processUpload(deps: Deps, userId: string, imageURL: string, requestOrigin: string): Promise<{ objectPath: string }> {
  const id = uploadIdFrom(deps, imageURL, requestOrigin);
  const row = id ? await one(deps.db.select().from(uploads).where(eq(uploads.id, id))) : undefined;
  if (!row || row.userId !== userId) throw new DomainError("upload.invalid", 404);
  const key = uploadKey(row.id);
  const fromBucket = deps.storage.kind === "s3";
  // With a bucket the browser's POST goes straight there: the record stays `pending` until now.
  const claimable: UploadStatus[] = fromBucket ? ["pending", "received"] : ["received"];

  const claim = await writeTransaction(deps.db, async (tx) => {
    const current = await one(tx.select().from(uploads).where(eq(uploads.id, row.id)));
    if (!current) return { error: new DomainError("upload.invalid", 404) };
    const state = current.status as UploadStatus;
    if (state === "processed" && current.objectId) return { done: `/objects/${current.objectId}` };
    if (state === "processing") return { error: new DomainError("upload.inProgress", 409) };
    if (state === "failed" || state === "processed") return { error: new DomainError("upload.used", 409) };
    if (!claimable.includes(state)) return { error: new DomainError("upload.failed", 400) };
    if (current.expiresAt + PROCESS_TTL_MS < deps.now()) return { error: new DomainError("upload.expired", 410) };
    const won = await tx
      .update(uploads)
      .set({ status: status("processing") })
      .where(and(eq(uploads.id, row.id), sql`${uploads.status} in (${sql.join(claimable.map(status), sql`, `)})`))
      .returning({ id: uploads.id });
    if (!won.length) return { error: new DomainError("upload.inProgress", 409) };
    // A bucket takes POSTs with this upload's form until it expires: what arrives later is deleted then.
    if (fromBucket) await scheduleJob(tx, leftoverUploadCleanup, { id: row.id }, { at: current.expiresAt + LEFTOVER_GRACE_MS, key: `uploads.leftover:${row.id}` });
    return { claimed: true as const };
  });
  if ("done" in claim) return { objectPath: claim.done! };
  if ("error" in claim) throw claim.error;

  try {
    const size = await deps.storage.size(key);
    if (size === null) throw new DomainError("upload.failed", 400);
    if (size > MAX_UPLOAD_BYTES) throw new DomainError("upload.tooLarge", 413);
    if (size === 0) throw new DomainError("upload.notImage", 415);
    if (fromBucket) {
      // Counted before the object is read, in one step with the limit.
      const wait = await deps.limits.uploadBytesByUser.take(userId, deps.now(), size);
      if (wait > 0) throw new DomainError("upload.tooMany", 429, { retryAfterMs: wait });
    }
    // Replaced by a bigger object since its size was asked: still never read past the limit (413).
    const raw = await deps.storage.read(key, MAX_UPLOAD_BYTES);
    if (!raw) throw new DomainError("upload.failed", 400);
    const variants = await encodePhoto(raw);
    const objectId = crypto.randomUUID();
    for (const size of Object.keys(SIZES) as PhotoSize[]) {
      await deps.storage.write(photoKey(objectId, size), variants[size], "image/webp");
    }
    await deps.storage.delete(key);
    await writeTransaction(deps.db, (tx) => tx.update(uploads).set({ status: "processed", objectId }).where(eq(uploads.id, row.id)));
    return { objectPath: `/objects/${objectId}` };
  } catch (err) {
    // Refused or failed, for good: the upload cannot make a photo any more, and its object goes.
    await writeTransaction(deps.db, (tx) => tx.update(uploads).set({ status: status("failed") }).where(eq(uploads.id, row.id)));
    await deps.storage.delete(key).catch(() => {});
    throw err;
  }
}

/** After an upload's form expired, how long before what a late POST may have left is deleted. */
const LEFTOVER_GRACE_MS = 60 * 1000;

/**
 * A bucket accepts POSTs with an upload's form until the form expires, even after the upload was
 * processed or refused; once it has expired, whatever such a POST left is deleted. Does nothing
 * to an upload still waiting to be processed (`deleteStaleUploads` deals with those).
 */
export const leftoverUploadCleanup = defineJob<{ id: string }>({
  kind: "uploads.leftover",
  run: async ({ id }, { deps }) => {
    const row = await one(deps.db.select({ status: uploads.status }).from(uploads).where(eq(uploads.id, id)));
    const state = row?.status as UploadStatus | undefined;
    if (state === "pending" || state === "received" || state === "processing") return;
    await deps.storage.delete(uploadKey(id));
  },
});

/** Decodes by content (never by name or declared type) and re-encodes each size as WebP. */
export async function encodePhoto(raw: Uint8Array): Promise<Record<PhotoSize, Uint8Array>> {
  const sharp = await loadSharp();
  let format: string | undefined;
  let pixels = 0;
  try {
    const meta = await sharp(raw, { limitInputPixels: false }).metadata();
    format = meta.format === "heif" && meta.compression === "av1" ? "avif" : meta.format;
    pixels = (meta.width ?? 0) * (meta.height ?? 0) * (meta.pages ?? 1);
  } catch {
    throw new DomainError("upload.notImage", 415);
  }
  if (!format || !ACCEPTED.has(format)) throw new DomainError("upload.notImage", 415);
  if (pixels > MAX_PIXELS) throw new DomainError("upload.tooManyPixels", 413);
  try {
    const out = {} as Record<PhotoSize, Uint8Array>;
    for (const [size, s] of Object.entries(SIZES) as [PhotoSize, (typeof SIZES)[PhotoSize]][]) {
      const buffer = await sharp(raw, { limitInputPixels: MAX_PIXELS, failOn: "error" })
        .rotate()
        .resize({ width: s.width, height: s.height, fit: "inside", withoutEnlargement: true })
        .webp({ quality: s.quality })
        .toBuffer();
      out[size] = new Uint8Array(buffer);
    }
    return out;
  } catch {
    throw new DomainError("upload.processingFailed", 422);
  }
}

/** Which of these photo paths the user uploaded themselves. */
export async function ownedObjects(deps: Deps, userId: string, paths: string[]): Promise<Set<string>> {
  const ids = paths.map(photoObjectId).filter((id): id is string => Boolean(id));
  if (!ids.length) return new Set();
  const rows = await deps.db
    .select({ objectId: uploads.objectId })
    .from(uploads)
    .where(and(eq(uploads.userId, userId), inArray(uploads.objectId, ids)));
  return new Set(rows.map((r) => `/objects/${r.objectId}`));
}

/** How long a stored photo may stay attached to no profile or activity. */
export const UNATTACHED_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Removes what uploads leave behind: uploads started but never finished (or refused, or cut short
 * by a crash while being processed), and stored photos that
 * a day after their upload are on no profile or activity (never attached, or removed since).
 * Records and files both go. Safe to run again at any time and from a job runner: files are
 * deleted before their record, so a run cut short is finished by the next one.
 */
export async function deleteStaleUploads(deps: Deps) {
  const stale = await deps.db
    .select({ id: uploads.id })
    .from(uploads)
    .where(and(sql`${uploads.status} <> 'processed'`, lt(uploads.expiresAt, deps.now() - PROCESS_TTL_MS)));
  for (const { id } of stale) await deps.storage.delete(uploadKey(id));
  if (stale.length) await writeTransaction(deps.db, (tx) => tx.delete(uploads).where(inArray(uploads.id, stale.map((s) => s.id))));

  // Only its uploader can attach a photo (ownedObjects), so only their profile and activities
  // are looked at: by primary key and by the host index.
  const path = sql`('/objects/' || ${uploads.objectId})`;
  const onProfile = deps.db
    .select({ one: sql`1` })
    .from(users)
    .where(
      and(
        eq(users.id, uploads.userId),
        or(eq(users.photo, path), eq(users.profileImageUrl, path), dialect.jsonListHas(users.photos, path)),
      ),
    );
  const onActivity = deps.db
    .select({ one: sql`1` })
    .from(activities)
    .where(and(eq(activities.hostId, uploads.userId), dialect.jsonListHas(activities.photos, path)));
  const unattached = await deps.db
    .select({ id: uploads.id, objectId: uploads.objectId })
    .from(uploads)
    .where(and(eq(uploads.status, "processed"), lt(uploads.createdAt, deps.now() - UNATTACHED_TTL_MS), notExists(onProfile), notExists(onActivity)));
  for (const { objectId } of unattached) {
    if (objectId) await deletePhoto(deps.storage, objectId);
  }
  if (unattached.length) await writeTransaction(deps.db, (tx) => tx.delete(uploads).where(inArray(uploads.id, unattached.map((u) => u.id))));
  return { unfinished: stale.length, unattached: unattached.length };
}

/** Hourly: abandoned uploads, and photos nobody attached within a day, are removed. */
export const staleUploadsCleanup = defineJob({
  kind: "uploads.cleanup",
  every: 60 * 60 * 1000,
  run: async (_, { deps }) => void (await deleteStaleUploads(deps)),
});

/** The URL of a photo at a size: uploaded photos have sizes, shipped ones are used as they are. */
export function photoUrl(path: string | null | undefined, size: PhotoSize = "large"): string | null {
  if (!path) return null;
  return photoObjectId(path) ? `${path}/${size}.webp` : path;
}
