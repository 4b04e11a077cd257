import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { engine } from "./engine";

/**
 * The SQL that differs between the two engines (docs/decisions/0038), in one place: features
 * write `dialect.jsonListHas(messages.readBy, userId)`, never `json_each` or `?` themselves.
 * Everything else the app writes is the same on both (standard SQL, drizzle's builders).
 *
 * JSON lists are lists of strings (photos, tags, who read a message). A JSON object's field is
 * read as text.
 */
export interface Dialect {
  /** The JSON list `list` holds `value`. */
  jsonListHas(list: SQLWrapper, value: unknown): SQL;
  /** The JSON list `list` with `value` added at its end. */
  jsonListAppend(list: SQLWrapper, value: unknown): SQL;
  /**
   * `column` is one of the strings of `ids`, a JSON list given as one parameter (so a statement
   * with any number of them is prepared once); the parameter's value is `listParam(strings)`.
   */
  inJsonList(column: SQLWrapper, ids: SQLWrapper): SQL;
  /** A list of strings as the parameter of `inJsonList`. */
  listParam(values: string[]): unknown;
  /** The JSON object `object`'s field `key` is `true`. */
  jsonFieldIsTrue(object: SQLWrapper, key: string): SQL;
  /** The JSON object `object` has no field `key` (or it is null). */
  jsonFieldIsNull(object: SQLWrapper, key: string): SQL;
  /**
   * The flag `column` is set, written as a literal: a partial index's condition is spelled the
   * same way in the queries it serves (db/model.ts, `isTrue`), and only a literal lets the
   * planner see that a query's condition implies the index's.
   */
  isTrue(column: SQLWrapper): SQL;
  /**
   * The JSON list of lists of [from, to] pairs `list` (weekly hours) holds, at `index`, a pair
   * overlapping [from, to): its first below `to` and its second above `from`. False when `list`
   * is null or has no such element.
   */
  jsonPairsOverlap(list: SQLWrapper, index: number, from: number, to: number): SQL;
}

/** A JSON field name in a path: the app's own names only, never user input. */
const fieldName = (key: string) => {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new Error(`not a field name: ${key}`);
  return key;
};

export const sqliteDialect: Dialect = {
  jsonListHas: (list, value) => sql`EXISTS (SELECT 1 FROM json_each(${list}) WHERE json_each.value = ${value})`,
  jsonListAppend: (list, value) => sql`json_insert(${list}, '$[#]', ${value})`,
  inJsonList: (column, ids) => sql`${column} IN (SELECT value FROM json_each(${ids}))`,
  listParam: (values) => JSON.stringify(values),
  jsonFieldIsTrue: (object, key) => sql`json_extract(${object}, ${sql.raw(`'$.${fieldName(key)}'`)}) = 1`,
  jsonFieldIsNull: (object, key) => sql`json_extract(${object}, ${sql.raw(`'$.${fieldName(key)}'`)}) IS NULL`,
  isTrue: (column) => sql`${column} = 1`,
  jsonPairsOverlap: (list, index, from, to) =>
    sql`EXISTS (SELECT 1 FROM json_each(${list}, ${`$[${Math.trunc(index)}]`}) AS pair WHERE json_extract(pair.value, '$[0]') < ${to} AND json_extract(pair.value, '$[1]') > ${from})`,
};

export const postgresDialect: Dialect = {
  // jsonb's `?` finds a string among a list's top-level elements (and uses a GIN index where there is one).
  jsonListHas: (list, value) => sql`(${list} ? (${value})::text)`,
  jsonListAppend: (list, value) => sql`(${list} || jsonb_build_array((${value})::text))`,
  inJsonList: (column, ids) => sql`${column} IN (SELECT jsonb_array_elements_text(${sql`${ids}::jsonb`}))`,
  // Bun's client encodes a jsonb parameter as JSON itself: it takes the list, not its JSON text.
  listParam: (values) => values,
  jsonFieldIsTrue: (object, key) => sql`(${object} -> ${sql.raw(`'${fieldName(key)}'`)}) = 'true'::jsonb`,
  // A field holding JSON null reads as SQL NULL on SQLite; here it is 'null'::jsonb, so both count as none.
  jsonFieldIsNull: (object, key) => sql`coalesce(${object} -> ${sql.raw(`'${fieldName(key)}'`)}, 'null'::jsonb) = 'null'::jsonb`,
  isTrue: (column) => sql`${column} = true`,
  jsonPairsOverlap: (list, index, from, to) =>
    sql`EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${list} -> ${sql.raw(String(Math.trunc(index)))}) = 'array' THEN ${list} -> ${sql.raw(String(Math.trunc(index)))} ELSE '[]'::jsonb END) AS pair(value) WHERE (pair.value ->> 0)::int < ${to} AND (pair.value ->> 1)::int > ${from})`,
};

/** The SQL of the engine this process runs on (db/engine.ts). */
export const dialect: Dialect = engine === "postgres" ? postgresDialect : sqliteDialect;

/**
 * Whether a write was refused by a unique index, on either engine: SQLite says "UNIQUE constraint
 * failed" in its message; PostgreSQL's `unique_violation` (23505) comes as the cause of drizzle's
 * "Failed query" error.
 */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if ((e as { errno?: unknown }).errno === "23505" || e.message.includes("UNIQUE constraint failed")) return true;
  }
  return false;
}
