import { Database, type Statement } from "bun:sqlite";
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { readAssetText } from "../src/lib/assets";
import { madeOnce } from "../src/lib/memo";
import { StartupError } from "../src/lib/startup";
import * as schema from "./schema";

export type Db = ReturnType<typeof openDb>;
/** The handle a write transaction's work gets: the same query builder, inside the transaction. */
export type WriteTx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** A value that is not a promise: a transaction's work must finish before it commits. */
type Synchronous<T> = T extends PromiseLike<unknown> ? never : T;

/**
 * Runs `work` in one write transaction started with `BEGIN IMMEDIATE`, so a read-then-write
 * cannot be interleaved with another writer; a throw rolls everything back. The work is
 * synchronous (bun:sqlite's transactions are): run statements with `.run()`, `.get()` and
 * `.all()`, and make outside calls (payment providers, files, hashing) before or after, never
 * inside. An async callback would commit at its first `await`, so it does not type-check.
 */
export function writeTransaction<T>(db: Db, work: (tx: WriteTx) => Synchronous<T>): T {
  openWriteTransactions++;
  try {
    return db.transaction((tx) => work(tx), { behavior: "immediate" }) as T;
  } finally {
    openWriteTransactions--;
  }
}

/**
 * Write transactions under way in this process. Their work is synchronous, so while one runs
 * nothing else does: a count is exact. (When transactions become asynchronous, decision 0038,
 * this becomes an AsyncLocalStorage mark of the work's own calls.)
 */
let openWriteTransactions = 0;

/**
 * Throws when called inside a write transaction. A transaction only touches the database: a
 * payment provider's call, an email or an outbound request made inside one would happen even when
 * the transaction rolls back, and would hold the database's write lock for as long as it takes.
 */
export function refuseInsideWriteTransaction(what: string) {
  if (openWriteTransactions > 0) throw new Error(`${what} inside a write transaction: make outside calls before or after it (db/client.ts, writeTransaction)`);
}

/** `service` with every method refusing to run inside a write transaction (`refuseInsideWriteTransaction`). */
export function outsideWriteTransactions<T extends object>(service: T, what: string): T {
  return new Proxy(service, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        refuseInsideWriteTransaction(`${what} (${String(key)})`);
        return value.apply(target, args);
      };
    },
  });
}

/**
 * Makes `make(db)` once per database handle and hands back the same result afterwards: the way
 * hot queries keep their prepared statements (built with `sql.placeholder` and `.prepare()`) for
 * as long as the app's database lives, instead of building and preparing SQL on every call.
 */
export const perDb = <T>(make: (db: Db) => T): ((db: Db) => T) => madeOnce(make);

/**
 * What the version is made of, per handle: this handle's writes, counted as they run
 * (`countWrites`: every statement that is not a plain SELECT counts, whatever it turned out to
 * change, so the count moves with every write of this connection and sometimes when nothing
 * changed, never the other way round), and other connections' commits as last seen.
 */
interface Version {
  writes: number;
  /** Moves when another connection commits (another process, a script, a second handle). */
  dataVersion: Statement<[number], []>;
  others: number;
  othersSeenAt: number;
}
const versions = new WeakMap<Database, Version>();
const READ_ONLY_SQL = /^\s*select\b/i;

function countWrites(sqlite: Database) {
  // Moves when another connection commits (another process, a script, a second handle); prepared
  // before the counting starts, as reading it writes nothing.
  const version: Version = { writes: 0, dataVersion: sqlite.prepare<[number], []>("PRAGMA data_version"), others: 0, othersSeenAt: Number.NEGATIVE_INFINITY };
  versions.set(sqlite, version);
  const counted = new WeakSet<object>();
  const counting = <S extends object>(statement: S, sql: string): S => {
    if (READ_ONLY_SQL.test(sql) || counted.has(statement)) return statement;
    counted.add(statement);
    const target = statement as unknown as Record<"run" | "all" | "get" | "values" | "iterate", (...args: unknown[]) => unknown>;
    for (const method of ["run", "all", "get", "values", "iterate"] as const) {
      const original = target[method]!.bind(statement);
      target[method] = (...args: unknown[]) => {
        try {
          return original(...args);
        } finally {
          version.writes++;
        }
      };
    }
    return statement;
  };
  const prepare = sqlite.prepare.bind(sqlite);
  const query = sqlite.query.bind(sqlite);
  const exec = sqlite.exec.bind(sqlite);
  sqlite.prepare = ((sql: string, ...rest: unknown[]) => counting(prepare(sql, ...(rest as [])), sql)) as typeof sqlite.prepare;
  sqlite.query = ((sql: string) => counting(query(sql), sql)) as typeof sqlite.query;
  const execCounted = ((sql: string, ...rest: unknown[]) => {
    try {
      return exec(sql, ...(rest as []));
    } finally {
      if (!READ_ONLY_SQL.test(sql)) version.writes++;
    }
  }) as typeof sqlite.exec;
  sqlite.exec = execCounted;
  sqlite.run = execCounted;
}

function versionOf(db: Db): Version {
  const version = versions.get(db.$client);
  if (!version) throw new Error("a database handle not opened by openDb");
  return version;
}

/** Reads other connections' commits now. Each request does once as it starts (src/context.ts). */
export function seeOtherConnections(db: Db) {
  const version = versionOf(db);
  version.others = Number(version.dataVersion.values()[0]![0]);
  version.othersSeenAt = performance.now();
}

/**
 * What changes whenever anything in the database does: a commit of another connection
 * (`PRAGMA data_version`, read now) or a write of this one.
 */
export function dbVersion(db: Db): string {
  seeOtherConnections(db);
  const version = versionOf(db);
  return `${version.others}:${version.writes}`;
}

/** Work outside a request (jobs, sockets) sees other connections' commits at most this late. */
const OTHERS_MAX_AGE_MS = 10;

/**
 * `dbVersion` as `readCache` reads it: every write of this handle, and other connections'
 * commits as of the start of the current request (or at most `OTHERS_MAX_AGE_MS` ago). Reading
 * `PRAGMA data_version` takes a shared-memory lock; a browse page would otherwise take it three
 * times. A request sees every commit made before it began, and all of its own writes.
 */
function recentDbVersion(db: Db): string {
  const version = versionOf(db);
  if (performance.now() - version.othersSeenAt > OTHERS_MAX_AGE_MS) seeOtherConnections(db);
  return `${version.others}:${version.writes}`;
}

/**
 * A cache of read results that lasts until the database changes in any way (`dbVersion`): hot
 * reads that many guests make alike (browse pages) run their queries once per change instead of
 * once per request. The version is read before `read` runs, so a result can only ever be newer
 * than its version, never older. At most `max` results per database are kept; all are dropped
 * at the first change. `read` must be synchronous and its result must not be modified.
 */
export function readCache<T>(max: number): (db: Db, key: string, read: () => T) => T {
  const caches = new WeakMap<Db, { version: string; entries: Map<string, T> }>();
  return (db, key, read) => {
    const version = recentDbVersion(db);
    let cache = caches.get(db);
    if (!cache || cache.version !== version) {
      cache = { version, entries: new Map() };
      caches.set(db, cache);
    }
    let value = cache.entries.get(key);
    if (value === undefined) {
      value = read();
      if (cache.entries.size >= max) cache.entries.delete(cache.entries.keys().next().value!);
      cache.entries.set(key, value);
    }
    return value;
  };
}

/**
 * Opens the SQLite file with the pragmas the app relies on: busy_timeout first (so a second
 * writer waits instead of failing), WAL for concurrent readers, foreign keys enforced.
 */
export function openDb(file: string) {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const sqlite = new Database(file, { create: true, strict: true });
  countWrites(sqlite);
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  return drizzle({ client: sqlite, schema });
}

/**
 * Refuses a damaged database before the server reads or writes it: `PRAGMA quick_check` reads
 * every page and checks its structure (not each index against its table, which the slower
 * `integrity_check` adds). A server started on a damaged file fails later, far from the cause,
 * or answers with what it can still read; a file copied while it was being written is such a
 * file. A file that is not a database at all fails sooner, on the first pragma (SQLITE_NOTADB).
 */
export function checkDatabase(db: Db, file: string) {
  const problems = db.$client.query<{ quick_check: string }, []>("PRAGMA quick_check").all().map((row) => row.quick_check);
  if (problems.length === 1 && problems[0] === "ok") return;
  const first = problems[0]!.replace(/\*\*\* in database \w+ \*\*\*/, "").replace(/\s+/g, " ").trim();
  const count = problems.length > 1 ? `; ${problems.length} problems in all` : "";
  throw new StartupError(`${file} is damaged (PRAGMA quick_check: ${first}${count}): restore it from a backup (README, "Backup and restore").`);
}

interface Journal {
  entries: { idx: number; when: number; tag: string; breakpoints: boolean }[];
}

/** Applies the committed migrations (db/migrations) that this database has not had yet. */
export async function migrate(db: Db) {
  const journal = JSON.parse(await readAssetText("db/migrations/meta/_journal.json")) as Journal;
  const migrations = [];
  for (const entry of journal.entries) {
    const query = await readAssetText(`db/migrations/${entry.tag}.sql`);
    migrations.push({
      sql: query.split("--> statement-breakpoint"),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: createHash("sha256").update(query).digest("hex"),
    });
  }
  // drizzle's own bun-sqlite migrator reads a folder from disk; the single binary has none, so
  // the same migration records are handed to its dialect directly.
  const internal = db as unknown as { dialect: { migrate(m: unknown, s: unknown, c: object): void }; session: unknown };
  internal.dialect.migrate(migrations, internal.session, {});
}
