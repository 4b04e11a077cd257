import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { writeTransaction } from "../db/client";
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

const countOf = (table: string) => (t.db.$client.query(`select count(*) as n from ${table}`).get() as { n: number }).n;

/** Makes the next statement of one kind on a table fail, as a full disk or a bug would. */
function failNext(table: string, when: "INSERT" | "UPDATE" | "DELETE") {
  t.db.$client.exec(`CREATE TRIGGER fail_${table} BEFORE ${when} ON ${table} BEGIN SELECT RAISE(ABORT, 'simulated failure'); END`);
  return () => t.db.$client.exec(`DROP TRIGGER fail_${table}`);
}

describe("write transactions", () => {
  test("a throw inside leaves nothing written", () => {
    const before = countOf("users");
    expect(() =>
      writeTransaction(t.db, (tx) => {
        tx.insert(users).values({ id: crypto.randomUUID(), email: "first@example.com" }).run();
        tx.insert(users).values({ id: crypto.randomUUID(), email: "second@example.com" }).run();
        throw new Error("changed my mind");
      }),
    ).toThrow("changed my mind");
    expect(countOf("users")).toBe(before);
  });

  test("the work's value is returned once committed", () => {
    const id = writeTransaction(t.db, (tx) => tx.insert(users).values({ id: crypto.randomUUID(), email: "kept@example.com" }).returning().get().id);
    expect(t.db.select().from(users).where(eq(users.id, id)).get()?.email).toBe("kept@example.com");
  });

  test("async work does not type-check (it would commit at its first await)", () => {
    // @ts-expect-error: an async callback returns a promise
    const attempt = () => writeTransaction(t.db, async (tx) => tx.select().from(users).all());
    expect(typeof attempt).toBe("function");
  });

  test("an OAuth sign-up that cannot link its account creates no user", async () => {
    const before = countOf("users");
    const restore = failNext("oauth_accounts", "INSERT");
    try {
      await expect(findOrCreateOAuthUser(t.db, { provider: "github", subject: "42", email: "new@example.com", emailVerified: true, firstName: "Ada" })).rejects.toThrow();
    } finally {
      restore();
    }
    expect(countOf("users")).toBe(before);
    const made = await findOrCreateOAuthUser(t.db, { provider: "github", subject: "42", email: "new@example.com", emailVerified: true, firstName: "Ada" });
    expect(t.db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, made.id)).all()).toHaveLength(1);
  });

  test("deleting an activity is all or nothing", async () => {
    const host = writeTransaction(t.db, (tx) => tx.insert(users).values({ id: crypto.randomUUID(), email: "host@example.com" }).returning().get());
    const now = Date.now();
    const activity = writeTransaction(t.db, (tx) =>
      tx
        .insert(activities)
        .values({ id: crypto.randomUUID(), hostId: host.id, country: "France", city: "Paris", category: "food", title: "Bread", description: "Baking", hourlyRateCents: 3000, createdAt: now, updatedAt: now })
        .returning()
        .get(),
    );
    const restore = failNext("activities", "DELETE");
    try {
      await expect(deleteActivity(t.deps, activity)).rejects.toThrow();
    } finally {
      restore();
    }
    expect(t.db.select().from(activities).where(eq(activities.id, activity.id)).get()?.archivedAt).toBeNull();
    expect(await deleteActivity(t.deps, activity)).toBe("deleted");
    expect(t.db.select().from(activities).where(eq(activities.id, activity.id)).get()).toBeUndefined();
  });
});

describe("a write transaction only touches the database", () => {
  const attempt = (call: () => unknown) => {
    const email = `inside-${crypto.randomUUID()}@example.com`;
    let thrown: unknown;
    try {
      writeTransaction(t.db, (tx) => {
        tx.insert(users).values({ id: crypto.randomUUID(), email }).run();
        call();
      });
    } catch (err) {
      thrown = err;
    }
    // Refused, and the transaction's own writes rolled back with it.
    expect(t.db.select().from(users).where(eq(users.email, email)).get()).toBeUndefined();
    return thrown instanceof Error ? thrown.message : String(thrown);
  };

  test("a payment provider's call, an email or an outbound request inside one is refused", async () => {
    expect(attempt(() => t.deps.payments.getIntent("pi_nothing"))).toContain("a payment provider's call (getIntent) inside a write transaction");
    expect(attempt(() => t.deps.mailer.send({ to: "a@example.com", kind: "test", subject: "s", text: "t", html: "<p>t</p>", links: [] } as never, "id"))).toContain("sending an email (send) inside a write transaction");
    const destination = await checkDestination("https://push.example.com/x", false, async () => [{ address: "93.184.215.14", family: 4 }]);
    expect(attempt(() => pinnedRequest(destination, "GET", {}))).toContain("an outbound request inside a write transaction");
  });

  test("outside one, the same calls go through", async () => {
    expect(await t.deps.payments.getIntent("pi_nothing")).toBeNull();
  });
});
