import { SQL } from "bun";
import { count, getTableName } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { getTableConfig, type PgTable } from "drizzle-orm/pg-core";
import type { Db } from "../../db/client";
import { migratePostgres, modelTables } from "../../db/postgres";
import { ConfigError } from "../config";

/**
 * Copies a SQLite database into an empty PostgreSQL one (`bun run db:to-postgres`,
 * docs/decisions/0038): the way a marketplace moves from one machine to several.
 *
 * Every table of the model is copied whole, through drizzle on both sides, so each value is
 * read as the model's type and written as PostgreSQL stores it (flags become booleans, JSON text
 * becomes jsonb). All of it happens in one PostgreSQL transaction, in an order where every row's
 * foreign keys are already there; the row counts of both sides are compared before it commits.
 * Anything wrong rolls the whole copy back, leaving the target empty.
 */

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters for the widest table. */
const BATCH = 500;

/** The tables in an order where each comes after every table its foreign keys point to. */
function inForeignKeyOrder<T extends { name: string; pg: PgTable }>(tables: T[]): T[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const ordered: T[] = [];
  const placed = new Set<string>();
  const place = (table: T, path: string[]) => {
    if (placed.has(table.name)) return;
    if (path.includes(table.name)) throw new Error(`foreign keys in a circle: ${[...path, table.name].join(" → ")}`);
    for (const fk of getTableConfig(table.pg).foreignKeys) {
      const target = getTableName(fk.reference().foreignTable);
      if (target !== table.name) place(byName.get(target)!, [...path, table.name]);
    }
    placed.add(table.name);
    ordered.push(table);
  };
  for (const table of tables) place(table, []);
  return ordered;
}

export interface CopyReport {
  tables: { name: string; rows: number }[];
}

/**
 * Copies `source` (a migrated SQLite database) into the PostgreSQL database at `targetUrl`,
 * migrating it first. Refuses (`ConfigError`, before writing anything) when any table there already has a row.
 */
export async function copyToPostgres(source: Db, targetUrl: string, log: (line: string) => void = () => {}): Promise<CopyReport> {
  const client = new SQL(targetUrl, { max: 1 });
  try {
    await migratePostgres(client);
    const target = drizzle({ client });
    const tables = inForeignKeyOrder(modelTables());
    for (const table of tables) {
      const [row] = await target.select({ n: count() }).from(table.pg);
      if (row!.n > 0) throw new ConfigError(`the target database is not empty (${table.name} has ${row!.n} rows): the copy goes only into an empty database`);
    }
    const report: CopyReport = { tables: [] };
    // One read transaction on SQLite: every table as of the same moment, even if the app still writes.
    source.$client.exec("BEGIN");
    try {
      // A PostgreSQL transaction (drizzle over Bun's client, which keeps one connection for it):
      // asynchronous, and atomic across its awaits, unlike a bun:sqlite transaction.
      await target.transaction(async (tx) => {
        for (const table of tables) {
          const rows = (await source.select().from(table.sqlite)) as Record<string, unknown>[];
          for (let i = 0; i < rows.length; i += BATCH) await tx.insert(table.pg).values(rows.slice(i, i + BATCH));
          const [copied] = await tx.select({ n: count() }).from(table.pg);
          if (copied!.n !== rows.length) throw new Error(`${table.name}: ${rows.length} rows read, ${copied!.n} written`);
          report.tables.push({ name: table.name, rows: rows.length });
          log(`${table.name}: ${rows.length} rows`);
        }
      });
    } finally {
      source.$client.exec("COMMIT");
    }
    return report;
  } finally {
    await client.close();
  }
}
