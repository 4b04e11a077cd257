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
 *   is signed in, the kept pages are deleted and this browser's push subscription ended;
 * - saved activities (docs/decisions/0055): a heart pressed without a connection is queued here
 *   and sent once back online (when a page says so, when the browser syncs, at the next page
 *   read); the Saved page and the pages of the activities on it are kept for reading offline.
 * scripts/build.ts compiles it with the build's file names and version.
 */
import {
  activityPagePath,
  cacheNames,
  isSavedChange,
  MAX_PAGES,
  MAX_SAVED_PAGES,
  META_CACHE,
  notificationFromPush,
  OFFLINE_KEEP_HEADER,
  offlinePagePath,
  ownUrl,
  OWNER_HEADER,
  readableOffline,
  SAVED_PAGE,
  savedChangeOf,
  savedIdsIn,
  staleCaches,
  VISITOR,
  type SavedChange,
} from "./rules";

declare const self: ServiceWorkerGlobalScope;
/** Set by the build: what identifies this version, what to store on install, the languages. */
declare const __VERSION__: string;
declare const __PRECACHE__: string[];
declare const __LOCALES__: string[];

const { shell: SHELL, pages: PAGES, saved: SAVED } = cacheNames(__VERSION__);
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
    await Promise.all([caches.delete(PAGES), caches.delete(SAVED), clearQueue()]);
    // The notifications of the person who left must not keep arriving here.
    if (meta.owner !== VISITOR) await (await self.registration.pushManager.getSubscription())?.unsubscribe();
  }
  await writeMeta({ owner, lang: response.headers.get("Content-Language") });
  if (owner === VISITOR) return;
  const pathname = new URL(request.url).pathname;
  await keepSaved(pathname, response.clone(), owner);
  if (response.status !== 200 || !readableOffline(pathname)) return;
  const pages = await caches.open(PAGES);
  await pages.put(request, response);
  // A page put again moves to the end: the first keys are the least recently read.
  const keys = await pages.keys();
  await Promise.all(keys.slice(0, Math.max(0, keys.length - MAX_PAGES)).map((key) => pages.delete(key)));
}

/** A kept copy of the page (read, or saved), if it belongs to the person signed in last. */
async function keptPage(request: Request, meta: Meta): Promise<Response | undefined> {
  if (!meta.owner || meta.owner === VISITOR) return undefined;
  for (const name of [PAGES, SAVED]) {
    const cache = await caches.open(name);
    const hit = (await cache.match(request, { ignoreVary: true })) ?? (await cache.match(request, { ignoreSearch: true, ignoreVary: true }));
    if (hit && hit.headers.get(OWNER_HEADER) === meta.owner) return hit;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Saved activities: their pages kept for reading offline, and hearts pressed offline queued.

/**
 * Keeps what a page read says of saved activities: the Saved page itself (and, from it, which
 * activities' pages to keep), an activity page the server marks as saved; an activity page no
 * longer marked (unsaved elsewhere) goes.
 */
async function keepSaved(pathname: string, response: Response, owner: string) {
  const saved = await caches.open(SAVED);
  if (pathname === SAVED_PAGE && response.status === 200) {
    const html = await response.clone().text();
    await saved.put(SAVED_PAGE, response);
    await keepSavedPages(savedIdsIn(html), owner);
  } else if (pathname.startsWith("/activity/")) {
    if (response.status === 200 && response.headers.get(OFFLINE_KEEP_HEADER) === "saved") await saved.put(pathname, response);
    else await saved.delete(pathname, { ignoreVary: true });
  }
}

/** Makes the kept activity pages those of `ids` (the Saved page's, newest first): fetches the missing, deletes the others. */
async function keepSavedPages(ids: string[], owner: string) {
  const saved = await caches.open(SAVED);
  const wanted = new Set(ids.slice(0, MAX_SAVED_PAGES).map(activityPagePath));
  const kept = new Set<string>();
  for (const key of await saved.keys()) {
    const path = new URL(key.url).pathname;
    if (!path.startsWith("/activity/")) continue;
    if (wanted.has(path)) kept.add(path);
    else await saved.delete(key);
  }
  for (const path of wanted) {
    if (kept.has(path)) continue;
    const response = await fetch(path, { credentials: "same-origin", headers: { Accept: "text/html" } }).catch(() => null);
    if (!response) return;
    if (response.status === 200 && response.headers.get(OWNER_HEADER) === owner && response.headers.get(OFFLINE_KEEP_HEADER) === "saved") await saved.put(path, response);
  }
}

/** Reads the Saved page again (after a change was sent): it and the pages it lists are kept. */
async function refreshSaved() {
  const response = await fetch(SAVED_PAGE, { credentials: "same-origin", headers: { Accept: "text/html" } }).catch(() => null);
  if (response) await remember(new Request(SAVED_PAGE), response);
}

/**
 * A queued change: the last one for each activity, with whose it is and when it was made. Whose
 * is not known when the worker has not yet seen one of the person's pages (it took over a page
 * already open, and the heart was the first thing pressed): the change then carries only its
 * session's token, which the server refuses from anyone else's session.
 */
interface QueuedChange extends SavedChange {
  owner: string | undefined;
  queuedAt: number;
}

const QUEUE_DB = "offline-saved-queue";
const QUEUE_STORE = "changes";

function openQueue(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(QUEUE_DB, 1);
    open.onupgradeneeded = () => open.result.createObjectStore(QUEUE_STORE, { keyPath: "activityId" });
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}

/** Runs `work` on the queue's store and waits for its transaction to finish. */
async function onQueue<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T> | void): Promise<T | undefined> {
  const db = await openQueue();
  try {
    return await new Promise<T | undefined>((resolve, reject) => {
      const tx = db.transaction(QUEUE_STORE, mode);
      const request = work(tx.objectStore(QUEUE_STORE));
      tx.oncomplete = () => resolve(request ? request.result : undefined);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

const enqueue = (change: QueuedChange) => onQueue("readwrite", (store) => store.put(change));
const queued = async () => (await onQueue<QueuedChange[]>("readonly", (store) => store.getAll() as IDBRequest<QueuedChange[]>)) ?? [];
const clearQueue = () => onQueue("readwrite", (store) => store.clear()).catch(() => undefined);

/** Takes a change out of the queue, unless a newer one for the same activity replaced it meanwhile. */
function dequeue(change: { activityId: string; queuedAt?: number }) {
  return onQueue("readwrite", (store) => {
    const read = store.get(change.activityId);
    read.onsuccess = () => {
      const current = read.result as QueuedChange | undefined;
      if (current && (change.queuedAt === undefined || current.queuedAt === change.queuedAt)) store.delete(change.activityId);
    };
  });
}

let flushing: Promise<boolean> | null = null;
/** Sends the queued changes, oldest first; one at a time however many ask. False when the network failed before the queue was through. */
function flush(): Promise<boolean> {
  flushing ??= sendQueued().finally(() => (flushing = null));
  return flushing;
}

/**
 * A page says the connection is back, but the worker's own requests may still fail for a moment
 * (a browser may bring its pages back online before its workers), and nothing else would ask
 * again before the next page is opened: a send that finds no network is tried again 1, 2, 4 and
 * 8 s later, while the page's message keeps the worker awake.
 */
async function flushOnceOnline() {
  for (const wait of [0, 1000, 2000, 4000, 8000]) {
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (await flush()) return;
  }
}

async function sendQueued(): Promise<boolean> {
  const changes = (await queued()).sort((a, b) => a.queuedAt - b.queuedAt);
  if (changes.length === 0) return true;
  const meta = await readMeta();
  let sent = false;
  for (const change of changes) {
    // Someone else signed in since: not theirs to send (and their token would not pass).
    if (change.owner !== undefined && change.owner !== meta.owner) {
      await dequeue(change);
      continue;
    }
    let response: Response;
    try {
      response = await fetch(`/api/saved/${change.activityId}`, {
        method: change.save ? "PUT" : "DELETE",
        credentials: "same-origin",
        headers: { "X-CSRF-Token": change.csrf, Accept: "application/json" },
      });
    } catch {
      return false; // Still offline: the rest waits for the next try.
    }
    // Sent, or refused for good (the activity is gone, the session ended, the list is full): either way done.
    await dequeue(change);
    if (response.ok) sent = true;
  }
  if (sent) await refreshSaved();
  return true;
}

/** What a page learns when its heart was queued rather than sent (islands/shell/saved.ts flips it). */
const QUEUED_HEADER = "X-Offline-Queued";

/**
 * A heart's form or a Saved API call: sent as it is; when the network fails, queued, and
 * answered as the caller expects: a plain form is sent back to its page, htmx gets 204 with
 * `X-Offline-Queued` (nothing to swap), the API 202.
 */
async function savedChange(event: FetchEvent): Promise<Response> {
  const { request } = event;
  const body = request.method === "POST" ? await request.clone().text() : "";
  const change = savedChangeOf(request.method, new URL(request.url).pathname, body, request.headers.get("X-CSRF-Token"));
  try {
    const response = await fetch(request);
    if (change && response.status < 400) {
      // Newer than anything queued for that activity; and the kept Saved pages follow it.
      event.waitUntil(dequeue({ activityId: change.activityId }).then(refreshSaved));
    }
    return response;
  } catch (error) {
    if (!change) throw error;
    const meta = await readMeta();
    await enqueue({ ...change, owner: meta.owner, queuedAt: Date.now() });
    // Where the browser can, it wakes the worker to send the queue once back online.
    await (self.registration as ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } }).sync?.register("saved").catch(() => undefined);
    if (request.mode === "navigate") return Response.redirect(new URL(change.back ?? SAVED_PAGE, self.location.origin).href, 303);
    if (request.headers.get("HX-Request")) return new Response(null, { status: 204, headers: { [QUEUED_HEADER]: "1" } });
    return new Response(JSON.stringify({ activityId: change.activityId, saved: change.save, queued: true }), { status: 202, headers: { "Content-Type": "application/json" } });
  }
}

// A page says the connection is back; the browser's background sync says the same.
self.addEventListener("message", (event) => {
  if ((event.data as { type?: unknown } | null)?.type === "flush-saved") event.waitUntil(flushOnceOnline());
});
self.addEventListener("sync" as keyof ServiceWorkerGlobalScopeEventMap, (event) => {
  const sync = event as ExtendableEvent & { tag?: string };
  if (sync.tag === "saved") sync.waitUntil(flush());
});

async function offlinePage(meta: Meta): Promise<Response> {
  const page = await caches.match(offlinePagePath(meta.lang, __LOCALES__), { cacheName: SHELL });
  return page ?? new Response("You're offline.", { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

async function navigate(event: FetchEvent): Promise<Response> {
  try {
    const response = ((await event.preloadResponse) as Response | undefined) ?? (await fetch(event.request));
    // A page read: the connection works, so anything queued goes too.
    event.waitUntil(remember(event.request, response.clone()).then(flush));
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
  if (url.origin !== self.location.origin) return;
  if (isSavedChange(request.method, url.pathname)) return event.respondWith(savedChange(event));
  if (request.method !== "GET") return;
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
