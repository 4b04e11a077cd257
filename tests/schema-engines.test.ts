import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { Database } from "bun:sqlite";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { closeDb, migrate, openDb, readMigrations } from "../db/client";
import { migratePostgres } from "../db/postgres";
import { startPostgres, type Postgres } from "./postgres";

/**
 * One data model for both engines (db/model.ts, docs/decisions/0038): each engine's committed
 * migrations, applied to an empty database, make the same tables, columns, keys and indexes, and
 * both migration folders are up to date with the model.
 */
const root = join(import.meta.dir, "..");

/** What a database holds, in terms both engines share. */
interface Shape {
  columns: Record<string, { type: string; nullable: boolean; hasDefault: boolean }>;
  primaryKey: string[];
  indexes: Record<string, { columns: string[]; unique: boolean; partial: boolean }>;
  foreignKeys: string[];
}

/** The column types each SQLite type may be on PostgreSQL (instants are 64-bit; flags are booleans; JSON is jsonb). */
const SAME_TYPE: Record<string, string[]> = { text: ["text", "jsonb"], integer: ["integer", "bigint", "boolean"] };

async function sqliteShape(): Promise<Record<string, Shape>> {
  const db = openDb(":memory:");
  try {
    await migrate(db);
    const sqlite = db.$client;
    const tables = sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name").all();
    const shapes: Record<string, Shape> = {};
    for (const { name } of tables) {
      const info = sqlite.query<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }, []>(`PRAGMA table_info("${name}")`).all();
      const indexes: Shape["indexes"] = {};
      for (const index of sqlite.query<{ name: string; unique: number; origin: string; partial: number }, []>(`PRAGMA index_list("${name}")`).all()) {
        if (index.origin !== "c") continue;
        const columns = sqlite.query<{ name: string }, []>(`PRAGMA index_info("${index.name}")`).all().map((c) => c.name);
        indexes[index.name] = { columns, unique: index.unique === 1, partial: index.partial === 1 };
      }
      const foreignKeys = sqlite
        .query<{ table: string; from: string; to: string; on_delete: string }, []>(`PRAGMA foreign_key_list("${name}")`)
        .all()
        .map((fk) => `${fk.from} → ${fk.table}.${fk.to} on delete ${fk.on_delete.toLowerCase()}`)
        .sort();
      shapes[name] = {
        columns: Object.fromEntries(info.map((c) => [c.name, { type: c.type.toLowerCase(), nullable: c.notnull === 0 && c.pk === 0, hasDefault: c.dflt_value !== null }])),
        primaryKey: info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
        indexes,
        foreignKeys,
      };
    }
    return shapes;
  } finally {
    await closeDb(db);
  }
}

async function postgresShape(url: string): Promise<Record<string, Shape>> {
  const client = new SQL(url, { max: 1 });
  try {
    await migratePostgres(client);
    const columns = await client<{ table_name: string; column_name: string; data_type: string; is_nullable: string; column_default: string | null }[]>`
      SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
      WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`;
    const keys = await client<{ table_name: string; column_name: string }[]>`
      SELECT t.relname AS table_name, a.attname AS column_name
      FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position) ON true
      JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE n.nspname = 'public' AND i.indisprimary ORDER BY t.relname, k.position`;
    const indexes = await client<{ table_name: string; index_name: string; column_name: string; unique: boolean; partial: boolean }[]>`
      SELECT t.relname AS table_name, c.relname AS index_name, a.attname AS column_name, i.indisunique AS unique, i.indpred IS NOT NULL AS partial
      FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position) ON true
      JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      WHERE n.nspname = 'public' AND NOT i.indisprimary ORDER BY t.relname, c.relname, k.position`;
    const foreignKeys = await client<{ table_name: string; definition: string }[]>`
      SELECT t.relname AS table_name, pg_get_constraintdef(c.oid) AS definition
      FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND c.contype = 'f'`;
    const shapes: Record<string, Shape> = {};
    for (const c of columns) {
      const shape = (shapes[c.table_name] ??= { columns: {}, primaryKey: [], indexes: {}, foreignKeys: [] });
      shape.columns[c.column_name] = { type: c.data_type, nullable: c.is_nullable === "YES", hasDefault: c.column_default !== null };
    }
    for (const k of keys) shapes[k.table_name]!.primaryKey.push(k.column_name);
    for (const i of indexes) {
      const index = (shapes[i.table_name]!.indexes[i.index_name] ??= { columns: [], unique: i.unique, partial: i.partial });
      index.columns.push(i.column_name);
    }
    for (const fk of foreignKeys) {
      // FOREIGN KEY (host_id) REFERENCES users(id) ON DELETE CASCADE
      const m = /^FOREIGN KEY \((\w+)\) REFERENCES (\w+)\((\w+)\)(?: ON DELETE (SET NULL|CASCADE))?/.exec(fk.definition)!;
      shapes[fk.table_name]!.foreignKeys.push(`${m[1]} → ${m[2]}.${m[3]} on delete ${(m[4] ?? "no action").toLowerCase()}`);
    }
    for (const shape of Object.values(shapes)) shape.foreignKeys.sort();
    return shapes;
  } finally {
    await client.close();
  }
}

let postgres: Postgres;
beforeAll(async () => {
  postgres = await startPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

describe("one data model on both engines", () => {
  test("both engines' migrations make the same tables, columns, keys and indexes", async () => {
    const onSqlite = await sqliteShape();
    const onPostgres = await postgresShape(await postgres.createDatabase("shape"));

    expect(Object.keys(onPostgres).sort()).toEqual(Object.keys(onSqlite).sort());
    expect(Object.keys(onSqlite).length).toBeGreaterThanOrEqual(23);
    for (const [table, sqlite] of Object.entries(onSqlite)) {
      const pg = onPostgres[table]!;
      // In any order: SQLite appends a column added later, PostgreSQL's single migration has the model's order.
      expect({ table, columns: Object.keys(pg.columns).sort() }).toEqual({ table, columns: Object.keys(sqlite.columns).sort() });
      for (const [column, s] of Object.entries(sqlite.columns)) {
        const p = pg.columns[column]!;
        expect({ column: `${table}.${column}`, nullable: p.nullable, hasDefault: p.hasDefault }).toEqual({ column: `${table}.${column}`, nullable: s.nullable, hasDefault: s.hasDefault });
        expect(SAME_TYPE[s.type] ?? [s.type]).toContain(p.type);
      }
      expect({ table, primaryKey: pg.primaryKey }).toEqual({ table, primaryKey: sqlite.primaryKey });
      expect({ table, indexes: pg.indexes }).toEqual({ table, indexes: sqlite.indexes });
      expect({ table, foreignKeys: pg.foreignKeys }).toEqual({ table, foreignKeys: sqlite.foreignKeys });
    }
  });

  test("instants are 64-bit on PostgreSQL, so a date after 2038 fits", async () => {
    const onPostgres = await postgresShape(await postgres.createDatabase("instants"));
    expect(onPostgres.bookings!.columns.starts_at!.type).toBe("bigint");
    expect(onPostgres.users!.columns.created_at!.type).toBe("bigint");
    expect(onPostgres.activities!.columns.active!.type).toBe("boolean");
    expect(onPostgres.activities!.columns.photos!.type).toBe("jsonb");
  });

  test("an event recorded before events were marked handled counts as handled once migrated, on both engines", async () => {
    /** Each engine's migrations, split at the one that adds the marks: those before it, and it with those after. */
    const split = async (folder: "db/migrations" | "db/migrations-pg") => {
      const tags = (JSON.parse(readFileSync(join(root, folder, "meta/_journal.json"), "utf8")) as { entries: { tag: string }[] }).entries.map((e) => e.tag);
      const at = tags.findIndex((tag) => tag.endsWith("_webhook_handled"));
      expect(at).toBeGreaterThan(0);
      const statements = (await readMigrations(folder)).map((m) => m.sql.map((q) => q.trim()).filter(Boolean));
      return { before: statements.slice(0, at).flat(), from: statements.slice(at).flat() };
    };
    const sqliteSteps = await split("db/migrations");
    const sqlite = new Database(":memory:");
    try {
      for (const q of sqliteSteps.before) sqlite.run(q);
      sqlite.run("INSERT INTO payment_events (id, type, received_at) VALUES ('evt_old', 'checkout.session.completed', 1700000000000)");
      for (const q of sqliteSteps.from) sqlite.run(q);
      expect(sqlite.query("SELECT claimed_at, handled_at FROM payment_events WHERE id = 'evt_old'").get()).toEqual({ claimed_at: 1700000000000, handled_at: 1700000000000 });
    } finally {
      sqlite.close();
    }
    const pgSteps = await split("db/migrations-pg");
    const client = new SQL(await postgres.createDatabase("handled_marks"), { max: 1 });
    try {
      for (const q of pgSteps.before) await client.unsafe(q);
      await client.unsafe("INSERT INTO payment_events (id, type, received_at) VALUES ('evt_old', 'checkout.session.completed', 1700000000000)");
      for (const q of pgSteps.from) await client.unsafe(q);
      const [row] = await client.unsafe("SELECT claimed_at, handled_at FROM payment_events WHERE id = 'evt_old'");
      expect({ claimed: Number(row.claimed_at), handled: Number(row.handled_at) }).toEqual({ claimed: 1700000000000, handled: 1700000000000 });
    } finally {
      await client.close();
    }
  });

  test("both migration folders are up to date with the model", () => {
    // drizzle-kit compares the model with the last migration's snapshot; a copy is used so a
    // change it would write lands in a temporary folder, never in the project.
    // drizzle-kit takes the folder relative to the project (.tmp/ is ignored by git).
    mkdirSync(join(root, ".tmp"), { recursive: true });
    const folder = relative(root, mkdtempSync(join(root, ".tmp", "migrations-")));
    try {
      for (const [dialect, schema, migrations] of [
        ["sqlite", "db/schema-sqlite.ts", "db/migrations"],
        ["postgresql", "db/schema-pg.ts", "db/migrations-pg"],
      ] as const) {
        const out = join(folder, dialect);
        cpSync(join(root, migrations), join(root, out), { recursive: true });
        const before = readdirSync(join(root, out)).sort();
        const run = Bun.spawnSync([join(root, "node_modules/.bin/drizzle-kit"), "generate", `--dialect=${dialect}`, `--schema=${schema}`, `--out=${out}`], { cwd: root, stdout: "pipe", stderr: "pipe" });
        const said = `${run.stdout.toString()}${run.stderr.toString()}`;
        expect({ dialect, exit: run.exitCode }).toEqual({ dialect, exit: 0 });
        expect({ dialect, files: readdirSync(join(root, out)).sort() }).toEqual({ dialect, files: before });
        expect(said).toContain("No schema changes");
      }
    } finally {
      rmSync(join(root, folder), { recursive: true, force: true });
    }
  });
});
