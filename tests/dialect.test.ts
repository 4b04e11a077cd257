import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL as BunSQL } from "bun";
import { and, eq, not, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { closeDb, migrate, openDb, type Db, one, writeTransaction } from "../db/client";
import { postgresDialect, sqliteDialect, type Dialect } from "../db/dialect";
import { activityRow, userRow } from "../src/demo/factories";
import * as pg from "../db/schema-pg";
import * as sqlite from "../db/schema";
import { migratePostgres } from "../db/postgres";
import { join } from "node:path";
import { startPostgres, type Postgres } from "./postgres";

/**
 * The SQL that differs between the engines (db/dialect.ts): each fragment, run on SQLite and on
 * PostgreSQL over the same rows, picks the same rows and makes the same values.
 */
type Tables = typeof sqlite;
// The PostgreSQL tables have the SQLite tables' types (db/schema-pg.ts): the query below is
// written once and built by each engine's drizzle.
const pgTables = pg as unknown as Tables;

interface Engine {
  name: string;
  dialect: Dialect;
  t: Tables;
  /** Ids of `table` rows where `where` holds, sorted (a list parameter goes in as `sql.param`, as a prepared statement's value does). */
  ids(table: "users" | "messages" | "emailTokens" | "activities", where: (t: Tables) => SQL | undefined): Promise<string[]>;
  run(query: (t: Tables) => SQLWrapper): Promise<void>;
  readBy(id: string): Promise<string[]>;
  insert(table: keyof Tables, rows: Record<string, unknown>[]): Promise<void>;
}

/** Each table's key, read as `id`. */
const keyOf = (t: Tables, table: "users" | "messages" | "emailTokens" | "activities") => (table === "emailTokens" ? t.emailTokens.tokenHash : t[table].id);

let postgres: Postgres;
let lite: Db;
let client: BunSQL;
const engines: Engine[] = [];

const guest = userRow({ firstName: "Ana", photos: ["/objects/a", "/objects/b"] });
const host = userRow({ firstName: "Ben", photos: [] });
const activity = activityRow(host, { photos: ["/objects/c"] });
const hidden = activityRow(host, { active: false, title: "Hidden" });
const booking = { id: crypto.randomUUID(), guestId: guest.id, hostId: host.id, activityId: activity.id, startsAtLocal: "2026-12-01T10:00:00", timeZone: "UTC", startsAt: 1, endsAt: 2, durationMinutes: 60, hourlyRateCents: 4000, subtotalCents: 4000, serviceFeeCents: 400, totalCents: 4400, platformFeeCents: 800, hostEarningsCents: 3200, respondBy: 3 };
const message = (readBy: string[], senderId: string | null = guest.id) => ({ id: crypto.randomUUID(), bookingId: booking.id, senderId, content: "Hi", readBy, createdAt: 1 });
const messages = [message([guest.id]), message([guest.id, host.id]), message([], null), message([host.id], host.id)].map((m, i) => ({ ...m, seq: i + 1 }));
const token = (data: unknown) => ({ tokenHash: crypto.randomUUID(), userId: guest.id, purpose: "verify", email: "a@example.com", data, expiresAt: 1 });
const tokens = [token({ change: true, sid: null }), token(null), token({ provider: "google", subject: "s", providerEmail: null, next: "/" })];

beforeAll(async () => {
  postgres = await startPostgres();
  lite = openDb(":memory:");
  await migrate(lite);
  client = new BunSQL(await postgres.createDatabase("dialect"), { max: 2 });
  await migratePostgres(client);
  const onPg = drizzle({ client });

  engines.push(
    {
      name: "SQLite",
      dialect: sqliteDialect,
      t: sqlite,
      ids: async (table, where) => ((await lite.select({ id: keyOf(sqlite, table) }).from(sqlite[table] as typeof sqlite.users).where(where(sqlite))) as { id: string }[]).map((r) => r.id).sort(),
      run: async (query) => {
        // A write transaction has no drizzle `run`: the statement goes to its connection as SQL.
        const { sql: text, params } = new SQLiteSyncDialect().sqlToQuery(query(sqlite) as SQL);
        await writeTransaction(lite, (tx) => void tx.$client.query(text).run(...(params as never[])));
      },
      readBy: async (id) => (await one(lite.select({ readBy: sqlite.messages.readBy }).from(sqlite.messages).where(eq(sqlite.messages.id, id))))!.readBy,
      insert: async (table, rows) => void (await writeTransaction(lite, (tx) => tx.insert(sqlite[table] as typeof sqlite.users).values(rows as never))),
    },
    {
      name: "PostgreSQL",
      dialect: postgresDialect,
      t: pgTables,
      ids: async (table, where) => {
        const rows = (await onPg.select({ id: keyOf(pgTables, table) } as never).from(pg[table] as never).where(where(pgTables) as never)) as { id: string }[];
        return rows.map((r) => r.id).sort();
      },
      run: async (query) => void (await onPg.execute(query(pgTables) as SQL)),
      readBy: async (id) => ((await onPg.select({ readBy: pg.messages.readBy } as never).from(pg.messages as never).where(eq(pgTables.messages.id, id) as never)) as { readBy: string[] }[])[0]!.readBy,
      insert: async (table, rows) => void (await onPg.insert((pgTables as Record<string, unknown>)[table] as never).values(rows as never)),
    },
  );
  for (const e of engines) {
    await e.insert("users", [guest, host]);
    await e.insert("activities", [activity, hidden]);
    await e.insert("bookings", [booking]);
    await e.insert("messages", messages);
    await e.insert("emailTokens", tokens);
  }
});

afterAll(async () => {
  await client?.close();
  if (lite) await closeDb(lite);
  await postgres?.stop();
});

/** What each engine answers, by engine name. */
const both = async <T>(ask: (e: Engine) => Promise<T>) => Object.fromEntries(await Promise.all(engines.map(async (e) => [e.name, await ask(e)] as const)));

describe("the SQL that differs between the engines", () => {
  test("jsonListHas and its negation pick the same rows on both", async () => {
    const readByHost = await both((e) => e.ids("messages", (t) => e.dialect.jsonListHas(t.messages.readBy, host.id)));
    expect(readByHost.SQLite).toEqual([messages[1]!.id, messages[3]!.id].sort());
    expect(readByHost.PostgreSQL).toEqual(readByHost.SQLite);
    const unreadByHost = await both((e) => e.ids("messages", (t) => and(sql`${t.messages.senderId} IS DISTINCT FROM ${host.id}`, not(e.dialect.jsonListHas(t.messages.readBy, host.id)))));
    expect(unreadByHost.SQLite).toEqual([messages[0]!.id, messages[2]!.id].sort());
    expect(unreadByHost.PostgreSQL).toEqual(unreadByHost.SQLite);
    const withPhoto = await both((e) => e.ids("users", (t) => e.dialect.jsonListHas(t.users.photos, "/objects/b")));
    expect(withPhoto.SQLite).toEqual([guest.id]);
    expect(withPhoto.PostgreSQL).toEqual(withPhoto.SQLite);
  });

  test("jsonListAppend adds one string at the end, on both", async () => {
    const id = messages[0]!.id;
    const after = await both(async (e) => {
      await e.run((t) => sql`UPDATE ${t.messages} SET ${sql.identifier("read_by")} = ${e.dialect.jsonListAppend(t.messages.readBy, host.id)} WHERE ${t.messages.id} = ${id}`);
      return e.readBy(id);
    });
    expect(after.SQLite).toEqual([guest.id, host.id]);
    expect(after.PostgreSQL).toEqual(after.SQLite);
  });

  test("inJsonList takes a list of any length as one parameter", async () => {
    for (const wanted of [[activity.id], [activity.id, hidden.id, "nope"], []]) {
      const found = await both((e) => e.ids("activities", (t) => e.dialect.inJsonList(t.activities.id, sql.param(e.dialect.listParam(wanted)))));
      expect(found.SQLite).toEqual(wanted.filter((w) => w !== "nope").sort());
      expect(found.PostgreSQL).toEqual(found.SQLite);
    }
  });

  test("a JSON object's field: set to true, or absent (a JSON null or no object count as absent)", async () => {
    const changes = await both((e) => e.ids("emailTokens", (t) => e.dialect.jsonFieldIsTrue(t.emailTokens.data, "change")).then((ids) => ids));
    expect(changes.SQLite).toEqual([tokens[0]!.tokenHash]);
    expect(changes.PostgreSQL).toEqual(changes.SQLite);
    const checks = await both((e) => e.ids("emailTokens", (t) => e.dialect.jsonFieldIsNull(t.emailTokens.data, "change")));
    expect(checks.SQLite).toEqual([tokens[1]!.tokenHash, tokens[2]!.tokenHash].sort());
    expect(checks.PostgreSQL).toEqual(checks.SQLite);
    expect(() => sqliteDialect.jsonFieldIsTrue(sqlite.emailTokens.data, "x') OR 1=1 --")).toThrow();
  });

  test("isTrue, the flag as a literal, matches the listed activities on both", async () => {
    const listed = await both((e) => e.ids("activities", (t) => e.dialect.isTrue(t.activities.active)));
    expect(listed.SQLite).toEqual([activity.id]);
    expect(listed.PostgreSQL).toEqual(listed.SQLite);
  });
});

/** The lines of the app's own code (src, views, db; not `except`, nor the migrations) that match `pattern` and not `allowed`. */
async function sourceLines(pattern: RegExp, except: string, allowed?: RegExp) {
  const found: string[] = [];
  for await (const file of new Bun.Glob("{src,views,db}/**/*.{ts,tsx}").scan(join(import.meta.dir, ".."))) {
    if (file === except || file.startsWith("db/migrations")) continue;
    const text = await Bun.file(join(import.meta.dir, "..", file)).text();
    for (const [i, line] of text.split("\n").entries()) if (pattern.test(line) && !allowed?.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
  }
  return found;
}

describe("features write no engine's own SQL", () => {
  test("JSON functions and operators of one engine appear only in db/dialect.ts", async () => {
    expect(await sourceLines(/\bjson_(each|insert|extract|set|array|group_array)\s*\(|\bjsonb_\w+\s*\(|\bIS NOT \$\{/, "db/dialect.ts")).toEqual([]);
  });

  test("no query runs through SQLite's own .get(), .all() or .run(): each is awaited (db/client.ts, `one`)", async () => {
    // bun:sqlite's own statements (`$client.query(…)`, backups, pragmas) are SQLite's alone by nature.
    expect(await sourceLines(/\.(get|all|run)\((\s*\)|\{)/, "db/client.ts", /\.query[<(]|\$client|\.prepare<|headers\.|searchParams|cookies|formData/)).toEqual([]);
  });
});
