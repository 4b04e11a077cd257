/**
 * The service worker's decisions, as plain functions (no worker or page globals), so the tests
 * check them directly: which pages are kept for offline reading, which caches belong to which
 * version, and what a push message shows (docs/decisions/0026).
 */

/** Every cache this app makes starts with this; anything else in the origin's storage is left alone. */
const PREFIX = "offline-";
/** Who the cached pages belong to and their language; kept across versions. */
export const META_CACHE = `${PREFIX}meta`;

/**
 * The caches of one version: the shell (built files, icons, offline pages), the pages read, and
 * the saved ones (the Saved page and the pages of the activities on it, docs/decisions/0055).
 */
export function cacheNames(version: string) {
  return { shell: `${PREFIX}shell-${version}`, pages: `${PREFIX}pages-${version}`, saved: `${PREFIX}saved-${version}` };
}

/**
 * Caches of other versions, deleted when a new version takes over: a page and the built files
 * it links to always come from one version, so an older page never loads without its styles.
 */
export function staleCaches(existing: string[], version: string): string[] {
  const current = new Set([...Object.values(cacheNames(version)), META_CACHE]);
  return existing.filter((name) => name.startsWith(PREFIX) && !current.has(name));
}

/**
 * The server names whose pages a response is on every full page (`X-Offline-User`: a user's id,
 * or `-` for a visitor). The worker keeps pages only while one person stays signed in.
 */
export const OWNER_HEADER = "X-Offline-User";
export const VISITOR = "-";

/** The most pages kept; the oldest opened go first. */
export const MAX_PAGES = 40;

/**
 * Pages kept for reading offline once opened: the bookings list, each conversation
 * (`/bookings/{id}`), the messages list and the host's dashboard with their upcoming bookings.
 */
const READABLE_OFFLINE = /^\/(?:bookings(?:\/[\w-]+)?|messages|host|host-dashboard)\/?$/;

export const readableOffline = (pathname: string) => READABLE_OFFLINE.test(pathname);

/** The offline page in the language of the pages last read, else the first one shipped. */
export function offlinePagePath(lang: string | null | undefined, locales: readonly string[]) {
  const chosen = lang && locales.includes(lang) ? lang : locales[0];
  return `/offline?lang=${chosen}`;
}

/** A path of this site to open, from a notification's data: anything else opens the home page. */
export function ownUrl(value: unknown, origin: string): string {
  if (typeof value === "string" && value.startsWith("/") && !value.startsWith("//")) {
    try {
      const url = new URL(value, origin);
      if (url.origin === origin) return url.href;
    } catch {}
  }
  return `${origin}/`;
}

export interface ShownNotification {
  title: string;
  options: { body: string; icon: string; badge: string; tag?: string; data: { url: string } };
}

/** What a push message shows: the server's title, text, page and tag, with safe defaults. */
export function notificationFromPush(data: unknown, origin: string): ShownNotification {
  const d = data && typeof data === "object" ? (data as Record<string, unknown>) : {};
  const text = (value: unknown) => (typeof value === "string" ? value : "");
  const tag = text(d.tag);
  return {
    title: text(d.title) || "Offline",
    options: {
      body: text(d.body),
      icon: "/static/icon-192.png",
      badge: "/static/badge-96.png",
      ...(tag ? { tag } : {}),
      data: { url: ownUrl(d.url, origin) },
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Saved activities (docs/decisions/0055): a heart pressed offline is queued and sent once back
// online; the Saved page and the saved activities' pages are kept for reading offline.

export { OFFLINE_KEEP_HEADER } from "../../shared/offline";

/** The Saved page, kept with the saved activities' pages. */
export const SAVED_PAGE = "/saved";

/** The most saved activities whose pages are kept, the most recently saved first. */
export const MAX_SAVED_PAGES = 100;

/** An activity page's address. */
export const activityPagePath = (activityId: string) => `/activity/${activityId}`;

const HEART_FORM = /^\/saved\/([0-9a-f-]{36})$/i;
const SAVED_API = /^\/api\/saved\/([0-9a-f-]{36})$/i;

/**
 * A change of one saved activity the worker may queue: the heart's form (`POST /saved/{id}`,
 * `save=1` or `0`) or the API (`PUT` saves, `DELETE` unsaves `/api/saved/{id}`). Each sets a
 * state, so the last one queued for an activity is all that needs sending. Null for anything else.
 */
export interface SavedChange {
  activityId: string;
  save: boolean;
  /** The CSRF token it was sent with (the form's `_csrf`, or the `X-CSRF-Token` header). */
  csrf: string;
  /** Where a plain form goes back to (its `back`), for the redirect the worker answers with. */
  back: string | null;
}

export function savedChangeOf(method: string, pathname: string, body: string, csrfHeader: string | null): SavedChange | null {
  const form = HEART_FORM.exec(pathname);
  if (form && method === "POST") {
    const fields = new URLSearchParams(body);
    const save = fields.get("save");
    if (save !== "1" && save !== "0") return null;
    const back = fields.get("back");
    return { activityId: form[1]!.toLowerCase(), save: save === "1", csrf: csrfHeader ?? fields.get("_csrf") ?? "", back: back && back.startsWith("/") && !back.startsWith("//") ? back : null };
  }
  const api = SAVED_API.exec(pathname);
  if (api && (method === "PUT" || method === "DELETE")) return { activityId: api[1]!.toLowerCase(), save: method === "PUT", csrf: csrfHeader ?? "", back: null };
  return null;
}

/** Whether a request is one the worker handles as a saved change (so that it can queue it). */
export const isSavedChange = (method: string, pathname: string) =>
  (method === "POST" && HEART_FORM.test(pathname)) || ((method === "PUT" || method === "DELETE") && SAVED_API.test(pathname));

/** The activities the Saved page lists as still available, in its order (newest first). */
export function savedIdsIn(html: string): string[] {
  return [...html.matchAll(/data-saved-activity="([0-9a-f-]{36})"/g)].map((m) => m[1]!);
}
