import { inArray } from "drizzle-orm";
import { databaseDamage, closeDb, migrate, openDb, type Db } from "../db/client";
import { startPostgres } from "../db/postgres";
import { users } from "../db/schema";
import { seedDemo } from "./demo/seed";
import { createApp } from "./app";
import { ConfigError, loadConfig, type Config } from "./config";
import { backupCommand } from "./operations/backup";
import { loadManifest } from "../lib/manifest";
import { loadSecrets } from "./operations/secrets";
import { exitBy, shutDown, STOP_DEADLINE_MS } from "./shutdown";
import { databaseFile, explainStartupFailure } from "./operations/startup";
import { paymentProviderName } from "./web/payments";
import { loggable } from "../db/faults";
import { MAX_UPLOAD_BYTES } from "../shared/limits";

/**
 * Entry point: read config, open the database, migrate, seed an empty one, listen. Also the
 * single binary's commands: `offline --health`, `offline backup <target>`.
 */
async function main() {
  if (process.argv.includes("--health")) return healthCheck();
  if (process.argv[2] === "backup") return backupCommand(process.argv.slice(3));
  let config: Config | undefined;
  try {
    config = loadConfig();
    await serve(config);
  } catch (err) {
    // What an operator can fix is said in one sentence naming the setting, folder or file; a
    // stack trace is for bugs.
    const sentence = explainStartupFailure(err, { dataDir: config?.dataDir ?? "", port: config?.port, host: config?.host });
    if (sentence === null) throw err;
    console.error(sentence);
    process.exit(1);
  }
}

async function serve(config: Config) {
  const db = await openDatabase(config);
  if (config.demoData) {
    // The demo's bookings are paid the way the app's provider can show (src/demo/seed.ts).
    const seeded = await seedDemo(db, Date.now(), { provider: paymentProviderName(config) });
    if (seeded) console.log(`Demo data loaded: ${seeded.hosts} hosts, ${seeded.activities} activities.`);
  }
  const secrets = await loadSecrets(config);
  const assets = await loadManifest();
  if (!assets.css) console.warn("Built CSS/JS not found: run `bun scripts/build.ts` (npm start does it).");
  const { app, deps } = createApp({ config, db, secrets, assets });
  await warnUnclaimedOperators(db, config.adminEmails);

  // With REDIS_URL, live updates from the other processes must arrive before clients connect.
  try {
    await deps.live.ready();
  } catch (err) {
    throw new ConfigError(`REDIS_URL: cannot reach Redis (${err instanceof Error ? err.message : String(err)})`);
  }

  // Routes refuse bodies over their own limits (lib/body.ts); Bun refuses anything over
  // the largest of them, the photo upload, before the app sees it. With REUSE_PORT, several
  // processes listen on the same port and the system spreads connections among them.
  app.listen({ port: config.port, hostname: config.host, reusePort: config.reusePort, maxRequestBodySize: MAX_UPLOAD_BYTES + 1024 * 1024 });
  // Once the port is ours: a process that cannot listen never takes the runner lease.
  deps.jobs.start();
  console.log(`Offline is running at ${config.publicUrl} (listening on ${config.host}:${app.server?.port}, process ${process.pid})`);

  // Elysia's own `app.stop()` forgets the server before it has stopped, so the bounded wait
  // could not cut what is left; the server is stopped directly (src/shutdown.ts).
  const server = app.server;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      console.log(`${signal} again: stopping at once.`);
      process.exit(1);
    }
    stopping = true;
    console.log(`${signal}: finishing the requests and work under way, then stopping (a second signal stops at once).`);
    // The graceful stop is bounded step by step; this bounds the whole, exit included.
    exitBy(STOP_DEADLINE_MS);
    void shutDown(server, deps).then(
      (finished) => {
        void closeDb(db);
        console.log(finished ? "Stopped." : "Stopped; some work was cut (it is retried or redone).");
        process.exit(0);
      },
      (err) => {
        console.error(`Stopping failed: ${loggable(err)}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

/**
 * An operator address (ADMIN_EMAILS) without an account, or whose account has not verified it
 * yet, has no operator: rights come only once the address is verified (docs/decisions/0034), so
 * the person running the server is told what is left to do.
 */
/**
 * The database the server runs on: PostgreSQL when DATABASE_URL is set, else DATA_DIR's SQLite
 * file, checked for damage; migrated either way.
 */
async function openDatabase(config: Config): Promise<Db> {
  if (config.databaseUrl) {
    try {
      return await startPostgres(config.databaseUrl);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new ConfigError(`DATABASE_URL: cannot use PostgreSQL at ${redactedUrl(config.databaseUrl)} (${reason})`);
    }
  }
  const dbFile = databaseFile(config.dataDir);
  const db = openDb(dbFile);
  const damage = databaseDamage(db, dbFile);
  if (damage) throw new ConfigError(damage);
  await migrate(db);
  return db;
}

/** A database URL as it may be printed: without its password. */
function redactedUrl(url: string) {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}

async function warnUnclaimedOperators(db: Db, adminEmails: string[]) {
  if (!adminEmails.length) return;
  const rows = await db.select({ email: users.email, verified: users.emailVerified }).from(users).where(inArray(users.email, adminEmails));
  const found = new Map(rows.map((u) => [u.email?.toLowerCase(), u.verified]));
  for (const email of adminEmails) {
    if (!found.has(email)) console.warn(`ADMIN_EMAILS lists ${email}, which has no account yet: sign up with it and follow the link emailed to it; operator rights come once the address is verified.`);
    else if (!found.get(email)) console.warn(`ADMIN_EMAILS lists ${email}, whose address is not verified yet: follow the link emailed to it (or ask for a new one in Settings); operator rights come once it is verified.`);
  }
}

/** `offline --health`: exits 0 when the server on PORT answers, for container health checks. */
async function healthCheck() {
  const port = process.env.PORT || "3000";
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
    process.exit(res.ok ? 0 : 1);
  } catch {
    process.exit(1);
  }
}

await main();
