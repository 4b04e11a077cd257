import { hasKeptParts, pageBytes } from "../html/fragments";
import { addVary, compressBytes, isCompressible, MIN_COMPRESS_BYTES, negotiateEncoding, type Encoding } from "./encoding";
import { keptGzip } from "./kept-pages";
import { splicedGzip } from "./spliced-gzip";

/**
 * Response compression. Neither Bun nor Elysia compresses, so the app does it in one place:
 * `compressResponse` runs on every answer as it leaves the app (see src/app.tsx), pages are
 * compressed as they are made (`pageResponse`), and built files are compressed once at build
 * time and served as they are (`negotiateEncoding` chooses, encoding.ts).
 */

/**
 * A page's bytes for this request (lib/html/fragments.ts `pageBytes`), compressed when the
 * browser accepts it and the page is 1 KB or more. Pages are gzipped when the browser takes gzip
 * as readily as brotli, as every browser does: libdeflate's fastest gzip of a whole page costs
 * less and comes out smaller than brotli's fastest (decision 0058). A page asked for again is
 * answered from its kept gzip body (`keptGzip`); any other is compressed whole, at the fast level.
 */
export function compressedPage(request: Request, html: string, csrf: string | null): { body: Uint8Array<ArrayBuffer>; encoding: Encoding | null } {
  const { body, encoding, scratch } = pageBody(request, html, csrf);
  return { body: scratch ? body.slice() : body, encoding };
}

/** `compressedPage` as an answer: the bytes are copied into it once, from where they were written. */
export function pageResponse(request: Request, html: string, csrf: string | null, init: ResponseInit): { response: Response; encoding: Encoding | null; length: number } {
  const { body, encoding, scratch } = pageBody(request, html, csrf);
  return { response: scratch ? new Response(body, init) : bytesResponse(body, init), encoding, length: body.length };
}

/** The page's body; `scratch` when it is a view of the scratch buffer, valid until the next page. */
function pageBody(request: Request, html: string, csrf: string | null): { body: Uint8Array<ArrayBuffer>; encoding: Encoding | null; scratch: boolean } {
  const encoding = request.method === "HEAD" ? null : negotiateEncoding(request.headers.get("accept-encoding"), ["gzip", "br"]);
  if (encoding === "gzip") {
    const kept = keptGzip(html, csrf);
    if (kept) return { body: kept, encoding, scratch: true };
    if (hasKeptParts(html)) return { body: splicedGzip(html, csrf), encoding, scratch: true };
  }
  const bytes = pageBytes(html, csrf);
  if (!encoding || bytes.length < MIN_COMPRESS_BYTES) return { body: bytes, encoding: null, scratch: false };
  return { body: compressBytes(bytes, encoding, "dynamic"), encoding, scratch: false };
}

/** Bodies made as bytes by the app (`bytesResponse`), so compressing them needs no copy of the answer. */
const knownBodies = new WeakMap<Response, Uint8Array<ArrayBuffer>>();

/** An answer of these bytes, which `compressResponse` reads as they are rather than through a copy. */
export function bytesResponse(bytes: Uint8Array<ArrayBuffer>, init: ResponseInit): Response {
  const response = new Response(bytes, init);
  knownBodies.set(response, bytes);
  return response;
}

const NO_BODY_STATUS = new Set([101, 204, 205, 304]);

/**
 * The answer, compressed when that is worth it and the caller accepts it: a compressible type,
 * 1 KB or more, not already encoded, a complete body (a string or bytes, never a stream still
 * arriving or a file), not HEAD, not 204/304. Anything else passes through unchanged.
 */
export function compressResponse(request: Request, response: Response): Response {
  if (request.method === "HEAD" || NO_BODY_STATUS.has(response.status) || response.status < 200 || response.status === 206) return response;
  const headers = response.headers;
  // The headers first: reading `body` makes a stream object, which most answers never need.
  if (headers.has("content-encoding") || !isCompressible(headers.get("content-type"))) return response;
  if (!response.body || response.bodyUsed) return response;
  // A response may opt out (RFC 9110 §5.2.2.6), as anything streamed to the browser should.
  if (/\bno-transform\b/i.test(headers.get("cache-control") ?? "")) return response;
  const declared = Number(headers.get("content-length") ?? Number.NaN);
  if (declared < MIN_COMPRESS_BYTES) return response;

  // Only a body already complete in memory: its bytes are there at once (Bun.peek). A stream or a
  // file would make us wait, so it goes out as it is.
  let bytes = knownBodies.get(response);
  if (!bytes) {
    const read = Bun.peek(response.clone().bytes());
    if (read instanceof Promise) {
      void read.catch(() => {});
      return response;
    }
    bytes = read;
  }
  if (bytes.length < MIN_COMPRESS_BYTES) return response;

  const out = new Headers(headers);
  addVary(out, "Accept-Encoding");
  const encoding = negotiateEncoding(request.headers.get("accept-encoding"));
  if (!encoding) {
    return new Response(bytes, { status: response.status, statusText: response.statusText, headers: out });
  }
  const compressed = compressBytes(bytes, encoding, "dynamic");
  out.set("Content-Encoding", encoding);
  out.set("Content-Length", String(compressed.length));
  // A strong validator names these exact bytes; the encoded ones are a different representation.
  const etag = out.get("etag");
  if (etag && !etag.startsWith("W/")) out.set("ETag", `W/${etag}`);
  return new Response(compressed, { status: response.status, statusText: response.statusText, headers: out });
}
