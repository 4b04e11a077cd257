import { Elysia } from "elysia";
import { LinkAccount, type LinkState } from "../../views/auth/LinkAccount";
import { context } from "../context";
import { type Deps, type RequestState } from "../deps";
import { asRecord, json, redirectTo, serializeCookie, waitHeaders, waitParams, wantsJson } from "../lib/http";
import type { MessageKey } from "../texts";
import { flashCookie, renderPage } from "../shell/render";
import { encodeFlash } from "../shell/view";
import { completeLink, emailLink, pendingLink, type LinkResult, type PendingLink } from "./account";
import { sessionAnswers } from "./answers";
import type { OAuthFlow } from "./oauth";
import { takeEach } from "../lib/rate-limit";
import { signInLimits } from "./service";
import { tokenFrom } from "./tokens";

/** The pending provider sign-in lasts as long as its token (one hour). */
export const LINK_COOKIE_TTL_S = 60 * 60;

/** The cookie holding the raw token of the provider identity waiting to be joined (httpOnly). */
export const linkCookie = (deps: Deps) => `${deps.config.secureCookies ? "__Host-" : ""}link`;

/**
 * Joining a provider's account to an existing Offline account (docs/decisions/0034). The callback
 * found an account with the provider's email and wrote the provider identity as a "link" token
 * (server-side; the browser holds only the raw token, in an httpOnly cookie). The person proves
 * the account is theirs with its password, or by following an emailed link; only then is the
 * provider's account joined and the person signed in.
 */
export function linkRoutes(deps: Deps, flows: Map<string, OAuthFlow>) {
  const { success } = sessionAnswers(deps);
  const cookieName = linkCookie(deps);
  const secure = deps.config.secureCookies;
  const clearCookie = () => serializeCookie(cookieName, "", { maxAge: 0, secure });
  const providerName = (id: string) => flows.get(id)?.config.name ?? id;

  const page = (state: RequestState, request: Request, screen: LinkState, status = 200, headers: Record<string, string> = {}) =>
    renderPage(deps, state, request, (view) => <LinkAccount view={view} state={screen} />, {
      status,
      headers: { "Cache-Control": "no-store", "Referrer-Policy": "same-origin", ...headers },
    });

  const fromCookie = (state: RequestState) => pendingLink(deps, tokenFrom(state.cookies[cookieName]));
  const chooseState = (link: PendingLink, errors?: { password?: string; form?: string }): LinkState => ({
    kind: "choose",
    email: link.user.email!,
    provider: providerName(link.provider),
    hasPassword: !!link.user.passwordHash,
    errors,
  });

  /** The pending sign-in is gone (expired, used, or never was): start again. */
  const expired = (state: RequestState, request: Request) =>
    wantsJson(request) ? json({ message: state.t("link.expired") }, 400) : page(state, request, { kind: "expired" }, 400);

  /** Whether this browser's pending sign-in is the one the emailed link is for (same account, provider and subject). */
  const startedHere = async (state: RequestState, emailed: PendingLink) => {
    const own = await fromCookie(state);
    return !!own && own.user.id === emailed.user.id && own.provider === emailed.provider && own.subject === emailed.subject;
  };
  const otherBrowser = (state: RequestState, request: Request, link: PendingLink) =>
    wantsJson(request)
      ? json({ message: state.t("link.otherBrowser", { provider: providerName(link.provider) }) }, 403)
      : page(state, request, { kind: "otherBrowser", provider: providerName(link.provider) }, 403);

  /** A refusal from `completeLink`. */
  function refused(state: RequestState, request: Request, result: Exclude<LinkResult, { ok: true }>, provider: string, email: string) {
    if (result.reason === "invalid") return expired(state, request);
    const status = result.reason === "takenByOther" ? 409 : 403;
    const key: MessageKey = result.reason === "suspended" ? "login.suspended" : result.reason === "takenByOther" ? "link.takenByOther" : "link.unverified";
    const message = state.t(key, { provider, email });
    if (wantsJson(request)) return json({ message }, status);
    if (result.reason === "unverified") return page(state, request, { kind: "unverified", email, provider }, status);
    return page(state, request, { kind: "refused", message }, status);
  }

  /** Joined: the browser is signed in to the account and sent where it was going. */
  function linked(state: RequestState, request: Request, result: Extract<LinkResult, { ok: true }>) {
    const headers = new Headers();
    headers.append("Set-Cookie", clearCookie());
    if (wantsJson(request)) {
      return success(state, result.user.id, null).then((res) => {
        res.headers.append("Set-Cookie", clearCookie());
        return res;
      });
    }
    headers.append("Set-Cookie", flashCookie(deps, encodeFlash({ title: "toast.accountLinked", body: "toast.accountLinkedBody" })));
    return success(state, result.user.id, redirectTo(request, result.next, headers));
  }

  return new Elysia({ name: "offline.auth.link", seed: deps.id })
    .use(context(deps))
    .get(
      "/link-account",
      async ({ request, state }) => {
        const link = await fromCookie(state);
        if (!link) return expired(state, request);
        return page(state, request, chooseState(link));
      },
      { public: true },
    )
    // Proof by password, with the sign-in's own limits.
    .post(
      "/link-account",
      async ({ request, body, state }) => {
        const link = await fromCookie(state);
        if (!link) return expired(state, request);
        const password = asRecord(body).password;
        const fail = (status: number, errors: { password?: string; form?: string }, headers: Record<string, string> = {}) =>
          wantsJson(request)
            ? json({ message: errors.form ?? errors.password, errors }, status, headers)
            : page(state, request, chooseState(link, errors), status, headers);
        if (typeof password !== "string" || !password) return fail(400, { password: state.t("login.passwordRequired") });
        if (password.length > 200) return fail(400, { password: state.t("login.passwordTooLong") });
        const email = link.user.email!;
        const now = deps.now();
        const wait = await signInLimits.take(deps, email, state.ip, now);
        if (wait > 0) return fail(429, { form: state.t("error.tooMany", waitParams(wait)) }, waitHeaders(wait));
        const hash = link.user.passwordHash;
        const right = hash ? await deps.passwords.verify(password, hash) : false;
        // Counted as a failure already.
        if (!right) return fail(401, { password: state.t("link.wrongPassword") });
        await signInLimits.succeeded(deps, email, state.ip, now);
        const result = await completeLink(deps, tokenFrom(state.cookies[cookieName]), false);
        if (!result.ok) return refused(state, request, result, providerName(link.provider), email);
        return linked(state, request, result);
      },
      { public: true },
    )
    // "Email me a link": a new link token, with the same provider identity, to the account's address.
    .post(
      "/link-account/email",
      async ({ request, state }) => {
        const link = await fromCookie(state);
        if (!link) return expired(state, request);
        // Counted per account and per address before the email is written, in one step each.
        const now = deps.now();
        const { retryAfterMs: wait } = await takeEach(now, [deps.limits.linkEmail, link.user.id], [deps.limits.emailsToAddress, link.row.email]);
        if (wait > 0) {
          const message = state.t("link.tooMany", waitParams(wait));
          if (wantsJson(request)) return json({ message }, 429, waitHeaders(wait));
          return page(state, request, chooseState(link, { form: message }), 429, waitHeaders(wait));
        }
        const provider = providerName(link.provider);
        await emailLink(deps, link, provider, state.locale);
        const email = link.user.email!;
        if (wantsJson(request)) return json({ message: state.t("link.sent", { email, provider }) }, 202);
        return page(state, request, { kind: "sent", email, provider });
      },
      { public: true },
    )
    // The emailed link: a page with one button (mail scanners follow links; only the button joins).
    // It works only in the browser holding the same pending sign-in: whoever asked for the email
    // without owning the address cannot get the owner to join their provider account by a click.
    .get(
      "/link-account/confirm",
      async ({ request, query, state }) => {
        const token = tokenFrom(query.token);
        const link = await pendingLink(deps, token);
        if (!token || !link) return expired(state, request);
        if (!(await startedHere(state, link))) return otherBrowser(state, request, link);
        return page(state, request, { kind: "confirm", token, email: link.user.email!, provider: providerName(link.provider) });
      },
      { public: true },
    )
    .post(
      "/link-account/confirm",
      async ({ request, body, state }) => {
        const token = tokenFrom(asRecord(body).token);
        const link = await pendingLink(deps, token);
        if (!link) return expired(state, request);
        if (!(await startedHere(state, link))) return otherBrowser(state, request, link);
        const result = await completeLink(deps, token, true);
        if (!result.ok) return refused(state, request, result, providerName(link.provider), link.user.email!);
        return linked(state, request, result);
      },
      { public: true },
    );
}
