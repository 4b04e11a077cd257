import { Elysia } from "elysia";
import { Landing } from "../../views/shell/Landing";
import { NotFound } from "../../views/shell/NotFound";
import { context, type Deps } from "../context";
import { assetFile } from "../lib/assets";
import { json, redirectTo } from "../lib/http";
import { renderPage } from "./render";

const IMMUTABLE = "public, max-age=31536000, immutable";
const PUBLIC_WEEK = "public, max-age=604800";

function fileResponse(relPath: string, cacheControl: string): Response | null {
  const file = assetFile(relPath);
  if (!file) return null;
  const headers: Record<string, string> = { "Cache-Control": cacheControl, "X-Content-Type-Options": "nosniff" };
  // An SVG opened on its own must not run anything.
  if (relPath.endsWith(".svg")) headers["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'";
  return new Response(file, { headers });
}

/** The shell: landing, static and built files, the web app manifest, service worker, 404. */
export function shellRoutes(deps: Deps) {
  return new Elysia({ name: "offline.shell", seed: deps.id })
    .use(context(deps))
    .guard({ public: true })
    .get("/health", () => json({ ok: true }))
    .get("/welcome", ({ request, state }) =>
      state.user ? redirectTo(request, "/") : renderPage(deps, state, request, (view) => <Landing view={view} next="/" />),
    )
    .get("/assets/:file", ({ params, state }) => {
      const relPath = deps.assets.files[`/assets/${params.file}`];
      return (relPath && fileResponse(relPath, IMMUTABLE)) || json({ message: state.t("error.notFound") }, 404);
    })
    .get("/static/*", ({ params, state }) => {
      const path = params["*"];
      if (!/^[\w./-]+$/.test(path) || path.includes("..")) return json({ message: state.t("error.notFound") }, 404);
      return fileResponse(`public/${path}`, PUBLIC_WEEK) || json({ message: state.t("error.notFound") }, 404);
    })
    .get("/favicon.ico", () => fileResponse("public/icon.svg", PUBLIC_WEEK))
    .get("/manifest.webmanifest", ({ state }) =>
      new Response(
        JSON.stringify({
          name: state.t("app.name"),
          short_name: state.t("app.name"),
          description: state.t("landing.tagline"),
          start_url: "/",
          scope: "/",
          display: "standalone",
          background_color: "#ffffff",
          theme_color: "#e8553d",
          icons: [
            { src: "/static/icon.svg", sizes: "any", type: "image/svg+xml", purpose: "any" },
            { src: "/static/icon-maskable.svg", sizes: "any", type: "image/svg+xml", purpose: "maskable" },
          ],
        }),
        { headers: { "Content-Type": "application/manifest+json", "Cache-Control": "public, max-age=3600" } },
      ),
    )
    .get("/sw.js", () => {
      const res = fileResponse("public/sw.js", "no-cache");
      if (res) res.headers.set("Content-Type", "text/javascript; charset=utf-8");
      return res ?? new Response("", { status: 404 });
    });
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
