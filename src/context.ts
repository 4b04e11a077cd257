import { Elysia } from "elysia";
import { othersWriteToo, seeOtherConnections } from "../db/client";
import { loadSession } from "./auth/service";
import type { Deps, RequestState } from "./deps";
import type { DomainError } from "../lib/domain-error";
import { locales, pickLocale, translator, type Locale, type MessageKey } from "../lib/i18n";
import { headerJson, parseCookies, pathOf, redirectTo, serializeCookie } from "../lib/http";
import { flashCookie, renderPage } from "./shell/render";
import { encodeFlash, type FlashData, type View } from "./shell/view";

/** The `lang` cookie: the language chosen in this browser, for a year. */
export const languageCookie = (deps: Pick<Deps, "cookies" | "config">, locale: Locale) =>
  serializeCookie(deps.cookies.lang, locale, { maxAge: 365 * 24 * 3600, secure: deps.config.secureCookies });

/**
 * The `lang` cookie to send a signed-in person whose browser's cookie does not say the language
 * they chose (users.locale, kept with their account), or null. Most answers read the choice from
 * the session; some cannot: files and probes are answered without reading the session
 * (`isFileRequest`), and the last-resort error answer when the session cannot be read
 * (src/web/shell/error-answers.tsx) has only the cookies. With the cookie in step, those speak the person's
 * language too, rather than their browser's Accept-Language.
 */
export function chosenLanguageCookie(deps: Pick<Deps, "cookies" | "config">, state: RequestState): string | null {
  const chosen = state.user?.locale;
  if (!chosen || !(locales as string[]).includes(chosen) || state.cookies[deps.cookies.lang] === chosen) return null;
  return languageCookie(deps, chosen as Locale);
}

const cache = new WeakMap<Request, Promise<RequestState>>();

/** Files and probes: static and built files, photos, the icon, the worker, the manifest, /health. */
const FILE_PATH = /^\/(?:assets|static|objects)\/|^\/(?:favicon\.ico|health|sw\.js|manifest\.webmanifest)$/;

/**
 * A read of a file or probe on a public route: answered without the session (so without the
 * database). Only public routes qualify, so no access check ever sees a missing user it needed.
 */
export const isFileRequest = (request: Request) =>
  (request.method === "GET" || request.method === "HEAD") && accessOf(request) === "public" && FILE_PATH.test(pathOf(request.url));

/**
 * Reads the session and language once per request, whichever hook asks first. Files and probes
 * (`isFileRequest`) get the language only: no session lookup.
 */
export function requestState(deps: Deps, request: Request, ipOf?: () => string | undefined): Promise<RequestState> {
  let state: Promise<RequestState> | undefined = cache.get(request);
  if (!state) {
    state = readState(deps, request, ipOf, !isFileRequest(request));
    cache.set(request, state);
  }
  return state;
}

async function readState(deps: Deps, request: Request, ipOf: (() => string | undefined) | undefined, withSession: boolean): Promise<RequestState> {
  // What other processes committed before this request began is what its kept reads see (db/client.ts).
  if (withSession && othersWriteToo(deps.db, deps.config.reusePort)) await seeOtherConnections(deps.db);
  const cookies = parseCookies(request.headers.get("cookie"));
  const token = withSession ? (cookies[deps.cookies.session] ?? null) : null;
  const loaded = token ? await loadSession(deps.db, token, deps.now()) : null;
  const locale = pickLocale({
    userLocale: loaded?.user.locale,
    cookie: cookies[deps.cookies.lang],
    acceptLanguage: request.headers.get("accept-language"),
    fallback: deps.config.defaultLanguage,
  });
  // The caller's address is read when something asks for it (limits, reports), not for every page.
  let ip: string | undefined;
  return {
    user: loaded?.user ?? null,
    session: loaded?.session ?? null,
    sessionToken: loaded ? token : null,
    sessionRenewed: loaded?.renewed ?? false,
    cookies,
    locale,
    t: translator(locale),
    get ip() {
      return (ip ??= (deps.config.trustProxy ? request.headers.get("x-forwarded-for")?.split(",")[0]?.trim() : undefined) || ipOf?.() || "local");
    },
  };
}

/** Renders a screen through its layout (a flash toast is shown once). */
export type Render = (screen: (view: View) => JSX.Element, init?: { status?: number; headers?: HeadersInit }) => Promise<Response>;
/** Redirects a form or htmx request, optionally with a toast shown on the next page. */
export type SendTo = (location: string, toast?: FlashData, headers?: HeadersInit) => Response;

/**
 * Who may call a route. Every route declares one of these as a route option (`{ public: true }`,
 * `{ signedIn: true }`, `{ onboarded: true }`); a route that declares nothing is treated as
 * `onboarded`, the most closed level, so a forgotten declaration never opens anything.
 * - public: anyone, signed in or not (the handler decides what a visitor sees);
 * - signedIn: a session, even with onboarding unfinished (onboarding itself, account basics);
 * - onboarded: a session and a complete profile: everything a guest or host does.
 */
export type Access = "public" | "signedIn" | "onboarded";
export const DEFAULT_ACCESS: Access = "onboarded";

/** What the matched route declared, noted on its request by the app's first check (`noteRoute`). */
interface NotedRoute {
  access: Access;
  refused?: Refused;
  /** The body as sent, before the route's schema turns it into values: what a form shows again. */
  sent?: unknown;
}

const notedRoutes = new WeakMap<Request, NotedRoute>();

/** The level the matched route declared; read by the app's one access check. */
export const accessOf = (request: Request): Access => notedRoutes.get(request)?.access ?? DEFAULT_ACCESS;

/**
 * Notes what the matched route declared on the request: its access level (`detail["x-access"]`,
 * which the access options write). The app's checks call it first, before the body is validated,
 * so a visitor's or another site's post is refused as such whatever its body holds.
 */
export function noteRoute(request: Request, detail: Record<string, unknown> | undefined) {
  const declared = detail?.["x-access"];
  notedRoutes.set(request, { access: declared === "public" || declared === "signedIn" || declared === "onboarded" ? declared : DEFAULT_ACCESS });
}

/**
 * Notes how the matched route answers a refusal (`refused`, with the body as sent), once the
 * app's checks have let the request through: their own refusals (another site, a missing token,
 * no access) get the usual answer, never a form's.
 */
export function noteRefusals(request: Request, detail: Record<string, unknown> | undefined, body: unknown) {
  const refused = detail?.["x-refused"] as Refused | undefined;
  const noted = notedRoutes.get(request);
  if (refused && noted) notedRoutes.set(request, { ...noted, refused, sent: body });
}

/** A route option: records the level on the route, where the app's checks read it. */
const declare = (level: Access) => ({ detail: { "x-access": level } as Record<string, unknown> });

/**
 * A route option (`{ rawBody: limit }`) for a route whose handler reads its raw body itself
 * (`readBody`, lib/body.ts), at most `limit` bytes: the app's body parser leaves the body
 * unread and only refuses a declared length over the limit.
 */
const rawBody = (limit: number) => ({ detail: { "x-raw-body": limit } as Record<string, unknown> });

/**
 * A route option (`{ signedUrl: true }`) for a route whose address is signed by the server (the
 * photo upload's URL, like a bucket's presigned URL): the signature is its proof, so a signed-in
 * browser's write needs no CSRF token there. The handler checks the signature.
 */
const signedUrl = (signed: boolean) => ({ detail: { "x-signed-url": signed } as Record<string, unknown> });

/**
 * What a form's own screen is drawn with when its post is refused (`refused.screen`): what was
 * sent, the refusal, its message and each refused field's message, in the person's language.
 */
export interface FormRefusal {
  sent: Record<string, unknown>;
  error: DomainError;
  message: string;
  fields: Record<string, string>;
}

/** The context a refused form's screen is drawn in. */
export interface FormContext {
  state: RequestState;
  user: RequestState["user"];
  params: Record<string, string>;
  render: Render;
}

/**
 * A form route's own screen for its refusal when a browser posted it without scripts: the form
 * again, with what was typed and the messages beside the fields. Undefined leaves the refusal to
 * the next answer (`back`, then the error page).
 */
export type FormScreen = (refused: FormRefusal, context: FormContext) => Response | undefined | Promise<Response | undefined>;

/**
 * How a route that people reach from a page answers a refusal (route option `refused`), besides
 * JSON for the API and scripts:
 * - `title`: the toast's title (htmx, or the page `back` leads to), the refusal's message its body;
 *   without it the message is the title;
 * - `screen`: a plain form post gets its form drawn again;
 * - `back`: or is sent back to this address with the refusal as a toast (a function may answer
 *   undefined: that refusal gets the usual answer);
 * - `toastBody`: the body of `back`'s toast when it is not the refusal's message;
 * - `button`: the route is a page's button as well as an API call: a post that does not ask for
 *   JSON (a plain form or htmx, whatever its address) is sent `back` too.
 * Without either, a plain post gets the error page with the message.
 */
export interface Refused {
  title?: MessageKey | ((error: DomainError) => MessageKey);
  screen?: FormScreen;
  back?: string | ((refused: FormRefusal, context: FormContext) => string | undefined);
  toastBody?: (refused: FormRefusal, context: FormContext) => MessageKey;
  button?: boolean;
}

/** The `refused` option of the matched route, if any (read by the app's error hook). */
export const refusedOf = (request: Request) => notedRoutes.get(request)?.refused;

/**
 * The body of a route that declares `refused`, as it was sent: its schema's reading replaces it
 * before the handler runs, and a refused form is drawn again with what was typed.
 */
export const sentBodyOf = (request: Request) => notedRoutes.get(request)?.sent;

/**
 * The shared plugin every feature uses: `deps`, the request's `state`, the access levels and the
 * answers every handler needs (`render` a screen, `sendTo` another page with a toast). Named with
 * the app's id so it runs once per request however many features use it.
 */
export function context(deps: Deps) {
  /** The user of a route whose level guarantees one (the app's access check ran before). */
  const signedInUser = async ({ request }: { request: Request }) => {
    const { user } = await requestState(deps, request);
    if (!user) throw new Error("access check did not run before a signed-in route");
    return { user };
  };

  return new Elysia({ name: "offline.context", seed: deps.id })
    .decorate("deps", deps)
    .resolve({ as: "global" }, async ({ request, server }) => {
      const state = await requestState(deps, request, () => server?.requestIP(request)?.address);
      const render: Render = (screen, init) => renderPage(deps, state, request, screen, init);
      const sendTo: SendTo = (location, toast, headers) => {
        const h = new Headers(headers);
        if (toast) h.append("Set-Cookie", flashCookie(deps, encodeFlash(toast)));
        return redirectTo(request, location, h);
      };
      return {
        state,
        render,
        sendTo,
        /** The `HX-Trigger` header that raises a toast on the page after an htmx swap. */
        toastHeader: (toast: { title: MessageKey; body?: MessageKey; variant?: "success" | "error" }) => ({
          "HX-Trigger": headerJson({
            toast: { title: state.t(toast.title), body: toast.body && state.t(toast.body), variant: toast.variant ?? "success" },
          }),
        }),
      };
    })
    .macro({
      public: declare("public"),
      signedIn: { ...declare("signedIn"), resolve: signedInUser },
      onboarded: { ...declare("onboarded"), resolve: signedInUser },
      rawBody,
      signedUrl,
      // Kept on the route, where the app's first check reads it (`noteRoute`): a refusal from
      // any later step, a route's own `transform` included, finds it.
      refused: (refused: Refused) => ({ detail: { "x-refused": refused } as Record<string, unknown> }),
    });
}
