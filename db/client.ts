import { Database } from "bun:sqlite";
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import { mkdirSync, statfsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { SQL } from "bun";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { drizzle as drizzlePostgres } from "drizzle-orm/bun-sql";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { readAssetText } from "../lib/assets";
import { connectionLost, failedPath, faultOf } from "./faults";
import { madeOnce, RecentlyUsed } from "../shared/memo";
import type { Engine } from "./engine";
import * as pgSchema from "./schema-pg";
import * as schema from "./schema-sqlite";

/** The query builder every query of the app is written against: awaited, never `.get()`/`.all()`/`.run()`. */
type Builder = BaseSQLiteDatabase<"async", unknown, typeof schema>;
type Statements = "insert" | "update" | "delete" | "run" | "all" | "get" | "values" | "batch" | "transaction";

/**
 * The app's database handle: reads only. Every write goes through `writeTransaction` (on SQLite,
 * on the writer connection, while this one refuses writes with `PRAGMA query_only`). Its type is
 * SQLite's builder on both engines; `$client` is bun:sqlite's on SQLite, Bun's `SQL` on PostgreSQL.
 */
export type Db = Omit<Builder, Statements> & { readonly $client: Database };
/** The handle a write transaction's work gets: reads and writes, inside the transaction. */
export type WriteTx = Omit<Builder, Exclude<Statements, "insert" | "update" | "delete">> & { readonly $client: Database };

/**
 * The first row of a query, or undefined: `await one(db.select()…)`. Both engines' query builders
 * are awaited the same way; SQLite's `.get()` has no PostgreSQL twin.
 */
export async function one<T>(query: PromiseLike<T[]>): Promise<T | undefined> {
  return (await query)[0];
}

/** The row an `INSERT … RETURNING` wrote: `await written(tx.insert(t).values(v).returning())`. */
export async function written<T>(query: PromiseLike<T[]>): Promise<T> {
  const [row] = await query;
  if (row === undefined) throw new Error("an INSERT … RETURNING returned no row");
  return row;
}

/** What each database handle holds beside its reads: how it writes, and what says it changed. */
interface Handle {
  engine: Engine;
  /** Runs `work` as one write transaction (the caller has set the mark); retried where the engine asks. */
  transact<T>(work: (tx: WriteTx) => Promise<T> | T, options: WriteOptions): Promise<T>;
  /** After a committed write transaction, outside its mark: tells the other machines (PostgreSQL). */
  committed?(): Promise<void>;
  /** Reads the other connections' (machines') commits now. */
  readOthers(): number | Promise<number>;
  version: Version;
  /** SQLite: the writer connection (migrations, scripts and tests' raw SQL). */
  writer?: WriteTx;
  /**
   * PostgreSQL: kept reads last at most this long, whatever the count says. A machine that died
   * between a commit and moving the count leaves it unmoved until someone's next commit.
   */
  keptAtMostMs?: number;
  /** SQLite: the bytes free on the disk that holds the file (null when that cannot be told). */
  freeBytes?(): number | null;
  /**
   * Set when a write failed for want of space (`noteFailure`), with the bytes free then on the disk
   * that ran out (the database's, or the folder a file write named); cleared once there is room again.
   */
  outOfSpace?: { free: number | null; folder?: string };
  close(): Promise<void>;
}
const handles = new WeakMap<object, Handle>();

function handleOf(db: Db | WriteTx): Handle {
  const handle = handles.get(db);
  if (!handle) throw new Error("a database handle not opened by openDb or openPostgres");
  return handle;
}

/** The engine a handle runs on. */
export const engineOf = (db: Db): Engine => handleOf(db).engine;

/** Marks the calls made by a write transaction's work, however deep and however many awaits later. */
const insideWriteTransaction = new AsyncLocalStorage<true>();

/**
 * Runs `work` in one write transaction; a throw rolls everything back. On SQLite it runs on the
 * writer connection, started with `BEGIN IMMEDIATE`, one at a time in this process, so a
 * read-then-write cannot be interleaved with another writer. On PostgreSQL it runs at
 * SERIALIZABLE and is run again from the start when PostgreSQL found it raced another
 * (`runSerializable`). The work only touches the database, through `tx`: payment providers,
 * email, push and outbound requests refuse to run inside it (`refuseInsideWriteTransaction`), as
 * does a read through the app's own handle, which would not see the transaction's writes.
 */
export async function writeTransaction<T>(db: Db, work: (tx: WriteTx) => Promise<T> | T, options: WriteOptions = {}): Promise<T> {
  if (insideWriteTransaction.getStore()) throw new Error("a write transaction inside another: pass the transaction's handle down instead (db/client.ts)");
  const handle = handleOf(db);
  try {
    let result: T;
    try {
      result = await insideWriteTransaction.run(true, () => handle.transact(work, options));
    } catch (error) {
      noteFailure(db, error);
      throw error;
    }
    // A commit on PostgreSQL is the sign its disk takes writes again (SQLite looks at its disk instead: `storageTrouble`).
    if (handle.engine === "postgres" && !handle.outOfSpace?.folder) handle.outOfSpace = undefined;
    if (!options.keptReadsStay) await handle.committed?.();
    return result;
  } finally {
    // Whatever was read and kept during the transaction is of no version anyone else saw.
    if (!options.keptReadsStay) handle.version.writes++;
  }
}

export interface WriteOptions {
  /**
   * The transaction writes only bookkeeping rows that no kept read (`readCache`) reads: the job
   * runner's lease and its jobs' leases. Such a write moves no version, so what is kept stays: the
   * runner renews its lease and looks for due jobs every few seconds, and every kept read of the
   * process (browse pages, activity pages, sessions) was otherwise read again after each look.
   */
  keptReadsStay?: boolean;
}

/**
 * Throws when called inside a write transaction. A transaction only touches the database: a
 * payment provider's call, an email or an outbound request made inside one would happen even when
 * the transaction rolls back, and would hold the database's write lock for as long as it takes.
 */
export function refuseInsideWriteTransaction(what: string) {
  if (insideWriteTransaction.getStore()) throw new Error(`${what} inside a write transaction: make outside calls before or after it (db/client.ts, writeTransaction)`);
}

/**
 * Room a disk must have again, beyond what it had when a write failed for want of space, before
 * the database is taken to be writable again: a write that needed more than the few bytes freed
 * since would only fail again.
 */
const ROOM_AGAIN_BYTES = 8 * 1024 * 1024;

/**
 * Notes a failure of a write for want of space (SQLITE_FULL, ENOSPC, PostgreSQL's 53100), whether
 * in a write transaction (noted there) or in a file the app writes beside the database (photos),
 * so that `storageTrouble` says so until there is room again.
 */
export function noteFailure(db: Db, error: unknown) {
  if (faultOf(error)?.kind !== "full") return;
  const handle = handleOf(db);
  // A file write (a photo) names its path: that disk is the one to watch, which may not be the
  // database's (uploads on a mount of their own).
  const path = failedPath(error);
  const folder = path ? dirname(path) : undefined;
  handle.outOfSpace = folder ? { free: freeBytesOf(folder), folder } : { free: handle.freeBytes?.() ?? null };
}

/**
 * What keeps the database from taking writes now, for the health probe, or null: "the disk is
 * full" from a write that failed for want of space until the disk has room again (SQLite: its
 * free bytes grew by `ROOM_AGAIN_BYTES`, on the disk that ran out; PostgreSQL, whose disk the
 * app cannot see: a write transaction committed, or for a file's disk, its free bytes grew).
 */
export function storageTrouble(db: Db): string | null {
  const handle = handleOf(db);
  const full = handle.outOfSpace;
  if (!full) return null;
  const free = full.folder ? freeBytesOf(full.folder) : (handle.freeBytes?.() ?? null);
  if (free !== null && full.free !== null && free >= full.free + ROOM_AGAIN_BYTES) {
    handle.outOfSpace = undefined;
    return null;
  }
  return "the disk is full";
}

/** The bytes an unprivileged writer may still use on the disk holding `folder` (root may use a few more), or null. */
function freeBytesOf(folder: string): number | null {
  try {
    const stats = statfsSync(folder);
    return stats.bavail * stats.bsize;
  } catch {
    return null;
  }
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
 * A LIMIT written into a statement's text, for `.limit(...)` of a statement prepared once per
 * limit (`perLimit`). SQLite plans a statement whose LIMIT is a parameter again each time it
 * runs (the planner reads the limit's value): the activity page's reviews took 13 µs with
 * `limit ?` against 0.5 µs with the number written in, a browse page 79 µs against 45.
 */
export function literalLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`a limit is a whole number, not ${limit}`);
  // drizzle writes an SQL chunk given as the limit as it is (its builders type the limit as a number or a placeholder).
  return sql.raw(String(limit)) as unknown as number;
}

/** `make(limit)` once per limit: the statements of `literalLimit`, whose callers each pass a few constant limits. */
export function perLimit<T>(make: (limit: number) => T): (limit: number) => T {
  const made = new Map<number, T>();
  return (limit) => {
    let statement = made.get(limit);
    if (statement === undefined) {
      // A caller passing ever new limits would fill this: a few dozen are kept.
      if (made.size >= 64) made.clear();
      made.set(limit, (statement = make(limit)));
    }
    return statement;
  };
}

/**
 * What the version is made of, per handle: this process's write transactions, counted as they
 * end, and other connections' commits (other processes, other machines, scripts) as last seen.
 */
interface Version {
  writes: number;
  others: number;
  /**
   * How far `others` moved by this process's own commits that move no version (`keptReadsStay`,
   * SQLite: the writer's commits move the count the reader sees, as another connection's would).
   */
  quiet: number;
  othersSeenAt: number;
  /** The last key made of these (`versionName`). */
  named?: { writes: number; others: number; period: number; name: string };
}

/** Reads other connections' commits now: each request does, as it starts, when other processes may write (`othersWriteToo`, src/context.ts). */
export async function seeOtherConnections(db: Db) {
  await lookAtOthers(handleOf(db), performance.now(), () => undefined);
}

/**
 * Reads the other connections' commit count, begun at `startedAt`, then answers `then()`: at once
 * where the engine answers at once (SQLite), so that requests arriving together do not each read
 * it again before the first has noted it; otherwise once the count arrives.
 */
function lookAtOthers<T>(handle: Handle, startedAt: number, then: () => T): T | Promise<T> {
  const others = handle.readOthers();
  if (typeof others === "number") {
    noteOthers(handle.version, others, startedAt);
    return then();
  }
  return others.then((count) => {
    noteOthers(handle.version, count, startedAt);
    return then();
  });
}

function noteOthers(version: Version, others: number, startedAt: number) {
  // Both counts only grow. On PostgreSQL reads overlap, and the answer of one begun earlier may
  // arrive after a newer one: it must not put the older count back.
  if (others >= version.others) {
    version.others = others;
    version.othersSeenAt = Math.max(version.othersSeenAt, startedAt);
  }
}

/**
 * What changes whenever anything in the database does: a commit of another connection or
 * machine (read now) or a write transaction of this process.
 */
export async function dbVersion(db: Db): Promise<string> {
  await seeOtherConnections(db);
  const version = handleOf(db).version;
  return `${version.others - version.quiet}:${version.writes}`;
}

/** Work outside a request (jobs, sockets), and requests of a process alone on its file, see other connections' commits at most this late. */
const OTHERS_MAX_AGE_MS = 10;

/**
 * `dbVersion` as `readCache` reads it: every write transaction of this process, and other
 * connections' commits as of the start of the current request where other processes may write
 * (or at most `OTHERS_MAX_AGE_MS` ago). Reading `PRAGMA data_version` takes a shared-memory lock;
 * a browse page would otherwise take it three times. A request sees all of its own writes, and
 * every commit another process made before it began (decision 0041).
 */
function recentDbVersion(db: Db): string | Promise<string> {
  const handle = handleOf(db);
  const now = performance.now();
  // Synchronous unless the look must wait for an answer: most pages ask several kept reads in turn.
  if (now - handle.version.othersSeenAt > OTHERS_MAX_AGE_MS) return lookAtOthers(handle, now, () => versionName(handle, now));
  return versionName(handle, now);
}

/** The version as a key, made again only when one of its parts changed (it is asked several times a page). */
function versionName({ version, keptAtMostMs }: Handle, now: number): string {
  const period = keptAtMostMs ? Math.floor(now / keptAtMostMs) : 0;
  const named = version.named;
  const others = version.others - version.quiet;
  if (named && named.writes === version.writes && named.others === others && named.period === period) return named.name;
  const name = keptAtMostMs ? `${others}:${version.writes}:${period}` : `${others}:${version.writes}`;
  version.named = { writes: version.writes, others, period, name };
  return name;
}

/**
 * Whether each request must first look for other processes' commits (`seeOtherConnections`):
 * when several processes share the SQLite file (REUSE_PORT), or on PostgreSQL (other machines).
 * A process alone on its file sees its own writes at once without looking (write transactions
 * and `writerClient` count them) and anything else (a script) within `OTHERS_MAX_AGE_MS`: that
 * look takes SQLite's shared-memory locks, a few microseconds of every page.
 */
export const othersWriteToo = (db: Db, severalProcesses: boolean) => severalProcesses || handleOf(db).engine === "postgres";

/**
 * A cache of read results that lasts until the database changes in any way (`dbVersion`): hot
 * reads that many guests make alike (browse pages) run their queries once per change instead of
 * once per request. The version is read before `read` starts, so a result can only ever be newer
 * than its version, never older. At most `max` results per database are kept; all are dropped
 * at the first change. The promise is kept, so callers at the same moment share one read; a read
 * that fails is forgotten. Inside a write transaction nothing is kept: `tx` sees writes no one
 * else sees yet. The result must not be modified.
 *
 * A read again after a change that gives what an earlier read of its key gave (the change was
 * elsewhere: a message, a booking, the job runner's lease) hands out the earlier object itself.
 * What was made once from it (kept page parts and their compressed bytes, `madeOnce`) then stays
 * made, instead of every page being drawn and compressed again after any write anywhere.
 */
export function readCache<T>(max: number): (db: Db, key: string, read: () => Promise<T>) => Promise<T> {
  interface Generation {
    version: string;
    entries: Map<string, Promise<T>>;
    /**
     * What each key's read last gave, whatever version that was (at most `max` keys, the least
     * recently read let go first). Any earlier version will do: equal means equal. Looking only
     * one version back was not enough: two writes close together (the job runner's lease, then its
     * job) made a version in between that few keys were read in, and the next read of every other
     * key found nothing to compare with, so every page was drawn again.
     */
    lastKnown: RecentlyUsed<string, T>;
  }
  const caches = new WeakMap<Db, Generation>();
  const lookUp = (db: Db, key: string, read: () => Promise<T>, version: string): Promise<T> => {
    let cache = caches.get(db);
    if (!cache || cache.version !== version) {
      cache = { version, entries: new Map(), lastKnown: cache?.lastKnown ?? new RecentlyUsed(max) };
      caches.set(db, cache);
    }
    const { entries, lastKnown } = cache;
    const kept: Promise<T> | undefined = entries.get(key);
    if (kept) return kept;
    const value: Promise<T> = read().then((fresh) => {
      const before = lastKnown.get(key);
      const same = before !== undefined && Bun.deepEquals(before, fresh, true) ? before : fresh;
      lastKnown.set(key, same);
      return same;
    });
    if (entries.size >= max) entries.delete(entries.keys().next().value!);
    entries.set(key, value);
    void value.catch(() => {
      const now: Promise<T> | undefined = entries.get(key);
      if (now === value) entries.delete(key);
    });
    return value;
  };
  // Not async: a kept read is handed out as the promise it is kept as, without a promise around it.
  return (db, key, read) => {
    if (insideWriteTransaction.getStore()) return read();
    const version = recentDbVersion(db);
    return typeof version === "string" ? lookUp(db, key, read, version) : version.then((v) => lookUp(db, key, read, v));
  };
}

/** Opens one connection to the file with the pragmas the app relies on. */
function connect(file: string) {
  const sqlite = new Database(file, { create: true, strict: true });
  // busy_timeout first, so a second writer waits instead of failing; WAL for readers beside the
  // writer; foreign keys enforced.
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  return sqlite;
}

/**
 * The app's read handle refuses to run a query inside a write transaction: it would not see the
 * transaction's writes, and a write transaction's work reads through `tx`. The check sits on
 * drizzle's prepared queries (plain objects), not on bun:sqlite's statements: replacing a native
 * statement's methods made every query of the hot pages about a quarter slower (bun run bench).
 */
function refuseInsideTransactions(reader: Db) {
  type Query = Record<"run" | "all" | "get" | "values", (...args: unknown[]) => unknown>;
  const session = (reader as unknown as { session: { prepareQuery: (...args: unknown[]) => Query } }).session;
  const prepareQuery = session.prepareQuery.bind(session);
  session.prepareQuery = (...args: unknown[]) => {
    const query = prepareQuery(...args);
    for (const method of ["run", "all", "get", "values"] as const) {
      const original = query[method].bind(query);
      query[method] = (...values: unknown[]) => {
        if (insideWriteTransaction.getStore()) throw new Error("a read through the app's handle inside a write transaction: read through the transaction's `tx` (db/client.ts)");
        return original(...values);
      };
    }
    return query;
  };
}

/**
 * One queue per file for the whole process, however many handles it opened: a second handle's
 * `BEGIN IMMEDIATE` would wait for the first's transaction in SQLite's busy handler, which
 * blocks the event loop, so the first could never commit.
 */
const writeQueues = new Map<string, { tail: Promise<unknown> }>();
function writeQueueOf(file: string) {
  if (file === ":memory:") return { tail: Promise.resolve() };
  const path = resolve(file);
  let queue = writeQueues.get(path);
  if (!queue) writeQueues.set(path, (queue = { tail: Promise.resolve() }));
  return queue;
}

/**
 * Opens the SQLite file as two connections: the app's reads, which refuse writes, and the writer
 * that `writeTransaction` runs on. In WAL mode the reads see every committed transaction and
 * nothing of one under way. (An in-memory database is one connection, for both.)
 */
export function openDb(file: string): Db {
  const memory = file === ":memory:";
  if (!memory) mkdirSync(dirname(file), { recursive: true });
  const writerClient = connect(file);
  const readerClient = memory ? writerClient : connect(file);
  if (!memory) readerClient.exec("PRAGMA query_only = ON");
  const reader = drizzle({ client: readerClient, schema }) as unknown as Db;
  if (!memory) refuseInsideTransactions(reader);
  const writer = (memory ? reader : drizzle({ client: writerClient, schema })) as unknown as WriteTx;
  // Moves when another connection commits, the writer included.
  const dataVersion = readerClient.prepare<[number], []>("PRAGMA data_version");
  const queue = writeQueueOf(file);
  const readOthers = () => Number(dataVersion.values()[0]![0]);
  // The same count as the writer sees it: it moves with other connections' commits, never its own.
  const writerDataVersion = memory ? null : writerClient.prepare<[number], []>("PRAGMA data_version");
  const writerSeesOthers = () => Number(writerDataVersion!.values()[0]![0]);
  const transact = async <T>(work: (tx: WriteTx) => Promise<T> | T, { keptReadsStay }: WriteOptions): Promise<T> => {
    const client = writerClient;
    client.run("BEGIN IMMEDIATE");
    // The writer's commit moves the count the reader sees other connections' commits by, as
    // another's would. Holding the write lock, no other connection commits before ours: when
    // everything before it was seen already, and the writer saw no other commit between its own
    // and the reader's look after it, the count moved by our commit alone, and a commit that
    // moves no version (`keptReadsStay`) is noted as quiet. The count moves once for several
    // commits, so a commit of another just after ours would otherwise pass for ours.
    const seenAll = keptReadsStay && !memory && readOthers() === handle.version.others;
    try {
      const result = await work(writer);
      const writerSaw = seenAll ? writerSeesOthers() : 0;
      client.run("COMMIT");
      if (seenAll) {
        const after = readOthers();
        if (writerSeesOthers() === writerSaw) {
          handle.version.quiet += after - handle.version.others;
          handle.version.others = after;
        }
      }
      return result;
    } catch (error) {
      if (client.inTransaction) client.run("ROLLBACK");
      throw error;
    }
  };
  const handle: Handle = {
    engine: "sqlite",
    transact: (work, options) => {
      const result = queue.tail.then(() => transact(work, options), () => transact(work, options));
      queue.tail = result.catch(() => undefined);
      return result;
    },
    readOthers,
    version: { writes: 0, others: 0, quiet: 0, othersSeenAt: Number.NEGATIVE_INFINITY },
    writer,
    ...(memory ? {} : { freeBytes: () => freeBytesOf(dirname(file)) }),
    close: async () => {
      dataVersion.finalize();
      writerDataVersion?.finalize();
      if (writerClient !== readerClient) writerClient.close();
      readerClient.close();
    },
  };
  handles.set(reader, handle);
  return reader;
}

/**
 * The SQLite writer connection itself, for raw SQL that writes: migrations, scripts, tests. Asking
 * for it counts as a write (kept reads are dropped), so write with it at once, not after an await.
 */
export function writerClient(db: Db): Database {
  const handle = handleOf(db);
  const writer = handle.writer;
  if (!writer) throw new Error("only a SQLite handle has a writer connection");
  handle.version.writes++;
  return writer.$client;
}

/** Closes the handle's connections. */
export async function closeDb(db: Db) {
  await handleOf(db).close();
}

/** How often a write transaction runs in all when PostgreSQL keeps finding it raced another machine's. */
const SERIALIZABLE_ATTEMPTS = 10;

/**
 * How long a read or a write transaction keeps trying while PostgreSQL cannot be reached (a
 * restart takes a second or two); past it, the failure goes to the caller, who answers 503.
 */
const RECONNECT_WITHIN_MS = 5_000;

/** The wait before the `attempt`-th try to reach PostgreSQL again: 50 ms doubling, at most a second. */
const reconnectWait = (attempt: number) => Math.min(1_000, 50 * 2 ** (attempt - 1));

/**
 * Runs `work` at SERIALIZABLE isolation: PostgreSQL lets it commit only if it has the effect it
 * would have had alone, and otherwise fails it with a serialization failure (SQLSTATE 40001) or
 * a deadlock (40P01). Such a transaction is run again from the start, after a random wait that
 * doubles each time (from about 5 ms), up to `SERIALIZABLE_ATTEMPTS` times; then the error goes
 * to the caller, as any failure.
 * A transaction whose connection could not be made or was lost before its work was done (a
 * restart of PostgreSQL) committed nothing: PostgreSQL rolls back what a lost session left open.
 * It is run again too, for up to `RECONNECT_WITHIN_MS`. One lost while committing may or may
 * not have committed, so it is not: the caller learns it failed.
 * Running again is safe because a transaction only touches the database (`writeTransaction`).
 */
async function runSerializable<T>(pg: PgDatabase, work: (tx: WriteTx) => Promise<T> | T): Promise<T> {
  const started = performance.now();
  let raced = 0;
  let lost = 0;
  for (;;) {
    let committing = false;
    try {
      // PostgreSQL's transaction (Bun's client reserves one connection for it) holds across the
      // work's awaits; SQLite's async transactions are the writer connection's (`openDb`).
      return await pg.transaction(
        async (tx) => {
          queriesWithoutValues(tx as unknown as WithSession);
          const result = await work(tx as unknown as WriteTx);
          committing = true;
          return result;
        },
        { isolationLevel: "serializable" },
      );
    } catch (err) {
      if (racedAnother(err) && ++raced < SERIALIZABLE_ATTEMPTS) {
        await Bun.sleep(Math.random() * 5 * 2 ** raced);
        continue;
      }
      if (!committing && connectionLost(err) && performance.now() - started < RECONNECT_WITHIN_MS) {
        await Bun.sleep(reconnectWait(++lost));
        continue;
      }
      throw err;
    }
  }
}

/** drizzle's PostgreSQL handle or transaction, as far as `queriesWithoutValues` reaches into it. */
type WithSession = { session: { prepareQuery(...args: unknown[]): Record<"execute" | "all", (...values: unknown[]) => Promise<unknown>> } };

/**
 * drizzle's error for a failed PostgreSQL query carries the values it was given: in its message,
 * its stack and its `params`, all of which any log line that prints the error shows (people's
 * emails, tokens, messages). They are taken out where the query fails, for every query of the
 * handle or transaction; the SQL and the database's own error (the `cause`, with its SQLSTATE,
 * which the retries and the answers read) stay. SQLite's errors carry no values.
 */
function queriesWithoutValues({ session }: WithSession) {
  const prepare = session.prepareQuery.bind(session);
  session.prepareQuery = (...args: unknown[]) => {
    const query = prepare(...args);
    for (const method of ["execute", "all"] as const) {
      const run = query[method].bind(query);
      query[method] = (...values: unknown[]) => run(...values).catch((err: unknown) => Promise.reject(withoutValues(err)));
    }
    return query;
  };
}

function withoutValues(err: unknown): unknown {
  const query = err instanceof Error ? (err as Error & { query?: unknown }).query : undefined;
  if (!(err instanceof Error) || !("params" in err) || typeof query !== "string") return err;
  const said = err.message;
  err.message = `Failed query: ${query}`;
  if (err.stack) err.stack = err.stack.replace(said, err.message);
  delete (err as { params?: unknown }).params;
  return err;
}

/** A statement that only reads: running it again changes nothing. */
const READ_ONLY = /^\s*\(?\s*select\b/i;

/**
 * Runs a read, again and again for up to `RECONNECT_WITHIN_MS` while PostgreSQL cannot be reached
 * or drops the connection (a restart): a read changes nothing, so trying it again is always safe.
 */
async function readWhileReconnecting<T>(read: () => Promise<T>): Promise<T> {
  const started = performance.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      if (!connectionLost(err) || performance.now() - started >= RECONNECT_WITHIN_MS) throw err;
      await Bun.sleep(reconnectWait(attempt));
    }
  }
}

/** Whether PostgreSQL failed a transaction because it raced another (its SQLSTATE, wherever drizzle wrapped it). */
export function racedAnother(err: unknown): boolean {
  for (let e = err; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    const code = (e as { errno?: unknown }).errno;
    if (code === "40001" || code === "40P01") return true;
  }
  return false;
}

type PgDatabase = ReturnType<typeof drizzlePostgres<typeof pgSchema>>;

/** How long a kept read lasts on PostgreSQL at most (`Handle.keptAtMostMs`). */
const KEPT_AT_MOST_MS = 60_000;

/** Connections the app keeps open to PostgreSQL, per process. */
const POSTGRES_POOL = 20;

/**
 * Opens the PostgreSQL database at `url` (decision 0038): a pool of connections through Bun's
 * client, the same query builders as on SQLite. Migrations are applied by `migratePostgres`.
 */
export function openPostgres(url: string): Db {
  // Idle connections close after a while, so a quiet machine holds few of the server's slots.
  const client = new SQL(url, { max: POSTGRES_POOL, idleTimeout: 60 });
  const pg = drizzlePostgres({ client, schema: pgSchema });
  queriesWithoutValues(pg as unknown as WithSession);
  // A read through the app's handle inside a write transaction would run on another connection,
  // without the transaction's writes: refused, as on SQLite. (The transaction's own connection
  // is another object, made by `begin`.) A read outside one is run again while PostgreSQL cannot
  // be reached (`readWhileReconnecting`): drizzle awaits what `unsafe` gives, or asks it for
  // `.values()`, so a read hands back something that does both, each with its retries.
  const unsafe = client.unsafe.bind(client);
  client.unsafe = ((query: string, params?: unknown[]) => {
    if (insideWriteTransaction.getStore()) throw new Error("a read through the app's handle inside a write transaction: read through the transaction's `tx` (db/client.ts)");
    if (!READ_ONLY.test(query)) return unsafe(query, params);
    return {
      then: (ok?: (rows: unknown) => unknown, fail?: (err: unknown) => unknown) => readWhileReconnecting(() => unsafe(query, params)).then(ok, fail),
      values: () => readWhileReconnecting(() => unsafe(query, params).values()),
    };
  }) as unknown as typeof client.unsafe;
  // As on SQLite, this process's write transactions run one at a time: those of one machine
  // never race each other, and PostgreSQL's SERIALIZABLE orders them with other machines'.
  const queue = { tail: Promise.resolve() as Promise<unknown> };
  const handle: Handle = {
    engine: "postgres",
    transact: (work) => {
      const result = queue.tail.then(() => runSerializable(pg, work), () => runSerializable(pg, work));
      queue.tail = result.catch(() => undefined);
      return result;
    },
    // One row counts the commits of every machine; moved after each commit, in its own statement
    // (inside the transaction, every two writers would race on it). A reader that read the count
    // just before it moved keeps a newer read under the older count, never an older one.
    committed: async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          await client.unsafe("UPDATE data_version SET version = version + 1 WHERE id = 1");
          return;
        } catch (err) {
          if (attempt < 3) continue;
          console.error(`the change count could not be moved; other machines see this change at the next one, or within ${KEPT_AT_MOST_MS / 1000} s`, err);
          return;
        }
      }
    },
    keptAtMostMs: KEPT_AT_MOST_MS,
    readOthers: async () => Number((await client.unsafe("SELECT version FROM data_version WHERE id = 1"))[0]?.version ?? 0),
    version: { writes: 0, others: 0, quiet: 0, othersSeenAt: Number.NEGATIVE_INFINITY },
    close: () => client.close(),
  };
  const db = pg as unknown as Db;
  handles.set(db, handle);
  return db;
}

/**
 * What is wrong with a damaged database, said for its operator, or null when it is sound: the
 * server refuses such a file before it reads or writes it (src/server.ts). `PRAGMA quick_check` reads
 * every page and checks its structure (not each index against its table, which the slower
 * `integrity_check` adds). A server started on a damaged file fails later, far from the cause,
 * or answers with what it can still read; a file copied while it was being written is such a
 * file. A file that is not a database at all fails sooner, on the first pragma (SQLITE_NOTADB).
 */
export function databaseDamage(db: Db, file: string): string | null {
  const problems = db.$client.query<{ quick_check: string }, []>("PRAGMA quick_check").all().map((row) => row.quick_check);
  if (problems.length === 1 && problems[0] === "ok") return null;
  const first = problems[0]!.replace(/\*\*\* in database \w+ \*\*\*/, "").replace(/\s+/g, " ").trim();
  const count = problems.length > 1 ? `; ${problems.length} problems in all` : "";
  return `${file} is damaged (PRAGMA quick_check: ${first}${count}): restore it from a backup (README, "Backup and restore").`;
}

interface Journal {
  entries: { idx: number; when: number; tag: string; breakpoints: boolean }[];
}

/**
 * The committed migrations of one folder (db/migrations, db/migrations-pg), as drizzle's migrator
 * takes them. Read through the app's files, which the single binary embeds: drizzle's own
 * migrators read a folder from disk, which the binary has not.
 */
export async function readMigrations(folder: "db/migrations" | "db/migrations-pg") {
  const journal = JSON.parse(await readAssetText(`${folder}/meta/_journal.json`)) as Journal;
  const migrations = [];
  for (const entry of journal.entries) {
    const query = await readAssetText(`${folder}/${entry.tag}.sql`);
    migrations.push({
      sql: query.split("--> statement-breakpoint"),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: createHash("sha256").update(query).digest("hex"),
    });
  }
  return migrations;
}

/**
 * Applies the committed migrations (db/migrations) that this SQLite database has not had yet, in
 * one transaction. When a statement fails with SQLITE_FULL or an I/O error, SQLite has already
 * rolled the transaction back; drizzle's migrator then sends ROLLBACK anyway, and its "no
 * transaction is active" would replace the failure that says what is wrong (a full disk). So
 * that ROLLBACK is skipped when no transaction is open.
 */
export async function migrate(db: Db) {
  const migrations = await readMigrations("db/migrations");
  type Session = { run(query: unknown): unknown };
  const writer = handleOf(db).writer!;
  const internal = writer as unknown as { dialect: { migrate(m: unknown, s: Session, c: object): void; sqlToQuery(q: unknown): { sql: string } }; session: Session };
  const session: Session = {
    run: (query) => {
      if (!writer.$client.inTransaction && internal.dialect.sqlToQuery(query).sql.trim().toUpperCase() === "ROLLBACK") return;
      return internal.session.run(query);
    },
  };
  internal.dialect.migrate(migrations, new Proxy(internal.session, { get: (target, key, receiver) => (key === "run" ? session.run : Reflect.get(target, key, receiver)) }), {});
}
