/**
 * The data model (db/model.ts) built for SQLite: drizzle-kit's source for db/migrations, and the
 * tables the app queries on SQLite (db/schema.ts).
 */
import { model, sqliteKit } from "./model";

export const { users, oauthAccounts, sessions, emailTokens, activities, bookings, hostBlocks, externalBusy, messages, reviews, reports, pushSubscriptions, notificationPreferences, ledgerEntries, bookingRefunds, uploads, jobs, leases, dataVersion, paymentEvents, bookingSelections, savedActivities, dataExports, accountDeletions, testPaymentIntents, testPaymentOperations, testCheckoutSessions, testConnectedAccounts } = model(sqliteKit);
