import { afterAll, describe, expect, test } from "bun:test";
import { eq, inArray } from "drizzle-orm";
import { one, writeTransaction } from "../db/client";
import { activityRow, insert, userRow } from "../src/demo/factories";
import { bookings, jobs, leases } from "../db/schema";
import { composeEmail, queueEmail } from "../src/email/outbox";
import { defineJob, JOB_LEASE_MS, LANES, retryDelay, RUNNER_LEASE_MS } from "../src/jobs";
import type { TestProvider } from "../src/payments/test-provider";
import { startFakeSmtp } from "./fakes/smtp";
import { ledgerLines, makeTestApp, requestWithTestCard, settled, until } from "./helpers";

/**
 * Job lanes (docs/decisions/0045): money work runs in a lane of its own, ahead of and beside
 * email, outside calendars and push, each bounded in how many run at once; every attempt has a
 * time limit, and a send to a mail server has a deadline of its own, so a mail server that hangs
 * or trickles holds up no card hold.
 */
const HOUR = 60 * 60 * 1000;
// 2026-06-01 12:00 in New York (16:00 UTC).
const START = Date.UTC(2026, 5, 1, 16, 0);
/** How long the app's SMTP client waits on the suite's mail server (the server's own limits are in src/email/mailer.ts). */
const MAIL_LIMITS = { connectMs: 1_000, greetingMs: 1_000, idleMs: 1_000, sendMs: 2_000 };

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function app(clock: { now: number }, opts: Parameters<typeof makeTestApp>[0] = {}) {
  const t = await makeTestApp({ now: () => clock.now, ...opts });
  cleanups.push(() => t.cleanup());
  return t;
}

const jobRow = async (t: { db: Awaited<ReturnType<typeof makeTestApp>>["db"] }, key: string) => one(t.db.select().from(jobs).where(eq(jobs.key, key)));

describe("a misbehaving mail server holds up no card hold", () => {
  for (const misbehaviour of ["stall", "trickle"] as const) {
    const what = misbehaviour === "stall" ? "accepts connections and says nothing" : "trickles its replies a byte at a time";
    test(`while the mail server ${what}, overdue card holds are released within seconds; the 20 queued emails go once it behaves`, async () => {
      const clock = { now: START };
      const smtp = await startFakeSmtp();
      const t = await app(clock, { env: { SMTP_URL: smtp.url }, mailLimits: MAIL_LIMITS });
      try {
        // Three requests, each holding the guest's card until the host answers or 24 hours pass.
        const host = await insert(t.db).user(userRow());
        const activityId = (await insert(t.db).activity(activityRow(host, {}, START))).id;
        const guest = t.client();
        await guest.signInAs((await insert(t.db).user(userRow())).id);
        const requests: { id: string; intentId: string }[] = [];
        for (let day = 3; day < 6; day++) {
          const date = new Date(START + day * 24 * HOUR).toISOString().slice(0, 10);
          const { res, intent } = await requestWithTestCard(guest, { activityId, date, hours: 2, total: "88.00" });
          expect(res.status).toBe(201);
          requests.push({ id: ((await res.json()) as { id: string }).id, intentId: intent.paymentIntentId as string });
        }
        await settled(t.deps);

        // The mail server goes bad with 20 emails waiting, older than the holds' expiry.
        smtp[misbehaviour]();
        const readers = Array.from({ length: 20 }, (_, i) => `reader${i}-${crypto.randomUUID().slice(0, 8)}@example.com`);
        const keys: string[] = [];
        await writeTransaction(t.db, async (tx) => {
          for (const to of readers) {
            const email = composeEmail(t.deps, "news", to, { locale: "en", subject: "News", heading: "News", paragraphs: ["Hello."], footer: "You get this email because you asked for it." });
            keys.push(await queueEmail(tx, t.deps, `news:${to}`, email));
          }
        });

        // A day and an hour later, the runner's loop finds the holds overdue behind the emails.
        clock.now += 25 * HOUR;
        t.deps.jobs.start(50);
        await until("the three card holds to be released", async () => {
          const rows = await t.db.select({ status: bookings.status }).from(bookings).where(inArray(bookings.id, requests.map((r) => r.id)));
          return rows.length === 3 && rows.every((r) => r.status === "expired");
        }, 5_000);
        const provider = t.deps.payments as TestProvider;
        for (const { id, intentId } of requests) {
          expect(await ledgerLines(t.db, id)).toEqual(["authorize:8800", "release:8800"]);
          expect((await provider.getIntent(intentId))?.status).toBe("canceled");
        }
        // The mail is stuck meanwhile: the server was reached, and none of the 20 went out.
        await until("the mail server to be tried", () => smtp.misbehavedConnections() > 0);
        expect(readers.filter((to) => smtp.to(to).length > 0)).toEqual([]);

        // An attempt that gets no answer in time fails and waits for its retry, as any failed send does.
        let failed: Awaited<ReturnType<typeof jobRow>>;
        await until("a send to fail", async () => {
          failed = (await t.db.select().from(jobs).where(inArray(jobs.key, keys))).find((j) => j.lastError !== null && j.leaseUntil === null);
          return !!failed;
        }, 15_000);
        expect(failed!.failedAt).toBeNull();
        expect(failed!.runAt).toBe(clock.now + retryDelay(failed!.attempts));
        // Silence is noticed by the greeting or the send's deadline; trickling only by the deadline.
        expect(failed!.lastError).toMatch(misbehaviour === "stall" ? /Greeting never received|had not taken the email after 2 s/ : /had not taken the email after 2 s/);

        // The server is restarted and behaves: what was cut is retried once its wait has passed.
        smtp.behave();
        await settled(t.deps, 30_000);
        clock.now += HOUR;
        await until("the 20 emails to be delivered", () => readers.every((to) => smtp.to(to).length > 0), 30_000);
        await until("their jobs to be done", async () => (await t.db.select().from(jobs).where(inArray(jobs.key, keys))).length === 0);
        for (const to of readers) expect(new Set(smtp.to(to).map((m) => m.parsed.messageId)).size).toBe(1);
      } finally {
        await t.deps.jobs.stop();
        t.deps.mailer.close();
        await smtp.close();
      }
    }, 90_000);
  }
});

describe("lanes", () => {
  test("a stuck lane holds up neither the money lane nor the loop's passes, and runs no more at once than its bound", async () => {
    const clock = { now: START };
    const t = await app(clock);
    const other = await app(clock, { dataDir: t.dataDir });
    let hang = true;
    const hung: (() => void)[] = [];
    let sends = 0;
    const stuckSend = defineJob({
      kind: "test.stuck-send",
      lane: "email",
      run: () => {
        sends++;
        return hang ? new Promise<void>((resolve) => hung.push(resolve)) : undefined;
      },
    });
    const paid: string[] = [];
    const pay = defineJob<{ id: string }>({ kind: "test.pay", lane: "money", run: ({ id }) => void paid.push(id) });
    t.deps.jobs.register(stuckSend, pay);
    other.deps.jobs.register(stuckSend, pay);
    // Six stuck sends, due an hour before three money jobs.
    for (let i = 0; i < 6; i++) await t.deps.jobs.schedule(stuckSend, {}, { at: clock.now - HOUR, key: `send:${i}` });
    for (const id of ["a", "b", "c"]) await t.deps.jobs.schedule(pay, { id }, { at: clock.now, key: `pay:${id}` });

    t.deps.jobs.start(20);
    try {
      await until("the money jobs to run", () => paid.length === 3, 3_000);
      expect(paid.sort()).toEqual(["a", "b", "c"]);
      await until("the email lane to fill", () => sends === LANES.email.concurrency);

      // Time passes with the sends still stuck: the loop still passes, renewing the runner lease,
      // so no other process takes the jobs over, and money due later still runs.
      clock.now += RUNNER_LEASE_MS - 1_000;
      await until("the lease to be renewed", async () => (await one(t.db.select().from(leases)))?.until === clock.now + RUNNER_LEASE_MS);
      clock.now += 2_000;
      await until("the lease to be renewed again", async () => (await one(t.db.select().from(leases)))?.until === clock.now + RUNNER_LEASE_MS);
      expect(await other.deps.jobs.holdLease()).toBe(false);
      await t.deps.jobs.schedule(pay, { id: "d" }, { at: clock.now, key: "pay:d" });
      await until("the later money job to run", () => paid.includes("d"), 3_000);
      expect(sends).toBe(LANES.email.concurrency);
      expect((await t.db.select().from(jobs).where(eq(jobs.kind, "test.stuck-send"))).length).toBe(6);
    } finally {
      hang = false;
      for (const resolve of hung) resolve();
      await until("the sends to end", async () => (await t.db.select().from(jobs).where(eq(jobs.kind, "test.stuck-send"))).length === 0);
      await t.deps.jobs.stop();
    }
  });

  test("runNow waits for a free place in the job's lane", async () => {
    const clock = { now: START };
    const t = await app(clock);
    const hung: (() => void)[] = [];
    let sends = 0;
    const send = defineJob({ kind: "test.send", lane: "email", run: () => new Promise<void>((resolve) => (sends++, hung.push(resolve))) });
    t.deps.jobs.register(send);
    const keys = Array.from({ length: LANES.email.concurrency + 1 }, (_, i) => `send:${i}`);
    for (const key of keys) await t.deps.jobs.schedule(send, {}, { at: clock.now, key });
    // Each asked for at once, as emails queued by separate requests are.
    const runs = keys.map((key) => t.deps.jobs.runNow([key]));
    await until("the lane to fill", () => sends === LANES.email.concurrency);
    await Bun.sleep(50);
    expect(sends).toBe(LANES.email.concurrency);
    hung.shift()!();
    await until("the waiting one to start", () => sends === keys.length);
    for (const resolve of hung) resolve();
    expect(await Promise.all(runs)).toEqual(keys.map(() => 1));
    expect(await t.db.select().from(jobs).where(eq(jobs.kind, "test.send"))).toEqual([]);
  });
});

describe("runNow and a stop", () => {
  /** An app whose loop runs (so it can be stopped) and has passed once: only runNow takes jobs until it is stopped. */
  async function looping(clock: { now: number }) {
    const t = await app(clock);
    t.deps.jobs.start(60 * 60 * 1000);
    await until("the runner lease", async () => (await one(t.db.select().from(leases)))?.holder === t.deps.jobs.holder);
    return t;
  }

  test("a runNow waiting for a place in a full lane when the stop comes claims nothing: its job stays free for whoever runs the jobs next", async () => {
    const clock = { now: START };
    const t = await looping(clock);
    const hung: (() => void)[] = [];
    const ran: string[] = [];
    const send = defineJob<{ name: string }>({
      kind: "test.send-at-stop",
      lane: "email",
      run: ({ name }) => {
        ran.push(name);
        return name === "waiting" ? undefined : new Promise<void>((resolve) => hung.push(resolve));
      },
    });
    t.deps.jobs.register(send);
    const busy = Array.from({ length: LANES.email.concurrency }, (_, i) => `busy:${i}`);
    for (const key of [...busy, "waiting"]) await t.deps.jobs.schedule(send, { name: key }, { at: clock.now, key });
    const filling = busy.map((key) => t.deps.jobs.runNow([key]));
    await until("the lane to fill", () => ran.length === busy.length);
    const waiting = t.deps.jobs.runNow(["waiting"]);
    await Bun.sleep(50);
    expect([...ran].sort()).toEqual(busy); // the lane fills in either order

    const stopped = t.deps.jobs.stop(5_000);
    await Bun.sleep(50);
    for (const resolve of hung.splice(0)) resolve();
    await stopped;
    // Each busy job ran once: by its runNow, or (on a loaded machine) by the loop's first pass,
    // still looking for due jobs when they were written, which met it first.
    expect((await Promise.all(filling)).every((n) => n === 0 || n === 1)).toBe(true);
    expect(await waiting).toBe(0);
    expect([...ran].sort()).toEqual(busy); // the lane fills in either order
    expect(await jobRow(t, "waiting")).toMatchObject({ leaseUntil: null, attempts: 0 });
  });

  test("the stop waits for a runNow attempt under way, as for the lanes' own", async () => {
    const clock = { now: START };
    const t = await looping(clock);
    let end = () => {};
    const push = defineJob({ kind: "test.push-at-stop", lane: "push", run: () => new Promise<void>((resolve) => (end = resolve)) });
    t.deps.jobs.register(push);
    await t.deps.jobs.schedule(push, {}, { at: clock.now, key: "push:1" });
    const running = t.deps.jobs.runNow(["push:1"]);
    await until("the attempt to start", async () => (await jobRow(t, "push:1"))?.attempts === 1);
    let stopped = false;
    const stopping = t.deps.jobs.stop(5_000).then(() => (stopped = true));
    await Bun.sleep(100);
    expect(stopped).toBe(false);
    end();
    await stopping;
    // Run by the runNow, or by the loop's first pass if it met the job first: the stop waited for it either way.
    expect([0, 1]).toContain(await running);
    expect(await jobRow(t, "push:1")).toBeUndefined();
  });
});

describe("the time limit of an attempt", () => {
  test("an attempt over its limit is a failed attempt, retried after the usual wait, and not started again while it still runs", async () => {
    const clock = { now: START };
    const t = await app(clock);
    const signals: AbortSignal[] = [];
    let end: ((outcome: "done" | "failed") => void) | undefined;
    const slow = defineJob({
      kind: "test.slow",
      timeLimitMs: 200,
      // Ignores its signal, as a call that cannot be cut short does.
      run: (_payload, { signal }) => {
        signals.push(signal!);
        return new Promise<void>((resolve, reject) => (end = (outcome) => (outcome === "done" ? resolve() : reject(new Error("gave up late")))));
      },
    });
    t.deps.jobs.register(slow);
    await t.deps.jobs.schedule(slow, {}, { at: clock.now, key: "slow:1" });

    const began = performance.now();
    expect(await t.deps.jobs.runDue()).toBe(1);
    expect(performance.now() - began).toBeLessThan(5_000);
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);
    const cut = (await jobRow(t, "slow:1"))!;
    expect(cut).toMatchObject({ attempts: 1, failedAt: null, runAt: clock.now + retryDelay(1) });
    expect(cut.lastError).toBe("took longer than its limit of 0.2 s");
    // Its retry is due, but the attempt has not stopped: the job keeps its lease and waits.
    clock.now += retryDelay(1);
    expect(await t.deps.jobs.runDue()).toBe(0);
    expect(signals).toHaveLength(1);
    // Once it has stopped (failing), the job is free and its retry runs.
    end!("failed");
    await until("the lease to be given back", async () => (await jobRow(t, "slow:1"))?.leaseUntil === null);
    expect(await t.deps.jobs.runDue()).toBe(1);
    expect(signals).toHaveLength(2);
    expect((await jobRow(t, "slow:1"))?.attempts).toBe(2);
    // That attempt overran its limit too; ending well after it, it did the work: the job is done.
    expect((await jobRow(t, "slow:1"))?.lastError).toBe("took longer than its limit of 0.2 s");
    end!("done");
    await until("the job to be done", async () => (await jobRow(t, "slow:1")) === undefined);
  });

  test("an attempt still running past its limit keeps its job, beyond the lease it was claimed with, for as long as it runs", async () => {
    const clock = { now: START };
    const t = await app(clock);
    const other = await app(clock, { dataDir: t.dataDir });
    let runs = 0;
    let end = () => {};
    const stubborn = defineJob({ kind: "test.stubborn", timeLimitMs: 100, run: () => new Promise<void>((resolve) => (runs++, (end = resolve))) });
    t.deps.jobs.register(stubborn);
    other.deps.jobs.register(stubborn);
    await t.deps.jobs.schedule(stubborn, {}, { at: clock.now, key: "stubborn:1" });
    t.deps.jobs.start(20);
    try {
      await until("the attempt to pass its limit", async () => !!(await jobRow(t, "stubborn:1"))?.lastError);
      // Past the lease it was claimed with, its retry due: the loop renews the lease while it runs.
      clock.now += JOB_LEASE_MS + 1;
      await until("the lease to be renewed", async () => (await jobRow(t, "stubborn:1"))?.leaseUntil === clock.now + JOB_LEASE_MS);
      expect(await other.deps.jobs.runDue()).toBe(0);
      expect(runs).toBe(1);
      end();
      await until("the job to be done", async () => (await jobRow(t, "stubborn:1")) === undefined);
      expect(runs).toBe(1);
    } finally {
      await t.deps.jobs.stop();
    }
  });

  test("a handler that listens to its signal stops at its limit and is free for its retry at once", async () => {
    const clock = { now: START };
    const t = await app(clock);
    let runs = 0;
    const polite = defineJob({
      kind: "test.polite",
      timeLimitMs: 100,
      run: (_payload, { signal }) => new Promise<void>((_resolve, reject) => {
        runs++;
        signal!.addEventListener("abort", () => reject(signal!.reason));
      }),
    });
    t.deps.jobs.register(polite);
    await t.deps.jobs.schedule(polite, {}, { at: clock.now, key: "polite:1" });
    expect(await t.deps.jobs.runDue()).toBe(1);
    await until("the lease to be given back", async () => (await jobRow(t, "polite:1"))?.leaseUntil === null);
    clock.now += retryDelay(1);
    expect(await t.deps.jobs.runDue()).toBe(1);
    expect(runs).toBe(2);
  });

  test("a kind's limit must end before its lease does", async () => {
    const t = await app({ now: START });
    expect(() => t.deps.jobs.register(defineJob({ kind: "test.endless", timeLimitMs: 10 * 60 * 1000, run: () => {} }))).toThrow(/lease/);
  });
});
