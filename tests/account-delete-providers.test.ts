/**
 * Deleting an account against both payment providers (docs/decisions/0057): the built-in test
 * provider, and Stripe (the real SDK against tests/fakes/stripe.ts). A host whose share was paid
 * out may leave; their payout account is unlinked, not closed (it is theirs with the provider);
 * the booking's money stays as it was and still agrees with the provider.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { one, writeTransaction } from "../db/client";
import { bookings, users } from "../db/schema";
import { stripeWorld, testProviderWorld, type World } from "./provider-worlds";
import { bookingParties, ledgerLines, makeTestApp, settled } from "./helpers";
import { moneyViolations } from "./money-invariants";

const HOUR = 60 * 60 * 1000;
/** 2026-06-01 12:00 in New York. */
const START = Date.UTC(2026, 5, 1, 16, 0);
type TestApp = Awaited<ReturnType<typeof makeTestApp>>;

for (const [name, makeWorld] of [["test provider", testProviderWorld], ["Stripe", stripeWorld]] as const) {
  describe(`deleting an account: ${name}`, () => {
    let w: World;
    let app: TestApp;
    let clock = START;
    const now = () => clock;
    let parties: Awaited<ReturnType<typeof bookingParties>>;
    let accountId = "";

    beforeAll(async () => {
      w = await makeWorld();
      app = await w.start(now);
      parties = await bookingParties(app);
      const account = await app.deps.payments.createConnectedAccount({ userId: parties.hostId, email: null }, `user:${parties.hostId}:connect-account`);
      accountId = account.id;
      await w.enablePayouts(app, account.id);
      await writeTransaction(app.db, (tx) => tx.update(users).set({ stripeAccountId: account.id, payoutsEnabled: true }).where(eq(users.id, parties.hostId)));
    });
    afterAll(() => {
      w.stop();
      app.cleanup();
    });

    test("a host paid out may leave: the payout account is unlinked, the money unchanged and sound", async () => {
      const date = new Date(START + 3 * 24 * HOUR).toISOString().slice(0, 10);
      const intent = (await (await parties.guest.postJson("/api/create-payment-intent", { amount: "88.00", metadata: { activityId: parties.activityId, date, time: "10:00", duration: "2" } })).json()) as { clientSecret: string; paymentIntentId: string };
      await w.confirmCard(app, intent);
      const res = await parties.guest.postJson("/api/bookings", { activityId: parties.activityId, proposedDatetime: `${date}T10:00:00`, durationHours: 2, priceTotal: "88.00", paymentIntentId: intent.paymentIntentId });
      expect(res.status).toBe(201);
      const id = ((await res.json()) as { id: string }).id;
      expect((await parties.host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(200);
      // Accepted: neither side may leave yet.
      expect((await parties.host.postJson("/api/account/delete", { password: "secret123" })).status).toBe(409);
      expect((await parties.guest.postJson("/api/account/delete", { password: "secret123" })).status).toBe(409);
      clock = (await one(app.db.select().from(bookings).where(eq(bookings.id, id))))!.endsAt + HOUR;
      expect((await parties.host.postJson(`/api/bookings/${id}/complete`, {})).status).toBe(200);
      await settled(app.deps);
      const ledger = await ledgerLines(app.db, id);
      expect(ledger).toContain("transfer:6400");

      expect((await parties.host.postJson("/api/account/delete", { password: "secret123" })).status).toBe(200);
      expect((await parties.guest.postJson("/api/account/delete", { password: "secret123" })).status).toBe(200);
      await settled(app.deps);
      const host = (await one(app.db.select().from(users).where(eq(users.id, parties.hostId))))!;
      expect(host.stripeAccountId).toBeNull();
      expect(host.payoutsEnabled).toBe(false);
      // Left to the provider: the account still exists there.
      expect(await app.deps.payments.getConnectedAccount(accountId)).not.toBeNull();
      expect(await ledgerLines(app.db, id)).toEqual(ledger);
      expect(await moneyViolations(app.deps, [id])).toEqual([]);
      // The booking keeps its amounts, and both its sides, as tombstones.
      const booking = (await one(app.db.select().from(bookings).where(eq(bookings.id, id))))!;
      expect([booking.totalCents, booking.hostEarningsCents, booking.guestId, booking.hostId]).toEqual([8800, 6400, parties.guestId, parties.hostId]);
    });
  });
}
