/**
 * Fills the app's database for benchmarks: `bun run seed --activities 10000`. The database is the
 * server's own: PostgreSQL when `DATABASE_URL` is set, else the SQLite file in DATA_DIR.
 * Loads the demo first when the database is empty, then adds generated activities.
 */
import { join } from "node:path";
import { closeDb, migrate, openDb, type Db } from "../db/client";
import { engine } from "../db/engine";
import { startPostgres } from "../db/postgres";
import { seedDemo, seedGeneratedActivities } from "../src/demo/seed";
import { loadConfig } from "../src/config";
import { paymentProviderName } from "../src/web/payments";

const i = process.argv.indexOf("--activities");
const count = Number(i >= 0 ? process.argv[i + 1] : 0);
if (!Number.isInteger(count) || count < 0 || count > 1_000_000) {
  console.error("Usage: bun run seed --activities N   (N from 0 to 1000000)");
  process.exit(1);
}

const config = loadConfig();
let db: Db;
let where: string;
if (engine === "postgres") {
  db = await startPostgres(config.databaseUrl!);
  where = "PostgreSQL (DATABASE_URL)";
} else {
  where = join(config.dataDir, "offline.db");
  db = openDb(where);
  await migrate(db);
}
await seedDemo(db, Date.now(), { provider: paymentProviderName(config) });
const started = performance.now();
await seedGeneratedActivities(db, count);
console.log(`Added ${count} activities in ${Math.round(performance.now() - started)} ms to ${where}.`);
await closeDb(db);
