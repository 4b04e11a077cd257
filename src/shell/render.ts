import type { Deps, RequestState } from "../deps";
import { addVary } from "../../lib/compression/encoding";
import { bytesResponse, pageResponse } from "../../lib/compression/responses";
import { pageBytes } from "../../lib/html/fragments";
import { serializeCookie } from "../../lib/http";
import { showsFlash, viewOf, type View } from "./view";

/**
 * An HTML answer: a fragment or a small page without the layout. Pages carry the visitor's name,
 * CSRF token and language: shared caches never keep them (`private`), and the browser asks again
 * before reusing one (`no-cache`). A page made for a signed-in person, or holding what someone
 * typed, is not stored at all (`no-store`, set by the caller, see `renderPage`): Back after
 * signing out must not show it (decision 0031). Kept parts are written out here
 * (lib/html/fragments.ts); the answer is compressed on its way out like any answer. A whole
 * page (`renderPage`) is compressed from its own text (`pageResponse`).
 */
export function htmlResponse(body: string, status = 200, headers?: HeadersInit): Response {
  const response = bytesResponse(pageBytes(body, null), { status, headers });
  const h = response.headers;
  h.set("Content-Type", "text/html; charset=utf-8");
  if (!h.has("Cache-Control")) h.set("Cache-Control", "private, no-cache");
  return response;
}

/**
 * Pages made by `renderPage`: their headers start from `deps.pageHeaders`, which already hold
 * every answer's security headers, so the app's last hook need not add them again (src/app.tsx).
 */
export const startsFromPageHeaders = new WeakSet<Response>();

/**
 * Renders a screen through its layout. A flash toast shown here is cleared from its cookie in
 * the same response, so it shows once. The page's headers start from `deps.pageHeaders`, copied
 * into the answer in one go; the caller's `init.headers` are laid over them (a `Vary` adds to it).
 */
export async function renderPage(
  deps: Deps,
  state: RequestState,
  request: Request,
  screen: (view: View) => JSX.Element,
  init: { status?: number; headers?: HeadersInit } = {},
): Promise<Response> {
  const view = await viewOf(deps, state, request);
  const html = await screen(view);
  const { response, encoding, length } = pageResponse(request, html, view.csrf, { status: init.status ?? 200, headers: init.headers ? overlaid(deps.pageHeaders, init.headers) : deps.pageHeaders });
  const headers = response.headers;
  if (encoding) {
    headers.set("Content-Encoding", encoding);
    headers.set("Content-Length", String(length));
  }
  // For the service worker (islands/worker/sw.ts): whose page this is, so it keeps pages for
  // offline reading for one person only, and its language, for the offline page it shows.
  headers.set("X-Offline-User", state.user?.id ?? "-");
  headers.set("Content-Language", state.locale);
  if (state.user) headers.set("Cache-Control", "no-store");
  if (state.cookies[deps.cookies.flash] !== undefined && showsFlash(request)) {
    headers.append("Set-Cookie", serializeCookie(deps.cookies.flash, "", { maxAge: 0, secure: deps.config.secureCookies }));
  }
  startsFromPageHeaders.add(response);
  return response;
}

/**
 * `base` with `over` laid over it: each header of `over` replaces base's, cookies are added, a Vary
 * adds its tokens. A frozen `over` (a route's constant, such as browse's Vary) is laid once.
 */
function overlaid(base: Headers, over: HeadersInit): Headers {
  if (!Object.isFrozen(over)) return laidOver(base, over);
  let byBase = overlaidOnce.get(over as object);
  if (!byBase) overlaidOnce.set(over as object, (byBase = new WeakMap()));
  let made = byBase.get(base);
  if (!made) byBase.set(base, (made = laidOver(base, over)));
  // Handed out as it is, like `deps.pageHeaders`: an answer copies the headers it is made with.
  return made;
}
const overlaidOnce = new WeakMap<object, WeakMap<Headers, Headers>>();

function laidOver(base: Headers, over: HeadersInit): Headers {
  const headers = new Headers(base);
  new Headers(over).forEach((value, name) => {
    if (name === "set-cookie") headers.append(name, value);
    else if (name === "vary") addVary(headers, value);
    else headers.set(name, value);
  });
  return headers;
}

export function flashCookie(deps: Deps, value: string): string {
  return serializeCookie(deps.cookies.flash, value, { maxAge: 60, secure: deps.config.secureCookies });
}
