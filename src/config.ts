import { z } from "zod";

/**
 * Every setting the server reads, validated once at start-up. All are optional: with none set,
 * the app runs on its embedded defaults (SQLite under ./data, the test payment provider, demo data).
 */
const flag = z
  .enum(["true", "false", "1", "0", "yes", "no", "on", "off"])
  .transform((v) => ["true", "1", "yes", "on"].includes(v));

const optional = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional();

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default("0.0.0.0"),
  DATA_DIR: z.string().min(1).default("./data"),
  PUBLIC_URL: z.url({ message: "PUBLIC_URL must be a full URL such as https://offline.example.com" }).optional(),
  DEMO_DATA: flag.default(true),
  TRUST_PROXY: flag.default(false),
  SESSION_SECRET: z.string().min(32, "SESSION_SECRET must be at least 32 characters").optional(),
  DEFAULT_LANGUAGE: z.enum(["en", "fr"]).default("en"),
  ADMIN_EMAILS: z.string().default(""),
  REUSE_PORT: flag.default(false),
  /** PostgreSQL, shared by several machines, in place of DATA_DIR's SQLite file (docs/decisions/0038). */
  DATABASE_URL: z
    .string()
    .trim()
    .transform((v) => (v === "" ? undefined : v))
    .pipe(z.url({ protocol: /^postgres(ql)?$/, message: "DATABASE_URL must be a postgres:// URL, such as postgres://offline:secret@db:5432/offline" }).optional())
    .optional(),
  /** PostgreSQL on one machine only: photos may stay in DATA_DIR and Redis may be left out. */
  ONE_MACHINE: flag.default(false),
  REDIS_URL: z
    .string()
    .trim()
    .transform((v) => (v === "" ? undefined : v))
    .pipe(z.url({ protocol: /^(rediss?|valkeys?)$/, message: "REDIS_URL must be a redis:// or rediss:// URL" }).optional())
    .optional(),

  GOOGLE_CLIENT_ID: optional,
  GOOGLE_CLIENT_SECRET: optional,
  GITHUB_CLIENT_ID: optional,
  GITHUB_CLIENT_SECRET: optional,
  OIDC_ISSUER: optional,
  OIDC_CLIENT_ID: optional,
  OIDC_CLIENT_SECRET: optional,
  OIDC_NAME: z.string().default("OpenID"),

  STRIPE_SECRET_KEY: optional,
  STRIPE_PUBLISHABLE_KEY: optional,
  STRIPE_WEBHOOK_SECRET: optional,
  STRIPE_API_BASE: optional,

  VAPID_PUBLIC_KEY: optional,
  VAPID_PRIVATE_KEY: optional,
  VAPID_SUBJECT: z.string().default("mailto:admin@localhost"),

  MAP_TILE_URL: z.string().default("https://tile.openstreetmap.org/{z}/{x}/{y}.png"),
  MAP_GEOCODER_URL: z.string().default("https://nominatim.openstreetmap.org/search"),
  MAP_ATTRIBUTION: z.string().default("© OpenStreetMap contributors"),

  SMTP_URL: z
    .string()
    .trim()
    .transform((v) => (v === "" ? undefined : v))
    .pipe(z.url({ protocol: /^smtps?$/, message: "SMTP_URL must be an smtp:// or smtps:// URL, such as smtp://user:password@mail.example.com:587" }).optional())
    .optional(),
  MAIL_FROM: optional,

  S3_BUCKET: optional,
  S3_ENDPOINT: optional,
  S3_REGION: optional,
  S3_ACCESS_KEY_ID: optional,
  S3_SECRET_ACCESS_KEY: optional,

  /** Past either, a copy of a person's data is prepared by a job and its link emailed (docs/decisions/0056). */
  EXPORT_AT_ONCE_MAX_ROWS: z.coerce.number().int().min(0).default(5000),
  EXPORT_AT_ONCE_MAX_BYTES: z.coerce.number().int().min(0).default(25 * 1024 * 1024),
});

export type Env = z.infer<typeof envSchema>;

export interface OAuthProviderConfig {
  id: "google" | "github" | "oidc";
  name: string;
  clientId: string;
  clientSecret: string;
  issuer?: string;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  publicUrl: string;
  /** Cookies get `Secure` unless the site is served over plain http. */
  secureCookies: boolean;
  demoData: boolean;
  trustProxy: boolean;
  /** Several processes may listen on the same port (SO_REUSEPORT): the system spreads connections among them. */
  reusePort: boolean;
  /** PostgreSQL in place of the SQLite file (docs/decisions/0038). */
  databaseUrl?: string;
  /** Live updates go through Redis pub/sub, so that clients of different processes reach each other. */
  redisUrl?: string;
  sessionSecret?: string;
  defaultLanguage: "en" | "fr";
  oauth: OAuthProviderConfig[];
  stripe?: { secretKey: string; publishableKey: string; webhookSecret?: string; apiBase?: string };
  vapid: { publicKey?: string; privateKey?: string; subject: string };
  s3?: { bucket: string; endpoint?: string; region?: string; accessKeyId?: string; secretAccessKey?: string };
  /** Map tiles and address search (OpenStreetMap by default); both are reached by the browser. */
  maps: { tileUrl: string; geocoderUrl: string; attribution: string };
  /** The operators: people signed in with one of these emails (lowercase), once verified, handle reports. */
  adminEmails: string[];
  /**
   * Outgoing email (docs/decisions/0034): through this SMTP server when `smtpUrl` is set, else
   * written as `.eml` files under `DATA_DIR/outbox/`. `from` is the sender every email names.
   */
  mail: { smtpUrl?: string; from: string };
  /**
   * A copy of a person's data (docs/decisions/0056) is answered at once up to these many rows
   * and bytes of photos; a larger one is prepared by a durable job and its link emailed.
   */
  dataExport: { atOnceMaxRows: number; atOnceMaxBytes: number };
}

/**
 * A reason the process cannot start (or run a command) as configured, already said as what an
 * operator reads: what is wrong, naming the setting, file or folder, and what to do. Thrown by
 * `loadConfig` for the environment, and by start-up steps that find such a reason themselves (a
 * damaged database, an unreadable secrets.json, an unreachable Redis or PostgreSQL).
 */
export class ConfigError extends Error {}

/** The address of a sender written `address` or `Name <address>`, or null when it is neither. */
export function senderAddress(from: string): string | null {
  const m = /^(?:[^<>\r\n]*<([^<>\s]+)>|([^<>\s]+))$/.exec(from.trim());
  const address = m?.[1] ?? m?.[2];
  return address && z.email().safeParse(address).success ? address : null;
}

/** Reads and checks the environment; throws a ConfigError listing every problem at once. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  const problems: string[] = [];
  const pair = (a: keyof Env, b: keyof Env) => {
    if (Boolean(e[a]) !== Boolean(e[b])) problems.push(`  ${a} and ${b} must be set together`);
    return Boolean(e[a] && e[b]);
  };

  const oauth: OAuthProviderConfig[] = [];
  if (pair("GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET"))
    oauth.push({ id: "google", name: "Google", clientId: e.GOOGLE_CLIENT_ID!, clientSecret: e.GOOGLE_CLIENT_SECRET! });
  if (pair("GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET"))
    oauth.push({ id: "github", name: "GitHub", clientId: e.GITHUB_CLIENT_ID!, clientSecret: e.GITHUB_CLIENT_SECRET! });
  if (e.OIDC_ISSUER || e.OIDC_CLIENT_ID) {
    if (!e.OIDC_ISSUER || !e.OIDC_CLIENT_ID) problems.push("  OIDC_ISSUER and OIDC_CLIENT_ID must be set together");
    else
      oauth.push({
        id: "oidc",
        name: e.OIDC_NAME,
        issuer: e.OIDC_ISSUER.replace(/\/+$/, ""),
        clientId: e.OIDC_CLIENT_ID,
        clientSecret: e.OIDC_CLIENT_SECRET ?? "",
      });
  }
  const hasStripe = pair("STRIPE_SECRET_KEY", "STRIPE_PUBLISHABLE_KEY");
  pair("VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY");
  if (e.S3_BUCKET && !(e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY))
    problems.push("  S3_BUCKET needs S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY");
  for (const key of ["MAP_TILE_URL", "MAP_GEOCODER_URL"] as const) {
    try {
      new URL(e[key].replace(/\{[a-z]\}/g, "0"));
    } catch {
      problems.push(`  ${key} must be a full URL`);
    }
  }
  const adminEmails = [...new Set(e.ADMIN_EMAILS.split(",").map((v) => v.trim().toLowerCase()).filter(Boolean))];
  for (const email of adminEmails) if (!z.email().safeParse(email).success) problems.push(`  ADMIN_EMAILS: "${email}" is not an email address`);
  // Several machines share PostgreSQL; what stays in one machine cannot work for the others.
  if (e.DATABASE_URL && !e.ONE_MACHINE) {
    if (!e.S3_BUCKET) problems.push("  DATABASE_URL needs S3_BUCKET: on several machines, photos kept in one machine's DATA_DIR cannot be served by the others (set ONE_MACHINE=true to run a single machine on PostgreSQL)");
    if (!e.REDIS_URL) problems.push("  DATABASE_URL needs REDIS_URL: on several machines, live chat, presence and rate limits must be shared through Redis (set ONE_MACHINE=true to run a single machine on PostgreSQL)");
  }
  if (e.MAIL_FROM && !senderAddress(e.MAIL_FROM)) problems.push(`  MAIL_FROM must be an address, such as "Offline <no-reply@example.com>"`);
  if (problems.length) throw new ConfigError(`Invalid configuration:\n${problems.join("\n")}`);

  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  const mailFrom = e.MAIL_FROM ?? `Offline <no-reply@${new URL(publicUrl).hostname}>`;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: e.DATA_DIR,
    publicUrl,
    secureCookies: publicUrl.startsWith("https://"),
    demoData: e.DEMO_DATA,
    trustProxy: e.TRUST_PROXY,
    reusePort: e.REUSE_PORT,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    sessionSecret: e.SESSION_SECRET,
    defaultLanguage: e.DEFAULT_LANGUAGE,
    oauth,
    stripe: hasStripe
      ? {
          secretKey: e.STRIPE_SECRET_KEY!,
          publishableKey: e.STRIPE_PUBLISHABLE_KEY!,
          webhookSecret: e.STRIPE_WEBHOOK_SECRET,
          apiBase: e.STRIPE_API_BASE,
        }
      : undefined,
    vapid: { publicKey: e.VAPID_PUBLIC_KEY, privateKey: e.VAPID_PRIVATE_KEY, subject: e.VAPID_SUBJECT },
    maps: { tileUrl: e.MAP_TILE_URL, geocoderUrl: e.MAP_GEOCODER_URL, attribution: e.MAP_ATTRIBUTION },
    adminEmails,
    mail: { smtpUrl: e.SMTP_URL, from: mailFrom },
    dataExport: { atOnceMaxRows: e.EXPORT_AT_ONCE_MAX_ROWS, atOnceMaxBytes: e.EXPORT_AT_ONCE_MAX_BYTES },
    s3: e.S3_BUCKET
      ? {
          bucket: e.S3_BUCKET,
          endpoint: e.S3_ENDPOINT,
          region: e.S3_REGION,
          accessKeyId: e.S3_ACCESS_KEY_ID,
          secretAccessKey: e.S3_SECRET_ACCESS_KEY,
        }
      : undefined,
  };
}
