import { Elysia } from "elysia";
import { storageTrouble } from "../../../db/client";
import { Landing } from "../../../views/shell/Landing";
import { NotFound } from "../../../views/shell/NotFound";
import { context, type Render } from "../../context";
import { type Deps, type RequestState } from "../../deps";
import { assetFile, precompressedPath, PRECOMPRESSED_EXTENSIONS } from "../../../lib/assets";
import { addVary, negotiateEncoding } from "../../../lib/compression/encoding";
import { json, redirectTo, wantsJson } from "../../../lib/http";
import { htmlResponse, renderPage } from "../../shell/render";
import { viewOf, type View } from "../../shell/view";
import { OfflinePage } from "../../../views/shell/Offline";
import { locales, translator, type Locale } from "../../../lib/i18n";

const IMMUTABLE = "public, max-age=31536000, immutable";
const PUBLIC_WEEK = "public, max-age=604800";

/**
 * A shipped file. Compressible ones go out as the build's brotli or gzip copy when the browser
 * accepts it (no compression work per request), with the original's type.
 */
function fileResponse(request: Request, relPath: string, cacheControl: string, contentType?: string): Response | null {
  const file = assetFile(relPath);
  if (!file) return null;
  const headers = new Headers({ "Cache-Control": cacheControl, "X-Content-Type-Options": "nosniff", "Content-Type": contentType ?? file.type });
  // An SVG opened on its own must not run anything.
  if (relPath.endsWith(".svg")) headers.set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'");
  if (!PRECOMPRESSED_EXTENSIONS.test(relPath)) return new Response(file, { headers });
  const variants = { br: assetFile(precompressedPath(relPath, "br")), gzip: assetFile(precompressedPath(relPath, "gzip")) };
  const available = (["br", "gzip"] as const).filter((encoding) => variants[encoding]);
  if (!available.length) return new Response(file, { headers });
  addVary(headers, "Accept-Encoding");
  const encoding = negotiateEncoding(request.headers.get("accept-encoding"), available);
  if (!encoding) return new Response(file, { headers });
  const variant = variants[encoding]!;
  headers.set("Content-Encoding", encoding);
  headers.set("Content-Length", String(variant.size));
  return new Response(variant, { headers });
}

/** The shell: landing, static and built files, the web app manifest, service worker, offline page, 404. */
export function shellRoutes(deps: Deps) {
  return new Elysia({ name: "offline.shell", seed: deps.id })
    .use(context(deps))
    .guard({ public: true })
    // The probe of container health checks and load balancers: 503 with the reason while writes
    // fail for want of space (at once, until there is room again) or the durable jobs cannot run
    // (the database is read-only or full), so the trouble is seen.
    .get("/health", () => {
      const storage = storageTrouble(deps.db);
      if (storage) return json({ ok: false, reason: storage }, 503);
      const jobs = deps.jobs.health();
      return jobs.ok ? json({ ok: true }) : json({ ok: false, reason: jobs.reason }, 503);
    })
    .get("/welcome", ({ request, state }) =>
      state.user ? redirectTo(request, "/") : renderPage(deps, state, request, (view) => <Landing view={view} next="/" />),
    )
    .get("/assets/:file", ({ params, request, state }) => {
      const relPath = deps.assets.files[`/assets/${params.file}`];
      return (relPath && fileResponse(request, relPath, IMMUTABLE)) || json({ message: state.t("error.notFound") }, 404);
    })
    .get("/static/*", ({ params, request, state }) => {
      const path = params["*"];
      if (!/^[\w./-]+$/.test(path) || path.includes("..")) return json({ message: state.t("error.notFound") }, 404);
      return fileResponse(request, `public/${path}`, PUBLIC_WEEK) || json({ message: state.t("error.notFound") }, 404);
    })
    .get("/favicon.ico", ({ request }) => fileResponse(request, "public/icon.svg", PUBLIC_WEEK))
    .get("/manifest.webmanifest", ({ state }) =>
      new Response(
        JSON.stringify({
          id: "/",
          name: state.t("app.name"),
          short_name: state.t("app.name"),
          description: state.t("landing.tagline"),
          lang: state.locale,
          start_url: "/",
          scope: "/",
          display: "standalone",
          background_color: "#ffffff",
          theme_color: "#e8553d",
          icons: [
            { src: "/static/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
            { src: "/static/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
            { src: "/static/icon-maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
            { src: "/static/icon.svg", sizes: "any", type: "image/svg+xml", purpose: "any" },
          ],
        }),
        { headers: { "Content-Type": "application/manifest+json", "Cache-Control": "public, max-age=3600" } },
      ),
    )
    // Built with the hashed names it stores (scripts/build.ts); always checked for a new version.
    .get("/sw.js", ({ request }) => {
      return fileResponse(request, "build/public/sw.js", "no-cache", "text/javascript; charset=utf-8") ?? new Response("", { status: 404 });
    })
    // The service worker stores it on install, in each language: nobody's page, no user, no token.
    .get("/offline", async ({ query, request, state }) => {
      const locale = (locales as string[]).includes(String(query.lang)) ? (query.lang as Locale) : state.locale;
      const view: View = { ...(await viewOf(deps, state, request)), t: translator(locale), locale, user: null, csrf: "", toast: null };
      return htmlResponse(await (<OfflinePage view={view} />), 200, { "Content-Language": locale });
    });
}

/**
 * The answer for an address that does not exist: JSON for the API, the Not Found page otherwise.
 * Pages only some people may see (the operators' pages) answer everyone else this way, so that
 * nobody learns they exist.
 */
export function notFoundAnswer(request: Request, state: RequestState, render: Render) {
  return wantsJson(request) ? json({ message: state.t("error.notFound") }, 404) : render((view) => <NotFound view={view} />, { status: 404 });
}

/**
 * Last route of all: unknown pages are 404. Its level is `onboarded`, so visitors meet the
 * landing page and unfinished profiles onboarding there, as on every app screen.
 */
export function notFoundRoute(deps: Deps) {
  return new Elysia({ name: "offline.not-found", seed: deps.id })
    .use(context(deps))
    .all(
      "*",
      ({ request, state, render }) => {
        const path = new URL(request.url).pathname;
        if (request.method !== "GET" && request.method !== "HEAD") return json({ message: state.t("error.notFound") }, 404);
        if (path.startsWith("/api/") || path.startsWith("/assets/") || path.startsWith("/static/")) return json({ message: state.t("error.notFound") }, 404);
        return render((view) => <NotFound view={view} />, { status: 404 });
      },
      { onboarded: true },
    );
}
