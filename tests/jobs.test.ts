import { one, writeTransaction } from "../db/client";
import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { insert, userRow } from "../src/demo/factories";
import { jobs, leases, sessions, users } from "../db/schema";
import { createSession } from "../src/auth/service";
import { defineJob, JOB_LEASE_MS, retryDelay, RUNNER_LEASE_MS, scheduleJob } from "../src/jobs";
import { makeTestApp, until } from "./helpers";

const HOUR = 60 * 60 * 1000;
const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((c) => c()));

/** A clock the test moves by hand. */
function clock(start = Date.UTC(2026, 10, 22, 12)) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

async function app(time: ReturnType<typeof clock>, dataDir?: string) {
  const t = await makeTestApp({ now: time.now, dataDir });
  if (!dataDir) cleanups.push(t.cleanup);
  return t;
}

describe("durable jobs", () => {
  test("a job scheduled before a restart runs once when due, and not before", async () => {
    const time = clock();
    const ran: string[] = [];
    const remind = defineJob<{ name: string }>({ kind: "test.remind", run: ({ name }) => void ran.push(name) });

    const first = await app(time);
    await first.deps.jobs.register(remind);
    await first.deps.jobs.schedule(remind, { name: "Ada" }, { at: time.now() + 24 * HOUR, key: "remind:ada" });
    // The same key scheduled again is the same job.
    await first.deps.jobs.schedule(remind, { name: "Ada" }, { at: time.now() + 24 * HOUR, key: "remind:ada" });

    // The process stops; a new one opens the same database.
    const second = await app(time, first.dataDir);
    await second.deps.jobs.register(remind);
    time.advance(24 * HOUR - 1);
    await second.deps.jobs.runDue();
    expect(ran).toEqual([]);

    time.advance(1);
    await second.deps.jobs.runDue();
    expect(ran).toEqual(["Ada"]);
    time.advance(HOUR);
    await second.deps.jobs.runDue();
    expect(ran).toEqual(["Ada"]);
    expect(await second.db.select().from(jobs).where(eq(jobs.kind, "test.remind"))).toEqual([]);
  });

  test("runNow runs the due jobs with those keys only, and none another run holds", async () => {
    const time = clock();
    const t = await app(time);
    const ran: string[] = [];
    const say = defineJob<{ name: string }>({ kind: "test.say", run: ({ name }) => void ran.push(name) });
    await t.deps.jobs.register(say);
    for (const name of ["Ada", "Bo", "Cy"]) await t.deps.jobs.schedule(say, { name }, { at: time.now(), key: `say:${name}` });
    await t.deps.jobs.schedule(say, { name: "Later" }, { at: time.now() + HOUR, key: "say:later" });
    // Cy's job is held by another run (its lease has not ended).
    await writeTransaction(t.db, (tx) => tx.update(jobs).set({ leaseUntil: time.now() + JOB_LEASE_MS }).where(eq(jobs.key, "say:Cy")));

    expect(await t.deps.jobs.runNow(["say:Ada", "say:Cy", "say:later"])).toBe(1);
    expect(ran).toEqual(["Ada"]);
    expect((await t.db.select({ key: jobs.key }).from(jobs).where(eq(jobs.kind, "test.say"))).map((j) => j.key).sort()).toEqual(["say:Bo", "say:Cy", "say:later"]);
    expect(await t.deps.jobs.runNow([])).toBe(0);
  });

  test("a failing job is retried with growing waits, then kept as failed", async () => {
    const time = clock();
    const t = await app(time);
    let calls = 0;
    const flaky = defineJob({ kind: "test.flaky", maxAttempts: 3, run: () => {
        calls++;
        throw new Error("provider down");
      },
    });
    await t.deps.jobs.register(flaky);
    await t.deps.jobs.schedule(flaky, {}, { at: time.now() });

    await t.deps.jobs.runDue();
    expect(calls).toBe(1);
    // Not again before the back-off has passed.
    time.advance(retryDelay(1) - 1);
    await t.deps.jobs.runDue();
    expect(calls).toBe(1);
    time.advance(1);
    await t.deps.jobs.runDue();
    time.advance(retryDelay(2));
    await t.deps.jobs.runDue();
    expect(calls).toBe(3);
    time.advance(24 * HOUR);
    await t.deps.jobs.runDue();
    expect(calls).toBe(3);
    const row = (await one(t.db.select().from(jobs).where(eq(jobs.kind, "test.flaky"))))!;
    expect(row.failedAt).not.toBeNull();
    expect(row.lastError).toBe("provider down");
    expect(row.attempts).toBe(3);
  });

  test("a job whose run crashed is picked up again once its lease has passed", async () => {
    const time = clock();
    const t = await app(time);
    const ran: number[] = [];
    const work = defineJob({ kind: "test.work", run: () => void ran.push(time.now()) });
    await t.deps.jobs.register(work);
    await writeTransaction(t.db, (tx) => scheduleJob(tx, work, {}, { at: time.now(), key: "work:1" }));
    // A run took the job and died before finishing.
    await writeTransaction(t.db, (tx) => tx.update(jobs).set({ leaseUntil: time.now() + JOB_LEASE_MS, attempts: 1 }).where(eq(jobs.key, "work:1")));
    expect(await t.deps.jobs.runDue()).toBe(0);
    time.advance(JOB_LEASE_MS + 1);
    expect(await t.deps.jobs.runDue()).toBe(1);
    expect(ran).toHaveLength(1);
  });

  test("two runners on one database never run the same job twice", async () => {
    const time = clock();
    const a = await app(time);
    const b = await app(time, a.dataDir);
    let runs = 0;
    const once = defineJob({ kind: "test.once", run: async () => void (runs++, await Bun.sleep(5)) });
    await a.deps.jobs.register(once);
    await b.deps.jobs.register(once);
    for (let i = 0; i < 10; i++) await a.deps.jobs.schedule(once, {}, { at: time.now() });
    const [x, y] = await Promise.all([a.deps.jobs.runDue(2), b.deps.jobs.runDue(2)]);
    expect(x + y).toBe(10);
    expect(runs).toBe(10);
  });

  test("expired sessions are removed by the hourly chore", async () => {
    const time = clock();
    const t = await app(time);
    const c = t.client();
    const { user } = await c.signUp();
    await createSession(t.db, user.id, time.now() - 31 * 24 * HOUR); // long expired
    expect(await t.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(2);
    time.advance(HOUR);
    await t.deps.jobs.runDue();
    expect(await t.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(1);
    // The chore stays scheduled for the next hour.
    expect((await one(t.db.select().from(jobs).where(eq(jobs.key, "every:sessions.cleanup"))))?.runAt).toBe(time.now() + HOUR);
  });
});

describe("what a failing job writes to the log", () => {
  /** Every line written to the error log while `run` runs, as the console prints it (an error with its properties and causes). */
  async function errorLog(run: () => Promise<unknown>): Promise<string> {
    const lines: string[] = [];
    const error = console.error;
    console.error = (...args: unknown[]) => void lines.push(args.map((a) => (typeof a === "string" ? a : Bun.inspect(a))).join(" "));
    try {
      await run();
    } finally {
      console.error = error;
    }
    return lines.join("\n");
  }

  test("a job failing on a unique violation logs what failed, never the value (PostgreSQL's detail quotes it)", async () => {
    const time = clock();
    const t = await app(time);
    const victim = `victim-${crypto.randomUUID()}@example.com`;
    await insert(t.db).user(userRow({ email: victim }));
    const signUpAgain = defineJob({ kind: "test.duplicate", run: async () => void (await writeTransaction(t.db, (tx) => tx.insert(users).values({ ...userRow(), email: victim }))) });
    t.deps.jobs.register(signUpAgain);
    await t.deps.jobs.schedule(signUpAgain, {}, { at: time.now(), key: "duplicate:1" });
    const logged = await errorLog(() => t.deps.jobs.runDue());
    expect(logged).toContain("job test.duplicate");
    expect(logged).toMatch(/unique/i);
    expect(logged).not.toContain(victim);
    expect((await one(t.db.select().from(jobs).where(eq(jobs.key, "duplicate:1"))))?.lastError).not.toContain(victim);
  });

  test("a PostgreSQL error is named by its SQLSTATE and schema names, never by its message or detail, whichever engine runs", async () => {
    const time = clock();
    const t = await app(time);
    const secret = `secret-${crypto.randomUUID()}`;
    const fromPostgres = Object.assign(new Error(`invalid input syntax for type uuid: "${secret}"`), {
      name: "PostgresError",
      code: "ERR_POSTGRES_SERVER_ERROR",
      errno: "22P02",
      detail: `Key (id)=(${secret}) is not valid`,
      table: "bookings",
      column: "id",
    });
    const failing = defineJob({ kind: "test.postgres-error", run: () => Promise.reject(new Error("the booking could not be read", { cause: fromPostgres })) });
    t.deps.jobs.register(failing);
    await t.deps.jobs.schedule(failing, {}, { at: time.now(), key: "pg:1" });
    const logged = await errorLog(() => t.deps.jobs.runDue());
    expect(logged).toContain("the booking could not be read");
    expect(logged).toContain("caused by PostgresError [ERR_POSTGRES_SERVER_ERROR 22P02]: invalid_text_representation (table bookings, column id)");
    expect(logged).not.toContain(secret);
  });
});

describe("the runner lease (several processes on one database)", () => {
  test("one runner holds it; another takes over only once it lapses, or at once when it is handed over", async () => {
    const time = clock();
    const a = await app(time);
    const b = await app(time, a.dataDir);
    expect(await a.deps.jobs.holdLease()).toBe(true);
    expect(await b.deps.jobs.holdLease()).toBe(false);
    // The holder renews it; the other keeps being refused while it does.
    time.advance(RUNNER_LEASE_MS - 1);
    expect(await a.deps.jobs.holdLease()).toBe(true);
    time.advance(RUNNER_LEASE_MS - 1);
    expect(await b.deps.jobs.holdLease()).toBe(false);
    // The holder stops renewing (it crashed): once the lease has lapsed, the other takes it.
    time.advance(2);
    expect(await b.deps.jobs.holdLease()).toBe(true);
    expect(await a.deps.jobs.holdLease()).toBe(false);
    // A holder that stops cleanly hands it over at once.
    await b.deps.jobs.releaseLease();
    expect(await a.deps.jobs.holdLease()).toBe(true);
  });

  test("of two running loops, only the lease holder runs jobs; the other takes over when it stops", async () => {
    const time = clock();
    const a = await app(time);
    const b = await app(time, a.dataDir);
    const ranBy: string[] = [];
    const note = (who: string) => defineJob({ kind: "test.note", run: () => void ranBy.push(who) });
    await a.deps.jobs.register(note("a"));
    await b.deps.jobs.register(note("b"));
    const waitFor = async (count: number) => {
      for (let i = 0; i < 200 && ranBy.length < count; i++) await Bun.sleep(5);
    };

    a.deps.jobs.start(5);
    // `a` has taken the lease by the time `b` starts asking for it.
    await until("a to hold the runner lease", async () => (await one(a.db.select().from(leases)))?.holder === a.deps.jobs.holder);
    b.deps.jobs.start(5);
    for (let i = 0; i < 5; i++) {
      await writeTransaction(a.db, (tx) => scheduleJob(tx, note("a"), {}, { at: time.now() }));
      await waitFor(i + 1);
    }
    expect(ranBy).toEqual(["a", "a", "a", "a", "a"]);

    await a.deps.jobs.stop();
    await writeTransaction(a.db, (tx) => scheduleJob(tx, note("a"), {}, { at: time.now() }));
    await waitFor(6);
    await b.deps.jobs.stop();
    expect(ranBy).toEqual(["a", "a", "a", "a", "a", "b"]);
  });
});
