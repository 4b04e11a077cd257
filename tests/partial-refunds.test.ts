/**
 * Partial refunds by the host (docs/decisions/0051), against both payment providers with latency:
 * the built-in test provider, and Stripe (the real SDK against tests/fakes/stripe.ts). Every test
 * ends with the money invariant checked against the provider (tests/money-invariants.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { one, writeTransaction } from "../db/client";
import { bookingRefunds, bookings, ledgerEntries, messages, users } from "../db/schema";
import { asTestProvider } from "../src/web/payments";
import { RECOVERY_GRACE_MS } from "../src/bookings/claims";
import { openDebtOf } from "../src/bookings/host-debts";
import { owedPayouts, payHost } from "../src/bookings/payouts";
import { hostPartOf } from "../src/bookings/refund-parts";
import { amountToMinor } from "../src/bookings/refunds";
import { CARDS, startFakeStripe } from "./fakes/stripe";
import { bookingParties, makeTestApp } from "./helpers";
import { moneyViolations } from "./money-invariants";
import type { MoneyWorld, TestApp } from "./money-races";

const HOUR = 60 * 60 * 1000;
/** 2026-06-01 12:00 in New York. */
const START = Date.UTC(2026, 5, 1, 16, 0);
const LATENCY_MS = 25;
const TIMES = 20;
/** The tennis activity's two hours: $80 and the $8 fee; the host's share is $64. */
const TOTAL = 8800;
const HOST_SHARE = 6400;

/** A provider world, and the provider's automatic payout of a host's balance to their bank. */
type World = MoneyWorld & { payOutBalance(app: TestApp, accountId: string): Promise<number> };

const testProviderWorld = async (): Promise<World> => {
  const providerOf = (app: TestApp) => asTestProvider(app.deps.payments)!;
  return {
    start: (now, dataDir) => makeTestApp({ now, dataDir }),
    async confirmCard(app, intent) {
      const answer = await providerOf(app).confirmCard({ clientSecret: intent.clientSecret, cardNumber: "4242424242424242", expiry: "12/40", cvc: "123" });
      if (answer.status !== "requires_capture") throw new Error(`the test card was not authorised: ${answer.status}`);
    },
    setLatency: (app, ms) => void (providerOf(app).faults.latencyMs = ms),
    loseAnswer: (app, movement) => void providerOf(app).faults.loseAnswer.add(movement),
    enablePayouts: async (app, accountId) => void (await providerOf(app).setPayoutsEnabled(accountId, true)),
    payOutBalance: (app, accountId) => providerOf(app).payOutBalance(accountId),
    stop: () => undefined,
  };
};

const stripeWorld = async (): Promise<World> => {
  const fake = startFakeStripe();
  const endpoints = { capture: "/v1/payment_intents/:id/capture", release: "/v1/payment_intents/:id/cancel", refund: "/v1/refunds", transfer: "/v1/transfers" } as const;
  return {
    start: (now, dataDir) => makeTestApp({ now, dataDir, env: fake.env }),
    confirmCard: async (_app, intent) => void fake.confirm(intent.paymentIntentId, CARDS.ok),
    setLatency: (_app, ms) => fake.setLatency(ms),
    loseAnswer: (_app, movement) => fake.loseAnswer("POST", endpoints[movement]),
    enablePayouts: async (_app, accountId) => void fake.setPayoutsEnabled(accountId, true),
    payOutBalance: async (_app, accountId) => fake.payOutBalance(accountId),
    stop: () => fake.stop(),
  };
};

test("an amount is read in the currency's minor unit", () => {
  expect(amountToMinor("12.5", "usd")).toBe(1250);
  expect(amountToMinor("12,50", "eur")).toBe(1250);
  expect(amountToMinor(12.34, "usd")).toBe(1234);
  expect(amountToMinor(" 7 ", "usd")).toBe(700);
  expect(amountToMinor("0", "usd")).toBe(0);
  for (const bad of ["", "abc", "-5", "1.234", "1e3", "12.", "NaN"]) expect(amountToMinor(bad, "usd")).toBeNaN();
  expect(amountToMinor(Number.NaN, "usd")).toBeNaN();
  expect(amountToMinor(-1, "usd")).toBeNaN();
});

for (const [name, makeWorld] of [["test provider", testProviderWorld], ["Stripe", stripeWorld]] as const) {
  describe(`partial refunds by the host: ${name}`, () => {
    let w: World;
    let app: TestApp;
    let clock = START;
    const now = () => clock;
    let parties: Awaited<ReturnType<typeof bookingParties>>;
    let accountId = "";
    let day = 3;

    beforeAll(async () => {
      w = await makeWorld();
      app = await w.start(now);
      parties = await bookingParties(app);
      const account = await app.deps.payments.createConnectedAccount({ userId: parties.hostId, email: null }, `user:${parties.hostId}:connect-account`);
      accountId = account.id;
      await w.enablePayouts(app, account.id);
      await writeTransaction(app.db, (tx) => tx.update(users).set({ stripeAccountId: account.id, payoutsEnabled: true }).where(eq(users.id, parties.hostId)));
      w.setLatency(app, LATENCY_MS);
    });
    afterAll(() => {
      w.stop();
      app.cleanup();
    });

    const row = async (id: string) => (await one(app.db.select().from(bookings).where(eq(bookings.id, id))))!;
    const ledgerOf = async (id: string) => (await app.db.select().from(ledgerEntries).where(eq(ledgerEntries.bookingId, id))).map((l) => `${l.kind} ${l.amountCents}`).sort();
    /** The parts the host gave back (with their reason; a cancellation's own refund has none). */
    const refundsIn = async (id: string) => (await app.db.select().from(bookingRefunds).where(eq(bookingRefunds.bookingId, id))).filter((r) => r.reason !== null);
    const expectSound = async (...ids: string[]) => expect(await moneyViolations(app.deps, ids)).toEqual([]);
    const refund = (id: string, amount: unknown, reason: unknown = "The court was closed for the last half hour.", who = parties.host) => who.postJson(`/api/bookings/${id}/refunds`, { amount, reason });

    async function pending() {
      clock = START;
      const date = new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);
      const intent = (await (await parties.guest.postJson("/api/create-payment-intent", { amount: "88.00", metadata: { activityId: parties.activityId, date, time: "10:00", duration: "2" } })).json()) as { clientSecret: string; paymentIntentId: string };
      await w.confirmCard(app, intent);
      const res = await parties.guest.postJson("/api/bookings", { activityId: parties.activityId, proposedDatetime: `${date}T10:00:00`, durationHours: 2, priceTotal: "88.00", paymentIntentId: intent.paymentIntentId });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    }
    async function accepted() {
      const id = await pending();
      expect((await parties.host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(200);
      return id;
    }
    /** Completed and its host share sent. */
    async function paidOut() {
      const id = await accepted();
      clock = (await row(id)).endsAt + HOUR;
      expect((await parties.host.postJson(`/api/bookings/${id}/complete`, {})).status).toBe(200);
      expect(await ledgerOf(id)).toContain(`transfer ${HOST_SHARE}`);
      return id;
    }

    test("bad input and the wrong booking or person are refused, and nothing changes", async () => {
      const id = await accepted();
      const cases: [string, () => Promise<Response>, number, string][] = [
        ["an amount of 0", () => refund(id, "0"), 400, "greater than zero"],
        ["an amount of 0.00", () => refund(id, 0), 400, "greater than zero"],
        ["not a number", () => refund(id, "ten"), 400, "such as 12.50"],
        ["a negative amount", () => refund(id, -5), 400, "such as 12.50"],
        ["a third decimal", () => refund(id, "1.005"), 400, "such as 12.50"],
        ["no amount", () => parties.host.postJson(`/api/bookings/${id}/refunds`, { reason: "x" }), 400, "such as 12.50"],
        ["more than was paid", () => refund(id, "88.01"), 400, "more than what remains"],
        ["no reason", () => refund(id, "5", "   "), 400, "Say why"],
        ["a reason too long", () => refund(id, "5", "x".repeat(501)), 400, "under 500"],
        ["a reason that is not text", () => refund(id, "5", 42), 400, "as text"],
        ["by the guest", () => refund(id, "5", "mine", parties.guest), 403, "Only the host"],
        ["by a stranger", () => refund(id, "5", "mine", parties.stranger), 404, "not found"],
        ["of no booking", () => refund(crypto.randomUUID(), "5"), 404, "not found"],
      ];
      for (const [what, send, status, says] of cases) {
        const res = await send();
        expect({ what, status: res.status }).toEqual({ what, status });
        expect(JSON.stringify(await res.json())).toContain(says);
      }
      const pendingId = await pending();
      const onPending = await refund(pendingId, "5");
      expect(onPending.status).toBe(409);
      expect(((await onPending.json()) as { message: string }).message).toContain("accepted or completed");
      const canceled = await accepted();
      expect((await parties.host.postJson(`/api/bookings/${canceled}/cancel`, {})).status).toBe(200);
      expect((await refund(canceled, "5")).status).toBe(409);
      for (const b of [id, pendingId, canceled]) {
        expect(await refundsIn(b)).toEqual([]);
        expect((await app.deps.payments.refundsOf((await row(b)).paymentIntentId!)).length).toBe(b === canceled ? 1 : 0);
      }
      expect(await row(id)).toMatchObject({ status: "accepted", refundedCents: 0, claim: null });
      expect(await ledgerOf(id)).toEqual(["authorize 8800", "capture 8800"]);
      await expectSound(id, pendingId, canceled);
    });

    test("before the payout: the refund is shown to both sides, and the host's payout is reduced in proportion", async () => {
      const id = await accepted();
      const res = await refund(id, "10", "  The court was closed\r\nfor half an hour.  ");
      expect(res.status).toBe(201);
      const body = (await res.json()) as { refund: { amount: string; reason: string; currency: string }; booking: { status: string; refunded: string } };
      expect(body.refund).toMatchObject({ amount: "10.00", currency: "usd", reason: "The court was closed\nfor half an hour." });
      expect(body.booking).toMatchObject({ status: "accepted", refunded: "10.00" });
      for (const side of [parties.host, parties.guest]) {
        const list = (await (await side.get(`/api/bookings/${id}/refunds`)).json()) as { amount: string; reason: string }[];
        expect(list.map((r) => [r.amount, r.reason])).toEqual([["10.00", "The court was closed\nfor half an hour."]]);
      }
      expect((await parties.stranger.get(`/api/bookings/${id}/refunds`)).status).toBe(404);
      // The guest reads it in the conversation, with the reason.
      const said = await app.db.select().from(messages).where(eq(messages.bookingId, id));
      expect(said.filter((m) => m.systemMessageType === "booking_refunded").map((m) => [m.content, m.senderId])).toEqual([["The court was closed\nfor half an hour.", parties.hostId]]);
      const page = await (await parties.guest.get(`/bookings/${id}`)).text();
      expect(page).toContain("refunded part of your payment");
      expect(page).toContain("for half an hour.");
      expect(page).not.toContain("data-refund-form");
      expect(await (await parties.host.get(`/bookings/${id}`)).text()).toContain("data-refund-form");
      expect(await ledgerOf(id)).toEqual(["authorize 8800", "capture 8800", "refund 1000"]);
      await expectSound(id);

      clock = (await row(id)).endsAt + HOUR;
      expect((await parties.host.postJson(`/api/bookings/${id}/complete`, {})).status).toBe(200);
      const hostLeft = HOST_SHARE - hostPartOf({ totalCents: TOTAL, hostEarningsCents: HOST_SHARE }, 1000);
      expect(await ledgerOf(id)).toEqual(["authorize 8800", "capture 8800", `payout_pending ${hostLeft}`, `platform_fee ${TOTAL - 1000 - hostLeft}`, "refund 1000", `transfer ${hostLeft}`].sort());
      expect((await app.deps.payments.transfersOf(`booking:${id}`)).map((t) => t.amountCents)).toEqual([hostLeft]);
      await expectSound(id);
    });

    test("completed with the payout still owed: the refund reduces what is sent", async () => {
      const id = await accepted();
      // The host cannot be paid yet: their share stays owed at completion.
      await writeTransaction(app.db, (tx) => tx.update(users).set({ stripeAccountId: null }).where(eq(users.id, parties.hostId)));
      clock = (await row(id)).endsAt + HOUR;
      expect((await parties.host.postJson(`/api/bookings/${id}/complete`, {})).status).toBe(200);
      const completedBefore = ((await (await parties.host.get("/api/host/earnings")).json()) as { completedBookings: number }).completedBookings;
      expect((await refund(id, "44")).status).toBe(201);
      // The refund's own share rows are no further completed booking.
      expect(((await (await parties.host.get("/api/host/earnings")).json()) as { completedBookings: number }).completedBookings).toBe(completedBefore);
      const hostCut = hostPartOf({ totalCents: TOTAL, hostEarningsCents: HOST_SHARE }, 4400);
      expect(await ledgerOf(id)).toEqual(["authorize 8800", "capture 8800", `payout_pending ${HOST_SHARE}`, `payout_pending ${-hostCut}`, `platform_fee ${TOTAL - HOST_SHARE}`, `platform_fee ${-(4400 - hostCut)}`, "refund 4400"].sort());
      await expectSound(id);
      await writeTransaction(app.db, (tx) => tx.update(users).set({ stripeAccountId: accountId }).where(eq(users.id, parties.hostId)));
      clock += 2 * HOUR;
      await app.deps.jobs.runDue();
      expect((await app.deps.payments.transfersOf(`booking:${id}`)).map((t) => t.amountCents)).toEqual([HOST_SHARE - hostCut]);
      expect(await ledgerOf(id)).toContain(`transfer ${HOST_SHARE - hostCut}`);
      await expectSound(id);
    });

    test("after the payout: the host's part is taken back from the booking's transfer", async () => {
      const id = await paidOut();
      expect((await refund(id, "22")).status).toBe(201);
      const hostCut = hostPartOf({ totalCents: TOTAL, hostEarningsCents: HOST_SHARE }, 2200);
      expect(hostCut).toBe(1600);
      const [transfer] = await app.deps.payments.transfersOf(`booking:${id}`);
      expect(transfer).toMatchObject({ amountCents: HOST_SHARE, reversedCents: hostCut });
      expect(await ledgerOf(id)).toEqual(["authorize 8800", "capture 8800", `payout_pending ${HOST_SHARE}`, `payout_pending ${-hostCut}`, `platform_fee ${TOTAL - HOST_SHARE}`, `platform_fee ${-(2200 - hostCut)}`, "refund 2200", `reverse ${hostCut}`, `transfer ${HOST_SHARE}`].sort());
      expect((await row(id)).status).toBe("completed");
      // The rest, in two more parts: everything given back, nothing left to anyone, the parts adding up.
      expect((await refund(id, "33.33")).status).toBe(201);
      expect((await refund(id, "32.67")).status).toBe(201);
      expect(await row(id)).toMatchObject({ status: "completed", refundedCents: TOTAL });
      expect((await app.deps.payments.transfersOf(`booking:${id}`))[0]).toMatchObject({ reversedCents: HOST_SHARE });
      const more = await refund(id, "0.01");
      expect(more.status).toBe(409);
      expect(((await more.json()) as { message: string }).message).toContain("refunded already");
      await expectSound(id);
    });

    test("a cancellation after a partial refund gives back what remains", async () => {
      const id = await accepted();
      expect((await refund(id, "8.80")).status).toBe(201);
      expect((await parties.host.postJson(`/api/bookings/${id}/cancel`, {})).status).toBe(200);
      expect(await row(id)).toMatchObject({ status: "canceled", refundedCents: TOTAL });
      expect(await ledgerOf(id)).toEqual(["authorize 8800", "capture 8800", "refund 880", "refund 7920"].sort());
      await expectSound(id);
    });

    for (const when of ["accepted", "paid out"] as const) {
      test(`${TIMES} partial refunds at once (${when}): never more than was paid`, async () => {
        const id = when === "accepted" ? await accepted() : await paidOut();
        const answers = await Promise.all(Array.from({ length: TIMES }, () => refund(id, "10")));
        const statuses = answers.map((r) => r.status);
        // $88 paid: eight refunds of $10 fit, the others are refused as more than remains.
        expect(statuses.filter((s) => s === 201).length).toBe(8);
        expect(statuses.filter((s) => s !== 201).every((s) => s === 400)).toBe(true);
        expect(await row(id)).toMatchObject({ refundedCents: 8000, claim: null, status: when === "accepted" ? "accepted" : "completed" });
        const atProvider = await app.deps.payments.refundsOf((await row(id)).paymentIntentId!);
        expect(atProvider.reduce((s, r) => s + r.amountCents, 0)).toBe(8000);
        expect((await refundsIn(id)).length).toBe(8);
        await expectSound(id);
      });
    }

    /** The provider acts, the answer is lost; a new process on the same data finishes it once its grace has passed. */
    async function restartAndRecover() {
      const restarted = await w.start(now, app.dataDir);
      clock += RECOVERY_GRACE_MS + 1000;
      await restarted.deps.jobs.runDue();
      return restarted;
    }

    for (const when of ["accepted", "paid out"] as const) {
      test(`the provider refunds (${when}) but the answer is lost: after a restart it is recorded once`, async () => {
        const id = when === "accepted" ? await accepted() : await paidOut();
        w.loseAnswer(app, "refund");
        const answer = await refund(id, "20");
        expect([201, 502]).toContain(answer.status);
        if (answer.status === 502) {
          expect(((await answer.json()) as { message: string }).message).toContain("finished automatically");
          expect((await row(id)).claim).toMatchObject({ movement: "refund", amountCents: 2000 });
          // Another refund meanwhile waits for it.
          expect((await refund(id, "1")).status).toBe(409);
        }
        const restarted = await restartAndRecover();
        expect(await row(id)).toMatchObject({ refundedCents: 2000, claim: null });
        expect((await refundsIn(id)).length).toBe(1);
        if (when === "paid out") expect((await restarted.deps.payments.transfersOf(`booking:${id}`))[0]!.reversedCents).toBe(hostPartOf({ totalCents: TOTAL, hostEarningsCents: HOST_SHARE }, 2000));
        expect(await moneyViolations(restarted.deps, [id])).toEqual([]);
        w.setLatency(restarted, LATENCY_MS);
      });
    }

    test("the host's form works without JavaScript: errors beside the fields, then the refund", async () => {
      const id = await accepted();
      const refused = await parties.host.postForm(`/bookings/${id}/refunds`, { amount: "lots", reason: "" });
      expect(refused.status).toBe(400);
      const html = await refused.text();
      expect(html).toContain("Enter an amount such as 12.50.");
      expect(html).toContain("Say why you are refunding");
      expect(html).toContain('value="lots"');
      const done = await parties.host.postForm(`/bookings/${id}/refunds`, { amount: "5.50", reason: "Rain" });
      expect(done.status).toBe(303);
      expect((await row(id)).refundedCents).toBe(550);
      await expectSound(id);
    });

    // ---------------------------------------------------------------------------------------------
    // After the payout, the host's balance gone to their bank (docs/decisions/0051): the provider
    // refuses to take their part back, so it is owed and taken from their next payouts. Each test
    // leaves no debt open: the tests before and after see the host's payouts whole.

    /** Completed; its payout made (with what the host owes withheld), or left owed when the host cannot be paid. */
    async function completed(id?: string) {
      id ??= await accepted();
      clock = (await row(id)).endsAt + HOUR;
      expect((await parties.host.postJson(`/api/bookings/${id}/complete`, {})).status).toBe(200);
      return id;
    }
    const transfersOf = async (id: string) => (await app.deps.payments.transfersOf(`booking:${id}`)).map((t) => [t.amountCents, t.reversedCents]);
    const kindsOf = async (id: string, ...kinds: string[]) => (await ledgerOf(id)).filter((l) => kinds.includes(l.split(" ")[0]!));
    /** Paid out, the balance sent to the bank, then `amount` given back: the guest is refunded, the host's part is owed. */
    async function owing(amount: string, hostCut: number) {
      const id = await paidOut();
      expect(await w.payOutBalance(app, accountId)).toBeGreaterThanOrEqual(HOST_SHARE);
      const res = await refund(id, amount);
      expect(res.status).toBe(201);
      expect(await row(id)).toMatchObject({ status: "completed", claim: null, refundedCents: amountToMinor(amount, "usd") });
      expect((await app.deps.payments.refundsOf((await row(id)).paymentIntentId!)).map((r) => r.amountCents)).toEqual([amountToMinor(amount, "usd")]);
      expect(await transfersOf(id)).toEqual([[HOST_SHARE, 0]]);
      expect(await kindsOf(id, "owed", "reverse")).toEqual([`owed ${hostCut}`]);
      expect(await openDebtOf(app.db, id)).toBe(hostCut);
      await expectSound(id);
      return id;
    }

    test("a refund after the host's balance went to their bank: the part is owed, then taken from the next payout", async () => {
      const hostCut = hostPartOf({ totalCents: TOTAL, hostEarningsCents: HOST_SHARE }, 2200);
      const a = await owing("22", hostCut);
      // The host reads it on their dashboard, in the booking's currency.
      const dashboard = await (await parties.host.get("/host")).text();
      expect(dashboard).toContain("Owed from a refund after payout: $16.00, taken from your next payouts");
      const b = await completed();
      expect(await transfersOf(b)).toEqual([[HOST_SHARE - hostCut, 0]]);
      expect(await kindsOf(b, "transfer", "debt_settled")).toEqual([`debt_settled ${hostCut}`, `transfer ${HOST_SHARE - hostCut}`]);
      expect(await kindsOf(a, "owed_settled")).toEqual([`owed_settled ${hostCut}`]);
      expect(await openDebtOf(app.db, a)).toBe(0);
      expect(await (await parties.host.get("/host")).text()).not.toContain("data-owed-after-payout");
      await expectSound(a, b);
      // The next payout is whole again.
      const c = await completed();
      expect(await transfersOf(c)).toEqual([[HOST_SHARE, 0]]);
      await expectSound(a, b, c);
    });

    test("a debt larger than the next payout is settled over two payouts; a payout withheld entirely sends nothing", async () => {
      // All of A given back after its payout: the host owes all of their share.
      const a = await owing("88", HOST_SHARE);
      // B's share is cut to $16 by a refund before completion: all of it is withheld.
      const b = await accepted();
      expect((await refund(b, "66")).status).toBe(201);
      await completed(b);
      const bShare = HOST_SHARE - hostPartOf({ totalCents: TOTAL, hostEarningsCents: HOST_SHARE }, 6600);
      expect(await transfersOf(b)).toEqual([]);
      expect(await kindsOf(b, "transfer", "debt_settled")).toEqual([`debt_settled ${bShare}`]);
      expect(await openDebtOf(app.db, a)).toBe(HOST_SHARE - bShare);
      // Withheld entirely is paid: no longer a payout owed, nothing sent again.
      expect(await owedPayouts(app.deps, parties.hostId)).not.toContain(b);
      expect(await payHost(app.deps, b)).toBe("nothing");
      await expectSound(a, b);
      const c = await completed();
      expect(await transfersOf(c)).toEqual([[bShare, 0]]);
      expect(await kindsOf(c, "transfer", "debt_settled")).toEqual([`debt_settled ${HOST_SHARE - bShare}`, `transfer ${bShare}`]);
      expect((await kindsOf(a, "owed_settled")).sort()).toEqual([`owed_settled ${bShare}`, `owed_settled ${HOST_SHARE - bShare}`].sort());
      expect(await openDebtOf(app.db, a)).toBe(0);
      await expectSound(a, b, c);
    });

    test("two payouts at once settle a debt once", async () => {
      const hostCut = hostPartOf({ totalCents: TOTAL, hostEarningsCents: HOST_SHARE }, 2200);
      const a = await owing("22", hostCut);
      // Two bookings completed while the host cannot be paid, then paid at once.
      await writeTransaction(app.db, (tx) => tx.update(users).set({ stripeAccountId: null }).where(eq(users.id, parties.hostId)));
      const b = await completed();
      const c = await completed();
      await writeTransaction(app.db, (tx) => tx.update(users).set({ stripeAccountId: accountId }).where(eq(users.id, parties.hostId)));
      expect(await Promise.all([payHost(app.deps, b), payHost(app.deps, c), payHost(app.deps, b), payHost(app.deps, c)])).toContain("sent");
      const sent = [...(await transfersOf(b)), ...(await transfersOf(c))].map(([amount]) => amount!).sort((x, y) => x - y);
      expect(sent).toEqual([HOST_SHARE - hostCut, HOST_SHARE]);
      expect(await kindsOf(a, "owed_settled")).toEqual([`owed_settled ${hostCut}`]);
      expect([...(await kindsOf(b, "debt_settled")), ...(await kindsOf(c, "debt_settled"))]).toEqual([`debt_settled ${hostCut}`]);
      expect(await openDebtOf(app.db, a)).toBe(0);
      await expectSound(a, b, c);
    });

    test("the refund's answer is lost after the balance went to the bank: the recovery records the part as owed", async () => {
      const id = await paidOut();
      await w.payOutBalance(app, accountId);
      w.loseAnswer(app, "refund");
      const answer = await refund(id, "22");
      expect([201, 502]).toContain(answer.status);
      const restarted = await restartAndRecover();
      const hostCut = hostPartOf({ totalCents: TOTAL, hostEarningsCents: HOST_SHARE }, 2200);
      expect(await row(id)).toMatchObject({ refundedCents: 2200, claim: null });
      expect(await kindsOf(id, "owed", "reverse")).toEqual([`owed ${hostCut}`]);
      expect(await moneyViolations(restarted.deps, [id])).toEqual([]);
      w.setLatency(restarted, LATENCY_MS);
      // The next payout settles it (the recovery's run may have paid another booking of the host's first).
      const next = await completed();
      expect(await kindsOf(id, "owed_settled")).toEqual([`owed_settled ${hostCut}`]);
      expect(await openDebtOf(app.db, id)).toBe(0);
      await expectSound(id, next);
    });

    test("every booking these tests made agrees with the provider", async () => {
      expect(await moneyViolations(app.deps)).toEqual([]);
    });
  });
}
