import { Elysia } from "elysia";
import type { Db } from "../db/client";
import type { User } from "../db/schema";
import { loadSession, type SessionInfo } from "./auth/service";
import type { Config } from "./config";
import { pickLocale, translator, type Locale, type Translate } from "./lib/i18n";
import type { AssetManifest } from "./lib/manifest";
import { parseCookies } from "./lib/http";
import { RateLimiter } from "./lib/rate-limit";
import type { Secrets } from "./lib/secrets";
import type { ObjectStorage } from "./uploads/storage";

/** Everything a request handler may need, made once per app (tests make one per suite). */
export interface Deps {
  id: string;
  config: Config;
  db: Db;
  secrets: Secrets;
  assets: AssetManifest;
  storage: ObjectStorage;
  limits: {
    loginByEmail: RateLimiter;
    loginByIp: RateLimiter;
    signupByIp: RateLimiter;
    /** Upload URLs made per user. */
    uploadsByUser: RateLimiter;
    /** Bytes of photos received per user. */
    uploadBytesByUser: RateLimiter;
  };
  /** Cookie names: `__Host-` prefixed where cookies are Secure. */
  cookies: { session: string; flash: string; lang: string; oauth: string };
  now: () => number;
}

export function makeLimits(): Deps["limits"] {
  const fifteenMinutes = 15 * 60 * 1000;
  const hour = 60 * 60 * 1000;
  return {
    loginByEmail: new RateLimiter(5, fifteenMinutes),
    loginByIp: new RateLimiter(30, fifteenMinutes),
    signupByIp: new RateLimiter(20, hour),
    // Filling a profile and a few activities takes about 20 photos; these stop a flood.
    uploadsByUser: new RateLimiter(60, hour),
    uploadBytesByUser: new RateLimiter(100 * 1024 * 1024, hour),
  };
}

export function cookieNames(config: Config): Deps["cookies"] {
  const prefix = config.secureCookies ? "__Host-" : "";
  return { session: `${prefix}sid`, flash: `${prefix}flash`, lang: "lang", oauth: `${prefix}oauth` };
}

/** What is known about the person making a request. */
export interface RequestState {
  user: User | null;
  session: SessionInfo | null;
  sessionToken: string | null;
  /** The session was extended: its cookie is sent again with the new lifetime. */
  sessionRenewed: boolean;
  cookies: Record<string, string>;
  locale: Locale;
  t: Translate;
  ip: string;
}

const cache = new WeakMap<Request, Promise<RequestState>>();

/** Reads the session and language once per request, whichever hook asks first. */
export function requestState(deps: Deps, request: Request, ip?: string): Promise<RequestState> {
  let state = cache.get(request);
  if (!state) {
    state = readState(deps, request, ip);
    cache.set(request, state);
  }
  return state;
}

async function readState(deps: Deps, request: Request, ip?: string): Promise<RequestState> {
  const cookies = parseCookies(request.headers.get("cookie"));
  const token = cookies[deps.cookies.session] ?? null;
  const loaded = token ? await loadSession(deps.db, token, deps.now()) : null;
  const locale = pickLocale({
    userLocale: loaded?.user.locale,
    cookie: cookies[deps.cookies.lang],
    acceptLanguage: request.headers.get("accept-language"),
    fallback: deps.config.defaultLanguage,
  });
  const forwarded = deps.config.trustProxy ? request.headers.get("x-forwarded-for")?.split(",")[0]?.trim() : undefined;
  return {
    user: loaded?.user ?? null,
    session: loaded?.session ?? null,
    sessionToken: loaded ? token : null,
    sessionRenewed: loaded?.renewed ?? false,
    cookies,
    locale,
    t: translator(locale),
    ip: forwarded || ip || "local",
  };
}

/**
 * The shared plugin every feature uses: `deps` and the request's `state`. Named with the app's
 * id so it runs once per request however many features use it.
 */
export function context(deps: Deps) {
  return new Elysia({ name: "offline.context", seed: deps.id })
    .decorate("deps", deps)
    .resolve({ as: "global" }, async ({ request, server }) => ({
      state: await requestState(deps, request, server?.requestIP(request)?.address),
    }));
}
