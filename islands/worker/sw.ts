/**
 * The service worker, served at /sw.js (docs/decisions/0026). It makes the app installable and
 * readable offline, and shows push notifications:
 * - on install it stores the shell: the stylesheet, the page script and htmx by their hashed
 *   names, the icons, and the offline page in each language;
 * - pages are fetched from the network first; the ones worth reading offline (bookings,
 *   conversations, the host's upcoming bookings) are kept as last opened, and shown when the
 *   network fails; any other page then shows the offline page instead of the browser's error;
 * - built files and shipped images come from the cache first (their names change with them);
 * - a new version takes over at once and deletes the old version's caches;
 * - pages are kept for one signed-in person only: when the server says someone else (or nobody)
 *   is signed in, the kept pages are deleted and this browser's push subscription ended.
 * scripts/build.ts compiles it with the build's file names and version.
 */
import { cacheNames, MAX_PAGES, META_CACHE, notificationFromPush, offlinePagePath, ownUrl, OWNER_HEADER, readableOffline, staleCaches, VISITOR } from "./rules";

declare const self: ServiceWorkerGlobalScope;
/** Set by the build: what identifies this version, what to store on install, the languages. */
declare const __VERSION__: string;
declare const __PRECACHE__: string[];
declare const __LOCALES__: string[];

const { shell: SHELL, pages: PAGES } = cacheNames(__VERSION__);
const META_KEY = "/__offline/meta";

interface Meta {
  /** The person the kept pages belong to (a user id, or VISITOR). */
  owner?: string;
  /** The language of the last page read. */
  lang?: string | null;
}

async function readMeta(): Promise<Meta> {
  const stored = await (await caches.open(META_CACHE)).match(META_KEY);
  return stored ? ((await stored.json()) as Meta) : {};
}

async function writeMeta(meta: Meta) {
  await (await caches.open(META_CACHE)).put(META_KEY, new Response(JSON.stringify(meta), { headers: { "Content-Type": "application/json" } }));
}

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const shell = await caches.open(SHELL);
      // Straight from the server, not from the browser's HTTP cache.
      await shell.addAll(__PRECACHE__.map((url) => new Request(url, { cache: "reload" })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      await Promise.all(staleCaches(await caches.keys(), __VERSION__).map((name) => caches.delete(name)));
      // Pages are asked for while the worker starts, rather than after.
      await self.registration.navigationPreload?.enable();
      await self.clients.claim();
    })(),
  );
});

/**
 * Keeps a page just read, if it is one to keep, after checking whose it is. The server marks
 * every full page with the person it was made for; when that person changes (signed out, or
 * someone else signed in), what was kept for the previous one goes.
 */
async function remember(request: Request, response: Response) {
  const owner = response.headers.get(OWNER_HEADER);
  if (owner === null || response.type !== "basic") return;
  const meta = await readMeta();
  if (meta.owner !== undefined && meta.owner !== owner) {
    await caches.delete(PAGES);
    // The notifications of the person who left must not keep arriving here.
    if (meta.owner !== VISITOR) await (await self.registration.pushManager.getSubscription())?.unsubscribe();
  }
  await writeMeta({ owner, lang: response.headers.get("Content-Language") });
  if (owner === VISITOR || response.status !== 200 || !readableOffline(new URL(request.url).pathname)) return;
  const pages = await caches.open(PAGES);
  await pages.put(request, response);
  // A page put again moves to the end: the first keys are the least recently read.
  const keys = await pages.keys();
  await Promise.all(keys.slice(0, Math.max(0, keys.length - MAX_PAGES)).map((key) => pages.delete(key)));
}

/** A kept copy of the page, if it belongs to the person signed in last. */
async function keptPage(request: Request, meta: Meta): Promise<Response | undefined> {
  if (!meta.owner || meta.owner === VISITOR) return undefined;
  const pages = await caches.open(PAGES);
  const hit = (await pages.match(request)) ?? (await pages.match(request, { ignoreSearch: true }));
  return hit && hit.headers.get(OWNER_HEADER) === meta.owner ? hit : undefined;
}

async function offlinePage(meta: Meta): Promise<Response> {
  const page = await caches.match(offlinePagePath(meta.lang, __LOCALES__), { cacheName: SHELL });
  return page ?? new Response("You're offline.", { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

async function navigate(event: FetchEvent): Promise<Response> {
  try {
    const response = ((await event.preloadResponse) as Response | undefined) ?? (await fetch(event.request));
    event.waitUntil(remember(event.request, response.clone()));
    return response;
  } catch {
    const meta = await readMeta();
    return (await keptPage(event.request, meta)) ?? (await offlinePage(meta));
  }
}

/** Built files (hashed names) and shipped images: the stored copy, else the network's, stored. */
async function cacheFirst(request: Request): Promise<Response> {
  const shell = await caches.open(SHELL);
  const hit = await shell.match(request);
  if (hit) return hit;
  const response = await fetch(request);
  if (response.ok && response.type === "basic") await shell.put(request, response.clone());
  return response;
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (request.mode === "navigate") event.respondWith(navigate(event));
  else if (url.pathname.startsWith("/assets/") || url.pathname.startsWith("/static/")) event.respondWith(cacheFirst(request));
});

self.addEventListener("push", (event) => {
  let data: unknown = null;
  try {
    data = event.data?.json();
  } catch {
    data = { body: event.data?.text() };
  }
  const shown = notificationFromPush(data, self.location.origin);
  event.waitUntil(self.registration.showNotification(shown.title, shown.options));
});

/** A click opens the notification's page: a window already showing it, else one of ours sent there, else a new one. */
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = ownUrl((event.notification.data as { url?: unknown } | null)?.url, self.location.origin);
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
      const showing = windows.find((w) => w.url === url);
      if (showing) return void (await showing.focus());
      const ours = windows.find((w) => new URL(w.url).origin === self.location.origin);
      if (ours) {
        try {
          await ours.focus();
          if (await ours.navigate(url)) return;
        } catch {
          // A window this worker does not control cannot be sent elsewhere: open a new one.
        }
      }
      await self.clients.openWindow(url);
    })(),
  );
});
