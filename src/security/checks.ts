import { timingSafeEqual } from "node:crypto";
import { accessOf, noteRefusals, noteRoute, requestState } from "../context";
import type { Deps } from "../deps";
import { carriesNul } from "../../lib/body";
import { DomainError } from "../../lib/domain-error";
import { accessDenied } from "../web/shell/access";

/**
 * The request's checks, run on every request once its body is read and before the route's
 * schema validates it: a visitor's or another site's post is refused as such, whatever its body
 * holds. Each refusal is a `DomainError`, answered by the app's one error hook.
 */

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function sameToken(a: string, b: string) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A route as the framework lists it (`app.routes`): its options are in `hooks.detail`. */
interface ListedRoute {
  method: string;
  path: string;
  hooks?: { detail?: unknown };
}

/**
 * What each route declared in its options (src/context.ts): its access level (`x-access`), how it
 * answers a refusal (`x-refused`) and the limit of a raw body its handler reads itself
 * (`x-raw-body`). Looked up by method and the matched route's path; the table is read once all
 * routes are registered, at the first request.
 */
export function routeOptions(routes: () => readonly ListedRoute[]) {
  let table: Map<string, Record<string, unknown>> | undefined;
  /** Everything the route declared in its options (its access level, how it answers a refusal). */
  const declared = (method: string, route: string): Record<string, unknown> | undefined => {
    table ??= new Map(routes().map((r) => [`${r.method} ${r.path}`, (r.hooks?.detail ?? {}) as Record<string, unknown>]));
    return table.get(`${method} ${route}`) ?? (method === "HEAD" ? table.get(`GET ${route}`) : undefined) ?? table.get(`ALL ${route}`);
  };
  return {
    declared,
    /** The limit of the raw body the route's handler reads itself (`rawBody`), if it does. */
    rawBodyLimit: (method: string, route: string): number | undefined => {
      const limit = declared(method, route)?.["x-raw-body"];
      return typeof limit === "number" ? limit : undefined;
    },
  };
}

export type RouteOptions = ReturnType<typeof routeOptions>;

/**
 * The checks, as the app's global transform hook, in order: a NUL character anywhere in the URL
 * or the body (decision 0047), a cross-site write, a signed-in write without its CSRF token, then
 * the route's declared access (nothing declared means `onboarded`).
 */
export function requestChecks(deps: Deps, options: RouteOptions) {
  const publicOrigin = new URL(deps.config.publicUrl).origin;
  return async ({ request, body, server, route }: { request: Request; body: unknown; server: { requestIP(r: Request): { address: string } | null } | null; route: string }) => {
    const declared = options.declared(request.method, route);
    noteRoute(request, declared);
    const state = await requestState(deps, request, () => server?.requestIP(request)?.address);
    // A NUL character in the path, the query, a form or JSON is input no database should be
    // handed (PostgreSQL fails the statement, 500; SQLite would keep it): refused here, before
    // any route reads it, on both engines alike (decision 0047).
    if (carriesNul(request.url, body)) throw new DomainError("error.badRequest", 400);
    if (!SAFE_METHODS.has(request.method)) {
      // Cross-site requests never change anything.
      const site = request.headers.get("sec-fetch-site");
      const origin = request.headers.get("origin");
      const ownOrigin = new URL(request.url).origin;
      const crossSite = site === "cross-site" || (origin !== null && origin !== ownOrigin && origin !== publicOrigin);
      // A signed-in browser must also prove the request came from our own page.
      const sent =
        request.headers.get("x-csrf-token") ??
        (body && typeof body === "object" && "_csrf" in body ? String((body as Record<string, unknown>)._csrf) : null);
      // A route whose signed URL is its own proof (the photo upload, like a bucket's presigned
      // URL) needs no token.
      const signedUrl = declared?.["x-signed-url"] === true;
      const missingToken = !signedUrl && state.session !== null && (!sent || !sameToken(sent, state.session.csrf));
      if (crossSite || missingToken) throw new DomainError("error.csrf", 403);
    }
    const denied = await accessDenied(deps, state, request, accessOf(request));
    // The framework answers a thrown error with its `status`: the answer's own (the landing page is a 200).
    if (denied) throw new DomainError("error.unauthorized", denied.status, { answer: () => denied });
    noteRefusals(request, declared, body);
  };
}
