import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/**
 * The choice of an encoding (Accept-Encoding, brotli first) and the compression of bytes at
 * either level: the fastest for bodies made per request, the smallest for built files, which
 * are compressed once at build time and served as they are (scripts/build.ts).
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
 * highest q-value, the first of `available` on a tie (brotli unless told otherwise), none when neither is acceptable (`identity`, q=0, no header).
 */
export function negotiateEncoding(header: string | null, available: readonly Encoding[] = ["br", "gzip"]): Encoding | null {
  if (!header) return null;
  // Browsers send a handful of different headers: each is read once (a long one every time).
  if (header.length > 200) return chooseEncoding(header, available);
  const key = `${available.join(",")} ${header}`;
  const known = negotiated.get(key);
  if (known !== undefined) return known;
  const chosen = chooseEncoding(header, available);
  if (negotiated.size >= 256) negotiated.clear();
  negotiated.set(key, chosen);
  return chosen;
}
const negotiated = new Map<string, Encoding | null>();

function chooseEncoding(header: string, available: readonly Encoding[]): Encoding | null {
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
