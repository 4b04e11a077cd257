/**
 * The data model (db/model.ts) built for PostgreSQL: drizzle-kit's source for
 * db/migrations-pg. The kit makes each column as PostgreSQL stores it (64-bit instants, booleans,
 * jsonb), with the same TypeScript types as on SQLite, so one set of queries serves both.
 */
import { sql, type SQL } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, type AnyPgColumn } from "drizzle-orm/pg-core";
import { model, type Kit } from "./model";

export const pgKit = {
  table: pgTable,
  text: (name: string) => text(name),
  instant: (name: string) => bigint(name, { mode: "number" }),
  integer: (name: string) => integer(name),
  flag: (name: string) => boolean(name),
  json: (name: string) => jsonb(name),
  index,
  uniqueIndex,
  primaryKey,
  now: sql`(floor(extract(epoch from clock_timestamp()) * 1000))::bigint`,
  emptyList: sql`'[]'::jsonb`,
  emptyObject: sql`'{}'::jsonb`,
  isTrue: (column: AnyPgColumn): SQL => sql`${column} = true`,
  // The makers differ from SQLite's in their engine, not in the columns' TypeScript types.
} as unknown as Kit;

export const { users, oauthAccounts, sessions, emailTokens, activities, bookings, hostBlocks, externalBusy, messages, reviews, reports, pushSubscriptions, notificationPreferences, ledgerEntries, uploads, jobs, leases, paymentEvents, bookingSelections, testPaymentIntents, testPaymentOperations, testCheckoutSessions, testConnectedAccounts } =
  model(pgKit);
