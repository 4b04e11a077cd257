import { writeTransaction } from "../../../db/client";
import { eq } from "drizzle-orm";
import { Elysia } from "elysia";
import { users } from "../../../db/schema";
import { LinkAccount, type LinkState } from "../../../views/auth/LinkAccount";
import { Login, type LoginForm } from "../../../views/auth/Login";
import { context, languageCookie, type FormScreen } from "../../context";
import { type Deps, type RequestState } from "../../deps";
import { DomainError } from "../../../lib/domain-error";
import { json, redirectTo, safeNext, serializeCookie, wantsJson } from "../../../lib/http";
import type { MessageKey } from "../../../lib/i18n";
import { flashCookie, renderPage } from "../../shell/render";
import { encodeFlash } from "../../shell/view";
import { selfUser } from "../../profiles/serialize";
import type { OAuthFlow } from "../../auth/oauth";
import { callbackQuery, localeBody, signInBody, signUpBody } from "../../auth/input";
import { startLink } from "../../auth/account";
import { sessionAnswers } from "./answers";
import { LINK_COOKIE_TTL_S, linkCookie } from "./link-routes";
import { loggable } from "../../../db/faults";
import { registerWithPassword, signInWithPassword, signInWithProvider, type OAuthOutcome, type OAuthProfile } from "../../auth/service";

const OAUTH_COOKIE_TTL_S = 10 * 60;

/**
 * What signing out tells the browser (decision 0031): forget this site's HTTP cache, back-forward
 * cache and storage (the service worker with the pages it kept for offline reading, its push
 * subscription, local storage), so Back on a shared phone shows nothing of the person who left.
 * Cookies are left alone: the session cookie is cleared by name, and the language and the
 * "signed out" toast stay.
 */
export const SIGNED_OUT_HEADERS = { "Clear-Site-Data": '"cache", "storage"', "Cache-Control": "no-store" };

export function authRoutes(deps: Deps, flows: Map<string, OAuthFlow>) {
  const secure = deps.config.secureCookies;

  const { sessionCookie, clearSession, endSession, signIn, success } = sessionAnswers(deps);
  const linkCookieName = linkCookie(deps);

  /** The sign-in screen. It may show back what someone typed (their email): never stored (decision 0031). */
  const loginPage = (state: RequestState, request: Request, form: LoginForm, status = 200) =>
    renderPage(deps, state, request, (view) => <Login view={view} form={form} providers={deps.config.oauth} />, {
      status,
      headers: { "Cache-Control": "no-store" },
    });

  /**
   * A refused sign-in or sign-up, posted by the form: the screen again with the address typed, each
   * field's message beside it, or the refusal's above the form. Never stored.
   */
  const loginForm = (mode: LoginForm["mode"]): FormScreen => ({ sent, error, message, fields }, { render }) => {
    const form: LoginForm = {
      mode,
      next: safeNext(sent.next),
      email: typeof sent.email === "string" ? sent.email : "",
      errors: Object.keys(fields).length ? fields : { form: message },
    };
    return render((view) => <Login view={view} form={form} providers={deps.config.oauth} />, { status: error.status, headers: { "Cache-Control": "no-store" } });
  };

  /**
   * The redirect a successful form sign-in answers with. It is made before anything is written
   * (account, session), so a bad `next` can never fail the answer after those writes.
   */
  const formAnswer = (request: Request, next: string, toast: MessageKey) =>
    wantsJson(request) ? null : redirectTo(request, next, { "Set-Cookie": flashCookie(deps, encodeFlash({ title: toast })) });

  /** A configured provider's sign-in; any other is not found. */
  const flowOf = (id: string) => {
    const flow = flows.get(id);
    if (!flow) throw new DomainError("error.notFound", 404);
    return flow;
  };

  /** The screens of joining a provider's account to an existing one (src/web/auth/link-routes.tsx). Never stored. */
  const linkPage = (state: RequestState, request: Request, screen: LinkState, status = 200) =>
    renderPage(deps, state, request, (view) => <LinkAccount view={view} state={screen} />, { status, headers: { "Cache-Control": "no-store" } });

  return new Elysia({ name: "offline.auth", seed: deps.id })
    .use(context(deps))
    .get("/api/login", ({ request, query, state }) => {
      const next = safeNext(query.next);
      if (state.user) return redirectTo(request, next);
      const mode = query.mode === "signup" ? "signup" : "signin";
      // From an email ("sign in", "verify first"): the address is typed in already.
      const email = typeof query.email === "string" && query.email.length <= 254 ? query.email : "";
      return loginPage(state, request, { mode, next, email });
    }, { public: true })
    .post("/api/login", async ({ request, body, state }) => {
      const redirect = formAnswer(request, body.next, "toast.signedIn");
      const user = await signInWithPassword(deps, body, state.ip);
      return success(state, user.id, redirect);
    }, { public: true, body: signInBody, refused: { screen: loginForm("signin") } })
    .post("/api/register", async ({ request, body, state }) => {
      const redirect = formAnswer(request, body.next, "toast.signedUp");
      const user = await registerWithPassword(deps, body, state.ip, state.locale);
      return success(state, user.id, redirect, 201);
    }, { public: true, body: signUpBody, refused: { screen: loginForm("signup") } })
    .post("/api/auth/logout", async ({ request, state }) => {
      await endSession(state);
      const headers = new Headers(SIGNED_OUT_HEADERS);
      headers.append("Set-Cookie", clearSession());
      if (wantsJson(request)) return json({ ok: true }, 200, headers);
      headers.append("Set-Cookie", flashCookie(deps, encodeFlash({ title: "toast.signedOut" })));
      return redirectTo(request, "/", headers);
    }, { public: true })
    .post("/api/locale", async ({ request, body, state }) => {
      const { locale, next } = body;
      const headers = new Headers({ "Set-Cookie": languageCookie(deps, locale) });
      const answer = wantsJson(request) ? json({ locale }, 200, headers) : redirectTo(request, next, headers);
      const user = state.user;
      if (user) await writeTransaction(deps.db, (tx) => tx.update(users).set({ locale, updatedAt: deps.now() }).where(eq(users.id, user.id)));
      return answer;
    }, { public: true, body: localeBody })
    .get("/api/auth/user", ({ user, state }) => json(selfUser(user), 200, { "X-CSRF-Token": state.session!.csrf }), { signedIn: true })
    .get("/api/user", ({ user }) => json(selfUser(user)), { signedIn: true })
    .get("/api/login/:provider", async ({ params, query, request, state }) => {
      const flow = flowOf(params.provider);
      const oauthState = randomId();
      const verifier = randomId() + randomId();
      let url: URL;
      try {
        url = await flow.authorizationUrl(oauthState, verifier);
      } catch (err) {
        console.error(`oauth ${flow.config.id}: could not start: ${loggable(err)}`);
        return loginPage(state, request, { mode: "signin", next: safeNext(query.next), errors: { form: state.t("login.oauthFailed", { provider: flow.config.name }) } }, 502);
      }
      const cookie = Buffer.from(JSON.stringify({ s: oauthState, v: verifier, p: flow.config.id, n: safeNext(query.next) })).toString("base64url");
      return new Response(null, {
        status: 302,
        headers: {
          Location: url.toString(),
          "Set-Cookie": serializeCookie(deps.cookies.oauth, cookie, { maxAge: OAUTH_COOKIE_TTL_S, secure }),
        },
      });
    }, { public: true })
    .get("/api/callback/:provider", async ({ params, query, request, state }) => {
      const flow = flowOf(params.provider);
      const saved = readOAuthCookie(state.cookies[deps.cookies.oauth]);
      const next = saved?.n ?? "/";
      const fail = (key: MessageKey) =>
        loginPage(state, request, { mode: "signin", next, errors: { form: state.t(key, { provider: flow.config.name }) } }, 400).then((res) => {
          res.headers.append("Set-Cookie", serializeCookie(deps.cookies.oauth, "", { maxAge: 0, secure }));
          return res;
        });
      if (!saved || saved.p !== flow.config.id || query.state === null || query.state !== saved.s || query.code === null) {
        return fail("login.oauthFailed");
      }
      const clearOAuth = serializeCookie(deps.cookies.oauth, "", { maxAge: 0, secure });
      // Made before anything is written, so a bad `next` can never fail the answer after those writes.
      const redirect = redirectTo(request, next, new Headers([["Set-Cookie", clearOAuth], ["Set-Cookie", flashCookie(deps, encodeFlash({ title: "toast.signedIn" }))]]));
      let profile: OAuthProfile;
      let outcome: OAuthOutcome;
      try {
        // RFC 9207: the code came back from the provider it was asked of, or it is not used.
        if (!(await flow.acceptsIssuer(query.iss))) {
          console.error(`oauth ${flow.config.id}: callback refused, iss ${JSON.stringify(query.iss ?? null).slice(0, 200)} is not this provider's issuer`);
          return fail("login.oauthFailed");
        }
        profile = await flow.profile(query.code, saved.v);
        outcome = await signInWithProvider(deps.db, profile);
      } catch (err) {
        console.error(`oauth ${flow.config.id}: callback failed: ${loggable(err)}`);
        return fail("login.oauthFailed");
      }
      const user = outcome.user;
      if (user.suspendedAt !== null) return fail("login.suspended");
      if (outcome.kind === "existing") {
        // Nobody is signed in: the person proves the account is theirs first (docs/decisions/0034).
        const provider = flow.config.name;
        if (!user.emailVerified) {
          return linkPage(state, request, { kind: "unverified", email: user.email!, provider }, 403).then((res) => {
            res.headers.append("Set-Cookie", clearOAuth);
            return res;
          });
        }
        const token = await startLink(deps, user, { provider: profile.provider, subject: profile.subject, email: profile.email ?? null }, next);
        return linkPage(state, request, { kind: "choose", email: user.email!, provider, hasPassword: !!user.passwordHash }).then((res) => {
          res.headers.append("Set-Cookie", clearOAuth);
          res.headers.append("Set-Cookie", serializeCookie(linkCookieName, token, { maxAge: LINK_COOKIE_TTL_S, secure }));
          return res;
        });
      }
      const session = await signIn(state, user.id);
      redirect.headers.append("Set-Cookie", sessionCookie(session.token));
      return redirect;
    }, { public: true, query: callbackQuery });
}

const randomId = () => Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url");

function readOAuthCookie(value: string | undefined): { s: string; v: string; p: string; n: string } | null {
  if (!value) return null;
  try {
    const data = JSON.parse(Buffer.from(value, "base64url").toString("utf8"));
    if (typeof data.s === "string" && typeof data.v === "string" && typeof data.p === "string") {
      return { s: data.s, v: data.v, p: data.p, n: safeNext(data.n) };
    }
  } catch {}
  return null;
}
