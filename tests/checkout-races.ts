/**
 * The checkout of a booking awaiting payment under crashes, races and a slow provider
 * (docs/decisions/0028, 0046), one suite for each payment provider: the built-in test provider
 * and Stripe (the real SDK against tests/fakes/stripe.ts). A booking awaiting payment always
 * ends: it becomes a request, or it ends with any card held for it released. A payment the
 * provider made while the app crashed is finished by the guest's retry at once, or by the
 * recovery job a minute or so on. Every test ends with the money invariant
 * (tests/money-invariants.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { one, writeTransaction } from "../db/client";
import { insert, userRow } from "../src/demo/factories";
import { activities, bookings, jobs, messages, reports, users } from "../db/schema";
import { moderate } from "../src/reports/moderation";
import { bookingParties, Client, dialogHold, makeTestApp, outboxEmails, settled, until } from "./helpers";
import { moneyViolations } from "./money-invariants";

export type TestApp = Awaited<ReturnType<typeof makeTestApp>>;

/** One provider, as the checkout needs it: the guest's card, and the provider made slow or forgetful. */
export interface CheckoutWorld {
  /** A new app process; on an earlier app's data directory, a restart. Its clock is `now`. */
  start(now: () => number, dataDir?: string): Promise<TestApp>;
  setLatency(app: TestApp, ms: number): void;
  /** The date-time flow's card: the browser confirming the test card on an intent the app made. */
  confirmCard(app: TestApp, intent: { clientSecret: string; paymentIntentId: string }): Promise<void>;
  /**
   * The guest posts the checkout page of a held booking, its card being authorised on the way
   * (the test provider's card form; Stripe.js confirming it first, once, then the page's post).
   */
  payAtCheckout(app: TestApp, guest: Client, bookingId: string, intentId: string): Promise<Response>;
  /**
   * The next payment at checkout is made at the provider and the app never hears of it: what a
   * crash of the app right after the provider acted looks like (the test provider authorises and
   * its answer and news are lost; Stripe's answer to the app's read of the intent is lost).
   */
  loseNextAuthorisation(app: TestApp): void;
  /** The provider holds the booking's card and nothing tells the app: the guest paid, the news lost. */
  authoriseUnheard(app: TestApp, intentId: string): Promise<void>;
  /** The provider's news of that authorisation, delivered late. */
  deliverAuthorisedNews(app: TestApp, intentId: string): Promise<void>;
  /** The provider's intents made for a booking, by status. */
  intentsOf(app: TestApp, bookingId: string): Promise<string[]>;
  /**
   * The guest pays on the provider's hosted checkout page of the booking dialog, when it is ours
   * to drive (the test provider's); Stripe's hosted Checkout reports through its webhook.
   */
  payOnHostedPage?(app: TestApp, guest: Client, pageUrl: string): Promise<Response>;
  /**
   * The checkout page's post naming an intent the card was never confirmed on, when the browser
   * is ours to play (Stripe.js); the test provider confirms the card itself within the post.
   */
  postWithoutConfirming?(app: TestApp, guest: Client, bookingId: string, intentId: string): Promise<Response>;
  /** The provider's next `times` reads of one intent answer `status` (a 4xx: refused for sure; a 5xx: no answer), when it is ours to drive (Stripe). */
  refuseIntentReads?(app: TestApp, intentId: string, status: number, times: number): void;
  stop(): void;
}

export const MINUTE = 60 * 1000;
export const HOUR = 60 * MINUTE;
/** The booking dialog's hold of the time. */
export const HOLD = 15 * MINUTE;
/** 2026-06-01 12:00 in New York. */
export const START = Date.UTC(2026, 5, 1, 16, 0);
/** The provider's latency in the checkout suites. */
export const LATENCY_MS = 25;
/** How many retries or deliveries race at once. */
export const TIMES = 10;

export function runCheckoutRaces(name: string, makeWorld: () => Promise<CheckoutWorld>, opts: { hostedPage?: boolean; browserConfirms?: boolean } = {}) {
  describe(`the checkout of a held booking, under crashes and races: ${name}`, () => {
    let w: CheckoutWorld;
    let app: TestApp;
    let clock = START;
    const now = () => clock;
    let parties: Awaited<ReturnType<typeof bookingParties>>;
    let hostEmail: string;
    let day = 3;

    beforeAll(async () => {
      w = await makeWorld();
      app = await w.start(now);
      parties = await bookingParties(app);
      hostEmail = (await one(app.db.select().from(users).where(eq(users.id, parties.hostId))))!.email!;
      w.setLatency(app, LATENCY_MS);
    });
    afterAll(() => {
      w.stop();
      app.cleanup();
    });

    const row = async (id: string) => (await one(app.db.select().from(bookings).where(eq(bookings.id, id))))!;
    const holdJobOf = async (id: string) => await one(app.db.select().from(jobs).where(eq(jobs.key, `booking.hold:${id}`)));
    const expectSound = async (deps: TestApp["deps"], ...ids: string[]) => expect(await moneyViolations(deps, ids)).toEqual([]);
    const messagesOf = async (t: TestApp, id: string) => (await t.db.select().from(messages).where(eq(messages.bookingId, id))).filter((m) => m.isSystemMessage).map((m) => m.systemMessageType);
    /** The host's emails about this booking's request. */
    const requestEmailsOf = async (id: string) => (await outboxEmails(app.dataDir, hostEmail, "booking.pending")).filter((m) => m.links.some((l) => l.includes(id)));

    /**
     * The booking dialog's first step, by a guest of its own on a day of its own: an
     * awaiting-payment booking holding the slot for 15 minutes; then the guest opens its checkout
     * page, which gives it the intent the page pays with.
     */
    async function held() {
      clock = START;
      const date = new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);
      const { guest, bookingId, url } = await dialogHold(app, parties.activityId, date);
      expect((await guest.get(`/checkout/${bookingId}`)).status).toBe(200);
      const b = await row(bookingId);
      expect(b).toMatchObject({ status: "awaiting_payment", holdUntil: START + HOLD });
      return { id: bookingId, intentId: b.paymentIntentId!, date, guest, pageUrl: url };
    }

    /** Someone else's request for the same time, through the date-time flow. */
    async function takeTheTime(date: string) {
      const intent = (await (await parties.stranger.postJson("/api/create-payment-intent", { amount: "88.00", metadata: { activityId: parties.activityId, date, time: "10:00", duration: "2" } })).json()) as {
        clientSecret: string;
        paymentIntentId: string;
      };
      await w.confirmCard(app, intent);
      const res = await parties.stranger.postJson("/api/bookings", { activityId: parties.activityId, proposedDatetime: `${date}T10:00:00`, durationHours: 2, priceTotal: "88.00", paymentIntentId: intent.paymentIntentId });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    }

    /** The guest, on a restarted app: the same browser, its session still valid. */
    function sameBrowser(t: TestApp, guest: Client) {
      const c = t.client();
      c.cookies = new Map(guest.cookies);
      c.csrf = guest.csrf;
      return c;
    }

    /** A request made of the booking, as both sides and the provider see it: one card held, the host told once. */
    async function expectRequestMade(t: TestApp, id: string) {
      expect((await row(id)).status).toBe("pending");
      expect(await messagesOf(t, id)).toEqual(["booking_request"]);
      expect(await w.intentsOf(t, id)).toEqual(["requires_capture"]);
      await settled(t.deps);
      await until("the host's email about the request", async () => (await requestEmailsOf(id)).length > 0);
      expect((await requestEmailsOf(id)).length).toBe(1);
      await expectSound(t.deps, id);
    }

    describe("a booking awaiting payment always ends", () => {
      test("paid in its last seconds, the news lost; its hold lapses and someone else books that time: the hold job ends it and lets the card go", async () => {
        const { id, intentId, date } = await held();
        clock = START + HOLD - 20 * 1000;
        await w.authoriseUnheard(app, intentId);
        // The hold lapses; before its job runs, the time is free for someone else, who books it.
        clock = START + HOLD + 1000;
        const other = await takeTheTime(date);
        await app.deps.jobs.runDue();
        expect((await row(id)).status).toBe("expired");
        expect(await w.intentsOf(app, id)).toEqual(["canceled"]);
        expect(await holdJobOf(id)).toBeUndefined();
        expect((await row(other)).status).toBe("pending");
        // Nothing is left to end it later: it stays ended, and its guest is free to book again.
        clock += 2 * HOUR;
        await app.deps.jobs.runDue();
        expect((await row(id)).status).toBe("expired");
        await expectSound(app.deps, id, other);
      });

      test("the news of that payment arrives after someone else booked the time: the booking ends then and there, the card let go", async () => {
        const { id, intentId, date } = await held();
        clock = START + HOLD - 20 * 1000;
        await w.authoriseUnheard(app, intentId);
        clock = START + HOLD + 1000;
        const other = await takeTheTime(date);
        await w.deliverAuthorisedNews(app, intentId);
        expect((await row(id)).status).toBe("expired");
        expect(await w.intentsOf(app, id)).toEqual(["canceled"]);
        expect(await holdJobOf(id)).toBeUndefined();
        await app.deps.jobs.runDue();
        expect((await row(id)).status).toBe("expired");
        expect((await row(other)).status).toBe("pending");
        await expectSound(app.deps, id, other);
      });
    });

    describe("the app dies after the provider held the card at checkout", () => {
      /** The guest pays at checkout; the provider holds the card and the app dies before it records it; then it starts again. */
      async function crashedAfterAuthorising() {
        const b = await held();
        clock = START + 2 * MINUTE;
        w.loseNextAuthorisation(app);
        const answer = await w.payAtCheckout(app, b.guest, b.id, b.intentId);
        // Nothing recorded: the card is held, the booking still awaits payment, the host knows nothing.
        expect(await row(b.id)).toMatchObject({ status: "awaiting_payment" });
        expect(await w.intentsOf(app, b.id)).toEqual(["requires_capture"]);
        expect(await messagesOf(app, b.id)).toEqual([]);
        const restarted = await w.start(now, app.dataDir);
        w.setLatency(restarted, LATENCY_MS);
        return { ...b, answer, restarted };
      }

      const retries: [string, (t: TestApp, guest: Client, b: { id: string; intentId: string }) => Promise<Response>][] = [
        ["posts the checkout page again", (t, guest, b) => w.payAtCheckout(t, guest, b.id, b.intentId)],
        ["comes back through the return address", (t, guest, b) => guest.get(`/checkout/${b.id}/return?payment_intent=${b.intentId}`)],
      ];
      for (const [how, retry] of retries) {
        test(`the guest ${how}: the request is made at once from what the provider shows, one card held, the host told once`, async () => {
          const b = await crashedAfterAuthorising();
          const guest = sameBrowser(b.restarted, b.guest);
          const res = await retry(b.restarted, guest, b);
          expect(res.status).toBe(303);
          expect(res.headers.get("location")).toBe("/");
          await expectRequestMade(b.restarted, b.id);
          // The recovery finds nothing left to do.
          clock += 5 * MINUTE;
          await b.restarted.deps.jobs.runDue();
          await expectRequestMade(b.restarted, b.id);
          // The guest was not told the payment failed while the card was held.
          expect(await b.answer.text()).toContain("finished automatically");
        });
      }

      test("the guest never comes back: the recovery job makes the request a minute or so on, long before the hold would lapse", async () => {
        const b = await crashedAfterAuthorising();
        clock += 2 * MINUTE;
        expect(clock).toBeLessThan(START + HOLD - 5 * MINUTE);
        await b.restarted.deps.jobs.runDue();
        await expectRequestMade(b.restarted, b.id);
        // The hold's own job, later, finds it paid.
        clock = START + HOLD + 1000;
        await b.restarted.deps.jobs.runDue();
        await expectRequestMade(b.restarted, b.id);
      });

      test(`the guest retries ${TIMES} times at once against a slow provider: one request, one card held, every answer a success`, async () => {
        const b = await crashedAfterAuthorising();
        const guest = sameBrowser(b.restarted, b.guest);
        const answers = await Promise.all(Array.from({ length: TIMES }, () => w.payAtCheckout(b.restarted, guest, b.id, b.intentId)));
        expect(answers.map((r) => `${r.status} ${r.headers.get("location")}`)).toEqual(Array.from({ length: TIMES }, () => "303 /"));
        await expectRequestMade(b.restarted, b.id);
        clock += 5 * MINUTE;
        await b.restarted.deps.jobs.runDue();
        await expectRequestMade(b.restarted, b.id);
      });

      test("paid in the hold's last seconds, the app died, and someone else books the time once the hold lapsed: the booking ends, the card let go", async () => {
        const b = await held();
        clock = START + HOLD - 30 * 1000;
        w.loseNextAuthorisation(app);
        await w.payAtCheckout(app, b.guest, b.id, b.intentId);
        const restarted = await w.start(now, app.dataDir);
        w.setLatency(restarted, LATENCY_MS);
        clock = START + HOLD + 1000;
        const other = await takeTheTime(b.date);
        await restarted.deps.jobs.runDue();
        clock = START + HOLD + 2 * MINUTE;
        await restarted.deps.jobs.runDue();
        expect((await row(b.id)).status).toBe("expired");
        expect(await w.intentsOf(restarted, b.id)).toEqual(["canceled"]);
        expect(await messagesOf(restarted, b.id)).toEqual([]);
        expect((await row(other)).status).toBe("pending");
        // Nothing is left to look at it again.
        clock += 2 * HOUR;
        await restarted.deps.jobs.runDue();
        expect(await holdJobOf(b.id)).toBeUndefined();
        expect((await row(b.id)).status).toBe("expired");
        await expectSound(restarted.deps, b.id, other);
      });

      if (opts.browserConfirms) {
        test("the app dies before the card was confirmed at all: a minute on, the payment is let go and the guest can cancel at once", async () => {
          const b = await held();
          clock = START + 2 * MINUTE;
          w.loseNextAuthorisation(app);
          expect((await w.postWithoutConfirming!(app, b.guest, b.id, b.intentId)).status).toBe(502);
          const restarted = await w.start(now, app.dataDir);
          w.setLatency(restarted, LATENCY_MS);
          clock += 2 * MINUTE;
          await restarted.deps.jobs.runDue();
          expect((await row(b.id)).status).toBe("awaiting_payment");
          expect(await w.intentsOf(restarted, b.id)).toEqual(["requires_payment_method"]);
          const guest = sameBrowser(restarted, b.guest);
          const started = performance.now();
          expect((await guest.postJson(`/api/bookings/${b.id}/cancel`, {})).status).toBe(200);
          expect(performance.now() - started).toBeLessThan(5_000);
          expect(await row(b.id)).toMatchObject({ status: "canceled", canceledBy: "guest" });
          expect(await w.intentsOf(restarted, b.id)).toEqual(["canceled"]);
          await expectSound(restarted.deps, b.id);
        });
      }

      if (opts.hostedPage) {
        test("on the hosted checkout page: posting the page again makes the request at once", async () => {
          const b = await held();
          clock = START + 2 * MINUTE;
          w.loseNextAuthorisation(app);
          expect((await w.payOnHostedPage!(app, b.guest, b.pageUrl)).status).toBe(402);
          expect(await row(b.id)).toMatchObject({ status: "awaiting_payment" });
          expect(await w.intentsOf(app, b.id)).toEqual(["requires_capture"]);
          const restarted = await w.start(now, app.dataDir);
          w.setLatency(restarted, LATENCY_MS);
          const again = await w.payOnHostedPage!(restarted, sameBrowser(restarted, b.guest), b.pageUrl);
          expect(again.status).toBe(303);
          expect(again.headers.get("location")).toEndWith(`/bookings?success=true&booking=${b.id}`);
          await expectRequestMade(restarted, b.id);
        });
      }

      test(`the guest's ${TIMES} retries keep coming while and after the first makes the request: each is answered with the request made`, async () => {
        const b = await crashedAfterAuthorising();
        const guest = sameBrowser(b.restarted, b.guest);
        // A few milliseconds apart, against a provider slower than that: the later ones arrive once the request is made.
        const answers = await Promise.all(Array.from({ length: TIMES }, async (_, i) => {
          await Bun.sleep(i * LATENCY_MS);
          return w.payAtCheckout(b.restarted, guest, b.id, b.intentId);
        }));
        expect(answers.map((r) => `${r.status} ${r.headers.get("location")}`)).toEqual(Array.from({ length: TIMES }, () => "303 /"));
        await expectRequestMade(b.restarted, b.id);
      });
    });

    if (opts.browserConfirms) {
      // The checkout page names the intent the browser confirmed; one the provider refuses to read
      // (not this account's, not an intent id at all) must not keep the booking claimed.
      describe("the page names an intent the provider refuses to read", () => {
        test("refused at checkout: the payment is let go at once, and the hold's job ends the booking", async () => {
          const b = await held();
          const refused = `pi_refused_${b.id.slice(0, 8)}`;
          clock = START + 2 * MINUTE;
          w.refuseIntentReads!(app, refused, 400, 1000);
          expect((await w.postWithoutConfirming!(app, b.guest, b.id, refused)).status).toBe(402);
          expect(await row(b.id)).toMatchObject({ status: "awaiting_payment", claim: null });
          clock = START + HOLD + 1000;
          await app.deps.jobs.runDue();
          expect(await row(b.id)).toMatchObject({ status: "expired", claim: null });
          expect(await holdJobOf(b.id)).toBeUndefined();
          expect(await w.intentsOf(app, b.id)).toEqual(["canceled"]);
          await expectSound(app.deps, b.id);
        });

        test("no answer at checkout, refused at recovery: the recovery lets the payment go, and the hold's job ends the booking", async () => {
          const b = await held();
          const refused = `pi_refused_${b.id.slice(0, 8)}`;
          clock = START + 2 * MINUTE;
          w.refuseIntentReads!(app, refused, 500, 1);
          w.refuseIntentReads!(app, refused, 400, 1000);
          expect((await w.postWithoutConfirming!(app, b.guest, b.id, refused)).status).toBe(502);
          expect((await row(b.id)).claim?.intentId).toBe(refused);
          clock += 2 * MINUTE;
          await app.deps.jobs.runDue();
          expect(await row(b.id)).toMatchObject({ status: "awaiting_payment", claim: null });
          expect(await one(app.db.select().from(jobs).where(eq(jobs.key, `booking.recover:${b.id}:1`)))).toBeUndefined();
          clock = START + HOLD + 1000;
          await app.deps.jobs.runDue();
          expect(await row(b.id)).toMatchObject({ status: "expired", claim: null });
          expect(await w.intentsOf(app, b.id)).toEqual(["canceled"]);
          await expectSound(app.deps, b.id);
        });
      });
    }

    describe("the guest is suspended while the provider holds their card and the app has not heard", () => {
      /** An operator suspends the booking's guest, through a report about them (docs/decisions/0024). */
      async function suspendGuestOf(id: string) {
        const guestId = (await row(id)).guestId;
        const operator = await insert(app.db).user(userRow({ firstName: "Olga" }));
        const reportId = crypto.randomUUID();
        await writeTransaction(app.db, (tx) => tx.insert(reports).values({ id: reportId, reporterId: parties.hostId, targetUserId: guestId, reason: "harassment", createdAt: clock }));
        await moderate(app.deps, operator, reportId, "suspend");
        return guestId;
      }

      for (const instant of [false, true]) {
        test(`${instant ? "an activity that books instantly" : "a request"}: the booking ends cancelled, the card released, never a request nor a charge`, async () => {
          await writeTransaction(app.db, (tx) => tx.update(activities).set({ instantBooking: instant }).where(eq(activities.id, parties.activityId)));
          try {
            const b = await held();
            clock = START + 2 * MINUTE;
            w.loseNextAuthorisation(app);
            await w.payAtCheckout(app, b.guest, b.id, b.intentId);
            expect((await row(b.id)).claim?.movement).toBe("authorize");
            expect(await w.intentsOf(app, b.id)).toEqual(["requires_capture"]);

            const guestId = await suspendGuestOf(b.id);
            // The payment's record is still to come: the release of the suspended guest's bookings looks again later.
            await app.deps.jobs.runDue();
            expect(await one(app.db.select().from(jobs).where(eq(jobs.key, `moderation.release:${guestId}`)))).toBeDefined();
            expect((await row(b.id)).status).toBe("awaiting_payment");

            // The payment's recovery reads the card held; the release's retry comes round too.
            for (let i = 0; i < 4; i++) {
              clock += 2 * MINUTE;
              await app.deps.jobs.runDue();
              await settled(app.deps);
              expect(["awaiting_payment", "canceled"]).toContain((await row(b.id)).status);
            }
            expect(await row(b.id)).toMatchObject({ status: "canceled", canceledBy: "guest", claim: null });
            expect(await w.intentsOf(app, b.id)).toEqual(["canceled"]);
            expect(await messagesOf(app, b.id)).not.toContain("booking_request");
            expect(await requestEmailsOf(b.id)).toEqual([]);
            expect(await one(app.db.select().from(jobs).where(eq(jobs.key, `moderation.release:${guestId}`)))).toBeUndefined();
            // Nothing brings it back later.
            clock = START + HOLD + HOUR;
            await app.deps.jobs.runDue();
            expect((await row(b.id)).status).toBe("canceled");
            await expectSound(app.deps, b.id);
          } finally {
            await writeTransaction(app.db, (tx) => tx.update(activities).set({ instantBooking: false }).where(eq(activities.id, parties.activityId)));
          }
        });
      }
    });

    test(`${TIMES} payments of one held booking at once, nothing crashing: one request, one card held, every answer a success`, async () => {
      const b = await held();
      const answers = await Promise.all(Array.from({ length: TIMES }, () => w.payAtCheckout(app, b.guest, b.id, b.intentId)));
      expect(answers.map((r) => `${r.status} ${r.headers.get("location")}`)).toEqual(Array.from({ length: TIMES }, () => "303 /"));
      await expectRequestMade(app, b.id);
    });

    test("every booking these races made agrees with the provider", async () => {
      expect(await moneyViolations(app.deps)).toEqual([]);
    });
  });
}
