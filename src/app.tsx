import { Elysia } from "elysia";
// The catalogue registers itself for every feature to translate through (src/lib/i18n.ts).
import "./texts";
import { timingSafeEqual } from "node:crypto";
import { outsideWriteTransactions } from "../db/client";
import { THEME_SCRIPT } from "../views/layouts/Document";
import { activitiesFeature } from "./activities";
import { availabilityFeature } from "./availability";
import { authFeature } from "./auth";
import { profilesFeature } from "./profiles";
import { uploadsFeature } from "./uploads";
import { PaymentEvents } from "./payments/provider";
import { stripeHostedOrigins } from "./payments/stripe";
import { WEBHOOK_BODY_LIMIT } from "./payments/webhooks";
import { MAX_UPLOAD_BYTES } from "./uploads/service";
import { makeStorage } from "./uploads/storage";
import type { Config } from "./config";
import { accessOf, chosenLanguageCookie, context, noteRoute, requestState } from "./context";
import { cookieNames, makeLimits, type Deps } from "./deps";
import { bodyParser, bodyRefusal, carriesNul } from "./lib/body";
import { compressResponse } from "./lib/compression";
import { json, pathOf, serializeCookie } from "./lib/http";
import { SESSION_TTL_MS } from "./auth/service";
import { JobRunner } from "./jobs";
import { startsFromPageHeaders } from "./shell/render";
import { notFoundRoute, shellFeature } from "./shell";
import { accessDenied } from "./shell/access";
import { bareServerError, lastResortAnswer, refusalAnswer, serverError } from "./shell/error-answers";
import { DomainError, invalidInput, isDomainError } from "./lib/domain-error";
import { bookingsFeature } from "./bookings";
import { conversationsFeature } from "./conversations";
import { reviewsFeature } from "./reviews";
import { reportsFeature } from "./reports";
import { notificationsFeature } from "./notifications";
import { makePaymentProvider, paymentsFeature } from "./payments";
import { DomainEvents } from "./events";
import { makeLive } from "./live/hub";
import { LIVE_SOCKET_OPTIONS, liveFeature } from "./live";
import { makeMailer } from "./email/mailer";
import { argon2Passwords } from "./auth/passwords";
import { emailFeature } from "./email";

/** What createApp is given: the parts of `Deps` made outside it, plus overrides for tests. */
export type AppOptions = Pick<Deps, "config" | "db" | "secrets" | "assets"> &
  Partial<Pick<Deps, "now" | "storage" | "payments" | "paymentEvents" | "events" | "mailer" | "passwords">> & {
    limits?: Partial<Deps["limits"]>;
  };

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Routes whose handler reads its raw body itself, after its own checks, up to this many bytes. */
export const RAW_BODY_ROUTES: Record<string, number> = {
  "PUT /api/uploads/:id": MAX_UPLOAD_BYTES,
  // A webhook's signature covers its exact bytes.
  "POST /api/webhooks/stripe": WEBHOOK_BODY_LIMIT,
};

function sameToken(a: string, b: string) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The origin part of a URL template such as https://{s}.tile.example.org/{z}/{x}/{y}.png. */
export function templateOrigin(template: string) {
  const m = /^(https?:\/\/[^/]+)/.exec(template);
  return m ? m[1]!.replace(/\{s\}/g, "*") : "";
}

/** What Stripe.js and its Payment Element need: its script, its frames, and its API. */
export const STRIPE_JS_SOURCES = { script: ["https://js.stripe.com"], frame: ["https://js.stripe.com", "https://hooks.stripe.com"], connect: ["https://api.stripe.com"] };

function contentSecurityPolicy(config: Config, uploadOrigin?: string, formTargets: string[] = [], stripeJs = false) {
  const tiles = templateOrigin(config.maps.tileUrl);
  const geocoder = templateOrigin(config.maps.geocoderUrl);
  const themeHash = new Bun.CryptoHasher("sha256").update(THEME_SCRIPT).digest("base64");
  const extra = (sources: string[]) => (stripeJs ? sources.map((s) => ` ${s}`).join("") : "");
  return [
    "default-src 'self'",
    `script-src 'self' 'sha256-${themeHash}'${extra(STRIPE_JS_SOURCES.script)}`,
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob: ${tiles}`,
    `connect-src 'self' ${geocoder}${uploadOrigin ? ` ${uploadOrigin}` : ""}${extra(STRIPE_JS_SOURCES.connect)}`,
    "font-src 'self'",
    // Only Stripe's card form (its Payment Element and 3-D Secure frames) is framed, and only with Stripe.
    ...(stripeJs ? [`frame-src 'self'${extra(STRIPE_JS_SOURCES.frame)}`] : []),
    "object-src 'none'",
    "base-uri 'self'",
    // A form may lead to the payment provider's hosted pages (a redirect after a post counts).
    `form-action 'self'${formTargets.map((o) => ` ${o}`).join("")}`,
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * Browser features the app never uses are turned off for its pages and every frame in them
 * (decision 0031). Kept: the clipboard and the share sheet (the copy and share buttons), the
 * defaults for the rest. Geolocation is off: places are typed and looked up (the geocoder), never
 * read from the device. Payment (the Payment Request API) only for Stripe.js's frames, with Stripe.
 */
export function permissionsPolicy(stripeJs: boolean) {
  const denied = [
    "accelerometer",
    "autoplay",
    "camera",
    "display-capture",
    "geolocation",
    "gyroscope",
    "hid",
    "magnetometer",
    "microphone",
    "midi",
    "publickey-credentials-get",
    "screen-wake-lock",
    "serial",
    "usb",
    "xr-spatial-tracking",
    "browsing-topics",
  ];
  const payment = stripeJs ? `payment=(${STRIPE_JS_SOURCES.frame.map((o) => `"${o}"`).join(" ")})` : "payment=()";
  return [...denied.map((feature) => `${feature}=()`), payment, "clipboard-write=(self)", "web-share=(self)"].join(", ");
}

/** Photos (`/objects/…`) are read by our own pages and service worker only (decision 0031). */
const PHOTO_PATH = /^\/objects\//;

/**
 * Adds the headers set for this request (`set.headers`: the security headers) to the answer
 * itself, as the framework would merge them: the answer's own headers win, cookies are added.
 * The framework copies any answer while `set.headers` holds something (new headers, and a new
 * answer reading the body as a stream), so the caller empties it: the answer leaves as it is.
 */
function addSetHeaders(headers: Headers, taken: Record<string, string | number | string[] | undefined>) {
  for (const key in taken) {
    const value = taken[key];
    if (value === undefined) continue;
    if (key.toLowerCase() === "set-cookie") for (const cookie of Array.isArray(value) ? value : [String(value)]) headers.append("Set-Cookie", cookie);
    else if (!headers.has(key)) headers.set(key, Array.isArray(value) ? value.join(", ") : String(value));
  }
}

/** Whether one of these Set-Cookie values starts a session (sign-in): such an answer must not be stored either. */
const startsSession = (cookies: string[], name: string) => cookies.some((c) => c.startsWith(`${name}=`) && !/;\s*Max-Age=0(?:;|$)/i.test(c));

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
  const csp = contentSecurityPolicy(options.config, deps.storage.uploadOrigin, stripe ? stripeHostedOrigins(stripe) : [], !!stripe);
  const publicOrigin = new URL(options.config.publicUrl).origin;
  // Served over https: browsers must never come back over plain http.
  const hsts = new URL(options.config.publicUrl).protocol === "https:" ? "max-age=31536000; includeSubDomains" : null;
  const permissions = permissionsPolicy(!!stripe);
  /** The headers every answer carries (decision 0031 for the last three), made once. */
  const everyAnswer: Record<string, string> = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": csp,
    // No other site's window keeps a handle on ours (OAuth and Stripe's hosted pages are
    // top-level redirects, Stripe's card form and 3-D Secure are frames: none needs one).
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": permissions,
    ...(hsts ? { "Strict-Transport-Security": hsts } : {}),
  };
  const photoAnswer = { ...everyAnswer, "Cross-Origin-Resource-Policy": "same-origin" };
  deps.pageHeaders = new Headers({ ...everyAnswer, "Content-Type": "text/html; charset=utf-8", "Cache-Control": "private, no-cache", Vary: "Accept-Encoding" });
  // Complete now, and frozen: the framework merges each feature's decorations into the app's, and
  // walks into any object it may still change. `deps` reaches the whole database schema and every
  // service, and that walk, once per feature, was most of a start-up (decision 0040).
  Object.freeze(deps);
  const securityHeaders = (request: Request): Record<string, string> => (PHOTO_PATH.test(pathOf(request.url)) ? photoAnswer : everyAnswer);

  // Bun's `development` mode answers an unhandled error with its own page: the server's folder,
  // file paths and source lines. Elysia turns it on whenever NODE_ENV is not "production" (as
  // with `npm start`), so it is turned off here, for every way the app is served; `error` is
  // Bun's last resort should anything still escape the app (decision 0031).
  const app = new Elysia({ websocket: LIVE_SOCKET_OPTIONS, serve: { development: false, error: bareServerError } })
    // Every request goes through this: an error that escaped Elysia's own handling (a handler
    // that returned a promise Elysia did not await, a failing error handler) still gets the
    // app's error page or JSON, never the runtime's.
    .wrap((handle, _request) => (request: Request) => {
      const answer = (error: unknown) => lastResortAnswer(deps, request, error, securityHeaders(request));
      try {
        const result = (handle as (r: Request) => unknown)(request);
        return result instanceof Promise ? result.catch(answer) : result;
      } catch (error) {
        return answer(error);
      }
    })
    .onRequest(({ request, set }) => {
      Object.assign(set.headers, securityHeaders(request));
    })
    .use(context(deps))
    // Every route's body is read here, within its limit (src/lib/body.ts); the photo upload
    // reads its own raw body once its signed URL is checked.
    .onParse({ as: "global" }, bodyParser(RAW_BODY_ROUTES))
    // The request's checks run before the route's schema reads the body: a visitor's or another
    // site's post is refused as such, whatever its body holds. Each refusal is a `DomainError`,
    // answered by the error hook below.
    .onTransform({ as: "global" }, async ({ request, body, server, route }) => {
      noteRoute(request, declaredDetail(request.method, route));
      const state = await requestState(deps, request, () => server?.requestIP(request)?.address);
      // A NUL character in the path, the query, a form or JSON is input no database should be
      // handed (PostgreSQL fails the statement, 500; SQLite would keep it): refused here, before
      // any route reads it, on both engines alike (decision 0047).
      if (carriesNul(request.url, body)) throw new DomainError("error.badRequest", 400);
      if (!SAFE_METHODS.has(request.method)) {
        const path = pathOf(request.url);
        // Cross-site requests never change anything.
        const site = request.headers.get("sec-fetch-site");
        const origin = request.headers.get("origin");
        const ownOrigin = new URL(request.url).origin;
        const crossSite = site === "cross-site" || (origin !== null && origin !== ownOrigin && origin !== publicOrigin);
        // A signed-in browser must also prove the request came from our own page.
        const sent =
          request.headers.get("x-csrf-token") ??
          (body && typeof body === "object" && "_csrf" in body ? String((body as Record<string, unknown>)._csrf) : null);
        // A signed upload URL is its own proof (like a bucket's presigned URL): no token needed.
        const signedUpload = request.method === "PUT" && path.startsWith("/api/uploads/");
        const missingToken = !signedUpload && state.session !== null && (!sent || !sameToken(sent, state.session.csrf));
        if (crossSite || missingToken) throw new DomainError("error.csrf", 403);
      }
      const denied = await accessDenied(deps, state, request, accessOf(request));
      // The framework answers a thrown error with its `status`: the answer's own (the landing page is a 200).
      if (denied) throw new DomainError("error.unauthorized", denied.status, { answer: () => denied });
    })
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
    // Every answer leaves compressed when it is worth it (src/lib/compression.ts). What is
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
    .onError(async (context) => {
      const { code, error, request } = context;
      const state = await requestState(deps, request);
      const refused = bodyRefusal(error);
      if (refused) return json({ message: state.t(refused.messageKey) }, 413);
      if (code === "VALIDATION") return refusalAnswer(deps, state, request, context, invalidInput(error.all));
      if (code === "PARSE" || code === "INVALID_COOKIE_SIGNATURE") return json({ message: state.t("error.badRequest") }, 400);
      if (code === "NOT_FOUND") return json({ message: state.t("error.notFound") }, 404);
      if (isDomainError(error)) return refusalAnswer(deps, state, request, context, error);
      return serverError(deps, state, request, error);
    })
    .use(shellFeature(deps))
    .use(authFeature(deps))
    .use(uploadsFeature(deps))
    .use(profilesFeature(deps))
    .use(activitiesFeature(deps))
    .use(availabilityFeature(deps))
    .use(paymentsFeature(deps))
    .use(bookingsFeature(deps))
    .use(conversationsFeature(deps))
    .use(reviewsFeature(deps))
    .use(reportsFeature(deps))
    .use(notificationsFeature(deps))
    .use(emailFeature(deps))
    .use(liveFeature(deps))
    .use(notFoundRoute(deps));

  /** What each route declared (its access level, how it answers a refusal), by method and path, read once all are registered. */
  let declared: Map<string, Record<string, unknown> | undefined> | undefined;
  function declaredDetail(method: string, route: string) {
    declared ??= new Map(app.routes.map((r) => [`${r.method} ${r.path}`, r.hooks?.detail as Record<string, unknown> | undefined]));
    return declared.get(`${method} ${route}`) ?? (method === "HEAD" ? declared.get(`GET ${route}`) : undefined) ?? declared.get(`ALL ${route}`);
  }

  return { app, deps };
}

export type App = ReturnType<typeof createApp>["app"];
