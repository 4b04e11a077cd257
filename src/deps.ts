import type { RedisClient } from "bun";
import type { Db } from "../db/client";
import type { User } from "../db/schema";
import type { Config } from "./config";
import type { Locale, Translate } from "../lib/i18n";
import type { AssetManifest } from "../lib/manifest";
import type { JobRunner } from "./jobs/runner";
import { MemoryCounts, RateLimiter, RedisCounts, SlowDown, type Counts } from "../lib/rate-limit";
import type { Secrets } from "./operations/secrets";
import type { ObjectStorage } from "./ports/storage";
import type { PaymentEvents, PaymentProvider } from "./ports/payments";
import type { DomainEvents } from "./events";
import type { Presence } from "../lib/presence";
import type { LiveHub } from "./live/hub";
import type { Mailer } from "./ports/mail";
import type { PasswordHasher } from "./ports/passwords";

/**
 * The app's dependencies and the per-request state, as types every layer may import: services,
 * jobs and views take them without importing the Elysia plugin (src/context.ts) that fills them.
 */
/** Everything a request handler may need, made once per app (tests make one per suite). */
export interface Deps {
  id: string;
  config: Config;
  db: Db;
  secrets: Secrets;
  assets: AssetManifest;
  storage: ObjectStorage;
  /** Durable timed work; features register their job kinds on it. */
  jobs: JobRunner;
  /** The payment provider (Stripe, or the built-in test provider). */
  payments: PaymentProvider;
  /** Verified provider events (webhooks, or the test provider's own); bookings subscribe. */
  paymentEvents: PaymentEvents;
  /** Committed changes (bookings, messages), for the live channel and notifications (src/events.ts). */
  events: DomainEvents;
  /** Who has which conversation open (lib/presence.ts); the live channel keeps it. */
  presence: Presence;
  /** This process's live sockets and the broadcaster that reaches every process's (src/live/). */
  live: LiveHub;
  /** How passwords are hashed and checked (argon2id; tests hash cheaply). */
  passwords: PasswordHasher;
  /** Outgoing email: an SMTP server, or the outbox folder (src/email/, docs/decisions/0034). */
  mailer: Mailer;
  limits: {
    /**
     * Failed sign-ins per email and address together: reaching the limit locks only that pair.
     * Each check is counted before the password is, and a right password clears the pair.
     */
    loginByPair: RateLimiter;
    /** Failed sign-ins per address, whatever the email (counted before the check, given back when right). */
    loginByIp: RateLimiter;
    /** Failed sign-ins per email from every address: slows that email down, never locks it (counted and given back the same way). */
    loginByEmail: SlowDown;
    signupByIp: RateLimiter;
    /** Wrong current passwords per account (email and password changes together). */
    currentPassword: RateLimiter;
    /** Activities created per user. */
    activityCreate: RateLimiter;
    /** Upload URLs made per user. */
    uploadsByUser: RateLimiter;
    /** Bytes of photos received per user. */
    uploadBytesByUser: RateLimiter;
    /** Messages sent per user, across their conversations. */
    messagesByUser: RateLimiter;
    /** Reports filed per user. */
    reportsByUser: RateLimiter;
    /** Password reset emails per address: over it, nothing more is sent (the answer stays the same). */
    resetByEmail: RateLimiter;
    /** Password reset requests per network address: over it, 429. */
    resetByIp: RateLimiter;
    /** Verification links asked for again, per account. */
    verifyResend: RateLimiter;
    /** "Someone tried to sign up with your address" emails per address. */
    signupNotice: RateLimiter;
    /** Link-account emails per account. */
    linkEmail: RateLimiter;
    /**
     * Emails per recipient address, from every flow that emails an address someone typed
     * (sign-up, "Resend link", email change, password reset, sign-up notice, link-account), across
     * every requester: what one stranger's inbox can be sent, whoever asks.
     */
    emailsToAddress: RateLimiter;
    /** Test push notifications per person. */
    pushTestsByUser: RateLimiter;
    /** Copies of their data a person asks for (docs/decisions/0056): each reads all their rows and photos. */
    dataExportsByUser: RateLimiter;
  };
  /** Cookie names: `__Host-` prefixed where cookies are Secure. */
  cookies: { session: string; flash: string; lang: string; oauth: string };
  /**
   * The headers every page starts from (src/shell/render.ts): the security headers every answer
   * carries (src/security/headers.ts), the HTML type, `private, no-cache` and
   * `Vary: Accept-Encoding`. Copied into each page at once, never changed.
   */
  pageHeaders: Headers;
  now: () => number;
}

/**
 * The app's limits. With Redis (`REDIS_URL`) every process counts in it, so several processes or
 * machines limit one person together; without it, each counts in its own memory.
 */
export function makeLimits(shared: { redis: RedisClient; secret: string } | null = null): Deps["limits"] {
  const counts = (limiter: string): Counts => (shared ? new RedisCounts(shared.redis, limiter, shared.secret) : new MemoryCounts());
  const fifteenMinutes = 15 * 60 * 1000;
  const hour = 60 * 60 * 1000;
  return {
    loginByPair: new RateLimiter(5, fifteenMinutes, counts("loginByPair")),
    loginByIp: new RateLimiter(30, fifteenMinutes, counts("loginByIp")),
    // After 10 failures on one email, each try waits 0.5 s, 1 s, 2 s, 4 s, then 5 s at most.
    loginByEmail: new SlowDown(10, fifteenMinutes, 500, 5000, counts("loginByEmail")),
    signupByIp: new RateLimiter(20, hour, counts("signupByIp")),
    currentPassword: new RateLimiter(5, fifteenMinutes, counts("currentPassword")),
    activityCreate: new RateLimiter(20, hour, counts("activityCreate")),
    // Filling a profile and a few activities takes about 20 photos; these stop a flood.
    uploadsByUser: new RateLimiter(60, hour, counts("uploadsByUser")),
    uploadBytesByUser: new RateLimiter(100 * 1024 * 1024, hour, counts("uploadBytesByUser")),
    // A quick back-and-forth stays well under it; a script flooding a conversation does not.
    messagesByUser: new RateLimiter(30, 60 * 1000, counts("messagesByUser")),
    reportsByUser: new RateLimiter(10, hour, counts("reportsByUser")),
    resetByEmail: new RateLimiter(3, hour, counts("resetByEmail")),
    resetByIp: new RateLimiter(10, fifteenMinutes, counts("resetByIp")),
    verifyResend: new RateLimiter(3, hour, counts("verifyResend")),
    // At most one such email per address per hour, so sign-ups cannot flood someone's inbox.
    signupNotice: new RateLimiter(1, hour, counts("signupNotice")),
    linkEmail: new RateLimiter(3, hour, counts("linkEmail")),
    // Above any one flow's own allowance (3) with the sign-up's email besides, so a person's own
    // use of a flow alone never meets it; it bounds what every flow and requester together can
    // send. Strangers can spend it too (three resets for someone's address): the owner then waits
    // up to the hour, the price of a ceiling nobody can raise (decision 0044).
    emailsToAddress: new RateLimiter(5, hour, counts("emailsToAddress")),
    pushTestsByUser: new RateLimiter(5, 10 * 60 * 1000, counts("pushTestsByUser")),
    dataExportsByUser: new RateLimiter(10, hour, counts("dataExportsByUser")),
  };
}

export function cookieNames(config: Config): Deps["cookies"] {
  const prefix = config.secureCookies ? "__Host-" : "";
  return { session: `${prefix}sid`, flash: `${prefix}flash`, lang: "lang", oauth: `${prefix}oauth` };
}

export interface SessionInfo {
  sid: string;
  csrf: string;
  expire: number;
}

declare module "./jobs" {
  // A job's handler receives the whole of the app's dependencies.
  interface JobDeps extends Deps {}
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
