import { expect, test } from "bun:test";
import { asTestProvider } from "../src/web/payments";
import { makeTestApp } from "./helpers";
import { isPageAddress, runProviderContract } from "./payments-contract";

/** The built-in test provider passes the same cases as Stripe, confirming cards through its own confirm path. */
runProviderContract("test (the built-in provider)", async () => {
  const app = await makeTestApp();
  const provider = asTestProvider(app.deps.payments);
  if (!provider) throw new Error("the test app runs the test provider");
  return {
    provider,
    async confirmCard(intent, cardNumber) {
      // What POST /api/payments/test/confirm does; a refused card is recorded on the intent.
      await provider.confirmCard({ clientSecret: intent.clientSecret, cardNumber, expiry: "12/40", cvc: "123" });
    },
    async setPayoutsEnabled(accountId, enabled) {
      await provider.setPayoutsEnabled(accountId, enabled);
    },
    cleanup: () => app.cleanup(),
  };
});

test("a page address is an absolute http(s) URL or a path on this site, nothing else", () => {
  for (const ok of ["/payments/test/checkout/tcs_1", "https://checkout.stripe.com/c/pay/cs_1", "http://127.0.0.1:4000/c/pay/cs_1"]) expect(isPageAddress(ok)).toBe(true);
  for (const bad of ["//evil.example/x", "/\\evil.example", "javascript:alert(1)", "payments/test", ""]) expect(isPageAddress(bad)).toBe(false);
});
