import { mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Config } from "../config";

/**
 * Where photos live: the data directory by default, or an S3-compatible bucket. Keys are
 * server-made (`tmp/<uuid>`, `photos/<uuid>/<size>.webp`), never taken from a file name.
 */
export interface ObjectStorage {
  kind: "local" | "s3";
  write(key: string, data: Uint8Array, contentType: string): Promise<void>;
  read(key: string): Promise<Uint8Array | null>;
  /** A body to serve, or null when the object does not exist. */
  body(key: string): Promise<Blob | ReadableStream | null>;
  delete(key: string): Promise<void>;
  /** For S3: a presigned URL the browser PUTs the raw file to. Local storage signs its own. */
  presignPut?(key: string, expiresInSeconds: number): string;
  /** Origin the browser uploads to, for the Content-Security-Policy. */
  uploadOrigin?: string;
}

const KEY = /^(tmp\/[0-9a-f-]{36}|photos\/[0-9a-f-]{36}\/(thumb|large)\.webp)$/;

function checkKey(key: string) {
  if (!KEY.test(key)) throw new Error(`Refusing storage key ${JSON.stringify(key)}`);
}

export function localStorage(root: string): ObjectStorage {
  const path = (key: string) => {
    checkKey(key);
    return join(root, key);
  };
  return {
    kind: "local",
    async write(key, data) {
      const file = path(key);
      mkdirSync(dirname(file), { recursive: true });
      await Bun.write(file, data);
    },
    async read(key) {
      const file = Bun.file(path(key));
      return (await file.exists()) ? file.bytes() : null;
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

export function s3Storage(s3: NonNullable<Config["s3"]>): ObjectStorage {
  const client = new Bun.S3Client({
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    region: s3.region,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
  });
  const file = (key: string) => {
    checkKey(key);
    return client.file(key);
  };
  return {
    kind: "s3",
    uploadOrigin: s3.endpoint ? new URL(s3.endpoint).origin : `https://${s3.bucket}.s3.${s3.region ?? "us-east-1"}.amazonaws.com`,
    async write(key, data, contentType) {
      await file(key).write(data, { type: contentType });
    },
    async read(key) {
      const f = file(key);
      return (await f.exists()) ? new Uint8Array(await f.arrayBuffer()) : null;
    },
    async body(key) {
      const f = file(key);
      return (await f.exists()) ? f.stream() : null;
    },
    async delete(key) {
      await file(key).delete();
    },
    presignPut(key, expiresIn) {
      return file(key).presign({ method: "PUT", expiresIn });
    },
  };
}

export function makeStorage(config: Config): ObjectStorage {
  return config.s3 ? s3Storage(config.s3) : localStorage(join(config.dataDir, "uploads"));
}
