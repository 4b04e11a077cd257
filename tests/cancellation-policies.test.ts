import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { one, writeTransaction } from "../db/client";
import { activities, bookingRefunds, bookings, users, type CancellationPolicy } from "../db/schema";
import { keptSplit } from "../src/bookings/policies";
import { CARDS, startFakeStripe, type FakeStripe } from "./fakes/stripe";
import { ledgerLines, makeTestApp, systemMessageTypes, TENNIS, type Client } from "./helpers";
import { moneyViolations } from "./money-invariants";
import { testProviderWorld, type World as ProviderWorld } from "./provider-worlds";

/**
 * Cancellation policies (docs/decisions/0050), end to end through the API on both providers: each
 * policy's refund one minute either side of each window's edge, and across New York's clock
 * changes; the amount at the provider, the ledger, the refunds' records and the money invariants;
 * the kept part paid out to the host; the policy copied onto the booking when it is requested; the
 * preview API and the confirmation page; an unknown policy refused with the field's message.
 */
const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** 2026-06-01 12:00 in New York. */
const START = Date.UTC(2026, 5, 1, 16, 0);
/** $40.03 an hour for one hour: 40.03 + 4.00 fee = 44.03, an odd total, so a half is rounded. */
const RATE = "40.03";
const TOTAL = 4403;
const HOST_SHARE = 3202;
const body = async (res: Response) => (await res.json()) as Record<string, any>;

/** A provider's world (tests/provider-worlds.ts), named for the tests' titles. */
interface World extends ProviderWorld {
  name: string;
}

const testProvider = (): World => ({ name: "the test provider", ...testProviderWorld() });

function stripe(): World {
  let fake: FakeStripe | undefined;
  return {
    name: "Stripe",
    start(now) {
      fake = startFakeStripe();
      return makeTestApp({ now, env: fake.env });
    },
    confirmCard: async (_app, intent) => void fake!.confirm(intent.paymentIntentId, CARDS.ok),
    enablePayouts: async (_app, accountId) => void fake!.setPayoutsEnabled(accountId, true),
    stop: () => fake?.stop(),
  };
}

for (const makeWorld of [testProvider, stripe]) {
  const w = makeWorld();
  describe(`cancellation policies with ${w.name}`, () => {
    let clock = START;
    const now = () => clock;
    let app: Awaited<ReturnType<typeof makeTestApp>>;
    let host: Client;
    let guest: Client;
    let hostId: string;
    let guestId: string;
    const activityOf = {} as Record<CancellationPolicy, string>;
    /** Each booking on a day of its own, 10:00 New York time (the host is busy one activity at a time). */
    let day = 10;

    beforeAll(async () => {
      app = await w.start(now);
      host = app.client();
      guest = app.client();
      hostId = (await host.signUpComplete()).user.id as string;
      guestId = (await guest.signUpComplete()).user.id as string;
      for (const policy of ["flexible", "moderate", "strict"] as const) {
        const res = await host.postJson("/api/activities", { ...TENNIS, title: `Tennis, ${policy}`, hourlyRate: RATE, cancellationPolicy: policy });
        expect(res.status).toBe(201);
        const made = await body(res);
        expect(made.cancellationPolicy).toBe(policy);
        activityOf[policy] = made.id;
      }
      // The host can be paid: what a cancellation keeps reaches them.
      const account = await app.deps.payments.createConnectedAccount({ userId: hostId, email: null }, `user:${hostId}:connect-account`);
      await w.enablePayouts(app, account.id);
      await writeTransaction(app.db, (tx) => tx.update(users).set({ stripeAccountId: account.id, payoutsEnabled: true }).where(eq(users.id, hostId)));
    });
    afterAll(() => {
      w.stop();
      app.cleanup();
    });

    const row = async (id: string) => (await one(app.db.select().from(bookings).where(eq(bookings.id, id))))!;

    /** A request for `date` at 10:00 New York time, made (and accepted unless `pending`) at `at`. */
    async function accepted(policy: CancellationPolicy, date?: string, at = START, pending = false) {
      clock = at;
      // Months on, both sign in again (a session lasts 30 days).
      if (at !== START) for (const [c, id] of [[host, hostId], [guest, guestId]] as const) await c.signInAs(id);
      const on = date ?? new Date(START + day++ * DAY).toISOString().slice(0, 10);
      const activityId = activityOf[policy];
      const made = await guest.postJson("/api/create-payment-intent", { amount: "44.03", metadata: { activityId, date: on, time: "10:00", duration: "1" } });
      const intent = await body(made);
      expect([made.status, intent.message]).toEqual([200, undefined]);
      await w.confirmCard(app, intent as { clientSecret: string; paymentIntentId: string });
      const res = await guest.postJson("/api/bookings", { activityId, proposedDatetime: `${on}T10:00:00`, durationHours: 1, priceTotal: "44.03", paymentIntentId: intent.paymentIntentId });
      expect(res.status).toBe(201);
      const id = (await body(res)).id as string;
      if (!pending) expect((await host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(200);
      return { id, startsAt: (await row(id)).startsAt };
    }

    /** The guest cancels at `at`: the preview said `refund`, and exactly that moved, was recorded and is sound. */
    async function cancelsWith(id: string, at: number, refund: number) {
      clock = at;
      const preview = await guest.get(`/api/bookings/${id}/cancellation`);
      expect(preview.status).toBe(200);
      expect((await body(preview)).refundable).toBe((refund / 100).toFixed(2));
      const res = await guest.postJson(`/api/bookings/${id}/cancel`, {});
      expect(res.status).toBe(200);
      const b = await row(id);
      expect(b).toMatchObject({ status: "canceled", canceledBy: "guest", refundedCents: refund, claim: null });
      const atProvider = await app.deps.payments.refundsOf(b.paymentIntentId!);
      expect(atProvider.map((r) => r.amountCents)).toEqual(refund ? [refund] : []);
      const records = await app.db.select().from(bookingRefunds).where(eq(bookingRefunds.bookingId, id));
      expect(records.map((r) => [r.amountCents, r.currency, r.reason, r.byUserId])).toEqual(refund ? [[refund, "usd", null, null]] : []);
      const kept = keptSplit(b, TOTAL - refund);
      const expected = ["authorize:4403", "capture:4403", ...(refund ? [`refund:${refund}`] : []), ...(kept.hostCents ? [`payout_pending:${kept.hostCents}`, `transfer:${kept.hostCents}`] : []), ...(kept.platformCents ? [`platform_fee:${kept.platformCents}`] : [])];
      expect(await ledgerLines(app.db, id)).toEqual(expected.sort());
      expect(await systemMessageTypes(app.db, id)).toEqual(["booking_request", "booking_accepted", "booking_canceled"]);
      expect(await moneyViolations(app.deps, [id])).toEqual([]);
    }

    test("flexible: everything one minute before 24 hours ahead, nothing one minute after; refused once started", async () => {
      const a = await accepted("flexible");
      await cancelsWith(a.id, a.startsAt - DAY - MINUTE, TOTAL);
      const b = await accepted("flexible");
      await cancelsWith(b.id, b.startsAt - DAY + MINUTE, 0);
      const c = await accepted("flexible");
      clock = c.startsAt + MINUTE;
      const late = await guest.postJson(`/api/bookings/${c.id}/cancel`, {});
      expect(late.status).toBe(409);
      expect((await body(late)).message).toBe("The activity has started: it can no longer be cancelled.");
      expect(await row(c.id)).toMatchObject({ status: "accepted", refundedCents: 0 });
      expect((await guest.get(`/api/bookings/${c.id}/cancellation`)).status).toBe(409);
    });

    test("moderate: everything until 3 days before, half (rounded down) after, until the start", async () => {
      const a = await accepted("moderate");
      await cancelsWith(a.id, a.startsAt - 3 * DAY - MINUTE, TOTAL);
      const b = await accepted("moderate");
      await cancelsWith(b.id, b.startsAt - 3 * DAY + MINUTE, 2201);
      const c = await accepted("moderate");
      await cancelsWith(c.id, c.startsAt - MINUTE, 2201);
      // What is kept is shared in the refund's proportion, to the cent: 2202 kept of 4403.
      expect(keptSplit({ totalCents: TOTAL, hostEarningsCents: HOST_SHARE }, 2202)).toEqual({ hostCents: 1601, platformCents: 601 });
    });

    test("strict: half until 7 days before, nothing after", async () => {
      const a = await accepted("strict");
      await cancelsWith(a.id, a.startsAt - 7 * DAY - MINUTE, 2201);
      const b = await accepted("strict");
      await cancelsWith(b.id, b.startsAt - 7 * DAY + MINUTE, 0);
    });

    test("across New York's clock changes, a window ends at the same wall-clock time days earlier", async () => {
      // Strict, Tuesday 16 March 2027 at 10:00 EDT; the clocks go forward on the 14th. Seven days
      // before is 10:00 EST on the 9th, 15:00 UTC (168 hours earlier would be 14:00 UTC).
      const edge = Date.UTC(2027, 2, 9, 15, 0);
      const march = Date.UTC(2027, 1, 20, 17, 0);
      const a = await accepted("strict", "2027-03-16", march);
      expect(a.startsAt - edge).toBe(7 * DAY - HOUR);
      await cancelsWith(a.id, edge - MINUTE, 2201);
      const b = await accepted("strict", "2027-03-17", march);
      clock = Date.UTC(2027, 2, 10, 15, 0) - MINUTE;
      expect(await body(await guest.get(`/api/bookings/${b.id}/cancellation`))).toEqual({ refundable: "22.01", total: "44.03", currency: "usd", policy: "strict", deadline: "2027-03-10T15:00:00.000Z" });
      await cancelsWith(b.id, Date.UTC(2027, 2, 10, 15, 0) + MINUTE, 0);
      // Moderate, Tuesday 3 November 2026 at 10:00 EST; the clocks go back on the 1st. Three days
      // before is 10:00 EDT on 31 October, 14:00 UTC (72 hours earlier would be 15:00 UTC).
      const october = Date.UTC(2026, 9, 20, 16, 0);
      const c = await accepted("moderate", "2026-11-03", october);
      expect(c.startsAt - Date.UTC(2026, 9, 31, 14, 0)).toBe(3 * DAY + HOUR);
      await cancelsWith(c.id, Date.UTC(2026, 9, 31, 14, 0) - MINUTE, TOTAL);
      // The same session booked again (the first gave its time back): a minute after, half.
      const d = await accepted("moderate", "2026-11-03", october);
      await cancelsWith(d.id, Date.UTC(2026, 9, 31, 14, 0) + MINUTE, 2201);
    });

    test("the policy is copied when the booking is requested: a later edit changes only new bookings", async () => {
      const res = await host.postJson("/api/activities", { ...TENNIS, title: "Tennis, edited", hourlyRate: RATE, cancellationPolicy: "flexible" });
      const activityId = (await body(res)).id as string;
      const saved = activityOf.flexible;
      activityOf.flexible = activityId;
      try {
        const a = await accepted("flexible");
        expect((await host.request(`/api/activities/${activityId}`, { method: "PATCH", json: { cancellationPolicy: "strict" } })).status).toBe(200);
        expect((await body(await host.get(`/api/activities/${activityId}`))).cancellationPolicy).toBe("strict");
        expect((await row(a.id)).cancellationPolicy).toBe("flexible");
        const b = await accepted("flexible");
        expect((await row(b.id)).cancellationPolicy).toBe("strict");
        // Two days ahead: the first booking still refunds everything, the second half.
        clock = a.startsAt - 2 * DAY;
        expect(await body(await guest.get(`/api/bookings/${a.id}/cancellation`))).toMatchObject({ refundable: "44.03", policy: "flexible" });
        await cancelsWith(a.id, a.startsAt - 2 * DAY, TOTAL);
        await cancelsWith(b.id, b.startsAt - 8 * DAY, 2201);
      } finally {
        activityOf.flexible = saved;
      }
    });

    test("the preview: a host gives everything back; a request's hold is released whole; strangers get 404", async () => {
      const a = await accepted("strict");
      clock = a.startsAt - DAY;
      expect(await body(await guest.get(`/api/bookings/${a.id}/cancellation`))).toEqual({ refundable: "0.00", total: "44.03", currency: "usd", policy: "strict", deadline: null });
      expect(await body(await host.get(`/api/bookings/${a.id}/cancellation`))).toMatchObject({ refundable: "44.03", total: "44.03", deadline: null });
      const stranger = app.client();
      await stranger.signUpComplete();
      expect((await stranger.get(`/api/bookings/${a.id}/cancellation`)).status).toBe(404);
      // The host cancels: everything back, whatever the policy.
      expect((await host.postJson(`/api/bookings/${a.id}/cancel`, {})).status).toBe(200);
      expect(await row(a.id)).toMatchObject({ status: "canceled", canceledBy: "host", refundedCents: TOTAL });
      expect(await moneyViolations(app.deps, [a.id])).toEqual([]);
      expect((await guest.get(`/api/bookings/${a.id}/cancellation`)).status).toBe(409);
      // A request not answered yet: withdrawing it releases the whole hold, whatever the policy.
      const p = await accepted("strict", undefined, START, true);
      expect(await body(await guest.get(`/api/bookings/${p.id}/cancellation`))).toEqual({ refundable: "44.03", total: "44.03", currency: "usd", policy: "strict", deadline: null });
      expect((await guest.postJson(`/api/bookings/${p.id}/cancel`, {})).status).toBe(200);
      expect(await ledgerLines(app.db, p.id)).toEqual(["authorize:4403", "release:4403"]);
      expect(await moneyViolations(app.deps, [p.id])).toEqual([]);
    });

    test("the confirmation page says what comes back, in English and French; a window closed meanwhile is refused, nothing moved", async () => {
      const a = await accepted("moderate");
      clock = a.startsAt - 3 * DAY - MINUTE;
      const page = await guest.get(`/bookings/${a.id}/cancel`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain("You get $44.03 of $44.03 back.");
      expect(html).toContain('name="refundCents" value="4403"');
      const fr = await (await guest.get(`/bookings/${a.id}/cancel`, { "accept-language": "fr", cookie: "lang=fr" })).text();
      expect(fr).toMatch(/Vous récupérez 44,03\s\$US sur 44,03\s\$US\./);
      // Two minutes on the full refund's window has closed: the confirmation is refused as sent.
      clock = a.startsAt - 3 * DAY + MINUTE;
      const refused = await guest.postForm(`/api/bookings/${a.id}/cancel`, { next: `/bookings/${a.id}`, refundCents: "4403" });
      expect(refused.status).toBe(303);
      expect(await row(a.id)).toMatchObject({ status: "accepted", refundedCents: 0 });
      const done = await guest.postForm(`/api/bookings/${a.id}/cancel`, { next: `/bookings/${a.id}`, refundCents: "2201" });
      expect(done.status).toBe(303);
      expect(await row(a.id)).toMatchObject({ status: "canceled", refundedCents: 2201 });
      expect(await moneyViolations(app.deps, [a.id])).toEqual([]);
    });

    test("an unknown policy is refused with the field's message, and nothing changes", async () => {
      const count = async () => (await app.db.select().from(activities)).length;
      const before = await count();
      const res = await host.postJson("/api/activities", { ...TENNIS, cancellationPolicy: "lenient" });
      expect(res.status).toBe(400);
      expect(await body(res)).toMatchObject({ fields: { cancellationPolicy: "Choose a cancellation policy: flexible, moderate or strict." } });
      expect(await count()).toBe(before);
      for (const bad of ["Strict", "", 3, null, ["strict"]]) {
        const patch = await host.request(`/api/activities/${activityOf.moderate}`, { method: "PATCH", json: { cancellationPolicy: bad, title: "Changed" } });
        if (bad === null) expect(patch.status).toBe(200);
        else {
          expect([bad, patch.status]).toEqual([bad, 400]);
          expect((await body(patch)).fields.cancellationPolicy).toBe("Choose a cancellation policy: flexible, moderate or strict.");
        }
      }
      expect(await one(app.db.select({ policy: activities.cancellationPolicy }).from(activities).where(and(eq(activities.id, activityOf.moderate))))).toEqual({ policy: "moderate" });
    });
  });
}
