import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/**
 * Response compression. Neither Bun nor Elysia compresses, so the app does it in one place:
 * `compressResponse` runs on every answer as it leaves the app (see src/app.tsx), and built files
 * are compressed once at build time and served as they are (`negotiateEncoding` chooses).
 */

export type Encoding = "br" | "gzip";

/** Below this, the headers and the compressor's work cost more than the bytes saved. */
export const MIN_COMPRESS_BYTES = 1024;

/**
 * The fastest settings for bodies made per request (decision 0018): brotli 1 and libdeflate's
 * gzip 1 take a quarter of the time of brotli 4 or zlib's gzip 6 for a few hundred bytes more,
 * and every page still fits the first round trip.
 */
export const DYNAMIC_BROTLI_QUALITY = 1;
export const DYNAMIC_GZIP_LEVEL = 1;

/** Content types worth compressing. Images (but SVG), fonts, archives and video are compressed already. */
const COMPRESSIBLE = /^(text\/(?!event-stream)|application\/(json|[\w.+-]+\+json|javascript|ecmascript|xml|[\w.+-]+\+xml)|image\/svg\+xml)/i;

export function isCompressible(contentType: string | null): boolean {
  return contentType !== null && COMPRESSIBLE.test(contentType.trim());
}

/**
 * The encoding to answer with, from an Accept-Encoding header: the acceptable one with the
 * highest q-value, brotli on a tie, none when neither is acceptable (`identity`, q=0, no header).
 */
export function negotiateEncoding(header: string | null, available: readonly Encoding[] = ["br", "gzip"]): Encoding | null {
  if (!header) return null;
  const q = new Map<string, number>();
  for (const part of header.slice(0, 1000).split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    let weight = 1;
    for (const param of params) {
      const m = /^\s*q\s*=(.*)$/.exec(param);
      // An unreadable weight counts as "not acceptable".
      if (m) weight = Math.min(1, Number(m[1]!.trim() || "x") || 0);
    }
    q.set(name.trim(), weight);
  }
  let best: Encoding | null = null;
  let bestQ = 0;
  for (const encoding of available) {
    const weight = q.get(encoding) ?? (encoding === "gzip" ? q.get("x-gzip") : undefined) ?? q.get("*") ?? 0;
    if (weight > bestQ) {
      best = encoding;
      bestQ = weight;
    }
  }
  return best;
}

/** Adds a token to a Vary header, keeping what is there. */
export function addVary(headers: Headers, token: string) {
  const current = headers.get("vary");
  if (!current) return headers.set("Vary", token);
  const tokens = current.split(",").map((t) => t.trim().toLowerCase());
  if (tokens.includes("*") || tokens.includes(token.toLowerCase())) return;
  headers.set("Vary", `${current}, ${token}`);
}

export function compressBytes(data: Uint8Array, encoding: Encoding, level: "dynamic" | "max"): Uint8Array<ArrayBuffer> {
  if (encoding === "br") {
    return brotliCompressSync(data, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: level === "max" ? constants.BROTLI_MAX_QUALITY : DYNAMIC_BROTLI_QUALITY,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
      },
    });
  }
  if (level === "max") return gzipSync(data, { level: 9 });
  return Bun.gzipSync(data as Uint8Array<ArrayBuffer>, { level: DYNAMIC_GZIP_LEVEL, library: "libdeflate" });
}

/**
 * Answers whose bytes were the same as an earlier one's (a page loaded again with nothing
 * changed, the same htmx fragment for many guests) reuse its compressed bytes. An entry is found
 * by a hash of the bytes and used only when the bytes are equal, so it can never hand one
 * answer's encoding to another. Kept: the most recently used, up to a total size.
 */
const REUSE_MAX_BODY = 256 * 1024;
const REUSE_MAX_TOTAL = 4 * 1024 * 1024;
const reused = new Map<string, { body: Uint8Array; encoded: Uint8Array<ArrayBuffer> }>();
let reusedBytes = 0;

function compressDynamic(body: Uint8Array, encoding: Encoding): Uint8Array<ArrayBuffer> {
  if (body.length > REUSE_MAX_BODY) return compressBytes(body, encoding, "dynamic");
  const key = `${encoding}:${body.length}:${Bun.hash(body)}`;
  const hit = reused.get(key);
  if (hit && Buffer.from(hit.body.buffer, hit.body.byteOffset, hit.body.length).equals(body)) {
    // Most recently used last: the first entry is the one to drop.
    reused.delete(key);
    reused.set(key, hit);
    return hit.encoded;
  }
  const encoded = compressBytes(body, encoding, "dynamic");
  if (hit) {
    reused.delete(key);
    reusedBytes -= hit.body.length + hit.encoded.length;
  }
  reused.set(key, { body, encoded });
  reusedBytes += body.length + encoded.length;
  for (const [oldKey, old] of reused) {
    if (reusedBytes <= REUSE_MAX_TOTAL) break;
    reused.delete(oldKey);
    reusedBytes -= old.body.length + old.encoded.length;
  }
  return encoded;
}

const NO_BODY_STATUS = new Set([101, 204, 205, 304]);

/**
 * The answer, compressed when that is worth it and the caller accepts it: a compressible type,
 * 1 KB or more, not already encoded, a complete body (a string or bytes, never a stream still
 * arriving or a file), not HEAD, not 204/304. Anything else passes through unchanged.
 */
export function compressResponse(request: Request, response: Response): Response {
  if (request.method === "HEAD" || NO_BODY_STATUS.has(response.status) || response.status < 200 || response.status === 206) return response;
  if (!response.body || response.bodyUsed) return response;
  const headers = response.headers;
  if (headers.has("content-encoding") || !isCompressible(headers.get("content-type"))) return response;
  // A response may opt out (RFC 9110 §5.2.2.6), as anything streamed to the browser should.
  if (/\bno-transform\b/i.test(headers.get("cache-control") ?? "")) return response;
  const declared = Number(headers.get("content-length") ?? Number.NaN);
  if (declared < MIN_COMPRESS_BYTES) return response;

  // Only a body already complete in memory: its bytes are there at once (Bun.peek). A stream or a
  // file would make us wait, so it goes out as it is.
  const copy = response.clone();
  const bytes = Bun.peek(copy.bytes());
  if (bytes instanceof Promise) {
    bytes.catch(() => {});
    return response;
  }
  if (bytes.length < MIN_COMPRESS_BYTES) return response;

  const out = new Headers(headers);
  addVary(out, "Accept-Encoding");
  const encoding = negotiateEncoding(request.headers.get("accept-encoding"));
  if (!encoding) {
    return new Response(bytes, { status: response.status, statusText: response.statusText, headers: out });
  }
  const compressed = compressDynamic(bytes, encoding);
  out.set("Content-Encoding", encoding);
  out.set("Content-Length", String(compressed.length));
  // A strong validator names these exact bytes; the encoded ones are a different representation.
  const etag = out.get("etag");
  if (etag && !etag.startsWith("W/")) out.set("ETag", `W/${etag}`);
  return new Response(compressed, { status: response.status, statusText: response.statusText, headers: out });
}
