/**
 * The data model (db/model.ts) built for SQLite: the tables the app queries, and drizzle-kit's
 * source for db/migrations.
 */
import { model, sqliteKit } from "./model";

export * from "./model";
export const { users, oauthAccounts, sessions, emailTokens, activities, bookings, hostBlocks, externalBusy, messages, reviews, reports, pushSubscriptions, notificationPreferences, ledgerEntries, uploads, jobs, leases, paymentEvents, bookingSelections, testPaymentIntents, testPaymentOperations, testCheckoutSessions, testConnectedAccounts } = model(sqliteKit);

export type User = typeof users.$inferSelect;
export type Activity = typeof activities.$inferSelect;
export type Booking = typeof bookings.$inferSelect;
export type LedgerEntry = typeof ledgerEntries.$inferSelect;
export type BookingSelection = typeof bookingSelections.$inferSelect;
export type Job = typeof jobs.$inferSelect;
export type EmailToken = typeof emailTokens.$inferSelect;
export type Review = typeof reviews.$inferSelect;
export type Report = typeof reports.$inferSelect;
export type HostBlock = typeof hostBlocks.$inferSelect;
