/**
 * Failures that are not the request's fault nor a bug of ours, but the machine's or the
 * database's: what kind they are, how long before trying again makes sense, and how they are
 * written to the log without anyone's data (docs/decisions/0047).
 */

/**
 * - `unreachable`: the database could not be reached or dropped the connection (a restart, a
 *   failover, a network cut); back within seconds as a rule.
 * - `busy`: the database was reached but refused for now: SQLite's lock held past its wait,
 *   PostgreSQL still finding the write racing another after its retries.
 * - `full`: no space left for a write (the disk, or a quota).
 * - `disk`: the disk failed a read or a write.
 */
export type FaultKind = "unreachable" | "busy" | "full" | "disk";

export interface Fault {
  kind: FaultKind;
  /** The `Retry-After` of the answer, in seconds. */
  retryAfterS: number;
}

/** How long before a person should try again, by kind: a restart is seconds; a full or failing disk needs an operator. */
const RETRY_AFTER_S: Record<FaultKind, number> = { unreachable: 5, busy: 2, full: 60, disk: 60 };

/** Bun's PostgreSQL client's codes for a connection that could not be made or was lost. */
const LOST_CONNECTION = new Set([
  "ERR_POSTGRES_CONNECTION_CLOSED",
  "ERR_POSTGRES_CONNECTION_FAILED",
  "ERR_POSTGRES_CONNECTION_REFUSED",
  "ERR_POSTGRES_CONNECTION_TIMEOUT",
  "ERR_POSTGRES_IDLE_TIMEOUT",
  "ERR_POSTGRES_LIFETIME_TIMEOUT",
]);

/**
 * PostgreSQL's SQLSTATEs for the same: class 08 (connection exception), 57P01 (terminated by an
 * administrator: a fast shutdown or restart), 57P02 (crash shutdown), 57P03 (cannot connect now:
 * starting up or shutting down).
 */
const lostSqlState = (state: string) => state.startsWith("08") || state === "57P01" || state === "57P02" || state === "57P03";

/** Each error of a chain (drizzle wraps the driver's error in `cause`), with the codes it carries. */
function* chain(err: unknown): Generator<{ code?: string; errno?: string; path?: string }> {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, errno, path } = e as { code?: unknown; errno?: unknown; path?: unknown };
    yield { code: typeof code === "string" ? code : undefined, errno: typeof errno === "string" ? errno : undefined, path: typeof path === "string" ? path : undefined };
  }
}

/** The file a failed file operation names (Node's and Bun's errors carry `path`), if any in the chain. */
export function failedPath(err: unknown): string | undefined {
  for (const { path } of chain(err)) if (path) return path;
  return undefined;
}

/** Whether the database could not be reached or dropped the connection: the statement may not have run, or ran in a transaction that did not commit. */
export function connectionLost(err: unknown): boolean {
  for (const { code, errno } of chain(err)) {
    if (code && LOST_CONNECTION.has(code)) return true;
    if (errno && lostSqlState(errno)) return true;
  }
  return false;
}

/** The fault behind a failure, or null when it is something else (a bug, a refused value). */
export function faultOf(err: unknown): Fault | null {
  const kind = faultKind(err);
  return kind ? { kind, retryAfterS: RETRY_AFTER_S[kind] } : null;
}

function faultKind(err: unknown): FaultKind | null {
  if (connectionLost(err)) return "unreachable";
  for (const { code, errno } of chain(err)) {
    // SQLite's extended codes (SQLITE_IOERR_WRITE, SQLITE_BUSY_SNAPSHOT) count as their primary one.
    const primary = code?.startsWith("SQLITE_") ? code.split("_").slice(0, 2).join("_") : code;
    if (primary === "SQLITE_FULL" || code === "ENOSPC" || code === "EDQUOT" || errno === "53100") return "full";
    if (primary === "SQLITE_IOERR" || code === "EIO") return "disk";
    // 40001 and 40P01 reach a request only after writeTransaction's own retries (db/client.ts).
    if (primary === "SQLITE_BUSY" || primary === "SQLITE_LOCKED" || errno === "40001" || errno === "40P01") return "busy";
  }
  return null;
}

/**
 * A SQLSTATE, PostgreSQL's code for what failed: five characters whose class is two digits or
 * one of PostgreSQL's own (F0, HV, P0, XX). Node's five-letter codes (EPIPE, EBUSY) are not.
 */
const SQLSTATE = /^(?:\d\d|F0|HV|P0|XX)[0-9A-Z]{3}$/;

/** The names of the SQLSTATEs a log is most likely to meet, so the line says what failed without the database's message. */
const SQLSTATE_NAMES: Record<string, string> = {
  "23502": "not_null_violation",
  "23503": "foreign_key_violation",
  "23505": "unique_violation",
  "23514": "check_violation",
  "22001": "string_data_right_truncation",
  "22003": "numeric_value_out_of_range",
  "22021": "character_not_in_repertoire",
  "22P02": "invalid_text_representation",
  "25006": "read_only_sql_transaction",
  "40001": "serialization_failure",
  "40P01": "deadlock_detected",
  "53100": "disk_full",
  "53300": "too_many_connections",
  "57014": "query_canceled",
  "57P01": "admin_shutdown",
  "57P02": "crash_shutdown",
  "57P03": "cannot_connect_now",
};

/**
 * What a database error says without its words: the condition its SQLSTATE names and the schema
 * names it carries (constraint, table, column). PostgreSQL's message and `detail` often quote the
 * values ("invalid input syntax for type uuid: "…"", "Key (email)=(…) already exists"); these never do.
 */
function sqlStateSays(state: string, e: { constraint?: unknown; table?: unknown; column?: unknown }): string {
  const names = (["constraint", "table", "column"] as const).filter((k) => typeof e[k] === "string" && e[k]).map((k) => `${k} ${e[k] as string}`);
  return `${SQLSTATE_NAMES[state] ?? `SQLSTATE ${state}`}${names.length ? ` (${names.join(", ")})` : ""}`;
}

/**
 * A failure as the log may keep it: each error of the chain with its name, code and message, and
 * the stack of the outermost. A failed query is named by its SQL, never by its values (drizzle's
 * error puts them in its message: a person's email, a token, anything a request sent). An error
 * with a SQLSTATE (PostgreSQL's own) is named by its condition and the constraint, table or
 * column it names, never by its message or its `detail` ("Key (email)=(…) already exists"), which
 * quote values for the same reason.
 */
export function loggable(err: unknown, options: { stack?: boolean } = {}): string {
  if (!(err instanceof Error)) return String(err);
  const lines: string[] = [];
  let stack = "";
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 6; e = e.cause, depth++) {
    const coded = e as Error & { code?: unknown; errno?: unknown };
    const codes = [coded.code, coded.errno].filter((c) => typeof c === "string" || typeof c === "number").join(" ");
    lines.push(`${depth ? "caused by " : ""}${e.name}${codes ? ` [${codes}]` : ""}: ${loggableMessage(e)}`);
    // The outermost stack with a frame in it; its first lines repeat the message, values included.
    if (!stack && options.stack !== false) stack = (e.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line)).join("\n");
  }
  return stack ? `${lines.join("\n")}\n${stack}` : lines.join("\n");
}

/**
 * An error's own message as the log (or a record an operator reads) may keep it: a failed query's
 * SQL, a database error's condition (`loggable`), anything else's message as it is.
 */
export function loggableMessage(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const coded = err as Error & { code?: unknown; errno?: unknown; query?: unknown; constraint?: unknown; table?: unknown; column?: unknown };
  if (typeof coded.query === "string") return `Failed query: ${coded.query}`;
  const state = [coded.errno, coded.code].find((c): c is string => typeof c === "string" && SQLSTATE.test(c));
  return state ? sqlStateSays(state, coded) : err.message;
}
