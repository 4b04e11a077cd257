import { one, writeTransaction } from "../db/client";
/**
 * Money under races, crashes and restarts (docs/decisions/0028), one suite for each payment
 * provider: the built-in test provider and Stripe (the real SDK against tests/fakes/stripe.ts),
 * both with latency so that requests overlap as they do in production. Every test ends by
 * checking the money invariant against the provider (tests/money-invariants.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { bookings, ledgerEntries, users, type BookingStatus, type LedgerKind, type Movement } from "../db/schema";
import { bookingParties, makeTestApp, until, type Client } from "./helpers";
import { RECOVERY_GRACE_MS } from "../src/bookings/claims";
import { moneyViolations } from "./money-invariants";

export type TestApp = Awaited<ReturnType<typeof makeTestApp>>;

/** One provider, as the races need it: how a card is confirmed, and how the provider is made slow or forgetful. */
export interface MoneyWorld {
  /** A new app process; on an earlier app's data directory, a restart. Its clock is `now`. */
  start(now: () => number, dataDir?: string): Promise<TestApp>;
  /** The guest's browser confirming the test card on an intent the app made. */
  confirmCard(app: TestApp, intent: { clientSecret: string; paymentIntentId: string }): Promise<void>;
  /** Every provider call of this app takes `ms` from now on. */
  setLatency(app: TestApp, ms: number): void;
  /** The next call making `movement` acts at the provider, and its answer is lost. */
  loseAnswer(app: TestApp, movement: Movement): void;
  /** The host finishes the provider's payout onboarding. */
  enablePayouts(app: TestApp, accountId: string): Promise<void>;
  stop(): void;
}

const HOUR = 60 * 60 * 1000;
/** 2026-06-01 12:00 in New York. */
const START = Date.UTC(2026, 5, 1, 16, 0);
const LATENCY_MS = 25;
const TIMES = 20;

export function runMoneyRaces(name: string, makeWorld: () => Promise<MoneyWorld>) {
  describe(`money under races and restarts: ${name}`, () => {
    let w: MoneyWorld;
    let app: TestApp;
    let clock = START;
    const now = () => clock;
    let parties: Awaited<ReturnType<typeof bookingParties>>;
    let day = 3;

    beforeAll(async () => {
      w = await makeWorld();
      app = await w.start(now);
      parties = await bookingParties(app);
      // The host can be paid: a payout account the provider has enabled.
      const account = await app.deps.payments.createConnectedAccount({ userId: parties.hostId, email: null }, `user:${parties.hostId}:connect-account`);
      await w.enablePayouts(app, account.id);
      await writeTransaction(app.db, (tx) => tx.update(users).set({ stripeAccountId: account.id, payoutsEnabled: true }).where(eq(users.id, parties.hostId)));
      w.setLatency(app, LATENCY_MS);
    });
    afterAll(() => {
      w.stop();
      app.cleanup();
    });

    const row = async (id: string) => (await one(app.db.select().from(bookings).where(eq(bookings.id, id))))!;
    const ledgerOf = async (id: string) => (await app.db.select().from(ledgerEntries).where(eq(ledgerEntries.bookingId, id))).map((l) => l.kind).sort();
    const expectSound = async (...ids: string[]) => expect(await moneyViolations(app.deps, ids)).toEqual([]);
    const statuses = (answers: Response[]) => answers.map((r) => r.status);

    /** A request through the date-time flow, on a day of its own: the card is held, the request pending. */
    async function pending(guest: Client = parties.guest) {
      clock = START;
      const date = new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);
      const intent = (await (await guest.postJson("/api/create-payment-intent", { amount: "88.00", metadata: { activityId: parties.activityId, date, time: "10:00", duration: "2" } })).json()) as {
        clientSecret: string;
        paymentIntentId: string;
      };
      await w.confirmCard(app, intent);
      const res = await guest.postJson("/api/bookings", { activityId: parties.activityId, proposedDatetime: `${date}T10:00:00`, durationHours: 2, priceTotal: "88.00", paymentIntentId: intent.paymentIntentId });
      expect(res.status).toBe(201);
      return { id: ((await res.json()) as { id: string }).id, intent };
    }

    async function accepted() {
      const { id } = await pending();
      expect((await parties.host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(200);
      return id;
    }

    const times = (n: number, make: () => Promise<Response>) => Promise.all(Array.from({ length: n }, make));
    /** Every answer is the winner's or the current state's refusal; never a server error. */
    const onlyWinsAndRefusals = (answers: Response[]) => {
      for (const s of statuses(answers)) expect([200, 201, 409]).toContain(s);
      expect(statuses(answers).filter((s) => s < 300).length).toBeGreaterThanOrEqual(1);
    };

    test(`${TIMES} accepts at once: one capture, the booking accepted, nothing refunded`, async () => {
      const { id } = await pending();
      const answers = await times(TIMES, () => parties.host.postJson(`/api/bookings/${id}/accept`, {}));
      onlyWinsAndRefusals(answers);
      expect((await row(id)).status).toBe("accepted");
      expect(await ledgerOf(id)).toEqual(["authorize", "capture"]);
      await expectSound(id);
    });

    test(`${TIMES} declines at once: one release, the request declined`, async () => {
      const { id } = await pending();
      const answers = await times(TIMES, () => parties.host.postJson(`/api/bookings/${id}/reject`, {}));
      onlyWinsAndRefusals(answers);
      expect((await row(id)).status).toBe("rejected");
      expect(await ledgerOf(id)).toEqual(["authorize", "release"]);
      await expectSound(id);
    });

    test(`${TIMES} withdrawals of a request at once: released once`, async () => {
      const { id } = await pending();
      const answers = await times(TIMES, () => parties.guest.postJson(`/api/bookings/${id}/cancel`, {}));
      onlyWinsAndRefusals(answers);
      expect(await row(id)).toMatchObject({ status: "canceled", canceledBy: "guest" });
      await expectSound(id);
    });

    for (const side of ["guest", "host"] as const) {
      test(`${TIMES} cancellations of an accepted booking by the ${side} at once: one full refund`, async () => {
        const id = await accepted();
        const answers = await times(TIMES, () => parties[side].postJson(`/api/bookings/${id}/cancel`, {}));
        onlyWinsAndRefusals(answers);
        expect(await row(id)).toMatchObject({ status: "canceled", canceledBy: side });
        expect(await ledgerOf(id)).toEqual(["authorize", "capture", "refund"]);
        await expectSound(id);
      });
    }

    test(`${TIMES} completions at once: completed once, the host paid once`, async () => {
      const id = await accepted();
      clock = (await row(id)).endsAt + HOUR;
      const answers = await times(TIMES, () => parties.host.postJson(`/api/bookings/${id}/complete`, {}));
      onlyWinsAndRefusals(answers);
      expect((await row(id)).status).toBe("completed");
      expect(await ledgerOf(id)).toEqual(["authorize", "capture", "payout_pending", "platform_fee", "transfer"]);
      await expectSound(id);
    });

    test("the completion's own payout and the payout job at once: the host is paid by one of them", async () => {
      const id = await accepted();
      clock = (await row(id)).endsAt + HOUR;
      // Both read the share as owed; the second one hears back about the payout account only
      // after the first has claimed, paid and recorded.
      const payments = app.deps.payments;
      const getAccount = payments.getConnectedAccount;
      let asked = 0;
      payments.getConnectedAccount = async (accountId) => {
        const turn = ++asked;
        const account = await getAccount.call(payments, accountId);
        if (turn === 2) await Bun.sleep(10 * LATENCY_MS);
        return account;
      };
      try {
        const completing = parties.host.postJson(`/api/bookings/${id}/complete`, {});
        await until("the completion", async () => (await row(id)).status === "completed", 5_000, 1);
        await app.deps.jobs.runDue();
        expect((await completing).status).toBe(200);
      } finally {
        payments.getConnectedAccount = getAccount;
      }
      expect(await ledgerOf(id)).toEqual(["authorize", "capture", "payout_pending", "platform_fee", "transfer"]);
      // Two claims in all: the capture and one transfer (the other payout found nothing owed).
      expect((await row(id)).claims).toBe(2);
      await expectSound(id);
    });

    test(`the same request sent ${TIMES} times at once: one booking, its card still held`, async () => {
      clock = START;
      const date = new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);
      const intent = (await (await parties.guest.postJson("/api/create-payment-intent", { amount: "88.00", metadata: { activityId: parties.activityId, date, time: "10:00", duration: "2" } })).json()) as {
        clientSecret: string;
        paymentIntentId: string;
      };
      await w.confirmCard(app, intent);
      const send = { activityId: parties.activityId, proposedDatetime: `${date}T10:00:00`, durationHours: 2, priceTotal: "88.00", paymentIntentId: intent.paymentIntentId };
      const answers = await times(TIMES, () => parties.guest.postJson("/api/bookings", send));
      expect(statuses(answers).filter((s) => s === 201).length).toBe(1);
      expect(statuses(answers).every((s) => s === 201 || s === 200)).toBe(true);
      const made = await app.db.select().from(bookings).where(eq(bookings.paymentIntentId, intent.paymentIntentId));
      expect(made.map((b) => b.status)).toEqual(["pending"]);
      expect((await app.deps.payments.getIntent(intent.paymentIntentId))?.status).toBe("requires_capture");
      // The host can accept it: the card is there to capture.
      expect((await parties.host.postJson(`/api/bookings/${made[0]!.id}/accept`, {})).status).toBe(200);
      await expectSound(made[0]!.id);
    });

    test("a cancellation made just before the start, its refund under way, and a completion just after: cancelled, refunded once", async () => {
      const id = await accepted();
      clock = (await row(id)).startsAt - 60 * 1000;
      const cancel = parties.host.postJson(`/api/bookings/${id}/cancel`, {});
      // The refund is at the provider; the activity starts, and the host marks it complete.
      await until("the cancellation's claim", async () => (await row(id)).claim?.movement === "refund", 5_000, 1);
      clock = (await row(id)).startsAt + 60 * 1000;
      const complete = await parties.host.postJson(`/api/bookings/${id}/complete`, {});
      expect((await cancel).status).toBe(200);
      expect(complete.status).toBe(409);
      expect(await row(id)).toMatchObject({ status: "canceled", canceledBy: "host" });
      expect(await ledgerOf(id)).toEqual(["authorize", "capture", "refund"]);
      await expectSound(id);
    });

    test("the host completes while the auto-completion job runs: completed once, paid once", async () => {
      const id = await accepted();
      clock = (await row(id)).endsAt + 48 * HOUR + 1000;
      const [answer] = await Promise.all([parties.host.postJson(`/api/bookings/${id}/complete`, {}), app.deps.jobs.runDue()]);
      expect([200, 409]).toContain(answer.status);
      expect((await row(id)).status).toBe("completed");
      expect(await ledgerOf(id)).toEqual(["authorize", "capture", "payout_pending", "platform_fee", "transfer"]);
      await expectSound(id);
    });

    test("a host cancellation after the activity while the auto-completion job runs: refused, completed and paid once", async () => {
      const id = await accepted();
      clock = (await row(id)).endsAt + 48 * HOUR + 1000;
      const [answer] = await Promise.all([parties.host.postJson(`/api/bookings/${id}/cancel`, {}), app.deps.jobs.runDue()]);
      expect(answer.status).toBe(409);
      expect((await row(id)).status).toBe("completed");
      expect(await ledgerOf(id)).toEqual(["authorize", "capture", "payout_pending", "platform_fee", "transfer"]);
      await expectSound(id);
    });

    test("the expiry job and an accept at once: one of the two, and the money follows it", async () => {
      const { id } = await pending();
      clock = (await row(id)).respondBy + 1000;
      const [answer] = await Promise.all([parties.host.postJson(`/api/bookings/${id}/accept`, {}), app.deps.jobs.runDue()]);
      const won = (await row(id)).status;
      expect(["accepted", "expired"]).toContain(won);
      expect(answer.status).toBe(won === "accepted" ? 200 : 409);
      await expectSound(id);
    });

    /** The provider acts, the answer is lost; a new process on the same data finishes it once its grace has passed. */
    async function restartAndRecover() {
      const restarted = await w.start(now, app.dataDir);
      clock += RECOVERY_GRACE_MS + 1000;
      await restarted.deps.jobs.runDue();
      return restarted;
    }

    const lost: [Movement, string, (id: string) => Promise<Response>, () => Promise<string>, BookingStatus, LedgerKind[]][] = [
      ["capture", "an accept", (id) => parties.host.postJson(`/api/bookings/${id}/accept`, {}), async () => (await pending()).id, "accepted", ["authorize", "capture"]],
      ["release", "a decline", (id) => parties.host.postJson(`/api/bookings/${id}/reject`, {}), async () => (await pending()).id, "rejected", ["authorize", "release"]],
      ["refund", "a cancellation", (id) => parties.host.postJson(`/api/bookings/${id}/cancel`, {}), accepted, "canceled", ["authorize", "capture", "refund"]],
    ];
    for (const [movement, what, run, reach, status, ledger] of lost) {
      test(`${what}: the provider makes the ${movement} but the answer is lost; after a restart it is recorded once`, async () => {
        const id = await reach();
        w.loseAnswer(app, movement);
        const answer = await run(id);
        // Stripe's own client may learn the outcome by asking again; otherwise the person is told it is being finished.
        expect([200, 502]).toContain(answer.status);
        if (answer.status === 502) {
          expect(((await answer.json()) as { message: string }).message).toContain("finished automatically");
          expect((await row(id)).claim?.movement).toBe(movement);
        }
        const restarted = await restartAndRecover();
        expect((await row(id)).status).toBe(status);
        expect(await ledgerOf(id)).toEqual(ledger);
        expect(await moneyViolations(restarted.deps, [id])).toEqual([]);
        w.setLatency(restarted, 0);
      });
    }

    test("a completion: the transfer to the host is made but its answer lost; after a restart it is recorded once", async () => {
      const id = await accepted();
      clock = (await row(id)).endsAt + HOUR;
      w.loseAnswer(app, "transfer");
      expect((await parties.host.postJson(`/api/bookings/${id}/complete`, {})).status).toBe(200);
      expect((await row(id)).status).toBe("completed");
      expect((await row(id)).claim?.movement).toBe("transfer");
      expect(await ledgerOf(id)).not.toContain("transfer");
      const restarted = await restartAndRecover();
      expect(await ledgerOf(id)).toEqual(["authorize", "capture", "payout_pending", "platform_fee", "transfer"]);
      expect(await moneyViolations(restarted.deps, [id])).toEqual([]);
      // The payout sweep later finds nothing owed: the host is paid once.
      clock += 2 * HOUR;
      await restarted.deps.jobs.runDue();
      expect(await moneyViolations(restarted.deps, [id])).toEqual([]);
    });

    test("every booking these races made agrees with the provider", async () => {
      expect(await moneyViolations(app.deps)).toEqual([]);
    });
  });
}
