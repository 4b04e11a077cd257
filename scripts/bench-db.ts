/**
 * The bench's databases and their servers' settings: each section's folder has its own, a SQLite
 * file in it, or on PostgreSQL (`bun run bench -- --postgres`: scripts/bench.ts starts a
 * throwaway cluster and runs itself again with DATABASE_URL set) a database of its own in the
 * cluster, so that the sections' seeds do not meet.
 */
import { join } from "node:path";
import { SQL } from "bun";
import { migrate, openDb, type Db } from "../db/client";
import { engine } from "../db/engine";
import { startPostgres } from "../db/postgres";

/** Each folder's PostgreSQL database: the first folder gets DATABASE_URL's, the others one made beside it. */
const databases = new Map<string, string>();

async function postgresUrlOf(dataDir: string): Promise<string> {
  const known = databases.get(dataDir);
  if (known) return known;
  const base = new URL(process.env.DATABASE_URL!);
  let url = base.toString();
  if (databases.size > 0) {
    const name = `${base.pathname.slice(1)}_${databases.size + 1}`;
    const admin = new SQL(base.toString(), { max: 1 });
    try {
      await admin.unsafe(`CREATE DATABASE "${name}"`);
    } finally {
      await admin.close();
    }
    base.pathname = `/${name}`;
    url = base.toString();
  }
  databases.set(dataDir, url);
  return url;
}

/** The database to fill before the server starts, migrated. */
export async function openBenchDb(dataDir: string): Promise<Db> {
  if (engine === "postgres") return startPostgres(await postgresUrlOf(dataDir));
  const db = openDb(join(dataDir, "offline.db"));
  await migrate(db);
  return db;
}

/** What a bench server on `dataDir` is told of its database: that folder's PostgreSQL database (one machine), or none (the folder's file). */
export const serverDatabase = (dataDir: string): Record<string, string> => (engine === "postgres" ? { DATABASE_URL: databases.get(dataDir)!, ONE_MACHINE: "true" } : { DATABASE_URL: "" });

/** The engine the bench runs on, as the report names it. */
export const engineName = engine === "postgres" ? "PostgreSQL" : "SQLite";
