import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SQL } from "bun";
import { count, eq } from "drizzle-orm";
import { engineOf, one, writeTransaction, writerClient, written } from "../db/client";
import { activities, oauthAccounts, users } from "../db/schema";
import { deleteActivity } from "../src/activities/service";
import { findOrCreateOAuthUser } from "../src/auth/service";
import { checkDestination, pinnedRequest } from "../src/notifications/destinations";
import { makeTestApp } from "./helpers";

let t: Awaited<ReturnType<typeof makeTestApp>>;
beforeAll(async () => {
  t = await makeTestApp();
});
afterAll(() => t.cleanup());

const userCount = async () => (await one(t.db.select({ n: count() }).from(users)))!.n;

/**
 * Makes the next statement of one kind on a table fail, as a full disk or a bug would: a trigger,
 * in each engine's own SQL. Answers what takes it away again.
 */
async function failNext(table: string, when: "INSERT" | "UPDATE" | "DELETE"): Promise<() => Promise<void>> {
  if (engineOf(t.db) === "sqlite") {
    writerClient(t.db).exec(`CREATE TRIGGER fail_${table} BEFORE ${when} ON ${table} BEGIN SELECT RAISE(ABORT, 'simulated failure'); END`);
    return async () => {
      writerClient(t.db).exec(`DROP TRIGGER fail_${table}`);
    };
  }
  const pg = t.db.$client as unknown as SQL;
  await pg.unsafe(`CREATE FUNCTION fail_${table}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'simulated failure'; END $$`);
  await pg.unsafe(`CREATE TRIGGER fail_${table} BEFORE ${when} ON ${table} FOR EACH ROW EXECUTE FUNCTION fail_${table}()`);
  return async () => {
    await pg.unsafe(`DROP TRIGGER fail_${table} ON ${table}`);
    await pg.unsafe(`DROP FUNCTION fail_${table}()`);
  };
}

describe("write transactions", () => {
  test("a throw inside leaves nothing written", async () => {
    const before = await userCount();
    await expect(
      writeTransaction(t.db, async (tx) => {
        await tx.insert(users).values({ id: crypto.randomUUID(), email: "first@example.com" });
        await tx.insert(users).values({ id: crypto.randomUUID(), email: "second@example.com" });
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    expect(await userCount()).toBe(before);
  });

  test("the work's value is returned once committed, and the app's reads see it", async () => {
    const id = await writeTransaction(t.db, async (tx) => (await written(tx.insert(users).values({ id: crypto.randomUUID(), email: "kept@example.com" }).returning())).id);
    expect((await one(t.db.select().from(users).where(eq(users.id, id))))?.email).toBe("kept@example.com");
  });

  test("what a transaction wrote is seen by nobody else until it commits", async () => {
    const email = `pending-${crypto.randomUUID()}@example.com`;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const writing = writeTransaction(t.db, async (tx) => {
      await tx.insert(users).values({ id: crypto.randomUUID(), email });
      expect(await one(tx.select().from(users).where(eq(users.email, email)))).toBeDefined();
      await held;
    });
    await Bun.sleep(5);
    expect(await one(t.db.select().from(users).where(eq(users.email, email)))).toBeUndefined();
    release();
    await writing;
    expect(await one(t.db.select().from(users).where(eq(users.email, email)))).toBeDefined();
  });

  test("transactions started at once run one after the other: no read-then-write is lost", async () => {
    const id = await writeTransaction(t.db, async (tx) => (await written(tx.insert(users).values({ id: crypto.randomUUID(), email: `count-${crypto.randomUUID()}@example.com`, calendarFeedVersion: 0 }).returning())).id);
    await Promise.all(
      Array.from({ length: 20 }, () =>
        writeTransaction(t.db, async (tx) => {
          const row = await one(tx.select({ n: users.calendarFeedVersion }).from(users).where(eq(users.id, id)));
          await Bun.sleep(1); // another request's turn, were the transactions not queued
          await tx.update(users).set({ calendarFeedVersion: row!.n + 1 }).where(eq(users.id, id));
        }),
      ),
    );
    expect((await one(t.db.select({ n: users.calendarFeedVersion }).from(users).where(eq(users.id, id))))?.n).toBe(20);
  });

  test("the app's own handle refuses to write; a read through it inside a transaction, or a transaction inside another, is refused", async () => {
    // SQLite's own refusal (`PRAGMA query_only` on the read connection); PostgreSQL's pool has no such switch.
    if (engineOf(t.db) === "sqlite") expect(() => t.db.$client.exec("DELETE FROM users")).toThrow(/readonly/);
    // PostgreSQL's driver wraps the refusal in drizzle's "Failed query" error: its reason is the cause.
    const reasons = async (work: Promise<unknown>) => {
      const messages: string[] = [];
      await work.then(
        () => messages.push("(not refused)"),
        (err: unknown) => {
          for (let e = err; e instanceof Error; e = e.cause) messages.push(e.message);
        },
      );
      return messages.join("\n");
    };
    expect(await reasons(writeTransaction(t.db, async () => await one(t.db.select().from(users))))).toContain("a read through the app's handle inside a write transaction");
    await expect(writeTransaction(t.db, () => writeTransaction(t.db, () => 1))).rejects.toThrow("a write transaction inside another");
  });

  test("an OAuth sign-up that cannot link its account creates no user", async () => {
    const before = await userCount();
    const restore = await failNext("oauth_accounts", "INSERT");
    try {
      await expect(findOrCreateOAuthUser(t.db, { provider: "github", subject: "42", email: "new@example.com", emailVerified: true, firstName: "Ada" })).rejects.toThrow();
    } finally {
      await restore();
    }
    expect(await userCount()).toBe(before);
    const made = await findOrCreateOAuthUser(t.db, { provider: "github", subject: "42", email: "new@example.com", emailVerified: true, firstName: "Ada" });
    expect(await t.db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, made.id))).toHaveLength(1);
  });

  test("deleting an activity is all or nothing", async () => {
    const host = await writeTransaction(t.db, async (tx) => await written(tx.insert(users).values({ id: crypto.randomUUID(), email: "host@example.com" }).returning()));
    const now = Date.now();
    const activity = await writeTransaction(t.db, async (tx) =>
      await written(tx
        .insert(activities)
        .values({ id: crypto.randomUUID(), hostId: host.id, country: "France", city: "Paris", category: "food", title: "Bread", description: "Baking", hourlyRateCents: 3000, createdAt: now, updatedAt: now })
        .returning()),
    );
    const restore = await failNext("activities", "DELETE");
    try {
      await expect(deleteActivity(t.deps, activity)).rejects.toThrow();
    } finally {
      await restore();
    }
    expect((await one(t.db.select().from(activities).where(eq(activities.id, activity.id))))?.archivedAt).toBeNull();
    expect(await deleteActivity(t.deps, activity)).toBe("deleted");
    expect(await one(t.db.select().from(activities).where(eq(activities.id, activity.id)))).toBeUndefined();
  });
});

describe("a write transaction only touches the database", () => {
  const attempt = async (call: () => unknown) => {
    const email = `inside-${crypto.randomUUID()}@example.com`;
    let thrown: unknown;
    try {
      await writeTransaction(t.db, async (tx) => {
        await tx.insert(users).values({ id: crypto.randomUUID(), email });
        await call();
      });
    } catch (err) {
      thrown = err;
    }
    // Refused, and the transaction's own writes rolled back with it.
    expect(await one(t.db.select().from(users).where(eq(users.email, email)))).toBeUndefined();
    return thrown instanceof Error ? thrown.message : String(thrown);
  };

  test("a payment provider's call, an email or an outbound request inside one is refused, however many awaits deep", async () => {
    expect(await attempt(() => t.deps.payments.getIntent("pi_nothing"))).toContain("a payment provider's call (getIntent) inside a write transaction");
    expect(await attempt(() => t.deps.mailer.send({ to: "a@example.com", kind: "test", subject: "s", text: "t", html: "<p>t</p>", links: [] } as never, "id"))).toContain("sending an email (send) inside a write transaction");
    const destination = await checkDestination("https://push.example.com/x", false, async () => [{ address: "93.184.215.14", family: 4 }]);
    expect(await attempt(() => pinnedRequest(destination, "GET", {}))).toContain("an outbound request inside a write transaction");
  });

  test("outside one, the same calls go through", async () => {
    expect(await t.deps.payments.getIntent("pi_nothing")).toBeNull();
  });
});
