/**
 * `bun run db:to-postgres <postgres-url>`: copies the SQLite database in DATA_DIR (default
 * ./data) into an empty PostgreSQL database (src/operations/to-postgres.ts). Stop the app first, so that
 * nothing written after the copy is left behind; a target with any row in it is refused.
 */
import { databaseDamage, migrate, openDb } from "../db/client";
import { ConfigError } from "../src/config";
import { copyToPostgres } from "../src/operations/to-postgres";
import { databaseFile } from "../src/operations/startup";

const usage = "usage: bun run db:to-postgres <postgres://user:password@host:port/database> (the SQLite file is DATA_DIR's offline.db; DATA_DIR defaults to ./data)";
const target = process.argv[2] ?? process.env.DATABASE_URL;
if (!target || !/^postgres(ql)?:\/\//.test(target)) {
  console.error(usage);
  process.exit(2);
}
const file = databaseFile(process.env.DATA_DIR ?? "./data");
if (!(await Bun.file(file).exists())) {
  console.error(`${file} does not exist: set DATA_DIR to the folder of the database to copy.`);
  process.exit(2);
}
const source = openDb(file);
try {
  const damage = databaseDamage(source, file);
  if (damage) throw new ConfigError(damage);
  // The source is brought to the current model first, as the app would on start.
  await migrate(source);
  const started = performance.now();
  const report = await copyToPostgres(source, target, (line) => console.log(`  ${line}`));
  const rows = report.tables.reduce((n, t) => n + t.rows, 0);
  console.log(`Copied ${rows} rows in ${report.tables.length} tables from ${file} in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
} catch (err) {
  // drizzle wraps the driver's error ("Failed query: …"); the driver's own words say what went wrong.
  let cause: unknown = err;
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
  console.error(`Nothing copied: ${cause instanceof Error ? cause.message : String(cause)}${err instanceof ConfigError ? "." : " (anything written was rolled back)."}`);
  process.exitCode = 1;
} finally {
  source.$client.close();
}
