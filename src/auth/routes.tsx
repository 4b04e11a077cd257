import { writeTransaction } from "../../db/client";
import { eq } from "drizzle-orm";
import { Elysia } from "elysia";
import { users } from "../../db/schema";
import { LinkAccount, type LinkState } from "../../views/auth/LinkAccount";
import { Login, type LoginForm } from "../../views/auth/Login";
import { context, languageCookie } from "../context";
import { type Deps, type RequestState } from "../deps";
import { asRecord, json, redirectTo, safeNext, serializeCookie, waitHeaders, waitParams, wantsJson } from "../lib/http";
import { locales, translateErrors, type Locale, type MessageKey } from "../texts";
import { flashCookie, renderPage } from "../shell/render";
import { encodeFlash } from "../shell/view";
import { selfUser } from "../profiles/serialize";
import type { OAuthFlow } from "./oauth";
import { fieldErrors, signInSchema, signUpSchema } from "./input";
import { startLink } from "./account";
import { sessionAnswers } from "./answers";
import { LINK_COOKIE_TTL_S, linkCookie } from "./link-routes";
import { loggable } from "../lib/faults";
import {
  noticeSignupAttempt,
  registerWithPassword,
  signInLimits,
  signInWithProvider,
  verifyCredentials,
  type OAuthOutcome,
  type OAuthProfile,
} from "./service";

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

  /** Answers a failed form or JSON sign-in the same way: status, message per field. */
  function failure(
    state: RequestState,
    request: Request,
    form: LoginForm,
    status: number,
    errors: Partial<Record<"email" | "password" | "form", MessageKey>>,
    params: Record<string, string | number> = {},
    headers: HeadersInit = {},
  ) {
    const messages = translateErrors(state.t, errors as Record<string, MessageKey>, params);
    if (wantsJson(request)) {
      const message = messages.form ?? messages.email ?? messages.password ?? "";
      return json({ message, errors: messages }, status, headers);
    }
    return loginPage(state, request, { ...form, errors: messages }, status).then((res) => {
      new Headers(headers).forEach((v, k) => res.headers.set(k, v));
      return res;
    });
  }

  const tooMany = (state: RequestState, request: Request, form: LoginForm, waitMs: number) =>
    failure(
      state,
      request,
      form,
      429,
      { form: "error.tooMany" },
      { minutes: Math.ceil(waitMs / 60_000) },
      { "Retry-After": String(Math.ceil(waitMs / 1000)) },
    );

  /**
   * The redirect a successful form sign-in answers with. It is made before anything is written
   * (account, session), so a bad `next` can never fail the answer after those writes.
   */
  const formAnswer = (request: Request, next: string, toast: MessageKey) =>
    wantsJson(request) ? null : redirectTo(request, next, { "Set-Cookie": flashCookie(deps, encodeFlash({ title: toast })) });

  const formFrom = (input: Record<string, unknown>, mode: LoginForm["mode"]): LoginForm => ({
    mode,
    next: safeNext(input.next),
    email: typeof input.email === "string" ? input.email : "",
  });


  /** The screens of joining a provider's account to an existing one (src/auth/link-routes.tsx). Never stored. */
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
      const input = asRecord(body);
      const form = formFrom(input, "signin");
      const redirect = formAnswer(request, form.next, "toast.signedIn");
      const parsed = signInSchema.safeParse(input);
      if (!parsed.success) return failure(state, request, form, 400, fieldErrors(parsed.error));

      const { email, password } = parsed.data;
      const now = deps.now();
      const wait = await signInLimits.take(deps, email, state.ip, now);
      if (wait > 0) return tooMany(state, request, form, wait);
      const user = await verifyCredentials(deps, email, password);
      // Counted as a failure already.
      if (!user) return failure(state, request, form, 401, { form: "login.invalidCredentials" });
      await signInLimits.succeeded(deps, email, state.ip, now);
      // Told only to whoever knows the password, so suspension does not confirm the account to others.
      if (user.suspendedAt !== null) return failure(state, request, form, 403, { form: "login.suspended" });
      return success(state, user.id, redirect);
    }, { public: true })
    .post("/api/register", async ({ request, body, state }) => {
      const input = asRecord(body);
      const form = formFrom(input, "signup");
      const redirect = formAnswer(request, form.next, "toast.signedUp");
      const parsed = signUpSchema.safeParse(input);
      if (!parsed.success) return failure(state, request, form, 400, fieldErrors(parsed.error));

      const now = deps.now();
      const wait = await deps.limits.signupByIp.take(state.ip, now);
      if (wait > 0) return tooMany(state, request, form, wait);
      const result = await registerWithPassword(deps, parsed.data.email, parsed.data.password, state.locale);
      if (!result.ok && result.reason === "tooManyEmails") {
        return failure(state, request, form, 429, { email: "verify.addressTooMany" }, waitParams(result.retryAfterMs), waitHeaders(result.retryAfterMs));
      }
      if (!result.ok) {
        // The clear message stays (the attempts are limited above), and the holder hears of it.
        await noticeSignupAttempt(deps, parsed.data.email, state.locale);
        return failure(state, request, form, 409, { email: "login.emailTaken" });
      }
      return success(state, result.user.id, redirect, 201);
    }, { public: true })
    .post("/api/auth/logout", async ({ request, state }) => {
      await endSession(state);
      const headers = new Headers(SIGNED_OUT_HEADERS);
      headers.append("Set-Cookie", clearSession());
      if (wantsJson(request)) return json({ ok: true }, 200, headers);
      headers.append("Set-Cookie", flashCookie(deps, encodeFlash({ title: "toast.signedOut" })));
      return redirectTo(request, "/", headers);
    }, { public: true })
    .post("/api/locale", async ({ request, body, state }) => {
      const input = asRecord(body);
      const locale = input.locale;
      if (typeof locale !== "string" || !(locales as string[]).includes(locale)) {
        return json({ message: state.t("error.badRequest") }, 400);
      }
      const headers = new Headers({ "Set-Cookie": languageCookie(deps, locale as Locale) });
      const answer = wantsJson(request) ? json({ locale }, 200, headers) : redirectTo(request, safeNext(input.next), headers);
      const user = state.user;
      if (user) await writeTransaction(deps.db, (tx) => tx.update(users).set({ locale, updatedAt: deps.now() }).where(eq(users.id, user.id)));
      return answer;
    }, { public: true })
    .get("/api/auth/user", ({ user, state }) => json(selfUser(user), 200, { "X-CSRF-Token": state.session!.csrf }), { signedIn: true })
    .get("/api/user", ({ user }) => json(selfUser(user)), { signedIn: true })
    .get("/api/login/:provider", async ({ params, query, request, state }) => {
      const flow = flows.get(params.provider);
      if (!flow) return json({ message: state.t("error.notFound") }, 404);
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
      const flow = flows.get(params.provider);
      if (!flow) return json({ message: state.t("error.notFound") }, 404);
      const saved = readOAuthCookie(state.cookies[deps.cookies.oauth]);
      const next = saved?.n ?? "/";
      const fail = (key: MessageKey) =>
        loginPage(state, request, { mode: "signin", next, errors: { form: state.t(key, { provider: flow.config.name }) } }, 400).then((res) => {
          res.headers.append("Set-Cookie", serializeCookie(deps.cookies.oauth, "", { maxAge: 0, secure }));
          return res;
        });
      if (!saved || saved.p !== flow.config.id || typeof query.state !== "string" || query.state !== saved.s || typeof query.code !== "string") {
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
    }, { public: true });
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
