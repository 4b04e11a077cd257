/**
 * The database engine this process runs on, fixed at start: PostgreSQL when `DATABASE_URL` is
 * set (several machines, docs/decisions/0038), else the SQLite file in `DATA_DIR`. The tables
 * the app queries (db/schema.ts) and the SQL that differs between the engines (db/dialect.ts)
 * are the engine's own.
 */
export type Engine = "sqlite" | "postgres";

// Read as src/config.ts reads it: a blank value is no value.
export const engine: Engine = process.env.DATABASE_URL?.trim() ? "postgres" : "sqlite";
