import { and, eq, inArray, lt, notExists, or, sql } from "drizzle-orm";
import { createHmac, timingSafeEqual } from "node:crypto";
import { activities, uploads, users } from "../../db/schema";
import type { Deps } from "../context";
import { bodyRefusal, readBody } from "../lib/body";
import type { MessageKey } from "../lib/i18n";
import { defineJob } from "../lib/jobs";
import { loadSharp } from "./sharp";

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
export const MAX_PIXELS = 40_000_000;
const UPLOAD_TTL_MS = 10 * 60 * 1000;
/** How long a received upload may wait to be turned into a photo. */
const PROCESS_TTL_MS = 60 * 60 * 1000;
const ACCEPTED = new Set(["jpeg", "png", "webp", "gif", "avif"]);

export const SIZES = {
  thumb: { width: 480, height: 480, quality: 78 },
  large: { width: 1600, height: 1600, quality: 82 },
} as const;
export type PhotoSize = keyof typeof SIZES;

export class UploadError extends Error {
  constructor(
    readonly status: number,
    readonly messageKey: MessageKey,
    /** For 429: how long until the person may upload again. */
    readonly retryAfterMs?: number,
  ) {
    super(messageKey);
  }
}

const sign = (secret: string, id: string, userId: string, expires: number) =>
  createHmac("sha256", secret).update(`${id}.${userId}.${expires}`).digest("base64url");

/**
 * Starts an upload for a signed-in user: a pending record and a short-lived URL to PUT to. Ours
 * is relative, so it works at whatever address the browser opened the app; a bucket's is its own.
 * A person gets a limited number of upload URLs an hour (`deps.limits.uploadsByUser`).
 */
export async function createUpload(deps: Deps, userId: string) {
  const wait = deps.limits.uploadsByUser.retryAfter(userId, deps.now());
  if (wait > 0) throw new UploadError(429, "upload.tooMany", wait);
  deps.limits.uploadsByUser.hit(userId, deps.now());
  const id = crypto.randomUUID();
  const expiresAt = deps.now() + UPLOAD_TTL_MS;
  await deps.db.insert(uploads).values({ id, userId, expiresAt, createdAt: deps.now() });
  if (deps.storage.presignPut) return { uploadURL: deps.storage.presignPut(`tmp/${id}`, UPLOAD_TTL_MS / 1000) };
  const sig = sign(deps.secrets.sessionSecret, id, userId, expiresAt);
  return { uploadURL: `/api/uploads/${id}?expires=${expiresAt}&sig=${sig}` };
}

/**
 * The PUT to a local upload URL. The signature and expiry are checked before the body is read
 * at all; then the raw bytes are read (whatever type they are sent as) up to the upload limit,
 * within the uploader's hourly allowance of stored bytes (`deps.limits.uploadBytesByUser`).
 */
export async function receiveUpload(deps: Deps, id: string, expires: string | undefined, sig: string | undefined, request: Request) {
  const row = await deps.db.select().from(uploads).where(eq(uploads.id, id)).get();
  if (!row || row.status !== "pending" || !sig || String(row.expiresAt) !== expires) throw new UploadError(403, "upload.invalid");
  const expected = Buffer.from(sign(deps.secrets.sessionSecret, id, row.userId, row.expiresAt));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new UploadError(403, "upload.invalid");
  if (row.expiresAt < deps.now()) throw new UploadError(403, "upload.expired");

  const allowance = (bytes: number) => {
    const wait = deps.limits.uploadBytesByUser.retryAfter(row.userId, deps.now(), bytes);
    if (wait > 0) throw new UploadError(429, "upload.tooMany", wait);
  };
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > MAX_UPLOAD_BYTES) throw new UploadError(413, "upload.tooLarge");
  allowance(Math.max(declared, 1));
  let data: Uint8Array;
  try {
    data = await readBody(request, MAX_UPLOAD_BYTES);
  } catch (err) {
    if (bodyRefusal(err)) throw new UploadError(413, "upload.tooLarge");
    throw new UploadError(400, "upload.failed");
  }
  if (data.length === 0) throw new UploadError(400, "upload.notImage");
  allowance(data.length);
  await deps.storage.write(`tmp/${id}`, data, "application/octet-stream");
  deps.limits.uploadBytesByUser.hit(row.userId, deps.now(), data.length);
  await deps.db.update(uploads).set({ status: "received" }).where(eq(uploads.id, id));
}

const UPLOAD_ID = "([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})";
const OWN_UPLOAD_PATH = new RegExp(`^/api/uploads/${UPLOAD_ID}$`);
const BUCKET_UPLOAD_PATH = new RegExp(`/tmp/${UPLOAD_ID}$`);

/**
 * The upload id inside an upload URL we handed out: ours, relative or absolute at the address the
 * browser uses (or PUBLIC_URL), or the bucket's presigned one. Any other host's URL is refused.
 */
function uploadIdFrom(deps: Deps, imageURL: unknown, requestOrigin: string): string | null {
  if (typeof imageURL !== "string" || imageURL.length > 4000) return null;
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
 * Turns a received upload into a stored photo: checks by content that it is an image within the
 * size and pixel limits, applies its orientation, drops all metadata (location included) and
 * writes the sizes the screens use. Returns the photo's path, e.g. `/objects/<uuid>`.
 */
export async function processUpload(deps: Deps, userId: string, imageURL: unknown, requestOrigin: string): Promise<{ objectPath: string }> {
  const id = uploadIdFrom(deps, imageURL, requestOrigin);
  const row = id ? await deps.db.select().from(uploads).where(eq(uploads.id, id)).get() : undefined;
  if (!row || row.userId !== userId) throw new UploadError(404, "upload.invalid");
  if (row.status === "processed" && row.objectId) return { objectPath: `/objects/${row.objectId}` };
  if (row.expiresAt + PROCESS_TTL_MS < deps.now()) throw new UploadError(410, "upload.expired");

  const raw = await deps.storage.read(`tmp/${row.id}`);
  if (!raw) throw new UploadError(400, "upload.failed");
  if (raw.length > MAX_UPLOAD_BYTES) {
    await deps.storage.delete(`tmp/${row.id}`);
    throw new UploadError(413, "upload.tooLarge");
  }
  const variants = await encodePhoto(raw);
  const objectId = crypto.randomUUID();
  for (const size of Object.keys(SIZES) as PhotoSize[]) {
    await deps.storage.write(`photos/${objectId}/${size}.webp`, variants[size], "image/webp");
  }
  await deps.storage.delete(`tmp/${row.id}`);
  await deps.db.update(uploads).set({ status: "processed", objectId }).where(eq(uploads.id, row.id));
  return { objectPath: `/objects/${objectId}` };
}

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
    throw new UploadError(415, "upload.notImage");
  }
  if (!format || !ACCEPTED.has(format)) throw new UploadError(415, "upload.notImage");
  if (pixels > MAX_PIXELS) throw new UploadError(413, "upload.tooManyPixels");
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
    throw new UploadError(422, "upload.processingFailed");
  }
}

/** Which of these photo paths the user uploaded themselves. */
export async function ownedObjects(deps: Deps, userId: string, paths: string[]): Promise<Set<string>> {
  const ids = paths.map((p) => /^\/objects\/([0-9a-f-]{36})$/.exec(p)?.[1]).filter((id): id is string => Boolean(id));
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
 * Removes what uploads leave behind: uploads started but never finished, and stored photos that
 * a day after their upload are on no profile or activity (never attached, or removed since).
 * Records and files both go. Safe to run again at any time and from a job runner: files are
 * deleted before their record, so a run cut short is finished by the next one.
 */
export async function deleteStaleUploads(deps: Deps) {
  const stale = await deps.db
    .select({ id: uploads.id })
    .from(uploads)
    .where(and(inArray(uploads.status, ["pending", "received"]), lt(uploads.expiresAt, deps.now() - PROCESS_TTL_MS)));
  for (const { id } of stale) await deps.storage.delete(`tmp/${id}`);
  if (stale.length) await deps.db.delete(uploads).where(inArray(uploads.id, stale.map((s) => s.id)));

  // Only its uploader can attach a photo (ownedObjects), so only their profile and activities
  // are looked at: by primary key and by the host index.
  const path = sql`'/objects/' || ${uploads.objectId}`;
  const onProfile = deps.db
    .select({ one: sql`1` })
    .from(users)
    .where(
      and(
        eq(users.id, uploads.userId),
        or(eq(users.photo, path), eq(users.profileImageUrl, path), sql`exists (select 1 from json_each(${users.photos}) where value = ${path})`),
      ),
    );
  const onActivity = deps.db
    .select({ one: sql`1` })
    .from(activities)
    .where(and(eq(activities.hostId, uploads.userId), sql`exists (select 1 from json_each(${activities.photos}) where value = ${path})`));
  const unattached = await deps.db
    .select({ id: uploads.id, objectId: uploads.objectId })
    .from(uploads)
    .where(and(eq(uploads.status, "processed"), lt(uploads.createdAt, deps.now() - UNATTACHED_TTL_MS), notExists(onProfile), notExists(onActivity)));
  for (const { objectId } of unattached) {
    if (!objectId) continue;
    for (const size of Object.keys(SIZES) as PhotoSize[]) await deps.storage.delete(`photos/${objectId}/${size}.webp`);
  }
  if (unattached.length) await deps.db.delete(uploads).where(inArray(uploads.id, unattached.map((u) => u.id)));
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
  return /^\/objects\/[0-9a-f-]{36}$/.test(path) ? `${path}/${size}.webp` : path;
}
