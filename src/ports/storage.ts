/**
 * Where photos live: the data directory by default, or an S3-compatible bucket. Keys are
 * server-made (`tmp/<uuid>`, `photos/<uuid>/<size>.webp`, `exports/<uuid>.zip`), never taken from a file name.
 */
export interface ObjectStorage {
  kind: "local" | "s3";
  write(key: string, data: Uint8Array, contentType: string): Promise<void>;
  /** The object's size in bytes, without reading it (S3: a HEAD), or null when it does not exist. */
  size(key: string): Promise<number | null>;
  /**
   * The object's bytes, or null when it does not exist. Never more than `limit` of them are
   * read: past that, the `upload.tooLarge` refusal (413) is thrown (S3: a ranged GET of
   * `limit + 1` bytes at most).
   */
  read(key: string, limit: number): Promise<Uint8Array | null>;
  /** A body to serve, or null when the object does not exist. */
  body(key: string): Promise<Blob | ReadableStream | null>;
  delete(key: string): Promise<void>;
  /**
   * For S3: a presigned POST (a form the browser sends the file in) whose policy lets the bucket
   * itself refuse a file outside `minBytes..maxBytes`. Local storage signs its own PUT URL.
   */
  presignPost?(key: string, options: { expiresInSeconds: number; minBytes: number; maxBytes: number; now?: number }): PresignedPost;
  /** For S3: the URL of an object as the bucket serves it (what a presigned POST created). */
  objectUrl?(key: string): string;
  /** Origin the browser uploads to, for the Content-Security-Policy. */
  uploadOrigin?: string;
}

/** A browser upload form: POST `url` as multipart/form-data, `fields` first, then the file as `file`. */
export interface PresignedPost {
  url: string;
  fields: Record<string, string>;
}
