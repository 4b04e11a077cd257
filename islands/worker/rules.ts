/**
 * The service worker's decisions, as plain functions (no worker or page globals), so the tests
 * check them directly: which pages are kept for offline reading, which caches belong to which
 * version, and what a push message shows (docs/decisions/0026).
 */

/** Every cache this app makes starts with this; anything else in the origin's storage is left alone. */
const PREFIX = "offline-";
/** Who the cached pages belong to and their language; kept across versions. */
export const META_CACHE = `${PREFIX}meta`;

/** The caches of one version: the shell (built files, icons, offline pages) and the pages read. */
export function cacheNames(version: string) {
  return { shell: `${PREFIX}shell-${version}`, pages: `${PREFIX}pages-${version}` };
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
