import { createHmac } from "node:crypto";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Config } from "../config";
import { readAtMost } from "../../lib/body";
import { DomainError } from "../../lib/domain-error";
import type { ObjectStorage, PresignedPost } from "../ports/storage";

/** An object bigger than the reader's limit (nothing past the limit was read): a photo too large for us. */
const objectTooLarge = () => new DomainError("upload.tooLarge", 413);

// exports/: a person's prepared copy of their data (src/account/export.ts), removed once fetched or expired.
const KEY = /^(tmp\/[0-9a-f-]{36}|photos\/[0-9a-f-]{36}\/(thumb|large)\.webp|exports\/[0-9a-f-]{36}\.(zip|json))$/;

function checkKey(key: string) {
  if (!KEY.test(key)) throw new Error(`Refusing storage key ${JSON.stringify(key)}`);
}

/** Reads a stream up to `limit` bytes; past that it stops reading and refuses the object as too large. */
export const readCapped = (stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> => readAtMost(stream, limit, objectTooLarge);

export function localStorage(root: string): ObjectStorage {
  const path = (key: string) => {
    checkKey(key);
    return join(root, key);
  };
  return {
    kind: "local",
    async write(key, data) {
      // Written aside, then renamed: a reader never sees half a file, even while it is rewritten.
      const file = path(key);
      mkdirSync(dirname(file), { recursive: true });
      const partial = `${file}.${crypto.randomUUID()}.part`;
      try {
        await Bun.write(partial, data);
        renameSync(partial, file);
      } finally {
        rmSync(partial, { force: true });
      }
    },
    async size(key) {
      const file = Bun.file(path(key));
      return (await file.exists()) ? file.size : null;
    },
    async read(key, limit) {
      const file = Bun.file(path(key));
      if (!(await file.exists())) return null;
      if (file.size > limit) throw objectTooLarge();
      return readCapped(file.stream(), limit);
    },
    async body(key) {
      const file = Bun.file(path(key));
      return (await file.exists()) ? file : null;
    },
    async delete(key) {
      rmSync(path(key), { force: true });
    },
  };
}

const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();

/**
 * Signs a browser upload policy the way S3 checks it ("Creating a POST policy" and "Calculating
 * a signature (POST)", Signature Version 4): the policy's base64 is the string to sign, with the
 * usual key derived from the secret, the date, the region and `s3`.
 */
export function signPostPolicy(options: {
  url: string;
  bucket: string;
  key: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  expiresInSeconds: number;
  minBytes: number;
  maxBytes: number;
  now: number;
}): PresignedPost {
  const amzDate = new Date(options.now).toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, ""); // 20261122T010203Z
  const day = amzDate.slice(0, 8);
  const credential = `${options.accessKeyId}/${day}/${options.region}/s3/aws4_request`;
  const policy = {
    expiration: new Date(options.now + options.expiresInSeconds * 1000).toISOString(),
    conditions: [
      { bucket: options.bucket },
      ["eq", "$key", options.key],
      ["content-length-range", options.minBytes, options.maxBytes],
      { "x-amz-algorithm": "AWS4-HMAC-SHA256" },
      { "x-amz-credential": credential },
      { "x-amz-date": amzDate },
    ],
  };
  const encoded = Buffer.from(JSON.stringify(policy)).toString("base64");
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${options.secretAccessKey}`, day), options.region), "s3"), "aws4_request");
  return {
    url: options.url,
    fields: {
      key: options.key,
      "x-amz-algorithm": "AWS4-HMAC-SHA256",
      "x-amz-credential": credential,
      "x-amz-date": amzDate,
      policy: encoded,
      "x-amz-signature": createHmac("sha256", signingKey).update(encoded).digest("hex"),
    },
  };
}

export function s3Storage(s3: NonNullable<Config["s3"]>): ObjectStorage {
  // The policy needs a region to sign with; the client keeps its own default (e.g. for R2's "auto").
  const region = s3.region ?? "us-east-1";
  const client = new Bun.S3Client({
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    region: s3.region,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
  });
  // Path-style, as Bun's client addresses the bucket: <endpoint>/<bucket>/<key>.
  const origin = s3.endpoint ? s3.endpoint.replace(/\/+$/, "") : `https://s3.${region}.amazonaws.com`;
  const bucketUrl = `${origin}/${s3.bucket}`;
  const file = (key: string) => {
    checkKey(key);
    return client.file(key);
  };
  const missing = (err: unknown) => {
    const e = err as { code?: string; name?: string; status?: number } | null;
    return e?.code === "NoSuchKey" || e?.code === "NotFound" || e?.status === 404 || e?.name === "NoSuchKey";
  };
  return {
    kind: "s3",
    uploadOrigin: new URL(origin).origin,
    async write(key, data, contentType) {
      await file(key).write(data, { type: contentType });
    },
    async size(key) {
      try {
        return (await file(key).stat()).size;
      } catch (err) {
        if (missing(err)) return null;
        throw err;
      }
    },
    async read(key, limit) {
      // A ranged GET: the bucket sends `limit + 1` bytes at most, enough to know it is too many.
      try {
        return await readCapped(file(key).slice(0, limit + 1).stream(), limit);
      } catch (err) {
        if (missing(err)) return null;
        throw err;
      }
    },
    async body(key) {
      const f = file(key);
      return (await f.exists()) ? f.stream() : null;
    },
    async delete(key) {
      await file(key).delete();
    },
    presignPost(key, { expiresInSeconds, minBytes, maxBytes, now = Date.now() }) {
      checkKey(key);
      return signPostPolicy({
        url: bucketUrl,
        bucket: s3.bucket,
        key,
        region,
        accessKeyId: s3.accessKeyId ?? "",
        secretAccessKey: s3.secretAccessKey ?? "",
        expiresInSeconds,
        minBytes,
        maxBytes,
        now,
      });
    },
    objectUrl(key) {
      checkKey(key);
      return `${bucketUrl}/${key}`;
    },
  };
}

export function makeStorage(config: Config): ObjectStorage {
  return config.s3 ? s3Storage(config.s3) : localStorage(join(config.dataDir, "uploads"));
}
