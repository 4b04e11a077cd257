import { defineConfig } from "drizzle-kit";

/** The PostgreSQL migrations, made from the same model as SQLite's (drizzle.config.ts; docs/decisions/0038). */
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema-pg.ts",
  out: "./db/migrations-pg",
});
