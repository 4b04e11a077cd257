/**
 * The data model (db/model.ts) built for PostgreSQL: drizzle-kit's source for
 * db/migrations-pg. The kit makes each column as PostgreSQL stores it (64-bit instants, booleans,
 * jsonb), with the same TypeScript types as on SQLite, so one set of queries serves both.
 */
import { sql } from "drizzle-orm";
import { bigint, boolean, customType, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { postgresDialect } from "./dialect";
import { model, type Kit } from "./model";

/**
 * A jsonb column that stores the value itself. drizzle's own `jsonb` hands the driver a JSON
 * string, and Bun's client, which encodes every jsonb parameter as JSON, sends it as a JSON
 * *string*: PostgreSQL would hold `"[\"a\"]"`, a string scalar, not the list, and SQL's JSON
 * operators would find no list. Here the value goes to the client as it is; it reads back parsed.
 */
const jsonValue = customType<{ data: unknown; driverData: unknown }>({
  dataType: () => "jsonb",
  toDriver: (value) => value,
  fromDriver: (value) => value,
});

export const pgKit = {
  table: pgTable,
  text: (name: string) => text(name),
  instant: (name: string) => bigint(name, { mode: "number" }),
  integer: (name: string) => integer(name),
  flag: (name: string) => boolean(name),
  json: (name: string) => jsonValue(name),
  index,
  uniqueIndex,
  primaryKey,
  now: sql`(floor(extract(epoch from clock_timestamp()) * 1000))::bigint`,
  emptyList: sql`'[]'::jsonb`,
  emptyObject: sql`'{}'::jsonb`,
  isTrue: postgresDialect.isTrue,
  // The makers differ from SQLite's in their engine, not in the columns' TypeScript types.
} as unknown as Kit;

export const { users, oauthAccounts, sessions, emailTokens, activities, bookings, hostBlocks, externalBusy, messages, reviews, reports, pushSubscriptions, notificationPreferences, ledgerEntries, bookingRefunds, uploads, jobs, leases, dataVersion, paymentEvents, bookingSelections, savedActivities, dataExports, accountDeletions, testPaymentIntents, testPaymentOperations, testCheckoutSessions, testConnectedAccounts } =
  model(pgKit);
