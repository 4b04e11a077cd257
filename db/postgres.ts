import type { SQL } from "bun";
import { getTableName } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { migrate } from "drizzle-orm/bun-sql/migrator";
import type { PgTable } from "drizzle-orm/pg-core";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { join } from "node:path";
import * as pg from "./schema-pg";
import * as sqlite from "./schema";

/** What the PostgreSQL side of the data model needs beyond its schema (docs/decisions/0038). */

/** Applies the committed PostgreSQL migrations (db/migrations-pg) the database has not had yet. */
export async function migratePostgres(client: SQL) {
  await migrate(drizzle({ client }), { migrationsFolder: join(import.meta.dir, "migrations-pg") });
}

/** Every table of the model by its name, as each engine's schema builds it. */
export function modelTables(): { name: string; sqlite: SQLiteTable; pg: PgTable }[] {
  return Object.entries(pg)
    .filter(([key]) => key !== "pgKit")
    .map(([key, table]) => ({ name: getTableName(table as unknown as PgTable), sqlite: (sqlite as unknown as Record<string, SQLiteTable>)[key]!, pg: table as unknown as PgTable }));
}
