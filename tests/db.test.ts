import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, openDb, writerClient, type Db } from "../db/client";
import { DEMO_GUEST_EMAIL, DEMO_HOST_EMAIL, DEMO_PASSWORD } from "../src/demo/demo-data";
import { activities, bookings, jobs, ledgerEntries, reviews, users } from "../db/schema";
import { groupPriceFor } from "../shared/pricing";
import { sessionFits } from "../src/activities/group";
import { seedDemo } from "../src/demo/seed";
import { categories } from "../src/activities/categories";
import { loadConfig } from "../src/config";
import { loadSecrets } from "../src/operations/secrets";

let dir: string;
let db: Db;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "offline-db-"));
  db = openDb(join(dir, "offline.db"));
  await migrate(db);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the database", () => {
  test("runs in WAL with foreign keys and a busy timeout", () => {
    const sqlite = db.$client;
    expect(sqlite.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    expect(sqlite.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
    expect(sqlite.query("PRAGMA busy_timeout").get()).toEqual({ timeout: 5000 });
  });

  test("migrations are applied once and can run again safely", async () => {
    await migrate(db);
    const tables = db.$client.query("SELECT name FROM sqlite_master WHERE type='table'").all() as { name: string }[];
    for (const name of ["users", "sessions", "activities", "bookings", "messages", "reviews", "reports", "push_subscriptions", "notification_preferences", "ledger_entries", "oauth_accounts"]) {
      expect(tables.map((t) => t.name)).toContain(name);
    }
  });

  test("browse and bookings queries use indexes, not full scans", () => {
    const plan = (sql: string) =>
      (db.$client.query(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(" | ");
    // The browse indexes hold listed activities only (active, not archived, not hidden): browse asks for exactly those.
    expect(plan("SELECT * FROM activities WHERE city = 'Paris' AND active = 1 AND archived_at IS NULL AND hidden_at IS NULL ORDER BY created_at DESC LIMIT 20")).toContain("USING INDEX activities_browse");
    expect(plan("SELECT * FROM activities WHERE city = 'Paris' AND category = 'food' AND active = 1 AND archived_at IS NULL AND hidden_at IS NULL ORDER BY created_at DESC LIMIT 20")).toContain("activities_browse_category");
    expect(plan("SELECT * FROM bookings WHERE guest_id = 'x' ORDER BY created_at DESC")).toContain("bookings_guest");
    expect(plan("SELECT * FROM bookings WHERE status = 'pending' AND respond_by < 1")).toContain("bookings_expiry");
    expect(plan("SELECT * FROM messages WHERE booking_id = 'x' ORDER BY created_at")).toContain("messages_booking");
  });

  test("foreign keys are enforced", async () => {
    expect(() =>
      writerClient(db).run(
        "INSERT INTO activities (id, host_id, country, city, category, title, description, hourly_rate_cents) VALUES ('a', 'nobody', 'France', 'Paris', 'food', 't', 'd', 100)",
      ),
    ).toThrow(/FOREIGN KEY/);
  });
});

describe("demo data", () => {
  // Seeded once for the block, in a database of its own: each test reads it, in any order.
  let demo: Db;
  let seeded: Awaited<ReturnType<typeof seedDemo>>;
  beforeAll(async () => {
    demo = openDb(join(dir, "demo.db"));
    await migrate(demo);
    seeded = await seedDemo(demo);
  });

  test("an empty database gets a believable demo", async () => {
    expect(seeded).not.toBeNull();
    const hosts = new Set((await demo.select({ hostId: activities.hostId }).from(activities)).map((r) => r.hostId));
    expect(hosts.size).toBeGreaterThanOrEqual(12);
    const all = await demo.select().from(activities);
    expect(all.length).toBeGreaterThanOrEqual(40);
    const cities = new Set(all.map((a) => a.city));
    expect(cities.size).toBeGreaterThanOrEqual(4);
    expect(cities).toContain("New York");
    expect(cities).toContain("Paris");
    expect(new Set(all.map((a) => a.category))).toEqual(new Set(categories));
    for (const a of all) {
      expect(a.title.length).toBeLessThanOrEqual(50);
      expect(a.description.length).toBeLessThanOrEqual(200);
      expect(a.photos.length).toBeGreaterThan(0);
      for (const photo of a.photos) expect(existsSync(join("public", photo.replace("/static/", "")))).toBe(true);
    }
    expect((await demo.select().from(reviews)).length).toBeGreaterThan(0);
    expect((await demo.select().from(bookings)).every((b) => b.totalCents === b.subtotalCents + b.serviceFeeCents)).toBe(true);
  });

  test("the demo guest and host can sign in with the documented password", async () => {
    for (const email of [DEMO_GUEST_EMAIL, DEMO_HOST_EMAIL]) {
      const user = (await demo.select().from(users)).find((u) => u.email === email)!;
      expect(await Bun.password.verify(DEMO_PASSWORD, user.passwordHash!)).toBe(true);
    }
    const readme = readFileSync("README.md", "utf8");
    expect(readme).toContain(DEMO_GUEST_EMAIL);
    expect(readme).toContain(DEMO_HOST_EMAIL);
    expect(readme).toContain(DEMO_PASSWORD);
  });

  test("every city has group activities, and upcoming sessions hold spots as booking would", async () => {
    const groups = (await demo.select().from(activities)).filter((a) => a.format === "group");
    expect(new Set(groups.map((a) => a.city))).toEqual(new Set(["New York", "Paris", "London", "Barcelona", "Tokyo"]));
    for (const a of groups) {
      expect(a.capacity).toBeGreaterThanOrEqual(2);
      expect(a.hourlyRateCents).toBe(a.pricePerPersonCents!);
      expect(a.minSpots! >= 1 && a.minSpots! <= a.maxSpots! && a.maxSpots! <= a.capacity!).toBe(true);
      expect(sessionFits(a.weeklyHours, a.sessionMinutes!)).toBe(true);
      if (a.minToRun !== null) expect(a.minToRunHours).not.toBeNull();
    }
    const byId = new Map(groups.map((a) => [a.id, a]));
    const held = (await demo.select().from(bookings)).filter((b) => b.pricePerPersonCents !== null);
    expect(held.length).toBeGreaterThan(0);
    const now = Date.now();
    const ledger = await demo.select().from(ledgerEntries);
    const jobKeys = new Set((await demo.select({ key: jobs.key }).from(jobs)).map((j) => j.key));
    const sessions = new Map<string, number>();
    for (const b of held) {
      const a = byId.get(b.activityId)!;
      expect(b.startsAt).toBeGreaterThan(now);
      expect(b.status).toBe("accepted");
      expect(b.durationMinutes).toBe(a.sessionMinutes!);
      expect(b.guestId).not.toBe(a.hostId);
      const { subtotalCents, totalCents } = groupPriceFor(a.pricePerPersonCents!, b.spots, b.privateGroup ? a.privateGroupPriceCents : null);
      expect([b.subtotalCents, b.totalCents]).toEqual([subtotalCents, totalCents]);
      expect(ledger.filter((l) => l.bookingId === b.id).map((l) => l.kind).sort()).toEqual(["authorize", "capture"]);
      expect(jobKeys.has(`booking.autocomplete:${b.id}`)).toBe(true);
      if (a.minToRun) expect([...jobKeys].some((k) => k?.startsWith(`booking.session-minimum:${a.id}:${b.startsAt}:`))).toBe(true);
      const key = `${a.id}@${b.startsAt}`;
      sessions.set(key, (sessions.get(key) ?? 0) + (b.privateGroup ? a.capacity! : b.spots));
    }
    for (const [key, taken] of sessions) expect(taken).toBeLessThanOrEqual(byId.get(key.split("@")[0]!)!.capacity!);
    // One session has several guests: the demo shows a roster, not one booking per session.
    expect(Math.max(...[...held.reduce((m, b) => m.set(`${b.activityId}@${b.startsAt}`, (m.get(`${b.activityId}@${b.startsAt}`) ?? 0) + 1), new Map<string, number>()).values()])).toBeGreaterThan(1);
  });

  test("the same day gives the same demo on every machine", async () => {
    const now = Date.UTC(2026, 2, 10, 12);
    const shape = async (name: string) => {
      const d = openDb(join(dir, name));
      await migrate(d);
      await seedDemo(d, now);
      const titles = new Map((await d.select({ id: activities.id, title: activities.title }).from(activities)).map((a) => [a.id, a.title]));
      const rows = (await d.select().from(bookings)).map((b) => `${titles.get(b.activityId)} ${b.startsAtLocal} ${b.spots} ${b.totalCents} ${b.status}`).sort();
      return rows;
    };
    expect(await shape("same-a.db")).toEqual(await shape("same-b.db"));
  });

  test("a database with users is never seeded again", async () => {
    const before = (await demo.select().from(activities)).length;
    expect(await seedDemo(demo)).toBeNull();
    expect((await demo.select().from(activities)).length).toBe(before);
  });
});

describe("secrets", () => {
  test("are generated once on first start and kept in the data directory", async () => {
    const config = loadConfig({ DATA_DIR: dir });
    const first = await loadSecrets(config);
    const second = await loadSecrets(config);
    expect(first).toEqual(second);
    expect(first.sessionSecret.length).toBeGreaterThanOrEqual(40);
    expect(Buffer.from(first.vapidPublicKey, "base64url").length).toBe(65); // uncompressed P-256 point
    expect(Buffer.from(first.vapidPrivateKey, "base64url").length).toBe(32);
    const { statSync } = await import("node:fs");
    expect(statSync(join(dir, "secrets.json")).mode & 0o777).toBe(0o600);
  });

  test("configured secrets win over generated ones", async () => {
    const config = loadConfig({ DATA_DIR: dir, SESSION_SECRET: "x".repeat(40) });
    expect((await loadSecrets(config)).sessionSecret).toBe("x".repeat(40));
  });
});
