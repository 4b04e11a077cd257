/** Small helpers for answering HTML forms, htmx and JSON callers alike. */

export const isHtmx = (request: Request) => request.headers.get("hx-request") === "true";

/** JSON callers: a JSON body, or an Accept header that prefers JSON over HTML. */
export function wantsJson(request: Request): boolean {
  if ((request.headers.get("content-type") ?? "").includes("application/json")) return true;
  const accept = request.headers.get("accept") ?? "";
  return accept.includes("application/json") && !accept.includes("text/html");
}

/** Only same-site paths are followed after sign-in, never another origin. */
export function safeNext(next: unknown, fallback = "/"): string {
  if (typeof next !== "string" || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return fallback;
  if (next.startsWith("/api/login") || next.startsWith("/api/register") || /[\r\n]/.test(next)) return fallback;
  return next.length > 2000 ? fallback : next;
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

export function json(data: unknown, status = 200, headers: HeadersInit = {}): Response {
  const h = new Headers(headers);
  h.set("Content-Type", "application/json; charset=utf-8");
  h.set("Cache-Control", "no-store");
  return new Response(JSON.stringify(data), { status, headers: h });
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
    try {
      out[name] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      out[name] = part.slice(i + 1).trim();
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
