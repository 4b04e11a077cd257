import { ErrorScreen } from "../../../views/shell/NotFound";
import { refusedOf, requestState, sentBodyOf, type FormContext, type FormRefusal } from "../../context";
import { type Deps, type RequestState } from "../../deps";
import { compressResponse } from "../../../lib/compression/responses";
import { isMessageKey, pickLocale, translator, type MessageKey } from "../../../lib/i18n";
import { asRecord, headerJson, isHtmx, json, parseCookies, pathOf, redirectTo, waitHeaders, wantsJson } from "../../../lib/http";
import { flashCookie, renderPage } from "../../shell/render";
import { encodeFlash } from "../../shell/view";
import type { DomainError } from "../../../lib/domain-error";
import { faultOf, loggable, type Fault } from "../../../db/faults";
import { noteFailure } from "../../../db/client";

/**
 * What a failure inside the app answers (docs/decisions/0031-browser-hardening.md): the app's own
 * error page for a browser's page, `{ message }` JSON for the API, scripts and htmx, and the
 * stack for the server's log only. Never the runtime's development page with paths and source.
 */

/** Callers that read JSON rather than a page: the API, scripts, islands and htmx fragments. */
export const wantsJsonError = (request: Request) => {
  const path = new URL(request.url).pathname;
  return wantsJson(request) || isHtmx(request) || path.startsWith("/api/") || path.startsWith("/fragments/");
};

/**
 * The answer to a refusal (lib/domain-error.ts), for every route. A refusal that carries its
 * own answer (the landing page for a visitor) gets it. The API and scripts get `{ message,
 * fields?, ...extra }` JSON; htmx gets it too, with a toast (it does not swap an error). A browser's
 * plain post to a route that declares `refused` (src/context.ts) gets its form drawn again, or is
 * sent back with a toast; anything else gets the error page with the message.
 */
export async function refusalAnswer(deps: Deps, state: RequestState, request: Request, params: Record<string, string> | undefined, err: DomainError): Promise<Response> {
  if (err.details.answer) return err.details.answer();
  const refused = refusedOf(request);
  const title = typeof refused?.title === "function" ? refused.title(err) : refused?.title;
  // A page's button (`button`) goes back whatever its address, htmx's post included. Otherwise a
  // route that says how a browser hears its refusal is posted to by forms, under /api/ too
  // (sign-in): only a caller that asks for JSON, or htmx, gets JSON.
  const button = refused?.button === true && !wantsJson(request);
  if (!refused || ((wantsJson(request) || isHtmx(request)) && !button)) return domainErrorAnswer(deps, state, request, err, title);
  const sent = asRecord(sentBodyOf(request));
  const form: FormRefusal = { sent, error: err, message: messageOf(state, err), fields: fieldMessages(state, err) };
  const formContext: FormContext = {
    state,
    user: state.user,
    params: params ?? {},
    render: (screen, init) => renderPage(deps, state, request, screen, init),
  };
  const wait = waitHeaders(err.details.retryAfterMs);
  const screen = button ? undefined : await refused.screen?.(form, formContext);
  if (screen) {
    for (const [name, value] of Object.entries(wait)) screen.headers.set(name, value);
    return screen;
  }
  const back = typeof refused.back === "function" ? refused.back(form, formContext) : refused.back;
  if (back) {
    // A flash toast holds catalogue keys only (src/shell/view.ts).
    const body = refused.toastBody?.(form, formContext) ?? err.key;
    const toast = encodeFlash(title ? { title, body, variant: "error" } : { title: body, variant: "error" });
    return redirectTo(request, back, new Headers({ ...wait, "Set-Cookie": flashCookie(deps, toast) }));
  }
  return domainErrorAnswer(deps, state, request, err, title);
}

/** A refusal's message in the person's language: the outside service's own words, or the key's text. */
function messageOf(state: RequestState, err: DomainError): string {
  // A key that is not the catalogue's (a schema's message left to its library's default) never
  // reaches the person as it is.
  return err.details.said || (isMessageKey(err.key) ? state.t(err.key, paramsIn(state, err)) : state.t("error.badRequest"));
}

/** Each refused field's message in the person's language. */
function fieldMessages(state: RequestState, err: DomainError): Record<string, string> {
  const fields: Record<string, string> = {};
  const params = paramsIn(state, err);
  for (const [field, key] of Object.entries(err.details.fields ?? {})) fields[field] = isMessageKey(key) ? state.t(key, params) : state.t("error.badRequest");
  return fields;
}

/** The values a refusal's message names, a catalogue key among them said in the person's language (a weekday). */
function paramsIn(state: RequestState, err: DomainError): Record<string, string | number> | undefined {
  const params = err.params;
  if (!params) return undefined;
  return Object.fromEntries(Object.entries(params).map(([name, value]) => [name, typeof value === "string" && isMessageKey(value) ? state.t(value) : value]));
}

/**
 * The usual answer to a refusal: `{ message, fields?, ...extra }` JSON with its status for the
 * API, scripts and htmx (with a toast for htmx), or the error page with the message.
 */
export function domainErrorAnswer(deps: Deps, state: RequestState, request: Request, err: DomainError, toastTitle?: MessageKey): Response | Promise<Response> {
  const { said, log, retryAfterMs, extra } = err.details;
  if (log || err.status >= 500) logRefusal(request, err);
  const message = messageOf(state, err);
  const headers = waitHeaders(retryAfterMs);
  if (wantsJsonError(request)) {
    if (isHtmx(request)) headers["HX-Trigger"] = headerJson({ toast: toastTitle ? { title: state.t(toastTitle), body: message, variant: "error" } : { title: message, variant: "error" } });
    const fields = err.details.fields ? { fields: fieldMessages(state, err) } : {};
    return json({ message, ...(said ? { detail: said } : {}), ...fields, ...extra }, err.status, headers);
  }
  const pageTitle = err.status === 404 ? state.t("error.notFound") : state.t("error.title");
  return renderPage(deps, state, request, (view) => <ErrorScreen view={view} title={pageTitle} body={message} />, { status: err.status, headers });
}

/** A refusal the log should keep: what an outside service said, or a failure of ours (5xx). */
function logRefusal(request: Request, err: DomainError) {
  console.error(`${request.method} ${pathOf(request.url)} refused (${err.status} ${err.key})${err.details.log ? `: ${err.details.log}` : ""}`);
}

/**
 * Writes a failure to the server's log: method, path, the error with its stack. A failed query is
 * named by its SQL, never by the values it was given (`loggable`): those are people's data.
 */
export function logFailure(request: Request, error: unknown) {
  console.error(`${request.method} ${pathOrNot(request)} failed: ${loggable(error)}`);
}

function pathOrNot(request: Request) {
  try {
    return new URL(request.url).pathname;
  } catch {
    return "?";
  }
}

/**
 * The answer for a failure of the machine or the database rather than of the app
 * (db/faults.ts): 503 with `Retry-After`, saying to try again (the database cannot be
 * reached) or that changes cannot be saved now (the disk is full or failing), as the person's
 * page or JSON. The page is drawn without the database: as a visitor's, so no unread count is
 * read; it is never stored. The log gets one line with what failed, no stack: it is no bug.
 */
async function faultAnswer(deps: Deps, state: RequestState, request: Request, error: unknown, fault: Fault): Promise<Response> {
  // A full disk is what /health reports from now on, until there is room again (db/client.ts).
  noteFailure(deps.db, error);
  console.error(`${request.method} ${pathOrNot(request)} answered 503 (${fault.kind}): ${loggable(error, { stack: false }).replace(/\n/g, "; ")}`);
  const title = state.t("error.unavailable.title");
  const body = state.t(fault.kind === "full" ? "error.unavailable.full" : fault.kind === "disk" ? "error.unavailable.disk" : "error.unavailable");
  const headers: Record<string, string> = { "Retry-After": String(fault.retryAfterS), "Cache-Control": "no-store" };
  if (wantsJsonError(request)) {
    if (isHtmx(request)) headers["HX-Trigger"] = headerJson({ toast: { title, body, variant: "error" } });
    return json({ message: body }, 503, headers);
  }
  return renderPage(deps, { ...state, user: null }, request, (view) => <ErrorScreen view={view} title={title} body={body} />, { status: 503, headers });
}

/**
 * The answer for a failed request, as the person's page or JSON: 503 with `Retry-After` when the
 * machine or the database failed (`faultAnswer`), otherwise 500, with the stack in the log.
 */
export async function serverError(deps: Deps, state: RequestState, request: Request, error: unknown): Promise<Response> {
  const fault = faultOf(error);
  if (fault) return faultAnswer(deps, state, request, error, fault);
  logFailure(request, error);
  if (wantsJsonError(request)) {
    const headers: Record<string, string> = {};
    // htmx does not swap a 500: the page says it with a toast instead.
    if (isHtmx(request)) headers["HX-Trigger"] = headerJson({ toast: { title: state.t("error.title"), body: state.t("error.body"), variant: "error" } });
    return json({ message: state.t("error.title") }, 500, headers);
  }
  return renderPage(deps, state, request, (view) => <ErrorScreen view={view} title={view.t("error.title")} body={view.t("error.body")} />, {
    status: 500,
  });
}

/**
 * The request's state, or a visitor's in its language when reading it failed (the database is
 * down): the `lang` cookie, which a signed-in person's answers keep at the language they chose
 * (`chosenLanguageCookie`), then Accept-Language.
 */
async function stateOrVisitor(deps: Deps, request: Request): Promise<RequestState> {
  try {
    return await requestState(deps, request);
  } catch {
    const cookies = parseCookies(request.headers.get("cookie"));
    const locale = pickLocale({ cookie: cookies[deps.cookies.lang], acceptLanguage: request.headers.get("accept-language"), fallback: deps.config.defaultLanguage });
    return { user: null, session: null, sessionToken: null, sessionRenewed: false, cookies, locale, t: translator(locale), ip: "local" };
  }
}

/**
 * The answer for an error that escaped Elysia's own handling (a handler whose rejected promise
 * Elysia did not await, a failing error handler): the same page or JSON, with the headers every
 * answer carries, and a plain sentence if even that fails. Never throws.
 */
export async function lastResortAnswer(deps: Deps, request: Request, error: unknown, headers: Record<string, string>): Promise<Response> {
  let answer: Response;
  try {
    const state = await stateOrVisitor(deps, request);
    answer = await serverError(deps, state, request, error);
    // Without a session the page is nobody's; with one it is private (src/app.tsx).
    if (state.user) answer.headers.set("Cache-Control", "no-store");
  } catch (failure) {
    logFailure(request, failure);
    answer = new Response("Something went wrong. Please try again in a moment.", {
      status: 500,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    });
  }
  for (const [name, value] of Object.entries(headers)) answer.headers.set(name, value);
  try {
    return compressResponse(request, answer);
  } catch {
    return answer;
  }
}

/**
 * What Bun answers when a request's handler throws past everything above (it should never
 * happen): a bare 500, so no mode of Bun ever shows its development page.
 */
export function bareServerError(error: unknown): Response {
  console.error(`Unhandled server error: ${loggable(error)}`);
  return new Response("Something went wrong. Please try again in a moment.", {
    status: 500,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" },
  });
}
