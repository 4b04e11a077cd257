import type { SQL } from "bun";
import { getTableName } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import type { PgTable } from "drizzle-orm/pg-core";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { openPostgres, readMigrations, type Db } from "./client";
import * as pg from "./schema-pg";
import * as sqlite from "./schema-sqlite";

/** What the PostgreSQL side of the data model needs beyond its schema (docs/decisions/0038). */

/** Applies the committed PostgreSQL migrations (db/migrations-pg) the database has not had yet. */
export async function migratePostgres(client: SQL) {
  const internal = drizzle({ client }) as unknown as { dialect: { migrate(m: unknown, s: unknown, c: object): Promise<void> }; session: unknown };
  await internal.dialect.migrate(await readMigrations("db/migrations-pg"), internal.session, {});
}

/**
 * The app's PostgreSQL database, ready: migrated, with the row that counts the changes of every
 * machine (`data_version`, written here rather than by a migration, so that a freshly migrated
 * database is empty for `db:to-postgres`).
 */
export async function startPostgres(url: string): Promise<Db> {
  const db = openPostgres(url);
  const client = db.$client as unknown as SQL;
  await migratePostgres(client);
  await client.unsafe("INSERT INTO data_version (id, version) VALUES (1, 0) ON CONFLICT (id) DO NOTHING");
  return db;
}

/** Every table of the model by its name, as each engine's schema builds it. */
export function modelTables(): { name: string; sqlite: SQLiteTable; pg: PgTable }[] {
  return Object.entries(pg)
    .filter(([key]) => key !== "pgKit")
    .map(([key, table]) => ({ name: getTableName(table as unknown as PgTable), sqlite: (sqlite as unknown as Record<string, SQLiteTable>)[key]!, pg: table as unknown as PgTable }));
}
