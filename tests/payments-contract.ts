/**
 * What every payment provider must do, whichever it is (ARCHITECTURE decision 6): one suite run
 * for each implementation, so bookings can rely on the interface alone. A run hands in a maker
 * that returns the provider and the outside world's side of it: the browser confirming a card,
 * the host finishing onboarding.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PaymentError, type PaymentIntent, type PaymentProvider } from "../src/ports/payments";

export const TEST_CARDS = { ok: "4242 4242 4242 4242", declined: "4000 0000 0000 0002" } as const;

/**
 * Where a provider sends the browser: an absolute http(s) address (Stripe's hosted pages), or a
 * path on this very site (the test provider's pages, served on whatever address the guest uses).
 */
export function isPageAddress(url: string) {
  if (/^\/(?![/\\])/.test(url)) return true;
  try {
    return ["https:", "http:"].includes(new URL(url).protocol);
  } catch {
    return false;
  }
}

export interface ProviderHarness {
  provider: PaymentProvider;
  /** The guest's browser confirming `cardNumber` on the intent. A refused card must not throw here. */
  confirmCard(intent: PaymentIntent, cardNumber: string): Promise<void>;
  /** The host finishing (true) or losing (false) their onboarding. */
  setPayoutsEnabled(accountId: string, enabled: boolean): Promise<void>;
  cleanup(): void;
}

export function runProviderContract(name: string, makeProvider: () => Promise<ProviderHarness>) {
  describe(`payment provider contract: ${name}`, () => {
    let h: ProviderHarness;
    let p: PaymentProvider;
    const run = crypto.randomUUID().slice(0, 8);
    /** A key unique to this run, as bookings derive theirs (`booking:{id}:{action}`). */
    const key = (booking: string, action: string) => `booking:${run}-${booking}:${action}`;

    beforeAll(async () => {
      h = await makeProvider();
      p = h.provider;
    });
    afterAll(() => h.cleanup());

    const intentFor = (booking: string, amountCents = 4400) =>
      p.createIntent(
        { amountCents, currency: "usd", metadata: { bookingId: `${run}-${booking}`, activityId: "a1" }, transferGroup: `booking:${run}-${booking}`, description: "Tennis lesson" },
        key(booking, "authorize"),
      );

    async function authorised(booking: string, amountCents = 4400) {
      const intent = await intentFor(booking, amountCents);
      await h.confirmCard(intent, TEST_CARDS.ok);
      return intent;
    }

    async function payoutAccount(userId: string) {
      const account = await p.createConnectedAccount({ userId: `${run}-${userId}`, email: `${userId}@example.com` }, `user:${run}-${userId}:connect-account`);
      await h.setPayoutsEnabled(account.id, true);
      return account;
    }

    test("names itself", () => {
      expect(["test", "stripe"]).toContain(p.name);
      expect(typeof p.testMode).toBe("boolean");
    });

    test("authorise: an intent waits for a card, then holds it without charging", async () => {
      const intent = await intentFor("auth");
      expect(intent).toMatchObject({ status: "requires_payment_method", amountCents: 4400, currency: "usd", lastError: null, nextActionUrl: null });
      expect(intent.metadata).toMatchObject({ bookingId: `${run}-auth`, activityId: "a1" });
      expect(intent.clientSecret.length).toBeGreaterThan(0);
      await h.confirmCard(intent, TEST_CARDS.ok);
      const held = await p.getIntent(intent.id);
      expect(held).toMatchObject({ id: intent.id, status: "requires_capture", amountCents: 4400, lastError: null });
    });

    test("an unknown intent is null", async () => {
      expect(await p.getIntent("pi_doesnotexist000000")).toBeNull();
    });

    test("capture charges an authorised intent; capturing before authorisation is refused", async () => {
      const pending = await intentFor("early");
      const early = await p.capture(pending.id, key("early", "capture")).catch((e: unknown) => e);
      expect(early).toBeInstanceOf(PaymentError);
      expect((await p.getIntent(pending.id))?.status).toBe("requires_payment_method");

      const intent = await authorised("capture");
      const captured = await p.capture(intent.id, key("capture", "capture"));
      expect(captured).toMatchObject({ id: intent.id, status: "succeeded", amountCents: 4400 });
      expect((await p.getIntent(intent.id))?.status).toBe("succeeded");
      // The same key answers as the first time; another key on a captured payment is refused.
      expect((await p.capture(intent.id, key("capture", "capture"))).status).toBe("succeeded");
      expect(await p.capture(intent.id, key("capture", "capture-again")).catch((e: unknown) => e)).toBeInstanceOf(PaymentError);
    });

    test("release cancels an authorisation, and releasing again is fine", async () => {
      const intent = await authorised("release");
      expect((await p.release(intent.id, key("release", "release"))).status).toBe("canceled");
      expect((await p.release(intent.id, key("release", "release-again"))).status).toBe("canceled");
      expect((await p.getIntent(intent.id))?.status).toBe("canceled");
      // A released authorisation cannot be charged any more.
      expect(await p.capture(intent.id, key("release", "capture")).catch((e: unknown) => e)).toBeInstanceOf(PaymentError);
    });

    test("refund: in full or in part, never more than was charged", async () => {
      const intent = await authorised("refund");
      expect(await p.refund(intent.id, null, key("refund", "refund-early")).catch((e: unknown) => e)).toBeInstanceOf(PaymentError);
      await p.capture(intent.id, key("refund", "capture"));
      const part = await p.refund(intent.id, 1000, key("refund", "refund-part"));
      expect(part.id).toBeTruthy();
      const rest = await p.refund(intent.id, null, key("refund", "refund-rest"));
      expect(rest.id).toBeTruthy();
      expect(rest.id).not.toBe(part.id);
      expect(await p.refund(intent.id, 100, key("refund", "refund-more")).catch((e: unknown) => e)).toBeInstanceOf(PaymentError);
      // What reconciliation asks after a lost answer: every refund made, once.
      const refunds = await p.refundsOf(intent.id);
      expect(refunds.map((r) => r.id).sort()).toEqual([part.id, rest.id].sort());
      expect(refunds.reduce((sum, r) => sum + r.amountCents, 0)).toBe(4400);
      expect(await p.refundsOf((await authorised("no-refund")).id)).toEqual([]);
    });

    test("transfer the host's share from a captured payment, then reverse it", async () => {
      const account = await payoutAccount("host-transfer");
      const intent = await authorised("transfer");
      const input = { amountCents: 3200, currency: "usd", destinationAccountId: account.id, sourceIntentId: intent.id, transferGroup: `booking:${run}-transfer` };
      // Nothing is sent from an authorisation that was never charged.
      expect(await p.transfer(input, key("transfer", "transfer-early")).catch((e: unknown) => e)).toBeInstanceOf(PaymentError);
      await p.capture(intent.id, key("transfer", "capture"));
      const transfer = await p.transfer(input, key("transfer", "transfer"));
      expect(transfer.id).toBeTruthy();
      expect(await p.transfersOf(input.transferGroup)).toEqual([{ id: transfer.id, amountCents: 3200, reversedCents: 0 }]);
      const reversal = await p.reverseTransfer(transfer.id, null, key("transfer", "reverse"));
      expect(reversal.id).toBeTruthy();
      expect(await p.transfersOf(input.transferGroup)).toEqual([{ id: transfer.id, amountCents: 3200, reversedCents: 3200 }]);
      expect(await p.transfersOf(`booking:${run}-no-transfer`)).toEqual([]);
      expect(await p.reverseTransfer(transfer.id, 100, key("transfer", "reverse-more")).catch((e: unknown) => e)).toBeInstanceOf(PaymentError);
    });

    test("a transfer to an account that cannot receive payouts is refused", async () => {
      const account = await p.createConnectedAccount({ userId: `${run}-not-ready`, email: null }, `user:${run}-not-ready:connect-account`);
      const intent = await authorised("not-ready");
      await p.capture(intent.id, key("not-ready", "capture"));
      const refused = await p
        .transfer({ amountCents: 3200, currency: "usd", destinationAccountId: account.id, sourceIntentId: intent.id, transferGroup: `booking:${run}-not-ready` }, key("not-ready", "transfer"))
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(PaymentError);
    });

    test("a declined card: the card's own message, nothing held, nothing to charge", async () => {
      const intent = await intentFor("declined");
      await h.confirmCard(intent, TEST_CARDS.declined);
      const after = await p.getIntent(intent.id);
      expect(after?.lastError).toBe("Your card was declined.");
      expect(after?.status).not.toBe("requires_capture");
      expect(after?.status).not.toBe("succeeded");
      const capture = await p.capture(intent.id, key("declined", "capture")).catch((e: unknown) => e);
      expect(capture).toBeInstanceOf(PaymentError);
      // The guest may try another card on the same intent.
      await h.confirmCard(intent, TEST_CARDS.ok);
      expect(await p.getIntent(intent.id)).toMatchObject({ status: "requires_capture", lastError: null });
    });

    test("retries with the same key return the first result and move money once", async () => {
      const first = await intentFor("retry");
      const again = await intentFor("retry");
      expect(again.id).toBe(first.id);
      await h.confirmCard(first, TEST_CARDS.ok);

      const c1 = await p.capture(first.id, key("retry", "capture"));
      const c2 = await p.capture(first.id, key("retry", "capture"));
      expect(c2).toMatchObject({ id: c1.id, status: "succeeded" });

      const r1 = await p.refund(first.id, 500, key("retry", "refund"));
      const r2 = await p.refund(first.id, 500, key("retry", "refund"));
      expect(r2.id).toBe(r1.id);

      const account = await payoutAccount("host-retry");
      const input = { amountCents: 3200, currency: "usd", destinationAccountId: account.id, sourceIntentId: first.id, transferGroup: `booking:${run}-retry` };
      const t1 = await p.transfer(input, key("retry", "transfer"));
      const t2 = await p.transfer(input, key("retry", "transfer"));
      expect(t2.id).toBe(t1.id);
      const v1 = await p.reverseTransfer(t1.id, 1000, key("retry", "reverse"));
      const v2 = await p.reverseTransfer(t1.id, 1000, key("retry", "reverse"));
      expect(v2.id).toBe(v1.id);
      // Only one partial reversal happened: the remaining 2200 can still be taken back, no more.
      expect((await p.reverseTransfer(t1.id, 2200, key("retry", "reverse-rest"))).id).toBeTruthy();

      const a1 = await p.createConnectedAccount({ userId: `${run}-same`, email: null }, `user:${run}-same:connect-account`);
      const a2 = await p.createConnectedAccount({ userId: `${run}-same`, email: null }, `user:${run}-same:connect-account`);
      expect(a2.id).toBe(a1.id);
    });

    test("a connected account: onboarding link, then enabled once the host finishes", async () => {
      const account = await p.createConnectedAccount({ userId: `${run}-onboard`, email: "host@example.com" }, `user:${run}-onboard:connect-account`);
      expect(account.payoutsEnabled).toBe(false);
      expect(account.requirements.length).toBeGreaterThan(0);
      const link = await p.onboardingLink(account.id, { refreshUrl: "https://offline.example/stripe-connect-setup?refresh=1", returnUrl: "https://offline.example/stripe-connect-setup?return=1" });
      expect(isPageAddress(link.url)).toBe(true);
      expect((await p.getConnectedAccount(account.id))?.payoutsEnabled).toBe(false);
      await h.setPayoutsEnabled(account.id, true);
      expect(await p.getConnectedAccount(account.id)).toEqual({ id: account.id, payoutsEnabled: true, requirements: [] });
      await h.setPayoutsEnabled(account.id, false);
      expect((await p.getConnectedAccount(account.id))?.payoutsEnabled).toBe(false);
      expect(await p.getConnectedAccount("acct_doesnotexist00")).toBeNull();
    });

    test("a hosted checkout page, in payment mode", async () => {
      const session = await p.createCheckoutSession(
        { amountCents: 4400, currency: "usd", metadata: { bookingId: `${run}-checkout` }, description: "Tennis lesson", successUrl: "https://offline.example/booking-success", cancelUrl: "https://offline.example/" },
        key("checkout", "checkout"),
      );
      expect(session.id).toBeTruthy();
      expect(isPageAddress(session.url)).toBe(true);
      const again = await p.createCheckoutSession(
        { amountCents: 4400, currency: "usd", metadata: { bookingId: `${run}-checkout` }, description: "Tennis lesson", successUrl: "https://offline.example/booking-success", cancelUrl: "https://offline.example/" },
        key("checkout", "checkout"),
      );
      expect(again.id).toBe(session.id);
    });

    test("a hosted checkout session is read as it is, and an open one closed once; closing it again answers it closed", async () => {
      const session = await p.createCheckoutSession(
        { amountCents: 4400, currency: "usd", metadata: { bookingId: `${run}-closing` }, description: "Tennis lesson", successUrl: "https://offline.example/booking-success", cancelUrl: "https://offline.example/" },
        key("closing", "checkout"),
      );
      expect(await p.getCheckoutSession(session.id)).toMatchObject({ id: session.id, status: "open" });
      expect(await p.expireCheckoutSession(session.id, key("closing", "checkout:expire"))).toMatchObject({ id: session.id, status: "expired" });
      expect(await p.expireCheckoutSession(session.id, key("closing", "checkout:expire"))).toMatchObject({ id: session.id, status: "expired" });
      expect(await p.expireCheckoutSession(session.id, key("closing", "checkout:expire:2"))).toMatchObject({ id: session.id, status: "expired" });
      expect(await p.getCheckoutSession(session.id)).toMatchObject({ status: "expired" });
      expect(await p.getCheckoutSession("cs_doesnotexist00")).toBeNull();
    });
  });
}
