import { one, writeTransaction } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { bookings, jobs, ledgerEntries } from "../db/schema";
import { recoverClaim, sweepPayments } from "../src/bookings/reconciliation";
import { asTestProvider } from "../src/web/payments";
import type { TestProvider } from "../src/payments/test-provider";
import { bookingParties, makeTestApp, requestWithTestCard, TEST_CARD, type Client } from "./helpers";
import { RECOVERY_GRACE_MS } from "../src/bookings/claims";
import { moneyViolations } from "./money-invariants";

/**
 * The reconciliation with the provider (docs/decisions/0028): the sweep repairs what the provider
 * proves, flags what it cannot, and recovers claims whose recovery job was lost; operators read
 * the flags and the work that gave up at /admin/payments.
 */
const HOUR = 60 * 60 * 1000;
const START = Date.UTC(2026, 5, 1, 16, 0);
let clock = START;
const now = () => clock;
const OPERATOR = "ops@offline.test";

let t: Awaited<ReturnType<typeof makeTestApp>>;
let parties: Awaited<ReturnType<typeof bookingParties>>;
let provider: TestProvider;
let operator: Client;
let day = 3;

beforeAll(async () => {
  t = await makeTestApp({ now, env: { ADMIN_EMAILS: OPERATOR } });
  parties = await bookingParties(t);
  provider = asTestProvider(t.deps.payments)!;
  operator = t.client();
  await operator.signUpComplete({ email: OPERATOR });
});
afterAll(() => t.cleanup());

const row = async (id: string) => (await one(t.db.select().from(bookings).where(eq(bookings.id, id))))!;
const ledgerOf = async (id: string) => (await t.db.select().from(ledgerEntries).where(eq(ledgerEntries.bookingId, id))).map((l) => l.kind).sort();

async function pending() {
  clock = START;
  const date = new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);
  const { res, intent } = await requestWithTestCard(parties.guest, { activityId: parties.activityId, date, hours: 2, total: "88.00" });
  expect(res.status).toBe(201);
  return { id: ((await res.json()) as { id: string }).id, intentId: intent.paymentIntentId as string };
}

describe("the sweep", () => {
  test("a request whose card hold the provider let go ends as expired, the release recorded", async () => {
    const { id, intentId } = await pending();
    await provider.release(intentId, "released-at-the-provider");
    const out = await sweepPayments(t.deps);
    expect(out.repaired).toBeGreaterThanOrEqual(1);
    expect((await row(id)).status).toBe("expired");
    expect(await ledgerOf(id)).toEqual(["authorize", "release"]);
    expect(await moneyViolations(t.deps, [id])).toEqual([]);
  });

  test("an accepted booking refunded at the provider is flagged for the operator, who reads it and marks it handled", async () => {
    const { id, intentId } = await pending();
    expect((await parties.host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(200);
    await provider.refund(intentId, null, "refunded-at-the-provider");
    const out = await sweepPayments(t.deps);
    expect(out.flagged).toBeGreaterThanOrEqual(1);
    expect((await row(id)).status).toBe("accepted");
    expect((await row(id)).paymentIssue).toContain("8800 of 8800 cents were refunded at the provider");

    // Only an operator sees the page; anyone else gets the 404 of an unknown address.
    expect((await parties.host.get("/admin/payments")).status).toBe(404);
    const page = await operator.get("/admin/payments");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Payments needing attention");
    expect(html).toContain(id);
    expect(html).toContain("were refunded at the provider");
    expect(await (await operator.get("/admin/reports")).text()).toContain('href="/admin/payments"');

    expect((await parties.host.postForm(`/admin/payments/${id}/clear`, {})).status).toBe(404);
    const cleared = await operator.postForm(`/admin/payments/${id}/clear`, {});
    expect(cleared.status).toBe(303);
    expect((await row(id)).paymentIssue).toBeNull();
    expect(await (await operator.get("/admin/payments")).text()).toContain("Every open booking agrees with the payment provider.");
  });

  test("a booking that changes while the sweep asks the provider is not flagged for what that change did", async () => {
    const { id, intentId } = await pending();
    // The sweep reads the open bookings, then asks the provider about this one; its answer comes
    // back after the host has accepted (the capture is what it then shows).
    const getIntent = provider.getIntent;
    let sweepAsked!: () => void;
    const asked = new Promise<void>((resolve) => (sweepAsked = resolve));
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    provider.getIntent = async (askedId) => {
      if (askedId !== intentId) return getIntent.call(provider, askedId);
      sweepAsked();
      await answered;
      return getIntent.call(provider, askedId);
    };
    try {
      const sweeping = sweepPayments(t.deps);
      await asked;
      provider.getIntent = getIntent;
      expect((await parties.host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(200);
      release();
      await sweeping;
    } finally {
      provider.getIntent = getIntent;
    }
    expect(await row(id)).toMatchObject({ status: "accepted", paymentIssue: null });
  });

  test("a claim whose recovery job was lost is recovered by the sweep", async () => {
    const { id } = await pending();
    provider.faults.loseAnswer.add("capture");
    expect((await parties.host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(502);
    await writeTransaction(t.db, (tx) => tx.delete(jobs).where(eq(jobs.kind, "booking.recover")));
    clock += RECOVERY_GRACE_MS + 1000;
    const out = await sweepPayments(t.deps);
    expect(out.recovered).toBe(1);
    expect(await row(id)).toMatchObject({ status: "accepted", claim: null });
    expect(await ledgerOf(id)).toEqual(["authorize", "capture"]);
    expect(await moneyViolations(t.deps, [id])).toEqual([]);
  });
});

describe("recovery", () => {
  test("a claim younger than its grace is left to its claimant", async () => {
    const { id } = await pending();
    provider.faults.loseAnswer.add("release");
    expect((await parties.host.postJson(`/api/bookings/${id}/reject`, {})).status).toBe(502);
    expect(await recoverClaim(t.deps, id)).toBe("none");
    expect((await row(id)).claim?.movement).toBe("release");
    clock += RECOVERY_GRACE_MS + 1000;
    expect(await recoverClaim(t.deps, id)).toBe("recorded");
    expect((await row(id)).status).toBe("rejected");
  });

  test("a capture the provider can no longer make is rolled back and flagged; the person can act again", async () => {
    const { id, intentId } = await pending();
    // The capture never reaches the provider (the connection drops), and the card's hold then lapses there.
    const capture = t.deps.payments.capture;
    t.deps.payments.capture = async () => {
      throw new Error("connection reset");
    };
    expect((await parties.host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(502);
    t.deps.payments.capture = capture;
    await provider.release(intentId, "the-hold-lapsed");
    clock += RECOVERY_GRACE_MS + 1000;
    expect(await recoverClaim(t.deps, id)).toBe("rolled back");
    expect(await row(id)).toMatchObject({ status: "pending", claim: null });
    expect((await row(id)).paymentIssue).toContain("capture to accepted: the payment could not be captured: it is canceled");
    // The sweep leaves a flagged booking to the operator.
    const flaggedBefore = (await row(id)).paymentIssue;
    await sweepPayments(t.deps);
    expect((await row(id)).paymentIssue).toBe(flaggedBefore);
    // Nothing is claimed any more: the host can decline, and the books agree with the provider.
    expect((await parties.host.postJson(`/api/bookings/${id}/reject`, {})).status).toBe(200);
    expect(await ledgerOf(id)).toEqual(["authorize", "release"]);
    expect(await moneyViolations(t.deps, [id])).toEqual([]);
  });

  test("work that gave up is listed for the operator", async () => {
    await writeTransaction(t.db, (tx) => tx.insert(jobs).values({ id: crypto.randomUUID(), kind: "booking.recover", key: "booking.recover:x:1", payload: { bookingId: "x" }, runAt: clock, attempts: 12, lastError: "The payment service did not answer in time.", failedAt: clock }));
    const html = await (await operator.get("/admin/payments")).text();
    expect(html).toContain("booking.recover:x:1");
    expect(html).toContain("The payment service did not answer in time.");
    expect(html).toContain("Attempts: 12");
  });
});

describe("a late payment", () => {
  test("paid on the hosted page after its hold lapsed and the slot was taken: released, never a second request for that time", async () => {
    clock = START;
    const date = new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);
    const dialog = await parties.guest.postJson("/api/create-payment-intent", { activityId: parties.activityId, hours: 2, amount: "88.00", proposedDate: date, proposedTime: "10:00", message: "Hello!" });
    expect(dialog.status).toBe(200);
    const { url, bookingId } = (await dialog.json()) as { url: string; bookingId: string };
    // The hold lapses (its job has not run yet) and someone else books that very time.
    clock += 16 * 60 * 1000;
    const other = await requestWithTestCard(parties.stranger, { activityId: parties.activityId, date, hours: 2, total: "88.00" });
    expect(other.res.status).toBe(201);
    const otherId = ((await other.res.json()) as { id: string }).id;
    // Then the first guest pays on the page they kept open.
    await parties.guest.postForm(url, TEST_CARD);
    expect((await row(bookingId)).status).not.toBe("pending");
    expect((await t.deps.payments.getIntent((await row(bookingId)).paymentIntentId!))?.status).toBe("canceled");
    expect((await row(otherId)).status).toBe("pending");
    await t.deps.jobs.runDue();
    expect((await row(bookingId)).status).toBe("expired");
    expect(await moneyViolations(t.deps, [bookingId, otherId])).toEqual([]);
  });
});
