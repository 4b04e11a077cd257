/**
 * Each city's own currency: an activity takes its city's, every amount is an integer in that
 * currency's minor unit (whole yen, euro cents), the provider is asked for exactly that integer,
 * screens and the API write it the reader's way, and amounts of different currencies are never
 * added. The money path runs through both providers: the built-in test provider and Stripe (the
 * real SDK against tests/fakes/stripe.ts, which treats JPY as the zero-decimal currency it is).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { activities, bookings, ledgerEntries, users } from "../db/schema";
import { writeTransaction } from "../db/client";
import { decimalFromCents, formatMoney, minorFromDecimal, minorUnits, readDecimal } from "../lib/money";
import { currencyOf } from "../lib/places";
import { priceFor } from "../shared/pricing";
import { activityRow, bookingRow, completedLedgerRows, insert, userRow } from "../src/demo/factories";
import { PaymentError } from "../src/ports/payments";
import { stripeWorld, testProviderWorld, type World } from "./provider-worlds";
import { makeTestApp, TENNIS, type Client } from "./helpers";
import { moneyViolations } from "./money-invariants";

type TestApp = Awaited<ReturnType<typeof makeTestApp>>;

const HOUR = 60 * 60 * 1000;
/** 2026-06-01 12:00 in New York; 2026-06-02 01:00 in Tokyo. */
const START = Date.UTC(2026, 5, 1, 16, 0);
/** Spaces as Intl writes them (French puts a no-break space before "€"), made plain to compare. */
const plain = (text: string) => text.replace(/[\u00a0\u202f]/g, " ");

describe("amounts in their currency's minor unit", () => {
  test("the exponent comes from Intl: 2 for USD, EUR and GBP, 0 for JPY", () => {
    expect(["usd", "eur", "gbp", "jpy"].map(minorUnits)).toEqual([2, 2, 2, 0]);
  });

  test("each place's currency comes from the one table, a city's own or its country's", () => {
    expect([currencyOf("United States", "New York"), currencyOf("France", "Paris"), currencyOf("Spain", "Barcelona"), currencyOf("United Kingdom", "London"), currencyOf("Japan", "Tokyo")]).toEqual(["usd", "eur", "eur", "gbp", "jpy"]);
    expect(currencyOf("Japan", "Paris")).toBeUndefined();
  });

  test("formatting follows the reader's language and the amount's currency", () => {
    expect(formatMoney(300000, "en", { currency: "jpy" })).toBe("¥300,000");
    expect(formatMoney(3000, "en", { currency: "jpy" })).toBe("¥3,000");
    expect(plain(formatMoney(4500, "fr", { currency: "eur" }))).toBe("45,00 €");
    expect(formatMoney(4500, "en", { currency: "eur" })).toBe("€45.00");
    expect(formatMoney(3000, "en", { currency: "gbp" })).toBe("£30.00");
    expect(formatMoney(4550, "en", { currency: "usd", whole: true })).toBe("$46");
    expect(formatMoney(3000, "en", { currency: "jpy", whole: true })).toBe("¥3,000");
  });

  test("the API's decimal strings have the currency's decimals", () => {
    expect(decimalFromCents(3000, "jpy")).toBe("3000");
    expect(decimalFromCents(1250, "eur")).toBe("12.50");
    expect(decimalFromCents(5, "usd")).toBe("0.05");
    expect(decimalFromCents(0, "gbp")).toBe("0.00");
  });

  test("a typed amount is read in the currency: a yen amount with decimals is no amount", () => {
    expect(minorFromDecimal(readDecimal("3000")!, "jpy")).toBe(3000);
    expect(minorFromDecimal(readDecimal("45.5")!, "eur")).toBe(4550);
    expect(minorFromDecimal(readDecimal("45,50")!, "eur")).toBe(4550);
    expect(minorFromDecimal(readDecimal(12.5)!, "usd")).toBe(1250);
    expect(minorFromDecimal(readDecimal("3000.5")!, "jpy")).toBeNaN();
    expect(minorFromDecimal(readDecimal("45.505")!, "eur")).toBeNaN();
    expect(readDecimal("-5")).toBeNull();
    expect(readDecimal("1e3")).toBeNull();
  });

  test("the fee and the split round to whole minor units alike in every currency, and the parts add up", () => {
    const yen = priceFor(3000, 120);
    expect(yen).toEqual({ subtotalCents: 6000, serviceFeeCents: 600, totalCents: 6600, platformFeeCents: 1200, hostEarningsCents: 4800 });
    for (const [rate, minutes] of [[3333, 90], [1, 30], [999, 150], [12345, 60]] as const) {
      const p = priceFor(rate, minutes);
      for (const v of Object.values(p)) expect(Number.isInteger(v)).toBe(true);
      expect(p.platformFeeCents + p.hostEarningsCents).toBe(p.subtotalCents);
      expect(p.subtotalCents + p.serviceFeeCents).toBe(p.totalCents);
    }
  });
});

/** One provider, as these tests need it. */
for (const [label, makeWorld] of [["test provider", testProviderWorld], ["Stripe", stripeWorld]] as const) {
  describe(`a Tokyo booking in yen: ${label}`, () => {
    let w: World;
    let app: TestApp;
    let clock = START;
    let host: Client;
    let guest: Client;
    let hostId: string;
    let activityId: string;

    beforeAll(async () => {
      w = makeWorld();
      app = await w.start(() => clock);
      host = app.client();
      guest = app.client();
      hostId = (await host.signUpComplete({ country: "Japan", city: "Tokyo" })).user.id;
      await guest.signUpComplete();
      const made = await host.postJson("/api/activities", { ...TENNIS, hourlyRate: "3000" });
      expect(made.status).toBe(201);
      const activity = (await made.json()) as { id: string; hourlyRate: string; currency: string };
      expect(activity).toMatchObject({ hourlyRate: "3000", currency: "jpy" });
      activityId = activity.id;
      const account = await app.deps.payments.createConnectedAccount({ userId: hostId, email: null }, `user:${hostId}:connect-account`);
      await w.enablePayouts(app, account.id);
      await writeTransaction(app.db, (tx) => tx.update(users).set({ stripeAccountId: account.id, payoutsEnabled: true }).where(eq(users.id, hostId)));
    });
    afterAll(() => {
      w.stop();
      app.cleanup();
    });

    test("¥3,000 an hour for 2 hours charges exactly 6,600 yen, and the host's share and the platform's fee add up to it", async () => {
      const metadata = { activityId, date: "2026-06-04", time: "10:00", duration: "2" };
      // A yen amount with decimals is no amount: refused, nothing made.
      const decimals = await guest.postJson("/api/create-payment-intent", { amount: "6600.5", metadata });
      expect(decimals.status).toBe(400);
      // The price in dollars' units (a hundred times too small) is another price.
      expect((await guest.postJson("/api/create-payment-intent", { amount: "66.00", metadata })).status).toBe(409);

      const res = await guest.postJson("/api/create-payment-intent", { amount: "6600", metadata });
      expect(res.status).toBe(200);
      const intent = (await res.json()) as { clientSecret: string; paymentIntentId: string; amount: string; currency: string };
      expect(intent).toMatchObject({ amount: "6600", currency: "jpy" });
      expect(await app.deps.payments.getIntent(intent.paymentIntentId)).toMatchObject({ amountCents: 6600, currency: "jpy" });
      await w.confirmCard(app, intent);

      const made = await guest.postJson("/api/bookings", { activityId, proposedDatetime: "2026-06-04T10:00:00", durationHours: 2, priceTotal: "6600", paymentIntentId: intent.paymentIntentId });
      expect(made.status).toBe(201);
      const booking = (await made.json()) as Record<string, unknown> & { id: string };
      expect(booking).toMatchObject({ subtotal: "6000", serviceFee: "600", priceTotal: "6600", currency: "jpy" });
      expect((await host.postJson(`/api/bookings/${booking.id}/accept`, {})).status).toBe(200);

      const row = (await app.db.select().from(bookings).where(eq(bookings.id, booking.id)))[0]!;
      expect(row).toMatchObject({ currency: "jpy", totalCents: 6600, hostEarningsCents: 4800 });
      clock = row.endsAt + HOUR;
      expect((await host.postJson(`/api/bookings/${booking.id}/complete`, {})).status).toBe(200);

      const ledger = await app.db.select().from(ledgerEntries).where(eq(ledgerEntries.bookingId, booking.id));
      const of = (kind: string) => ledger.find((l) => l.kind === kind)?.amountCents;
      expect(ledger.every((l) => l.currency === "jpy")).toBe(true);
      expect(of("capture")).toBe(6600);
      expect(of("transfer")).toBe(4800);
      expect(of("platform_fee")! + of("transfer")!).toBe(6600);

      // What the provider shows: the charge and the transfer in yen, for those very integers.
      expect(await app.deps.payments.getIntent(intent.paymentIntentId)).toMatchObject({ status: "succeeded", amountCents: 6600, currency: "jpy" });
      const transfers = await app.deps.payments.transfersOf(`booking:${booking.id}`);
      expect(transfers.map((t) => t.amountCents)).toEqual([4800]);
      expect(await moneyViolations(app.deps, [booking.id])).toEqual([]);

      // The host's earnings are in yen, as the API and the dashboard say.
      const earnings = await (await host.get("/api/host/earnings")).json();
      expect(earnings).toMatchObject({ totalEarnings: "4800", pendingPayouts: "0", currency: "jpy", completedBookings: 1 });
      expect(await (await host.get("/host")).text()).toContain("¥4,800");
    });

    test("the provider refuses a yen charge below its minimum or with decimals, as Stripe does", async () => {
      const refused = async (amountCents: number) => {
        try {
          await app.deps.payments.createIntent({ amountCents, currency: "jpy", metadata: {} }, `too-small:${amountCents}:${crypto.randomUUID()}`);
          return null;
        } catch (err) {
          return err instanceof PaymentError ? err.status : err;
        }
      };
      expect(await refused(49)).toBe(400);
      expect(await refused(66.5)).toBe(400);
      expect(await refused(50)).toBeNull();
    });
  });
}

describe("prices typed in the city's currency, and never added across currencies", () => {
  let app: TestApp;
  let paris: Client;
  let parisId: string;
  let put: ReturnType<typeof insert>;
  const clock = START;

  beforeAll(async () => {
    app = await makeTestApp({ now: () => clock });
    put = insert(app.db);
    paris = app.client();
    parisId = (await paris.signUpComplete({ country: "France", city: "Paris" })).user.id;
  });
  afterAll(() => app.cleanup());

  test("a Paris activity is in euros: 45,00 € in French and €45.00 in English", async () => {
    const made = await paris.postJson("/api/activities", { ...TENNIS, hourlyRate: "45" });
    expect(made.status).toBe(201);
    const activity = (await made.json()) as { id: string; hourlyRate: string; currency: string };
    expect(activity).toMatchObject({ hourlyRate: "45.00", currency: "eur" });

    const guest = app.client();
    const guestId = (await guest.signUpComplete()).user.id;
    const ask = (client: Client) => client.postForm(`/activity/${activity.id}/request`, { message: "Hello!", proposedDate: "2026-06-04", proposedTime: "10:00", hours: "1" });
    const english = await ask(guest);
    expect(english.status).toBe(200);
    const en = await english.text();
    expect(en).toContain("€45.00");
    expect(en).toContain("€49.50");
    expect(en).not.toContain("$");
    guest.cookies.set("lang", "fr");
    await writeTransaction(app.db, (tx) => tx.update(users).set({ locale: "fr" }).where(eq(users.id, guestId)));
    const fr = plain(await (await ask(guest)).text());
    expect(fr).toContain("45,00 €");
    expect(fr).toContain("49,50 €");
    // The activity's page shows the hourly rate in whole euros.
    expect(plain(await (await guest.get(`/activity/${activity.id}`)).text())).toContain("45 €");
  });

  test("a yen price with decimals is refused with its message, and nothing is written", async () => {
    const tokyo = app.client();
    const tokyoId = (await tokyo.signUpComplete({ country: "Japan", city: "Tokyo" })).user.id;
    const count = async () => (await app.db.select({ id: activities.id }).from(activities).where(eq(activities.hostId, tokyoId))).length;
    const res = await tokyo.postJson("/api/activities", { ...TENNIS, hourlyRate: "3000.5" });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ fields: { hourlyRate: "Prices in this currency are whole amounts, without decimals" } });
    const group = await tokyo.postJson("/api/activities", { ...TENNIS, format: "group", capacity: 6, sessionMinutes: 120, pricePerPerson: "2500.50" });
    expect(group.status).toBe(400);
    expect(await group.json()).toMatchObject({ fields: { pricePerPerson: "Prices in this currency are whole amounts, without decimals" } });
    expect(await count()).toBe(0);
    const ok = await tokyo.postJson("/api/activities", { ...TENNIS, hourlyRate: "3000" });
    expect(await ok.json()).toMatchObject({ hourlyRate: "3000", currency: "jpy" });
  });

  test("moving an activity to a city of another currency: its prices again while it has no bookings, refused with bookings", async () => {
    const made = (await (await paris.postJson("/api/activities", { ...TENNIS, hourlyRate: "45" })).json()) as { id: string };
    const move = (json: Record<string, unknown>) => paris.request(`/api/activities/${made.id}`, { method: "PATCH", json });
    const noPrice = await move({ country: "Japan", city: "Tokyo" });
    expect(noPrice.status).toBe(400);
    expect(await noPrice.json()).toMatchObject({ fields: { hourlyRate: "The new city has another currency: give the price again, in it" } });
    const moved = await move({ country: "Japan", city: "Tokyo", hourlyRate: "6000" });
    expect(moved.status).toBe(200);
    expect(await moved.json()).toMatchObject({ city: "Tokyo", currency: "jpy", hourlyRate: "6000" });
    // Within the currency, nothing more is asked.
    expect((await move({ country: "Japan", city: "Osaka" })).status).toBe(200);

    const guest = await put.user(userRow());
    const activity = (await app.db.select().from(activities).where(eq(activities.id, made.id)))[0]!;
    await put.booking(bookingRow(activity, { guestId: guest.id, startsAt: START + 10 * 24 * HOUR }));
    const refused = await move({ country: "France", city: "Paris", hourlyRate: "45" });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ fields: { city: "This activity has bookings in its currency: it cannot move to a city with another one" } });
    expect(await (await paris.get(`/api/activities/${made.id}`)).json()).toMatchObject({ city: "Osaka", currency: "jpy", hourlyRate: "6000" });
  });

  test("a host who earned in dollars and in euros sees each sum on its own, never added", async () => {
    const host = await put.user(userRow({ country: "France", city: "Paris" }));
    const guest = await put.user(userRow());
    const dollars = await put.activity(activityRow({ ...host, country: "United States", city: "New York" }, { hourlyRateCents: 4000 }));
    const euros = await put.activity(activityRow(host, { hourlyRateCents: 4500, currency: "eur" }));
    for (const [activity, days] of [[dollars, 30], [euros, 20]] as const) {
      const done = await put.booking(bookingRow(activity, { guestId: guest.id, startsAt: START - days * 24 * HOUR, status: "completed" }));
      await put.ledger(completedLedgerRows(done));
    }
    const client = app.client();
    await client.signInAs(host.id);
    const earnings = await (await client.get("/api/host/earnings")).json();
    expect(earnings).toEqual({
      totalEarnings: null,
      pendingPayouts: null,
      currency: null,
      completedBookings: 2,
      byCurrency: [
        { currency: "eur", totalEarnings: "36.00", pendingPayouts: "36.00", completedBookings: 1 },
        { currency: "usd", totalEarnings: "32.00", pendingPayouts: "32.00", completedBookings: 1 },
      ],
    });
    const html = await (await client.get("/host")).text();
    expect(html).toContain("€36.00");
    expect(html).toContain("$32.00");
    expect(html).not.toContain("68.00");
    expect(parisId).toBeDefined();
  });
});
