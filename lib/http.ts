/** Small helpers for answering HTML forms, htmx and JSON callers alike. */

import { bytesResponse } from "./compression/responses";

export const isHtmx = (request: Request) => request.headers.get("hx-request") === "true";

/** JSON callers: a JSON body, or an Accept header that prefers JSON over HTML. */
export function wantsJson(request: Request): boolean {
  if ((request.headers.get("content-type") ?? "").includes("application/json")) return true;
  const accept = request.headers.get("accept") ?? "";
  return accept.includes("application/json") && !accept.includes("text/html");
}

/** Parsing base for `safeNext`: any origin works, only "did the origin stay the same" matters. */
const NEXT_BASE = "http://offline.invalid";
const NEXT_MAX = 2000;

/**
 * A path of our own site to go to after sign-in, or `fallback`. The value is read the way a
 * browser reads a Location header (the WHATWG URL parser: tabs and newlines dropped, `\` read as
 * `/`, dot segments resolved); anything that leaves our origin, or would once serialised (`//…`),
 * is refused. The answer is the parsed path, query and fragment serialised again, so it is
 * percent-encoded ASCII and always safe in a Location or HX-Redirect header.
 */
export function safeNext(next: unknown, fallback = "/"): string {
  if (typeof next !== "string" || next.length > NEXT_MAX) return fallback;
  // One slash, then not a second one (nor a backslash): a path, never "//host" or "/\host".
  if (!/^\/(?![/\\])/.test(next)) return fallback;
  // Control characters (NUL, tab, CR, LF, DEL…) have no place in a path someone typed.
  if (/[\u0000-\u001f\u007f]/.test(next)) return fallback;
  let url: URL;
  try {
    url = new URL(next, NEXT_BASE);
  } catch {
    return fallback;
  }
  if (url.origin !== NEXT_BASE) return fallback;
  const path = url.pathname + url.search + url.hash;
  // "/.//host" resolves to the path "//host", which a browser would read as another host.
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return fallback;
  if (path.startsWith("/api/login") || path.startsWith("/api/register")) return fallback;
  return path.length > NEXT_MAX ? fallback : path;
}

/**
 * A return address our own pages handed to a provider's page: a path, or an absolute URL at the
 * request's own origin (return URLs are built from it), reduced to a safe same-origin path.
 */
export function ownReturnPath(value: unknown, request: Request, fallback = "/"): string {
  if (typeof value !== "string") return fallback;
  if (value.startsWith("/")) return safeNext(value, fallback);
  try {
    const url = new URL(value);
    return url.origin === new URL(request.url).origin ? safeNext(url.pathname + url.search, fallback) : fallback;
  } catch {
    return fallback;
  }
}

/** A redirect that works for plain forms (303) and htmx (HX-Location keeps the swap machinery). */
export function redirectTo(request: Request, location: string, headers: HeadersInit = {}): Response {
  const h = new Headers(headers);
  if (isHtmx(request)) {
    h.set("HX-Redirect", location);
    return new Response(null, { status: 200, headers: h });
  }
  h.set("Location", location);
  return new Response(null, { status: 303, headers: h });
}

/** The Retry-After header of a refusal that asks to wait `waitMs` (none without a wait). */
/**
 * JSON for a header's value (htmx's `HX-Trigger`): a header carries Latin-1 only, so every other
 * character is written as its JSON escape (`\u2019`), which the page's JSON.parse reads back.
 */
export const headerJson = (value: unknown) => JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

export const waitHeaders = (waitMs?: number): Record<string, string> => (waitMs ? { "Retry-After": String(Math.ceil(waitMs / 1000)) } : {});

/** The `{minutes}` the "too many" messages name, for a wait of `waitMs`. */
export const waitParams = (waitMs?: number) => (waitMs ? { minutes: Math.ceil(waitMs / 60_000) } : undefined);

const encoder = new TextEncoder();

export function json(data: unknown, status = 200, headers: HeadersInit = {}): Response {
  return jsonBytes(JSON.stringify(data), status, headers);
}

/** A JSON answer already written out (JSON text or its UTF-8 bytes), such as a kept one. */
export function jsonBytes(written: string | Uint8Array<ArrayBuffer>, status = 200, headers: HeadersInit = {}): Response {
  const h = new Headers(headers);
  h.set("Content-Type", "application/json; charset=utf-8");
  h.set("Cache-Control", "no-store");
  return bytesResponse(typeof written === "string" ? encoder.encode(written) : written, { status, headers: h });
}

/** A parsed request body as a plain object; anything else (arrays, strings, nothing) reads as empty. */
export const asRecord = (body: unknown): Record<string, unknown> =>
  body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};

/**
 * A list sent as a JSON string (a form's hidden input) or as an array (the JSON API): the array,
 * or null when it is neither. Empty entries are dropped, as the spec's calls send "non-empty entries".
 */
export function listFrom(value: unknown): unknown[] | null {
  let list = value;
  if (typeof list === "string") {
    try {
      list = JSON.parse(list || "[]");
    } catch {
      return null;
    }
  }
  return Array.isArray(list) ? list.filter((item) => item !== "" && item !== null) : null;
}

/** The strings of such a list, for showing a form again after an error. */
export const stringsFrom = (value: unknown): string[] => (listFrom(value) ?? []).filter((item): item is string => typeof item === "string");

export function parseCookies(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i < 0) continue;
    const name = part.slice(0, i).trim();
    if (!name || name in out) continue;
    const value = part.slice(i + 1).trim();
    // Most values (the session id, the language) have nothing encoded in them.
    if (!value.includes("%")) out[name] = value;
    else {
      try {
        out[name] = decodeURIComponent(value);
      } catch {
        out[name] = value;
      }
    }
  }
  return out;
}

export interface CookieOptions {
  maxAge?: number;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: "Lax" | "Strict";
  path?: string;
}

export function serializeCookie(name: string, value: string, o: CookieOptions = {}): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${o.path ?? "/"}`, `SameSite=${o.sameSite ?? "Lax"}`];
  if (o.maxAge !== undefined) parts.push(`Max-Age=${Math.floor(o.maxAge)}`);
  if (o.httpOnly !== false) parts.push("HttpOnly");
  if (o.secure) parts.push("Secure");
  return parts.join("; ");
}

/** A request URL's path, without parsing the whole URL (hot path: every request). */
export const pathOf = (url: string) => {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = url.indexOf("?", start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
};
