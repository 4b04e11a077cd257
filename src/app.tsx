import { Elysia } from "elysia";
// The catalogue registers itself for every feature to translate through (lib/i18n.ts).
import "./texts";
import { outsideWriteTransactions } from "../db/client";
import { activitiesFeature } from "./web/activities";
import { availabilityFeature } from "./web/availability";
import { authFeature } from "./web/auth";
import { profilesFeature } from "./web/profiles";
import { accountDeletionFeature } from "./web/account/delete-feature";
import { uploadsFeature } from "./web/uploads";
import { PaymentEvents } from "./ports/payments";
import { stripeHostedOrigins } from "./payments/stripe";
import { makeStorage } from "./uploads/storage";
import { chosenLanguageCookie, context, requestState } from "./context";
import { cookieNames, makeLimits, type Deps } from "./deps";
import { bodyParser, bodyRefusal } from "../lib/body";
import { compressResponse } from "../lib/compression/responses";
import { json, serializeCookie } from "../lib/http";
import { SESSION_TTL_MS } from "./auth/service";
import { JobRunner } from "./jobs/runner";
import { startsFromPageHeaders } from "./shell/render";
import { notFoundRoute, shellFeature } from "./web/shell";
import { bareServerError, lastResortAnswer, refusalAnswer, serverError } from "./web/shell/error-answers";
import { invalidInput, isDomainError } from "../lib/domain-error";
import { bookingsFeature } from "./web/bookings";
import { conversationsFeature } from "./web/conversations";
import { reviewsFeature } from "./web/reviews";
import { reportsFeature } from "./web/reports";
import { notificationsFeature } from "./web/notifications";
import { savedFeature } from "./web/saved";
import { makePaymentProvider, paymentsFeature } from "./web/payments";
import { DomainEvents } from "./events";
import { makeLive } from "./live/hub";
import { LIVE_SOCKET_OPTIONS, liveFeature } from "./web/live";
import { makeMailer } from "./email/mailer";
import { argon2Passwords } from "./auth/passwords";
import { emailFeature } from "./web/email";
import { accountExportFeature } from "./web/account/export";
import { requestChecks, routeOptions } from "./security/checks";
import { addSetHeaders, securityHeaders, startsSession } from "./security/headers";

/** What createApp is given: the parts of `Deps` made outside it, plus overrides for tests. */
export type AppOptions = Pick<Deps, "config" | "db" | "secrets" | "assets"> &
  Partial<Pick<Deps, "now" | "storage" | "payments" | "paymentEvents" | "events" | "mailer" | "passwords">> & {
    limits?: Partial<Deps["limits"]>;
  };

/**
 * Composes the whole app from its feature plugins. The server and the tests both call this;
 * tests hand in a fresh database and their own clock.
 */
export function createApp(options: AppOptions) {
  const { live, presence, redis } = makeLive(options.config);
  const deps = {
    id: crypto.randomUUID(),
    config: options.config,
    db: options.db,
    secrets: options.secrets,
    assets: options.assets,
    storage: options.storage ?? makeStorage(options.config),
    limits: { ...makeLimits(redis ? { redis, secret: options.secrets.sessionSecret } : null), ...options.limits },
    cookies: cookieNames(options.config),
    now: options.now ?? Date.now,
    paymentEvents: options.paymentEvents ?? new PaymentEvents(),
    events: options.events ?? new DomainEvents(),
    // Providers, mail and outbound requests refuse to run inside a write transaction (db/client.ts).
    mailer: outsideWriteTransactions(options.mailer ?? makeMailer(options.config), "sending an email"),
    passwords: options.passwords ?? argon2Passwords,
    live,
    presence,
  } satisfies Omit<Deps, "jobs" | "payments" | "pageHeaders"> as Deps;
  deps.payments = outsideWriteTransactions(options.payments ?? makePaymentProvider({ config: options.config, db: options.db, events: deps.paymentEvents, now: deps.now }), "a payment provider's call");
  // The runner hands `deps` to the jobs it runs, so it is made once the rest exists.
  deps.jobs = new JobRunner(deps);
  const stripe = deps.payments.name === "stripe" ? options.config.stripe : undefined;
  const security = securityHeaders(options.config, { uploadOrigin: deps.storage.uploadOrigin, formTargets: stripe ? stripeHostedOrigins(stripe) : [], stripeJs: !!stripe });
  deps.pageHeaders = new Headers({ ...security.every, "Content-Type": "text/html; charset=utf-8", "Cache-Control": "private, no-cache", Vary: "Accept-Encoding" });
  // Complete now, and frozen: the framework merges each feature's decorations into the app's, and
  // walks into any object it may still change. `deps` reaches the whole database schema and every
  // service, and that walk, once per feature, was most of a start-up (decision 0040).
  Object.freeze(deps);
  /** What each route declared (its access level, a raw body), read once all are registered. */
  const declared = routeOptions(() => app.routes);

  // Bun's `development` mode answers an unhandled error with its own page: the server's folder,
  // file paths and source lines. Elysia turns it on whenever NODE_ENV is not "production" (as
  // with `npm start`), so it is turned off here, for every way the app is served; `error` is
  // Bun's last resort should anything still escape the app (decision 0031).
  const app = new Elysia({ websocket: LIVE_SOCKET_OPTIONS, serve: { development: false, error: bareServerError } })
    // Every request goes through this: an error that escaped Elysia's own handling (a handler
    // that returned a promise Elysia did not await, a failing error handler) still gets the
    // app's error page or JSON, never the runtime's.
    .wrap((handle, _request) => (request: Request) => {
      const answer = (error: unknown) => lastResortAnswer(deps, request, error, security.of(request));
      try {
        const result = (handle as (r: Request) => unknown)(request);
        return result instanceof Promise ? result.catch(answer) : result;
      } catch (error) {
        return answer(error);
      }
    })
    // The security headers every answer carries (src/security/headers.ts, decision 0031).
    .onRequest(({ request, set }) => {
      Object.assign(set.headers, security.of(request));
    })
    .use(context(deps))
    // Every route's body is read here, within its limit (lib/body.ts); a route that reads
    // its own raw body (the photo upload, the webhook) declares it with its limit (`rawBody`).
    .onParse({ as: "global" }, bodyParser(declared.rawBodyLimit))
    // The request's checks (src/security/checks.ts: NUL, cross-site, CSRF, access) run before
    // the route's schema reads the body: a visitor's or another site's post is refused as such,
    // whatever its body holds. Each refusal is a `DomainError`, answered by the error hook below.
    .onTransform({ as: "global" }, requestChecks(deps, declared))
    .onAfterHandle({ as: "global" }, async ({ request, response }) => {
      const state = await requestState(deps, request);
      // An extended session gets its cookie again, unless this answer already sets it (sign-in, sign-out).
      if (state.sessionRenewed && state.sessionToken && response instanceof Response) {
        const setsSession = response.headers.getSetCookie().some((c) => c.startsWith(`${deps.cookies.session}=`));
        if (!setsSession) {
          response.headers.append("Set-Cookie", serializeCookie(deps.cookies.session, state.sessionToken, { maxAge: SESSION_TTL_MS / 1000, secure: options.config.secureCookies }));
        }
      }
    })
    // Every answer leaves compressed when it is worth it (lib/compression/). What is
    // answered to a signed-in person, and what starts a session, is never stored by the browser
    // (`no-store`): Back after signing out on a shared phone must not show it (decision 0031).
    // A signed-in person's browser also gets the `lang` cookie of the language they chose, when
    // it says another (`chosenLanguageCookie`), unless the answer sets it itself (/api/locale).
    .mapResponse({ as: "global" }, async ({ request, responseValue, set }) => {
      if (!(responseValue instanceof Response)) return;
      let response = responseValue;
      const state = await requestState(deps, request).catch(() => null);
      const cookies = response.headers.getSetCookie();
      const personal = startsSession(cookies, deps.cookies.session) || !state || state.user !== null;
      const setsLanguage = cookies.some((c) => c.startsWith(`${deps.cookies.lang}=`));
      const language = state && !setsLanguage ? chosenLanguageCookie(deps, state) : null;
      const taken = set.headers;
      set.headers = {};
      const amend = (headers: Headers) => {
        if (!startsFromPageHeaders.has(response)) addSetHeaders(headers, taken);
        if (personal && headers.get("Cache-Control") !== "no-store") headers.set("Cache-Control", "no-store");
        if (language) headers.append("Set-Cookie", language);
      };
      try {
        amend(response.headers);
      } catch {
        // Headers of a fetched answer are read-only: copied into a new answer.
        response = new Response(response.body, response);
        amend(response.headers);
      }
      return compressResponse(request, response);
    })
    // Errors answer with the app's own page or JSON in every mode; the stack goes to the log.
    // The hook names what it reads: the framework builds for every request what its hooks ask
    // for, and a hook that takes the whole context asks for all of it (the query parsed, …).
    .onError(async ({ code, error, request, params }) => {
      const state = await requestState(deps, request);
      // A body over its limit: `{ message }` JSON, whoever asks (lib/body.ts).
      const refused = bodyRefusal(error);
      if (refused) return json({ message: state.t(refused.key) }, refused.status);
      if (code === "VALIDATION") return refusalAnswer(deps, state, request, params, invalidInput(error.all));
      if (code === "PARSE" || code === "INVALID_COOKIE_SIGNATURE") return json({ message: state.t("error.badRequest") }, 400);
      if (code === "NOT_FOUND") return json({ message: state.t("error.notFound") }, 404);
      if (isDomainError(error)) return refusalAnswer(deps, state, request, params, error);
      return serverError(deps, state, request, error);
    })
    .use(shellFeature(deps))
    .use(authFeature(deps))
    .use(uploadsFeature(deps))
    .use(accountDeletionFeature(deps))
    .use(profilesFeature(deps))
    .use(activitiesFeature(deps))
    .use(availabilityFeature(deps))
    .use(paymentsFeature(deps))
    .use(bookingsFeature(deps))
    .use(conversationsFeature(deps))
    .use(reviewsFeature(deps))
    .use(reportsFeature(deps))
    .use(notificationsFeature(deps))
    .use(savedFeature(deps))
    .use(emailFeature(deps))
    .use(accountExportFeature(deps))
    .use(liveFeature(deps))
    .use(notFoundRoute(deps));

  return { app, deps };
}

export type App = ReturnType<typeof createApp>["app"];
