import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { closeDb, migrate, openDb, openPostgres, type Db, one, writeTransaction, writerClient } from "../db/client";
import { engine } from "../db/engine";
import { startPostgres } from "../db/postgres";
import { chronological } from "../src/bookings/order";
import { seedDemo } from "../src/demo/seed";
import { createApp, type AppOptions } from "../src/app";
import { createSession } from "../src/auth/service";
import type { PasswordHasher } from "../src/ports/passwords";
import type { Deps } from "../src/deps";
import { loadConfig } from "../src/config";
import { loadManifest } from "../lib/manifest";
import { RateLimiter } from "../lib/rate-limit";
import { loadSecrets } from "../src/operations/secrets";
import { ensureBuilt } from "./built";
import { makeJpeg } from "./images";
import { and, eq, gt, isNotNull } from "drizzle-orm";
import { simpleParser, type AddressObject } from "mailparser";
import { bookings, jobs, ledgerEntries, messages, users } from "../db/schema";
import { makeMailer, outboxDir, type MailLimits } from "../src/email/mailer";
import { paymentProviderName } from "../src/web/payments";

export const ORIGIN = "http://localhost";

/** Waits until `ok` holds, checking every `everyMs`; throws naming `what` after `timeoutMs`. */
export async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 10_000, everyMs = 20) {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(everyMs);
  }
}

/** Waits for the booking a payment intent's request is recording (sent, not yet answered) and answers its id. */
export async function bookingOfIntent(db: Db, intentId: string): Promise<string> {
  let id = "";
  await until("the request", async () => {
    id = (await one(db.select({ id: bookings.id }).from(bookings).where(eq(bookings.paymentIntentId, intentId))))?.id ?? "";
    return id !== "";
  }, 10_000, 1);
  return id;
}

/**
 * Waits until the app has done what its requests so far set off: every listener of the domain
 * events has finished, and no job is under way (emails and push notifications are jobs run at
 * once after the commit, each leased while it runs). Check that something did not happen after
 * this, not after a fixed sleep.
 */
export async function settled(deps: Pick<Deps, "db" | "events" | "now">, timeoutMs = 10_000) {
  await until("the app's event listeners and running jobs to finish", async () => {
    await deps.events.idle();
    return !await one(deps.db.select({ id: jobs.id }).from(jobs).where(and(isNotNull(jobs.leaseUntil), gt(jobs.leaseUntil, deps.now()))));
  }, timeoutMs, 10);
}

/**
 * A WebSocket route (method "WS" in `app.routes`) is reached by a GET asking to upgrade.
 * `app.handle` cannot switch protocols, so past every check the route's own answer is 400; the
 * sockets themselves are tested on a real server (tests/live.test.ts).
 */
export const UPGRADE_HEADERS = { upgrade: "websocket", connection: "Upgrade", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" };

/**
 * argon2id through the same Bun.password code as the app, at its lowest cost (8 KiB, one pass):
 * the suites sign up hundreds of people, and each full-cost hash takes a fifth of a second. The
 * hashes still name their own parameters, so `verify` reads these and the app's alike.
 */
export const testPasswords: PasswordHasher = {
  hash: (password) => Bun.password.hash(password, { algorithm: "argon2id", memoryCost: 8, timeCost: 1 }),
  verify: (password, hash) => Bun.password.verify(password, hash),
};

let migratedTemplate: string | undefined;

/**
 * A database file with every migration applied, made once per test process and copied for each
 * app (a copy costs a third of migrating anew). It is in rollback-journal mode so the one file
 * holds everything; `openDb` switches each copy to WAL.
 */
async function freshDatabase(file: string) {
  if (!migratedTemplate) {
    const dir = mkdtempSync(join(tmpdir(), "offline-template-"));
    const template = openDb(join(dir, "migrating.db"));
    await migrate(template);
    // A copy in rollback-journal mode, whole in one file.
    writerClient(template).exec(`VACUUM INTO '${join(dir, "offline.db")}'`);
    await closeDb(template);
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    migratedTemplate = join(dir, "offline.db");
  }
  copyFileSync(migratedTemplate, file);
  return openDb(file);
}

/**
 * On PostgreSQL (`TEST_DATABASE=postgres`: tests/preload.ts started a throwaway cluster), each app
 * gets a database of its own, copied from one migrated once per test process; by data directory,
 * so that an app made again on an earlier one's directory (a restart) finds the same database.
 */
const postgresDatabases = new Map<string, string>();
let postgresTemplate: Promise<string> | undefined;

async function postgresDatabase(dataDir: string): Promise<{ db: Db; url: string }> {
  const url = await postgresDatabaseUrl(dataDir);
  return { db: openPostgres(url), url };
}

/** The PostgreSQL database of a data directory (made on first use): what its app or server runs on. */
export async function postgresDatabaseUrl(dataDir: string): Promise<string> {
  const known = postgresDatabases.get(dataDir);
  if (known) return known;
  const cluster = globalThis.testPostgresCluster!;
  const admin = new SQL(cluster, { max: 1 });
  try {
    postgresTemplate ??= (async () => {
      await admin.unsafe(`CREATE DATABASE offline_template`);
      const template = new URL(cluster);
      template.pathname = "/offline_template";
      await closeDb(await startPostgres(template.toString()));
      return "offline_template";
    })().catch((err) => {
      postgresTemplate = undefined; // the next app tries again
      throw err;
    });
    const name = `offline_${crypto.randomUUID().replace(/-/g, "")}`;
    await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${await postgresTemplate}`);
    const url = new URL(cluster);
    url.pathname = `/${name}`;
    postgresDatabases.set(dataDir, url.toString());
    return url.toString();
  } finally {
    await admin.close();
  }
}

/** The database a server process on `dataDir` runs on (tests/server-process.ts), opened here too. */
export async function openDatabaseOf(dataDir: string): Promise<Db> {
  return engine === "postgres" ? openPostgres(await postgresDatabaseUrl(dataDir)) : openDb(join(dataDir, "offline.db"));
}

/**
 * A fresh app on a fresh database in a temporary data directory; `demo` loads the demo data into
 * it; `mailLimits` shortens how long the SMTP client waits on a mail server.
 */
export async function makeTestApp(opts: { env?: Record<string, string>; limits?: AppOptions["limits"]; now?: () => number; demo?: boolean; dataDir?: string; mailLimits?: Partial<MailLimits> } = {}) {
  // Handing in the data directory of an earlier app is a restart: same database, new process state.
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "offline-test-"));
  const file = join(dataDir, "offline.db");
  const onPostgres = engine === "postgres" ? await postgresDatabase(dataDir) : undefined;
  const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: ORIGIN, DEMO_DATA: "false", ...(onPostgres ? { DATABASE_URL: onPostgres.url, ONE_MACHINE: "true" } : {}), ...opts.env });
  const db = onPostgres ? onPostgres.db : opts.dataDir && existsSync(file) ? openDb(file) : await freshDatabase(file);
  if (opts.dataDir && !onPostgres) await migrate(db);
  // Elysia merges the `deps` decorator of each of the app's two dozen plugins into the app's by
  // walking it deeply, through drizzle's whole schema: about half a second per app. An object
  // whose toString names a class is taken whole instead (elysia/dist/utils.mjs, isClass), with
  // the same result. Only the test apps are marked: the server makes one app, the suites a hundred.
  Object.defineProperty(db, Symbol.toStringTag, { value: "BunSQLiteDatabase" });
  if (opts.demo) await seedDemo(db, opts.now?.(), { provider: paymentProviderName(config) });
  const secrets = await loadSecrets(config);
  // The pages link the built files, and the files are served from build/: as under `npm test`.
  await ensureBuilt();
  const assets = await loadManifest();
  // Suites sign up many people from one address and create many activities for one host; those
  // limits have their own tests.
  const limits = { signupByIp: new RateLimiter(100_000, 60_000), activityCreate: new RateLimiter(100_000, 60_000), ...opts.limits };
  // Emails go to the outbox (or the suite's SMTP server), without a log line for each one.
  const mailer = makeMailer(config, () => {}, opts.mailLimits);
  const { app, deps } = createApp({ config, db, secrets, assets, limits, now: opts.now, mailer, passwords: testPasswords });
  return {
    app,
    deps,
    db,
    dataDir,
    client: () => new Client(app, deps),
    cleanup: () => {
      rmSync(dataDir, { recursive: true, force: true });
      // The pool's connections end with it (a cluster has a limit); the database stays for a restart.
      if (onPostgres) void closeDb(db);
    },
  };
}

type Handler = { handle(request: Request): Promise<Response> };

/** An email the app wrote to its outbox (`DATA_DIR/outbox`, when no SMTP_URL is set). */
export interface OutboxEmail {
  file: string;
  to: string[];
  subject: string;
  text: string;
  /** Every http(s) link in the plain-text part, in order. */
  links: string[];
}

const parsedOutbox = new Map<string, OutboxEmail>();

/**
 * The emails of `kind` (verify, email-change, password-reset …: the outbox file names say it)
 * the app wrote for `to`, oldest first.
 */
export async function outboxEmails(dataDir: string, to: string, kind?: string): Promise<OutboxEmail[]> {
  const dir = outboxDir({ dataDir });
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir)
    .filter((n) => n.endsWith(".eml") && (!kind || n.includes(`-${kind}-`)))
    .sort();
  const out: OutboxEmail[] = [];
  for (const name of names) {
    const file = join(dir, name);
    let email = parsedOutbox.get(file);
    if (!email) {
      const parsed = await simpleParser(readFileSync(file));
      const text = parsed.text ?? "";
      const toList = ([] as AddressObject[]).concat(parsed.to ?? []).flatMap((a) => a.value.map((v) => (v.address ?? "").toLowerCase()));
      email = { file, to: toList, subject: parsed.subject ?? "", text, links: [...text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((m) => m[0]) };
      parsedOutbox.set(file, email);
    }
    if (email.to.includes(to.toLowerCase())) out.push(email);
  }
  return out;
}

/** Waits until the app has written its `count`-th email of `kind` to `to`, and answers that one. */
export async function waitForOutboxEmail(dataDir: string, to: string, kind: string, count = 1, timeoutMs = 10_000): Promise<OutboxEmail> {
  let found: OutboxEmail[] = [];
  await until(`email ${kind} #${count} to ${to}`, async () => (found = await outboxEmails(dataDir, to, kind)).length >= count, timeoutMs, 10);
  return found[count - 1]!;
}

/** The path and query of a link in an email, to follow it through `app.handle`. */
export const pathOfLink = (link: string) => {
  const url = new URL(link);
  return url.pathname + url.search;
};

/** Marks a person's address verified in the database: for suites that are not about email. */
export async function verifyEmailOf(t: { db: Deps["db"] }, userId: string) {
  await writeTransaction(t.db, (tx) => tx.update(users).set({ emailVerified: true }).where(eq(users.id, userId)));
}

/** The test provider's card that is always authorised. */
/** The activity the booking tests book: $40 an hour, 1 to 4 hours, in the host's city (New York). */
export const TENNIS = { title: "Tennis", description: "An hour of tennis.", category: "sports", hourlyRate: "40", duration: "1", maxDuration: "4" };

/** A host with the tennis activity, a guest and a stranger, each with a complete profile. */
export async function bookingParties(
  t: Awaited<ReturnType<typeof makeTestApp>>,
  profiles: { host?: Record<string, unknown>; guest?: Record<string, unknown>; stranger?: Record<string, unknown> } = {},
) {
  const host = t.client();
  const guest = t.client();
  const stranger = t.client();
  const hostId = (await host.signUpComplete(profiles.host)).user.id as string;
  const guestId = (await guest.signUpComplete(profiles.guest)).user.id as string;
  await stranger.signUpComplete(profiles.stranger);
  const res = await host.postJson("/api/activities", TENNIS);
  if (res.status !== 201) throw new Error(`creating the tennis activity answered ${res.status}`);
  const activityId = ((await res.json()) as { id: string }).id;
  return { host, guest, stranger, hostId, guestId, activityId };
}

/**
 * The booking dialog's first step, by a new guest: a two-hour booking at 10:00 on `date`, awaiting
 * payment and holding the time. Answers the guest and what the dialog answered (the booking, and
 * the hosted page's address and, with Stripe, its session).
 */
export async function dialogHold(t: Awaited<ReturnType<typeof makeTestApp>>, activityId: string, date: string) {
  const guest = t.client();
  await guest.signUpComplete();
  const res = await guest.postJson("/api/create-payment-intent", { activityId, hours: 2, amount: "88.00", proposedDate: date, proposedTime: "10:00", message: "Hello!" });
  if (res.status !== 200) throw new Error(`the booking dialog answered ${res.status}: ${await res.text()}`);
  return { guest, ...((await res.json()) as { bookingId: string; url: string; sessionId?: string }) };
}

export const TEST_CARD = { cardNumber: "4242 4242 4242 4242", expiry: "12/30", cvc: "123" };

/**
 * A booking request through the date-time flow as the guest's browser makes it: the payment
 * intent for the slot, the card confirmed with the test provider, then the booking. Hands back
 * each answer; `total` is the price the guest was shown (rate × hours × 1.1).
 */
export async function requestWithTestCard(
  guest: Client,
  b: { activityId: string; date: string; time?: string; hours: number; total: string; card?: typeof TEST_CARD },
) {
  const time = b.time ?? "10:00";
  const intent = (await (await guest.postJson("/api/create-payment-intent", { amount: b.total, metadata: { activityId: b.activityId, date: b.date, time, duration: String(b.hours) } })).json()) as Record<string, any>;
  const confirm = (await (await guest.postJson("/api/payments/test/confirm", { clientSecret: intent.clientSecret, ...(b.card ?? TEST_CARD) })).json()) as Record<string, any>;
  const res = await guest.postJson("/api/bookings", { activityId: b.activityId, proposedDatetime: `${b.date}T${time}:00`, durationHours: b.hours, priceTotal: b.total, paymentIntentId: intent.paymentIntentId });
  return { res, intent, confirm };
}

/**
 * The photo `signUpComplete` uploads, made once: small, as those suites do not look at it (the
 * upload suites make their own), so each sign-up costs a fifth of the image work of a full one.
 */
let profilePhoto: Promise<Uint8Array<ArrayBuffer>> | undefined;

/** A browser-like caller: keeps cookies and the CSRF token, sends same-origin headers. */
export class Client {
  cookies = new Map<string, string>();
  csrf = "";

  constructor(
    private app: Handler,
    private deps: Deps,
  ) {}

  async request(path: string, init: RequestInit & { json?: unknown; form?: Record<string, string>; csrf?: false } = {}) {
    const headers = new Headers(init.headers);
    const writes = init.method !== undefined && init.method !== "GET" && init.method !== "HEAD";
    if (!headers.has("origin") && writes) headers.set("origin", ORIGIN);
    // As our pages do: every write made with a session carries its CSRF token (`csrf: false` to test without).
    if (writes && this.csrf && init.csrf !== false && !headers.has("x-csrf-token")) headers.set("x-csrf-token", this.csrf);
    if (this.cookies.size) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    let body = init.body;
    if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    } else if (init.form) {
      headers.set("content-type", "application/x-www-form-urlencoded");
      body = new URLSearchParams(init.form).toString();
    }
    const res = await this.app.handle(new Request(ORIGIN + path, { ...init, headers, body, redirect: "manual" }));
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const i = pair!.indexOf("=");
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1).trim();
      const expired = attrs.some((a) => a.trim().toLowerCase() === "max-age=0");
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const token = res.headers.get("x-csrf-token");
    if (token) this.csrf = token;
    // Kept parts are written out before an answer leaves (lib/html/fragments.ts): none may leak.
    if (res.headers.get("content-type")?.startsWith("text/html") && !res.headers.get("content-encoding")) {
      const html = await res.clone().text();
      if (html.includes("<!--kept:") || html.includes("csrfslot")) throw new Error(`${path} answered with an unfilled kept part`);
    }
    return res;
  }

  get(path: string, headers: HeadersInit = {}) {
    return this.request(path, { headers });
  }

  /** A form post from one of our pages: carries the CSRF token as the hidden field does. */
  postForm(path: string, form: Record<string, string>, headers: HeadersInit = {}) {
    return this.request(path, { method: "POST", form: this.csrf ? { _csrf: this.csrf, ...form } : form, headers, csrf: false });
  }

  postJson(path: string, json: unknown, headers: HeadersInit = {}) {
    return this.request(path, { method: "POST", json, headers });
  }

  /** PUT with JSON and the CSRF token, as the islands call the API. */
  putJson(path: string, json: unknown) {
    return this.request(path, { method: "PUT", json });
  }

  /** Uploads a real photo through the three upload calls; returns its path. */
  async uploadPhoto(bytes?: Uint8Array<ArrayBuffer>, endpoint = "/api/profile-images") {
    const { uploadURL } = (await (await this.postJson("/api/objects/upload", {})).json()) as { uploadURL: string };
    const url = new URL(uploadURL, ORIGIN);
    const put = await this.request(url.pathname + url.search, { method: "PUT", body: bytes ?? (await makeJpeg()), headers: { "content-type": "image/jpeg" } });
    if (put.status !== 200) throw new Error(`upload failed: ${put.status}`);
    const done = await this.putJson(endpoint, { imageURL: uploadURL });
    if (done.status !== 200) throw new Error(`photo failed: ${done.status} ${await done.text()}`);
    return ((await done.json()) as { objectPath: string }).objectPath;
  }

  /**
   * Signs up, verifies the address (following the emailed link) and finishes onboarding, as a
   * person who can use the whole app; `verified: false` leaves the address unverified.
   */
  async signUpComplete(profile: Record<string, unknown> = {}, opts: { verified?: boolean } = {}) {
    const account = await this.signUp(profile.email as string | undefined);
    if (opts.verified !== false) await this.verifyEmail(account.email, account.user.id);
    const photo = await this.uploadPhoto(await (profilePhoto ??= makeJpeg({ width: 160, height: 120 })));
    const res = await this.putJson("/api/user/profile", {
      firstName: "Test",
      lastName: "Person",
      username: `user${Math.random().toString(36).slice(2, 10)}`,
      dateOfBirth: "1990-05-15",
      photos: [photo],
      country: "United States",
      city: "New York",
      ...profile,
    });
    if (res.status !== 200) throw new Error(`profile failed: ${res.status} ${await res.text()}`);
    return { ...account, user: (await res.json()) as { id: string; username: string; email: string } };
  }

  /** Starts a session for a person made with the factories, as signing in would. */
  async signInAs(userId: string) {
    const session = await createSession(this.deps.db, userId, this.deps.now());
    this.cookies.set(this.deps.cookies.session, session.token);
    this.csrf = session.csrf;
  }

  /**
   * Follows the verification link emailed to `email`, as the person would. With emails going to
   * an SMTP server (a suite's own fake), the address is marked verified in the database instead.
   */
  async verifyEmail(email: string, userId: string) {
    if (this.deps.mailer.mode !== "outbox") return verifyEmailOf(this.deps, userId);
    const mail = await waitForOutboxEmail(this.deps.config.dataDir, email, "verify");
    const link = mail.links.find((l) => l.includes("/verify-email?token="));
    if (!link) throw new Error(`no verification link in the email to ${email}`);
    let res = await this.get(pathOfLink(link));
    // An operator's address (ADMIN_EMAILS) is verified by the page's button, not by opening the link.
    if (res.status === 200 && (await res.clone().text()).includes('action="/verify-email"')) {
      res = await this.postForm("/verify-email", { token: new URL(link).searchParams.get("token")! });
    }
    if (res.status !== 200) throw new Error(`verifying ${email} answered ${res.status}`);
  }

  async signUp(email = `user${Math.random().toString(36).slice(2)}@example.com`, password = "secret123") {
    const res = await this.postJson("/api/register", { email, password });
    if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${await res.text()}`);
    return { email, password, user: (await res.json()) as { id: string; email: string } };
  }
}

/** A booking's ledger as "kind:amount" lines, sorted: what the money tests compare. */
export const ledgerLines = async (db: Db, bookingId: string) =>
  (await db.select().from(ledgerEntries).where(eq(ledgerEntries.bookingId, bookingId))).map((l) => `${l.kind}:${l.amountCents}`).sort();

/** The kinds of a booking's system messages, in order. */
export const systemMessageTypes = async (db: Db, bookingId: string) =>
  (await db.select().from(messages).where(eq(messages.bookingId, bookingId)).orderBy(...chronological)).filter((m) => m.isSystemMessage).map((m) => m.systemMessageType);
