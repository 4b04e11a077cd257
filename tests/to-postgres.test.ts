import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { drizzle } from "drizzle-orm/bun-sql";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDb, migrate, openDb, writeTransaction, type Db } from "../db/client";
import { activityRow, bookingRow, insert, userRow } from "../src/demo/factories";
import { modelTables } from "../db/postgres";
import * as schema from "../db/schema";
import { bookingStatuses } from "../db/schema";
import { seedDemo } from "../src/demo/seed";
import { startPostgres, type Postgres } from "./postgres";

/**
 * Moving a marketplace to PostgreSQL (`bun run db:to-postgres`, src/operations/to-postgres.ts): the demo data
 * plus generated bookings in every status and a row in every table arrive whole, value for value;
 * a target with rows in it is refused and left as it was.
 */
const root = join(import.meta.dir, "..");
const HOUR = 3_600_000;

let postgres: Postgres;
let dataDir: string;
let source: Db;

/** A row in every table the demo leaves empty, and bookings in every status. */
async function generate(db: Db, now: number) {
  const rows = insert(db);
  const host = await rows.user(userRow({ firstName: "Ana", about: JSON.stringify({ work: "Coach" }), suspendedAt: null, busyCalendarUrl: "https://calendar.example/busy.ics" }));
  const guest = await rows.user(userRow({ firstName: "Ben", locale: "fr", interests: ["tennis", "food"], payoutsEnabled: true, calendarFeedVersion: 2 }));
  const activity = await rows.activity(activityRow(host, { weeklyHours: { mon: [["09:00", "12:00"]] } as never, instantBooking: true, tags: ["outdoor"] }));
  let firstBooking: string | undefined;
  for (const [i, status] of bookingStatuses.entries()) {
    const booking = await rows.booking(
      bookingRow(activity, {
        guestId: guest.id,
        startsAt: now + (i + 2) * 24 * HOUR,
        status,
        paymentIntentId: `pi_generated_${i}`,
        claim: i === 1 ? { movement: "capture", key: `k${i}`, intentId: `pi_generated_${i}`, from: "pending", to: "accepted", canceledBy: null, message: "booking_accepted", senderId: host.id } : null,
      }),
    );
    firstBooking ??= booking.id;
    await writeTransaction(db, (tx) => tx.insert(schema.messages).values({ id: crypto.randomUUID(), bookingId: booking.id, senderId: guest.id, content: `Hello ${i} — ünïcode ✓`, readBy: [guest.id] }));
  }
  await writeTransaction(db, async (tx) => {
    await tx.insert(schema.oauthAccounts).values({ provider: "google", subject: "sub-1", userId: guest.id });
    await tx.insert(schema.sessions).values({ sid: "hashed-sid", userId: guest.id, sess: { csrf: "token" }, expire: now + HOUR });
    await tx.insert(schema.emailTokens).values({ tokenHash: "hash", userId: guest.id, purpose: "link", email: "ben@example.com", data: { provider: "google", subject: "sub-1", providerEmail: null, next: "/" }, expiresAt: now + HOUR });
    await tx.insert(schema.hostBlocks).values({ id: crypto.randomUUID(), hostId: host.id, startsAt: now, endsAt: now + HOUR, timeZone: "America/New_York", allDay: true, note: "Day off" });
    await tx.insert(schema.externalBusy).values({ id: crypto.randomUUID(), hostId: host.id, startsAt: now, endsAt: now + HOUR });
    await tx.insert(schema.reports).values({ id: crypto.randomUUID(), reporterId: guest.id, targetActivityId: activity.id, reason: "other", notes: "Looks odd" });
    await tx.insert(schema.pushSubscriptions).values({ id: crypto.randomUUID(), userId: guest.id, endpoint: "https://push.example/1", p256dhKey: "key", authKey: "auth", isActive: false });
    await tx.insert(schema.notificationPreferences).values({ userId: guest.id, marketingEmails: true, messages: false });
    await tx.insert(schema.uploads).values({ id: crypto.randomUUID(), userId: guest.id, status: "processed", objectId: "obj-1", expiresAt: now + HOUR });
    await tx.insert(schema.jobs).values({ id: crypto.randomUUID(), kind: "booking.expire", key: "booking:x:expire", payload: { bookingId: "x", nested: [1, 2] }, runAt: now, attempts: 2, lastError: "boom" });
    await tx.insert(schema.leases).values({ name: "jobs", holder: "process-1", until: now + 30_000 });
    await tx.insert(schema.dataVersion).values({ id: 1, version: 41 });
    await tx.insert(schema.paymentEvents).values({ id: "evt_1", type: "payment_intent.succeeded", receivedAt: now });
    await tx.insert(schema.bookingSelections).values({ userId: guest.id, activityId: activity.id, date: "2026-12-01", time: "10:00", durationMinutes: 90, nonce: "n" });
    await tx.insert(schema.testCheckoutSessions).values({ id: "cs_1", paymentIntentId: "pi_generated_0", description: "Tennis", successUrl: "http://x/ok", cancelUrl: "http://x/no", idempotencyKey: "cs-key" });
    await tx.insert(schema.testConnectedAccounts).values({ id: "acct_1", userId: host.id, email: null, payoutsEnabled: true, idempotencyKey: "acct-key" });
    await tx.insert(schema.bookingRefunds).values({ id: crypto.randomUUID(), bookingId: firstBooking!, amountCents: 1250, currency: "eur", reason: "Rain — we stopped early", byUserId: host.id, key: "refund-key" });
    await tx.insert(schema.savedActivities).values({ userId: guest.id, activityId: activity.id, title: "Tennis" });
    await tx.insert(schema.dataExports).values({ id: crypto.randomUUID(), userId: guest.id, status: "ready", tokenHash: "export-hash", fileKey: "exports/x.zip", bytes: 1234, expiresAt: now + HOUR });
    await tx.insert(schema.accountDeletions).values({ id: crypto.randomUUID(), requestedBy: "operator", operatorId: host.id });
  });
}

/** A value as JSON with every object's keys in order (jsonb keeps its own order of keys). */
const canonical = (value: unknown): unknown =>
  Array.isArray(value) ? value.map(canonical) : value && typeof value === "object" ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, canonical(v)])) : value;

/** Every row of every table, each engine read through its own schema, in a stable order. */
async function everything(read: (table: ReturnType<typeof modelTables>[number]) => Promise<Record<string, unknown>[]>) {
  const tables: Record<string, string[]> = {};
  for (const table of modelTables()) tables[table.name] = (await read(table)).map((row) => JSON.stringify(canonical(row))).sort();
  return tables;
}

const copy = (url: string) =>
  Bun.spawnSync([process.execPath, "scripts/db-to-postgres.ts", url], { cwd: root, env: { ...process.env, DATA_DIR: dataDir }, stdout: "pipe", stderr: "pipe" });

beforeAll(async () => {
  postgres = await startPostgres();
  dataDir = mkdtempSync(join(tmpdir(), "offline-to-pg-"));
  source = openDb(join(dataDir, "offline.db"));
  await migrate(source);
  const now = Date.now();
  await seedDemo(source, now);
  await generate(source, now);
});
afterAll(async () => {
  if (source) await closeDb(source);
  await postgres?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("db:to-postgres", () => {
  test("copies the demo data and generated bookings into an empty PostgreSQL database, value for value", async () => {
    const url = await postgres.createDatabase("moved");
    const run = copy(url);
    expect({ exit: run.exitCode, err: run.stderr.toString() }).toEqual({ exit: 0, err: "" });
    expect(run.stdout.toString()).toMatch(/Copied \d+ rows in 28 tables/);

    const fromSqlite = await everything(async (table) => (await source.select().from(table.sqlite)) as Record<string, unknown>[]);
    const client = new SQL(url, { max: 2 });
    const target = drizzle({ client });
    const fromPostgres = await everything(async (table) => (await target.select().from(table.pg)) as Record<string, unknown>[]);
    for (const [name, rows] of Object.entries(fromSqlite)) {
      expect({ name, hasRows: rows.length > 0 }).toEqual({ name, hasRows: true });
      expect({ name, rows: fromPostgres[name] }).toEqual({ name, rows });
    }
    // PostgreSQL holds them in its own types, and keeps every rule: a second booking on the same payment is refused.
    const [types] = await client`SELECT pg_typeof(active)::text AS flag, pg_typeof(photos)::text AS list, pg_typeof(created_at)::text AS instant FROM activities LIMIT 1`;
    expect(types).toEqual({ flag: "boolean", list: "jsonb", instant: "bigint" });
    // Each JSON value is a list or an object in PostgreSQL's own terms, not JSON text in a string,
    // so SQL's JSON operators (and any other client) see what the app stored.
    const jsonColumns = await client<{ table_name: string; column_name: string }[]>`SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND data_type = 'jsonb'`;
    expect(jsonColumns.length).toBeGreaterThanOrEqual(10);
    for (const { table_name, column_name } of jsonColumns) {
      const [kinds] = await client.unsafe(`SELECT count(*) FILTER (WHERE jsonb_typeof("${column_name}") IN ('array', 'object'))::int AS structured, count("${column_name}")::int AS present FROM "${table_name}"`);
      expect({ column: `${table_name}.${column_name}`, structured: kinds.structured }).toEqual({ column: `${table_name}.${column_name}`, structured: kinds.present });
    }
    const [tennis] = await client`SELECT count(*)::int AS n FROM activities WHERE tags ? 'outdoor'`;
    expect(tennis).toEqual({ n: 1 });
    await expect(client`UPDATE bookings SET payment_intent_id = 'pi_generated_0' WHERE payment_intent_id = 'pi_generated_1'`).rejects.toThrow(/bookings_payment_intent/);
    await client.close();
  });

  test("a target with rows in it is refused and left as it was", async () => {
    const url = await postgres.createDatabase("occupied");
    const first = copy(url);
    expect(first.exitCode).toBe(0);
    const client = new SQL(url, { max: 1 });
    const [before] = await client`SELECT count(*)::int AS n FROM users`;
    const again = copy(url);
    expect(again.exitCode).toBe(1);
    expect(again.stderr.toString()).toContain("Nothing copied: the target database is not empty");
    const [after] = await client`SELECT count(*)::int AS n FROM users`;
    expect(after).toEqual(before!);
    await client.close();
  });

  test("without a PostgreSQL URL it says how to run it, and copies nothing", () => {
    const run = Bun.spawnSync([process.execPath, "scripts/db-to-postgres.ts", "mysql://nope"], { cwd: root, env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "" }, stdout: "pipe", stderr: "pipe" });
    expect(run.exitCode).toBe(2);
    expect(run.stderr.toString()).toContain("usage: bun run db:to-postgres <postgres://");
  });
});
