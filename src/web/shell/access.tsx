import { Landing } from "../../../views/shell/Landing";
import type { Access } from "../../context";
import type { Deps, RequestState } from "../../deps";
import { json, redirectTo, wantsJson } from "../../../lib/http";
import { isProfileComplete } from "../../profiles/onboarded";
import { renderPage } from "../../shell/render";

/** Callers that read JSON: the API, scripts, islands, htmx fragments, and WebSocket upgrades (`/ws`). */
const answersJson = (request: Request, path: string) =>
  wantsJson(request) || path.startsWith("/api/") || path.startsWith("/fragments/") || request.headers.get("upgrade")?.toLowerCase() === "websocket";

/**
 * The one access check: the answer when the caller may not use a route at its declared level,
 * or undefined when they may. Signed-out visitors get 401 from calls and the landing page (which
 * brings them back afterwards) from pages; an unfinished profile gets 403 from calls and
 * onboarding from pages and forms.
 */
export function accessDenied(deps: Deps, state: RequestState, request: Request, access: Access): Response | Promise<Response> | undefined {
  if (access === "public") return undefined;
  if (!state.user) {
    const url = new URL(request.url);
    if (request.method === "GET" && !answersJson(request, url.pathname)) {
      return renderPage(deps, state, request, (view) => <Landing view={view} next={url.pathname + url.search} />);
    }
    return json({ message: state.t("error.unauthorized") }, 401);
  }
  if (access === "onboarded" && !isProfileComplete(state.user)) {
    if (answersJson(request, new URL(request.url).pathname)) return json({ message: state.t("error.profileIncomplete") }, 403);
    return redirectTo(request, "/onboarding");
  }
  return undefined;
}
