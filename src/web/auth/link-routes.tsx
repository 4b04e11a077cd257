import { Elysia } from "elysia";
import { LinkAccount, type LinkState } from "../../../views/auth/LinkAccount";
import { context, type FormScreen } from "../../context";
import { type Deps, type RequestState } from "../../deps";
import { DomainError } from "../../../lib/domain-error";
import { json, redirectTo, serializeCookie, wantsJson } from "../../../lib/http";
import { flashCookie, renderPage } from "../../shell/render";
import { encodeFlash } from "../../shell/view";
import { completeLink, emailLink, pendingLink, type Linked, type PendingLink } from "../../auth/account";
import { sessionAnswers } from "./answers";
import { linkPasswordBody, tokenFrom, tokenInput } from "../../auth/input";
import type { OAuthFlow } from "../../auth/oauth";
import { proveAccountPassword } from "../../auth/service";

/** The pending provider sign-in lasts as long as its token (one hour). */
export const LINK_COOKIE_TTL_S = 60 * 60;

/** The cookie holding the raw token of the provider identity waiting to be joined (httpOnly). */
export const linkCookie = (deps: Deps) => `${deps.config.secureCookies ? "__Host-" : ""}link`;

/** The link screens' headers: never stored (they show an address), the token never sent on as a referrer. */
const PAGE_HEADERS = { "Cache-Control": "no-store", "Referrer-Policy": "same-origin" };

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

  const page = (state: RequestState, request: Request, screen: LinkState) =>
    renderPage(deps, state, request, (view) => <LinkAccount view={view} state={screen} />, { headers: PAGE_HEADERS });

  const fromCookie = (state: RequestState) => pendingLink(deps, tokenFrom(state.cookies[cookieName]));
  const chooseState = (link: PendingLink, errors?: { password?: string; form?: string }): LinkState => ({
    kind: "choose",
    email: link.user.email!,
    provider: providerName(link.provider),
    hasPassword: !!link.user.passwordHash,
    errors,
  });

  /** The pending sign-in is gone (expired, used, or never was): start again. */
  const expired = () => new DomainError("link.expired", 400);

  /** This browser's pending sign-in, or the refusal that it is gone. */
  const ownLink = async (state: RequestState) => {
    const link = await fromCookie(state);
    if (!link) throw expired();
    return link;
  };

  /**
   * The emailed link's pending sign-in, which works only in the browser holding the same one (same
   * account, provider and subject); refused otherwise.
   */
  const emailedLink = async (state: RequestState, token: string | null) => {
    const link = await pendingLink(deps, token);
    if (!token || !link) throw expired();
    const own = await fromCookie(state);
    const startedHere = !!own && own.user.id === link.user.id && own.provider === link.provider && own.subject === link.subject;
    if (!startedHere) throw new DomainError("link.otherBrowser", 403, { params: { provider: providerName(link.provider) } });
    return { token, link };
  };

  /**
   * A refusal on a link screen: the screen saying the sign-in expired, was opened in another
   * browser, or cannot be joined (an unverified address, a suspended account, a provider's account
   * joined to someone else); else (a password refused, "Email me a link" over its limit) the
   * choice again with the message, while the sign-in still waits.
   */
  const linkRefused: FormScreen = async ({ error, message, fields }, { state, render }) => {
    const draw = (screen: LinkState, status = error.status) => render((view) => <LinkAccount view={view} state={screen} />, { status, headers: PAGE_HEADERS });
    const said = (name: string) => String(error.params?.[name] ?? "");
    if (error.key === "link.expired") return draw({ kind: "expired" });
    if (error.key === "link.otherBrowser") return draw({ kind: "otherBrowser", provider: said("provider") });
    if (error.key === "link.unverified") return draw({ kind: "unverified", email: said("email"), provider: said("provider") });
    if (error.key === "login.suspended" || error.key === "link.takenByOther") return draw({ kind: "refused", message });
    const link = await fromCookie(state);
    if (!link) return draw({ kind: "expired" }, 400);
    return draw(chooseState(link, fields.password ? { password: fields.password } : { form: message }));
  };

  const refused = { screen: linkRefused };

  /** Joined: the browser is signed in to the account and sent where it was going. */
  function linked(state: RequestState, request: Request, result: Linked) {
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
    .get("/link-account", async ({ request, state }) => page(state, request, chooseState(await ownLink(state))), { public: true, refused })
    // Proof by password, with the sign-in's own limits.
    .post(
      "/link-account",
      async ({ request, body, state }) => {
        const link = await ownLink(state);
        await proveAccountPassword(deps, link.user, body.password, state.ip);
        return linked(state, request, await completeLink(deps, tokenFrom(state.cookies[cookieName]), false, providerName(link.provider)));
      },
      { public: true, refused, body: linkPasswordBody },
    )
    // "Email me a link": a new link token, with the same provider identity, to the account's address.
    .post("/link-account/email", async ({ request, state }) => {
      const link = await ownLink(state);
      const provider = providerName(link.provider);
      await emailLink(deps, link, provider, state.locale);
      const email = link.user.email!;
      if (wantsJson(request)) return json({ message: state.t("link.sent", { email, provider }) }, 202);
      return page(state, request, { kind: "sent", email, provider });
    }, { public: true, refused })
    // The emailed link: a page with one button (mail scanners follow links; only the button joins).
    // It works only in the browser holding the same pending sign-in: whoever asked for the email
    // without owning the address cannot get the owner to join their provider account by a click.
    .get(
      "/link-account/confirm",
      async ({ request, query, state }) => {
        const { token, link } = await emailedLink(state, query.token);
        return page(state, request, { kind: "confirm", token, email: link.user.email!, provider: providerName(link.provider) });
      },
      { public: true, refused, query: tokenInput },
    )
    .post(
      "/link-account/confirm",
      async ({ request, body, state }) => {
        const { token, link } = await emailedLink(state, body.token);
        return linked(state, request, await completeLink(deps, token, true, providerName(link.provider)));
      },
      { public: true, refused, body: tokenInput },
    );
}
