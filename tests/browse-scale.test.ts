import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, isNull } from "drizzle-orm";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDb, dbVersion, migrate, openDb, readCache, seeOtherConnections, writeTransaction, writerClient } from "../db/client";
import { activities } from "../db/schema";
import { seedDemo, seedGeneratedActivities } from "../src/demo/seed";
import { BROWSE_COUNT_CAP, browseActivities, browseQueries } from "../src/activities/queries";
import { holdRunnerLease } from "../src/jobs/rows";
import { makeTestApp, type Client } from "./helpers";

/** Browse costs the same however many activities match: a capped count and indexed pages (decision 0015). */
let t: Awaited<ReturnType<typeof makeTestApp>>;
let guest: Client;
let newYork = 0;
beforeAll(async () => {
  t = await makeTestApp();
  await seedDemo(t.db);
  await seedGeneratedActivities(t.db, 6000);
  newYork = (t.db.$client.query("SELECT count(*) AS n FROM activities WHERE city = 'New York' AND active = 1 AND archived_at IS NULL").get() as { n: number }).n;
  guest = t.client();
  await guest.signUpComplete({ city: "New York" });
});
afterAll(() => t.cleanup());

describe("the browse count", () => {
  test("the test city has more listed activities than the cap", () => {
    expect(newYork).toBeGreaterThan(BROWSE_COUNT_CAP);
  });

  test("past the cap the page says '1,000+ activities found', in English and French", async () => {
    const html = await (await guest.get("/browse?city=New%20York")).text();
    expect(html).toContain("1,000+ activities found");
    const fr = await (await guest.get("/browse?city=New%20York", { "accept-language": "fr" })).text();
    // French groups thousands with a narrow no-break space.
    expect(fr).toMatch(/1\s000\+ activités trouvées/u);
  });

  test("under the cap the count is exact, with the spec's text", async () => {
    const exact = await browseActivities(t.db, { city: "New York", category: "food", limit: 20 });
    const food = (await t.db
      .select({ id: activities.id })
      .from(activities)
      .where(and(eq(activities.city, "New York"), eq(activities.category, "food"), eq(activities.active, true), isNull(activities.archivedAt)))).length;
    // 6,000 activities over 5 cities and 8 categories: a category of one city stays under the cap.
    expect(food).toBeLessThanOrEqual(BROWSE_COUNT_CAP);
    expect(exact).toMatchObject({ total: food, capped: false });
    const html = await (await guest.get("/browse?city=New%20York&category=food")).text();
    expect(html).toContain(`${food.toLocaleString("en-US")} activities found`);
  });

  test("a smaller cap counts up to it and says so; archived and inactive activities are not counted", async () => {
    const few = await browseActivities(t.db, { city: "New York", limit: 3, countCap: 5 });
    expect(few).toMatchObject({ total: 5, capped: true });
    expect(few.cards.length).toBe(3);
    const tokyo = await browseActivities(t.db, { city: "Tokyo", category: "music", limit: 50, countCap: 10_000 });
    const hidden = tokyo.cards.slice(0, 2).map((c) => c.id);
    await writeTransaction(t.db, async (tx) => {
      await tx.update(activities).set({ archivedAt: Date.now() }).where(eq(activities.id, hidden[0]!));
      await tx.update(activities).set({ active: false }).where(eq(activities.id, hidden[1]!));
    });
    const after = await browseActivities(t.db, { city: "Tokyo", category: "music", limit: 50, countCap: 10_000 });
    expect(after.total).toBe(tokyo.total - 2);
    expect(after.cards.map((c) => c.id)).not.toContain(hidden[0]!);
    expect(after.cards.map((c) => c.id)).not.toContain(hidden[1]!);
    // Exactly at the cap is not "more than".
    expect(await browseActivities(t.db, { city: "Tokyo", category: "music", limit: 1, countCap: after.total })).toMatchObject({ total: after.total, capped: false });
  });

  test("the API's X-Total-Count holds the cap and X-Total-Count-Capped says there are more", async () => {
    const capped = await guest.get("/api/activities?city=New%20York");
    expect(capped.headers.get("x-total-count")).toBe(String(BROWSE_COUNT_CAP));
    expect(capped.headers.get("x-total-count-capped")).toBe("true");
    const exact = await guest.get("/api/activities?city=Honolulu");
    expect(exact.headers.get("x-total-count")).toBe("0");
    expect(exact.headers.get("x-total-count-capped")).toBeNull();
  });

  test("keyset paging walks past the cap without repeats", async () => {
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let i = 0; i < 12; i++) {
      const page = await browseActivities(t.db, { city: "New York", limit: 100, cursor });
      for (const card of page.cards) seen.add(card.id);
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen.size).toBe(Math.min(newYork, 1200));
  });
});

describe("browse query plans", () => {
  // Prepared and finalized: a cached EXPLAIN statement would keep the read connection on the
  // snapshot it was run on (bun:sqlite), and later reads would not see the writer's commits.
  const planOf = (sql: string) => {
    const statement = t.db.$client.prepare(`EXPLAIN QUERY PLAN ${sql}`);
    try {
      return (statement.all() as { detail: string }[]).map((r) => r.detail).join("; ");
    } finally {
      statement.finalize();
    }
  };

  test("every page (as listings and as cards) and count statement searches a browse index: no full scan, no sort", () => {
    const queries = browseQueries(t.db);
    const names = Object.keys(queries).filter((n) => n !== "ratings");
    expect(names.sort()).toEqual(["cards.all", "cards.allAfter", "cards.category", "cards.categoryAfter", "count.all", "count.category", "page.all", "page.allAfter", "page.category", "page.categoryAfter"]);
    for (const name of names) {
      const plan = planOf(queries[name]!);
      expect(`${name}: ${plan}`).toMatch(/SEARCH activities USING (COVERING )?INDEX activities_browse/);
      expect(`${name}: ${plan}`).not.toMatch(/SCAN activities|TEMP B-TREE/);
      if (name.includes("category")) expect(plan).toContain("activities_browse_category (city=? AND category=?");
      if (name.endsWith("After")) expect(plan).toContain("(created_at,id)<(?,?)");
    }
  });

  test("ratings are read by activity from the reviews index", () => {
    const plan = planOf(browseQueries(t.db).ratings!);
    expect(plan).toContain("SEARCH reviews USING INDEX reviews_activity (activity_id=?)");
    expect(plan).not.toMatch(/SCAN reviews/);
  });
});

describe("browse pages read once per database change", () => {
  test("the same page twice is the same read; a write reads again", async () => {
    const first = await browseActivities(t.db, { city: "Paris", category: "art", limit: 5 });
    const again = await browseActivities(t.db, { city: "Paris", category: "art", limit: 5 });
    expect(again).toEqual(first);

    // A write: the hidden activity leaves the page at once.
    const hidden = first.cards[0]!.id;
    await writeTransaction(t.db, (tx) => tx.update(activities).set({ active: false }).where(eq(activities.id, hidden)));
    const afterOwn = await browseActivities(t.db, { city: "Paris", category: "art", limit: 5 });
    expect(afterOwn.cards.map((c) => c.id)).not.toContain(hidden);
    expect(afterOwn.total).toBe(first.total - 1);
  });

  test("a read again after a change elsewhere hands out the same object; one that changed, a new one", async () => {
    const kept = readCache<{ names: string[]; at: Map<string, number> }>(10);
    let names = ["Ana", "Ben"];
    const read = () => kept(t.db, "names", async () => ({ names: [...names], at: new Map([["Ana", 1]]) }));
    const first = await read();
    // A write that changes nothing this read sees (another table): the same object, so what was made of it stays made.
    await writeTransaction(t.db, (tx) => tx.update(activities).set({ featured: true }).where(eq(activities.id, "none")));
    expect(await read()).toBe(first);
    // A write that changes what it reads: a new object with the new content.
    names = ["Ana", "Ben", "Cleo"];
    await writeTransaction(t.db, (tx) => tx.update(activities).set({ featured: true }).where(eq(activities.id, "none")));
    const changed = await read();
    expect(changed).not.toBe(first);
    expect(changed.names).toEqual(["Ana", "Ben", "Cleo"]);
  });

  test("the same object comes back however many versions passed without this key being read", async () => {
    const kept = readCache<{ names: string[] }>(10);
    const read = (key: string) => kept(t.db, key, async () => ({ names: ["Ana", "Ben"] }));
    const first = await read("names");
    const unrelated = () => writeTransaction(t.db, (tx) => tx.update(activities).set({ featured: true }).where(eq(activities.id, "none")));
    // Two writes close together (the job runner's lease, then its job), with only another key read
    // in the version between them: this key's next read still finds what it gave before.
    await unrelated();
    await read("other names");
    await unrelated();
    await unrelated();
    expect(await read("names")).toBe(first);
  });

  test("the database's version moves with a commit of another connection, and with every write transaction of this handle", async () => {
    const dir = mkdtempSync(join(tmpdir(), "offline-version-"));
    try {
      const one = openDb(join(dir, "v.db"));
      const two = openDb(join(dir, "v.db"));
      await migrate(one);
      writerClient(one).exec("CREATE TABLE t (x)");
      const start = await dbVersion(one);
      // Another handle (another process, a script) commits: its writer is another connection.
      writerClient(two).exec("INSERT INTO t VALUES (1)");
      const afterOther = await dbVersion(one);
      expect(afterOther).not.toBe(start);
      await writeTransaction(one, (tx) => tx.$client.query("UPDATE t SET x = 2").run());
      expect(await dbVersion(one)).not.toBe(afterOther);
      expect(await dbVersion(one)).toBe(await dbVersion(one));
      // Every way of writing moves it, even a write transaction that changes no row; reading does not.
      const writes: [string, () => Promise<unknown>][] = [
        ["a write transaction's query builder", () => writeTransaction(one, (tx) => tx.update(activities).set({ featured: true }).where(eq(activities.id, "none")))],
        ["a write transaction's raw SQL", () => writeTransaction(one, (tx) => tx.$client.query("INSERT INTO t VALUES (3)").run())],
        ["a write transaction of several statements", () => writeTransaction(one, async (tx) => {
          tx.$client.query("DELETE FROM t WHERE x = ?").run(3);
          await tx.select().from(activities).limit(1);
          return tx.$client.query("INSERT INTO t VALUES (4) RETURNING x").all();
        })],
        ["a write transaction that rolls back", () => writeTransaction(one, async (tx) => {
          await tx.update(activities).set({ featured: true }).where(eq(activities.id, "none"));
          throw new Error("rolled back");
        }).catch(() => undefined)],
        ["the writer connection's raw SQL", async () => writerClient(one).prepare("UPDATE t SET x = 5 WHERE x = 4").run()],
        ["another handle's write transaction", () => writeTransaction(two, (tx) => tx.$client.query("DELETE FROM t WHERE x = 5").run())],
      ];
      for (const [how, write] of writes) {
        const before = await dbVersion(one);
        one.$client.query("SELECT count(*) FROM t").get();
        await one.select().from(activities).limit(1);
        expect(await dbVersion(one), how).toBe(before);
        await write();
        expect(await dbVersion(one), how).not.toBe(before);
      }
      // A kept read is kept while nothing is written, and dropped at once after any write
      // transaction of this handle, even one that changed nothing.
      const kept = readCache<number>(10);
      let reads = 0;
      const counter = () => kept(one, "reads", async () => ++reads);
      expect(await counter()).toBe(1);
      one.$client.query("SELECT count(*) FROM t").get();
      await one.select().from(activities).limit(1);
      expect(await counter()).toBe(1);
      await writeTransaction(one, (tx) => tx.update(activities).set({ featured: true }).where(eq(activities.id, "none")));
      expect(await counter()).toBe(2);
      expect(await counter()).toBe(2);
      // A kept read sees another connection's commit from the next request on (each request
      // looks as it starts), or 10 ms later outside requests; this handle's writes at once.
      const rows = () => kept(one, "rows", async () => (one.$client.query("SELECT count(*) AS n FROM t").get() as { n: number }).n);
      const counted = await rows();
      await writeTransaction(two, (tx) => tx.$client.query("INSERT INTO t VALUES (6)").run());
      await seeOtherConnections(one);
      expect(await rows()).toBe(counted + 1);
      writerClient(two).exec("INSERT INTO t VALUES (7)");
      await Bun.sleep(11);
      expect(await rows()).toBe(counted + 2);
      await writeTransaction(one, (tx) => tx.$client.query("INSERT INTO t VALUES (8)").run());
      expect(await rows()).toBe(counted + 3);
      await closeDb(one);
      await closeDb(two);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("another connection's commit landing just after the lease's is never taken for the lease's own", async () => {
    const dir = mkdtempSync(join(tmpdir(), "offline-quiet-race-"));
    try {
      const file = join(dir, "r.db");
      const one = openDb(file);
      const two = openDb(file);
      await migrate(one);
      writerClient(one).exec("CREATE TABLE t (x)");
      const kept = readCache<number>(10);
      const cached = () => kept(one, "n", async () => (one.$client.query("SELECT count(*) AS n FROM t").get() as { n: number }).n);
      // Another process's commit in the moment after the lease's COMMIT, before this handle looks
      // at the count again: SQLite moves the count once for both. (Taking the writer connection
      // counts as a write: it is taken before the read is kept.)
      const writer = writerClient(one);
      const run = writer.run.bind(writer);
      let between = false;
      writer.run = ((sql: string, ...params: never[]) => {
        const result = run(sql, ...params);
        if (between && sql === "COMMIT") {
          between = false;
          writerClient(two).exec("INSERT INTO t VALUES (1)");
        }
        return result;
      }) as typeof writer.run;
      await holdRunnerLease(one, "runner-a", Date.now());
      await seeOtherConnections(one);
      expect(await cached()).toBe(0);
      between = true;
      await holdRunnerLease(one, "runner-a", Date.now());
      expect(between).toBe(false);
      await seeOtherConnections(one);
      expect(await cached()).toBe(1);
      await closeDb(one);
      await closeDb(two);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the job runner's lease, written to the file, moves no version; another's commit after it still does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "offline-quiet-"));
    try {
      const one = openDb(join(dir, "q.db"));
      const two = openDb(join(dir, "q.db"));
      await migrate(one);
      writerClient(one).exec("CREATE TABLE t (x)");
      const kept = readCache<number>(10);
      let reads = 0;
      const counter = () => kept(one, "reads", async () => ++reads);
      await seeOtherConnections(one);
      expect(await counter()).toBe(1);
      // Every few seconds, a row really written: the writer's commit moves the count the reader
      // sees as another connection's would, and must not drop what is kept.
      for (let pass = 0; pass < 3; pass++) {
        await holdRunnerLease(one, "runner-a", Date.now());
        await seeOtherConnections(one);
        expect(await counter()).toBe(1);
      }
      // Another process's commit, and this handle's own write, are still seen.
      writerClient(two).exec("INSERT INTO t VALUES (1)");
      await seeOtherConnections(one);
      expect(await counter()).toBe(2);
      await holdRunnerLease(one, "runner-a", Date.now());
      await writeTransaction(one, (tx) => tx.$client.query("INSERT INTO t VALUES (2)").run());
      expect(await counter()).toBe(3);
      // A commit of another in between is not taken for the lease's own.
      writerClient(two).exec("INSERT INTO t VALUES (3)");
      await holdRunnerLease(one, "runner-a", Date.now());
      await seeOtherConnections(one);
      expect(await counter()).toBe(4);
      await closeDb(one);
      await closeDb(two);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
