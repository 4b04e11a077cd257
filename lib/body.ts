import { parseQuery } from "elysia/parse-query";
import { DomainError, isDomainError } from "./domain-error";
import type { MessageKey } from "./i18n";
import { BODY_LIMIT, MAX_FIELDS } from "../shared/limits";

/**
 * How much of a request body the app reads, and how. Every route's body goes through the one
 * reader below (an app-wide parse hook), so no route reads an unbounded body:
 *
 * - JSON, forms (urlencoded or multipart) and text: `BODY_LIMIT` (64 KB);
 * - forms: `MAX_FIELDS` fields at most (both in shared/limits.ts, with their reasons);
 * - routes that take a raw body (the photo upload, the payment provider's webhook) declare it
 *   with their limit (`rawBody`, src/context.ts) and are not read here: their handler reads the
 *   body itself, after its own checks, with `readBody`.
 *
 * A body over its limit is refused with 413 before it is parsed: at once when its declared
 * Content-Length says so, or as soon as the bytes read from a body of unknown length pass it.
 */

/**
 * The refusals of a body: too large, or too many fields. Each is a `DomainError` with status 413,
 * answered as `{ message }` JSON whoever asks (the app's error hook).
 */
const BODY_REFUSALS = new Set<MessageKey>(["error.bodyTooLarge", "error.tooManyFields"]);
const isBodyRefusal = (error: unknown): error is DomainError => isDomainError(error) && error.status === 413 && BODY_REFUSALS.has(error.key);

/** The body's refusal behind an error, whether thrown by the reader or wrapped by Elysia's parse step. */
export function bodyRefusal(error: unknown): DomainError | null {
  if (isBodyRefusal(error)) return error;
  if (error instanceof Error && isBodyRefusal(error.cause)) return error.cause;
  return null;
}

const tooLarge = (limit: number) => new DomainError("error.bodyTooLarge", 413, { params: { limit } });

/**
 * The body's bytes, at most `limit` of them: refused by its declared length before anything is
 * read, or while reading, as soon as it grows past the limit (the rest is never read).
 */
export async function readBody(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  if (!request.body) return new Uint8Array(0);
  return readAtMost(request.body, limit, tooLarge);
}

/**
 * A stream's bytes, at most `limit` of them: as soon as it grows past the limit, reading stops
 * (the rest is never read) and `refuse(limit)` is thrown. Request bodies and stored objects alike.
 */
export async function readAtMost(stream: ReadableStream<Uint8Array>, limit: number, refuse: (limit: number) => Error): Promise<Uint8Array<ArrayBuffer>> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw refuse(limit);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

const decoder = new TextDecoder();
const tooManyFields = () => new DomainError("error.tooManyFields", 413, { params: { limit: MAX_FIELDS } });
const UNSAFE_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** Fields of an urlencoded body, counted before they are decoded. */
function urlencoded(text: string): Record<string, unknown> {
  let fields = 1;
  for (let i = text.indexOf("&"); i !== -1; i = text.indexOf("&", i + 1)) {
    if (++fields > MAX_FIELDS) throw tooManyFields();
  }
  return parseQuery(text);
}

/** A multipart form as Elysia reads one: a repeated name becomes a list, JSON objects are parsed. */
async function multipart(bytes: Uint8Array<ArrayBuffer>, contentType: string): Promise<Record<string, unknown>> {
  const form = await new Response(bytes, { headers: { "content-type": contentType } }).formData();
  const grouped = new Map<string, (string | File)[]>();
  let fields = 0;
  for (const [name, value] of form) {
    if (++fields > MAX_FIELDS) throw tooManyFields();
    if (UNSAFE_KEYS.has(name)) continue;
    const list = grouped.get(name);
    if (list) list.push(value);
    else grouped.set(name, [value]);
  }
  const body: Record<string, unknown> = Object.create(null);
  for (const [name, values] of grouped) {
    const [only] = values;
    if (values.length > 1) body[name] = values;
    else if (typeof only === "string" && (only.startsWith("{") || only.startsWith("["))) {
      try {
        const parsed: unknown = JSON.parse(only);
        body[name] = parsed && typeof parsed === "object" ? parsed : only;
      } catch {
        body[name] = only;
      }
    } else body[name] = only;
  }
  return body;
}

/**
 * The app-wide body parser (an Elysia parse hook): reads every route's body within its limit
 * and parses it as Elysia would (JSON, urlencoded and multipart forms, text, octet-stream).
 * `rawBodyLimit` answers, for the matched route, the limit of a body its handler reads itself
 * (the route's `rawBody` option, src/context.ts): for those, only the declared length is checked
 * here and `body` is null. Other content types are not read at all and leave `body` undefined.
 */
export function bodyParser(rawBodyLimit: (method: string, route: string) => number | undefined = () => undefined) {
  return async ({ request, route }: { request: Request; route: string }): Promise<unknown> => {
    const declared = Number(request.headers.get("content-length") ?? 0);
    const raw = rawBodyLimit(request.method, route);
    if (raw !== undefined) {
      if (declared > raw) throw tooLarge(raw);
      return null;
    }
    if (declared > BODY_LIMIT) throw tooLarge(BODY_LIMIT);
    if (!request.body) return undefined;
    const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type === "application/json") return JSON.parse(decoder.decode(await readBody(request, BODY_LIMIT)));
    if (type === "application/x-www-form-urlencoded") return urlencoded(decoder.decode(await readBody(request, BODY_LIMIT)));
    if (type === "multipart/form-data") return multipart(await readBody(request, BODY_LIMIT), request.headers.get("content-type") ?? type);
    if (type.startsWith("text/")) return decoder.decode(await readBody(request, BODY_LIMIT));
    if (type === "application/octet-stream") return (await readBody(request, BODY_LIMIT)).buffer;
    return undefined;
  };
}

/**
 * Whether a request carries a NUL character (U+0000) in its URL (a path segment or the query,
 * percent-encoded: "%00") or anywhere in its parsed body: a form field's or a JSON value's text,
 * or a key. PostgreSQL's text cannot hold one (it fails the whole statement), SQLite would keep
 * it, and no person types one. Uploaded files and raw bodies are bytes, not text: not looked at.
 * The body is walked without recursion, however deeply a JSON body nests.
 */
export function carriesNul(url: string, body: unknown): boolean {
  if (url.includes("%00") || url.includes("\0")) return true;
  const left: unknown[] = [body];
  while (left.length) {
    const value = left.pop();
    if (typeof value === "string") {
      if (value.includes("\0")) return true;
    } else if (Array.isArray(value)) {
      for (const inner of value) left.push(inner);
    } else if (value && typeof value === "object" && !(value instanceof Blob) && !(value instanceof ArrayBuffer) && !ArrayBuffer.isView(value)) {
      for (const [key, inner] of Object.entries(value)) {
        if (key.includes("\0")) return true;
        left.push(inner);
      }
    }
  }
  return false;
}
