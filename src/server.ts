import { inArray } from "drizzle-orm";
import { migrate, openDb, type Db } from "../db/client";
import { users } from "../db/schema";
import { seedDemo } from "../db/seed";
import { createApp } from "./app";
import { ConfigError, loadConfig } from "./config";
import { loadManifest } from "./lib/manifest";
import { loadSecrets } from "./lib/secrets";
import { MAX_UPLOAD_BYTES } from "./uploads/service";
import { join } from "node:path";

/** Entry point: read config, open the database, migrate, seed an empty one, listen. */
async function main() {
  if (process.argv.includes("--health")) return healthCheck();
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const db = openDb(join(config.dataDir, "offline.db"));
  await migrate(db);
  if (config.demoData) {
    const seeded = await seedDemo(db);
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
    console.error(`REDIS_URL: cannot reach Redis (${err instanceof Error ? err.message : String(err)})`);
    process.exit(1);
  }

  deps.jobs.start();

  // Routes refuse bodies over their own limits (src/lib/body.ts); Bun refuses anything over
  // the largest of them, the photo upload, before the app sees it. With REUSE_PORT, several
  // processes listen on the same port and the system spreads connections among them.
  app.listen({ port: config.port, hostname: config.host, reusePort: config.reusePort, maxRequestBodySize: MAX_UPLOAD_BYTES + 1024 * 1024 });
  console.log(`Offline is running at ${config.publicUrl} (listening on ${config.host}:${app.server?.port}, process ${process.pid})`);

  const stop = () => {
    deps.jobs.stop();
    deps.live.close();
    app.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

/**
 * An operator address (ADMIN_EMAILS) with no account yet can be claimed by whoever signs up with
 * it first: the person running the server is told to create it now.
 */
async function warnUnclaimedOperators(db: Db, adminEmails: string[]) {
  if (!adminEmails.length) return;
  const found = new Set((await db.select({ email: users.email }).from(users).where(inArray(users.email, adminEmails))).map((u) => u.email?.toLowerCase()));
  for (const email of adminEmails) {
    if (!found.has(email)) console.warn(`ADMIN_EMAILS lists ${email}, which has no account yet: sign up with it now, since whoever signs up with it becomes an operator.`);
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
