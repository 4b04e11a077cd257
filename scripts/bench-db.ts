/**
 * The bench's database and its servers' settings: DATA_DIR's SQLite file, or PostgreSQL when
 * the bench runs on it (`bun run bench -- --postgres`: scripts/bench.ts starts a throwaway
 * cluster and runs itself again with DATABASE_URL set).
 */
import { join } from "node:path";
import { migrate, openDb, type Db } from "../db/client";
import { engine } from "../db/engine";
import { startPostgres } from "../db/postgres";

/** The database to fill before the server starts, migrated. */
export async function openBenchDb(dataDir: string): Promise<Db> {
  if (engine === "postgres") return startPostgres(process.env.DATABASE_URL!);
  const db = openDb(join(dataDir, "offline.db"));
  await migrate(db);
  return db;
}

/** What a bench server is told of its database: the bench's PostgreSQL (one machine), or none (its DATA_DIR). */
export const serverDatabase = (): Record<string, string> => (engine === "postgres" ? { DATABASE_URL: process.env.DATABASE_URL!, ONE_MACHINE: "true" } : { DATABASE_URL: "" });

/** The engine the bench runs on, as the report names it. */
export const engineName = engine === "postgres" ? "PostgreSQL" : "SQLite";
