/**
 * The tables the app queries: the data model (db/model.ts) built for the engine this process runs
 * on (db/engine.ts). They are typed as SQLite's; PostgreSQL's build (db/schema-pg.ts) has the same
 * row types by construction, so one set of queries serves both.
 */
import { engine } from "./engine";
import * as postgres from "./schema-pg";
import * as sqlite from "./schema-sqlite";

export * from "./model";

const tables: typeof sqlite = engine === "postgres" ? (postgres as unknown as typeof sqlite) : sqlite;

export const { users, oauthAccounts, sessions, emailTokens, activities, bookings, hostBlocks, externalBusy, messages, reviews, reports, pushSubscriptions, notificationPreferences, ledgerEntries, bookingRefunds, uploads, jobs, leases, dataVersion, paymentEvents, bookingSelections, savedActivities, dataExports, accountDeletions, testPaymentIntents, testPaymentOperations, testCheckoutSessions, testConnectedAccounts } = tables;

export type User = typeof users.$inferSelect;
export type Activity = typeof activities.$inferSelect;
export type Booking = typeof bookings.$inferSelect;
export type LedgerEntry = typeof ledgerEntries.$inferSelect;
export type BookingRefund = typeof bookingRefunds.$inferSelect;
export type BookingSelection = typeof bookingSelections.$inferSelect;
export type Job = typeof jobs.$inferSelect;
export type EmailToken = typeof emailTokens.$inferSelect;
export type Review = typeof reviews.$inferSelect;
export type Report = typeof reports.$inferSelect;
export type HostBlock = typeof hostBlocks.$inferSelect;
export type SavedActivity = typeof savedActivities.$inferSelect;
export type DataExport = typeof dataExports.$inferSelect;
export type AccountDeletion = typeof accountDeletions.$inferSelect;
