import { one } from "../db/client";
import { afterAll, beforeAll, beforeEach, describe, expect, spyOn, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { insert, userRow } from "../src/demo/factories";
import { DEMO_HOST_EMAIL } from "../src/demo/demo-data";
import { bookings, ledgerEntries, testPaymentIntents, users } from "../db/schema";
import { translator, type Locale, type MessageKey } from "../src/texts";
import { RateLimiter } from "../lib/rate-limit";
import { lastResortAnswer } from "../src/web/shell/error-answers";
import type { Deps } from "../src/deps";
import { select } from "./html";
import { bookingParties, Client, makeTestApp, ORIGIN, requestWithTestCard } from "./helpers";
import { moneyViolations } from "./money-invariants";

/**
 * What a screen audit found about content, through app.handle: booking rows say when, the host is
 * shown the same labelled amounts on the dashboard and in the conversation, earnings to the cent,
 * checkouts that ended unpaid leave no row, a conversation that ended says so, form descriptions
 * exist, the browse filters close on a pick and can be submitted, and a refused card's alert is
 * marked to take the focus. Then the audit's last findings: onboarding says the age rule under
 * the birthday (also without script), Settings writes the date of birth as people do and the
 * username screen words a taken name as the spec does, the location form has a real submit
 * button, the demo's bookings are paid so their payouts can be sent, and answers follow the
 * language a signed-in person chose rather than their browser's. (Layout and sight:
 * tests/e2e/screens-audit.e2e.ts.)
 */
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
// 2026-06-01 12:00 in New York (16:00 UTC).
const START = Date.UTC(2026, 5, 1, 16, 0);
let clock = START;

let t: Awaited<ReturnType<typeof makeTestApp>>;
let host: Client;
let guest: Client;
let activityId: string;

const html = async (c: Client, path: string) => (await c.get(path)).text();
const text = (found: { text: string }[]) => found.map((f) => f.text.replace(/\s+/g, " ").trim());
const dateOf = (days: number) => new Date(START + days * DAY).toISOString().slice(0, 10);

/** A pending request for the $40/hour tennis (1 hour: the guest pays $44.00, the host earns $32.00). */
async function request(days: number, time = "10:00") {
  const { res } = await requestWithTestCard(guest, { activityId, date: dateOf(days), time, hours: 1, total: "44.00" });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** The host's dashboard lists the three newest requests: moves the clock past every booking made so far. */
async function afterEveryBooking() {
  clock = Math.max(clock, ...(await t.db.select({ at: bookings.createdAt }).from(bookings)).map((b) => b.at + 1));
}

beforeAll(async () => {
  t = await makeTestApp({ now: () => clock });
  ({ host, guest, activityId } = await bookingParties(t, { host: { firstName: "Maya" }, guest: { firstName: "Sam" } }));
}, 30_000);
afterAll(() => t.cleanup());
// Some tests move the clock to a booking's start or past its answer: each test starts from START.
beforeEach(() => {
  clock = START;
});

describe("booking rows and amounts", () => {
  test("several requests for one activity each show their date and time, on the dashboard and in /bookings", async () => {
    await afterEveryBooking();
    const first = await request(3, "10:00");
    const second = await request(4, "15:00");
    const dashboard = await html(host, "/host");
    const when = (id: string) => text(select(dashboard, `[data-request="${id}"] [data-request-when]`))[0];
    expect(when(first)).toContain("Jun 4, 2026, 10:00 AM");
    expect(when(second)).toContain("Jun 5, 2026, 3:00 PM");
    for (const who of [host, guest]) {
      const list = await html(who, "/bookings");
      expect(text(select(list, `li[data-booking="${first}"] [data-booking-when]`))).toEqual(["Thu, Jun 4, 10:00 AM"]);
      expect(text(select(list, `li[data-booking="${second}"] [data-booking-when]`))).toEqual(["Fri, Jun 5, 3:00 PM"]);
    }
  });

  test("the host sees what the guest pays and what they earn, labelled alike, on the dashboard and in the conversation", async () => {
    await afterEveryBooking();
    const id = await request(5);
    const dashboard = await html(host, "/host");
    const amounts = (scope: string) => {
      const labels = text(select(dashboard, `${scope} dt`));
      const values = text(select(dashboard, `${scope} dd`));
      return labels.map((l, i) => [l, values[i]]);
    };
    expect(amounts(`[data-request="${id}"] [data-request-amounts]`)).toEqual([
      ["Guest pays", "$44.00"],
      ["Your earnings", "$32.00"],
    ]);
    // No unlabelled subtotal ($40.00) beside them.
    expect(select(dashboard, `[data-request="${id}"]`)[0]).toBeDefined();
    expect(dashboard.slice(dashboard.indexOf(`data-request="${id}"`)).split("</li>")[0]).not.toContain("$40.00");

    const card = await html(host, `/bookings/${id}`);
    const rows = text(select(card, "[data-booking-card] dl dt")).map((l, i) => [l, text(select(card, "[data-booking-card] dl dd"))[i]]);
    expect(rows).toContainEqual(["Guest pays", "$44.00"]);
    expect(rows).toContainEqual(["Your earnings", "$32.00"]);
    // The guest's own card says the price they pay, and nothing of the host's share.
    const guestCard = await html(guest, `/bookings/${id}`);
    expect(text(select(guestCard, "[data-booking-card] dl dt"))).not.toContain("Your earnings");
    expect(text(select(guestCard, "[data-booking-card] dl dd"))).toContain("$44.00");
  });

  test("the dashboard's Earnings counter shows cents, as the spec shows earnings", async () => {
    const id = await request(6);
    expect((await host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(200);
    clock = (await one(t.db.select().from(bookings).where(eq(bookings.id, id))))!.startsAt + HOUR;
    expect((await host.postJson(`/api/bookings/${id}/complete`, {})).status).toBe(200);
    const counters = text(select(await html(host, "/host"), "ul.grid-cols-2 > li > p"));
    expect(counters).toContain("$32.00");
    expect(counters).toContain("Earnings");
  });
});

describe("the guest's bookings list", () => {
  test("a checkout left unpaid shows while it is open, and leaves no row once it ended; a declined request stays", async () => {
    const later = new Date(clock + 20 * DAY).toISOString().slice(0, 10);
    const res = await guest.postJson("/api/create-payment-intent", { activityId, hours: 1, amount: "44.00", proposedDate: later, proposedTime: "11:00", message: "Hello!" });
    expect(res.status).toBe(200);
    const { bookingId, sessionId } = (await res.json()) as { bookingId: string; sessionId: string };
    const row = async (c: Client) => select(await html(c, "/bookings"), `li[data-booking="${bookingId}"]`).length;
    // Still paying: the row is there with its way to pay.
    expect(select(await html(guest, "/bookings"), `li[data-booking="${bookingId}"] a[href="/checkout/${bookingId}"]`)).toHaveLength(1);
    // The guest leaves the checkout: the booking ends without ever being a request.
    await guest.postForm(`/payments/test/checkout/${sessionId}/cancel`, {});
    expect(["canceled", "expired"]).toContain((await one(t.db.select().from(bookings).where(eq(bookings.id, bookingId))))!.status);
    expect(await row(guest)).toBe(0);
    expect(await row(host)).toBe(0);

    const declined = await request(25);
    expect((await host.postJson(`/api/bookings/${declined}/reject`, {})).status).toBe(200);
    expect(select(await html(guest, "/bookings"), `li[data-booking="${declined}"] [data-status="rejected"]`)).toHaveLength(1);
  });
});

describe("the conversation of a booking that ended", () => {
  test("a declined or expired booking says messages are closed, not that they come after acceptance; a pending one says they do", async () => {
    const expiring = await request(26);
    clock = (await one(t.db.select().from(bookings).where(eq(bookings.id, expiring))))!.respondBy + 1;
    await t.deps.jobs.runDue();
    expect((await one(t.db.select().from(bookings).where(eq(bookings.id, expiring))))!.status).toBe("expired");
    const pending = await request(27);
    const declined = await request(28);
    expect((await host.postJson(`/api/bookings/${declined}/reject`, {})).status).toBe(200);
    const banner = (page: string) => select(page, "[data-chat-disabled]").map((b) => [b.attributes["data-chat-disabled"], b.text]);
    for (const c of [host, guest]) {
      expect(banner(await html(c, `/bookings/${pending}`))).toEqual([["waiting", "Messages are only available after booking is accepted"]]);
      for (const id of [declined, expiring]) {
        const ended = await html(c, `/bookings/${id}`);
        expect(banner(ended)).toEqual([["ended", "This booking has ended: no more messages can be sent."]]);
        // The chat island is told the same text: it follows a status change live.
        const props = JSON.parse(select(ended, '[data-island="Chat"]')[0]!.attributes["data-props"]!) as { texts: Record<string, string> };
        expect(props.texts.closedBanner).toBe("This booking has ended: no more messages can be sent.");
      }
    }
    const french = await (await guest.get(`/bookings/${declined}`, { "accept-language": "fr" })).text();
    expect(french).toContain("Cette réservation est terminée");
  });
});

describe("forms", () => {
  test("/create-activity names in aria-describedby only ids that are on the page, with and without errors", async () => {
    const idsOk = (page: string) => {
      const ids = new Set(select(page, "[id]").map((e) => e.attributes.id));
      const named = select(page, "[aria-describedby]").flatMap((e) => e.attributes["aria-describedby"]!.split(/\s+/));
      expect(named.length).toBeGreaterThan(0);
      return named.filter((id) => !ids.has(id));
    };
    expect(idsOk(await html(host, "/create-activity"))).toEqual([]);
    const refused = await (await host.postForm("/create-activity", { title: "", description: "", category: "", hourlyRate: "", hasMeetingPoint: "false", photos: "[]" })).text();
    expect(select(refused, "[aria-invalid=true]").length).toBeGreaterThan(0);
    expect(idsOk(refused)).toEqual([]);
  });

  test("browse: a picked category closes the grid and is named on its summary; the city form has a submit button outside <noscript>", async () => {
    const page = await html(guest, "/browse?city=New%20York&category=food");
    expect(select(page, "#browse details[open]")).toHaveLength(0);
    expect(text(select(page, "#browse details summary"))).toEqual(["Filters · Food"]);
    expect(select(page, "#categories a").every((a) => !a.attributes.href!.includes("filters="))).toBe(true);
    // Asked for (its summary without script, or a shared link), the grid is open.
    expect(select(await html(guest, "/browse?city=New%20York&filters=1"), "#browse details[open]")).toHaveLength(1);
    const form = page.slice(page.indexOf('<form method="get" action="/browse"'), page.indexOf("</form>", page.indexOf('action="/browse"')));
    expect(form).not.toContain("<noscript>");
    expect(select(form, 'button[type="submit"]').map((b) => b.text)).toEqual(["Show"]);
    expect(select(page, 'form[action="/browse"]')[0]!.attributes["hx-trigger"]).toBe("change, submit");
  });

  test("a refused card's alert is marked to take the focus when the page loads, on the payment screen and the hosted checkout", async () => {
    const date = dateOf(40);
    expect((await guest.postForm(`/booking/${activityId}/date-time`, { date, time: "10:00", duration: "1" })).status).toBe(303);
    const refused = await guest.postForm(`/booking/${activityId}/payment`, { cardNumber: "4000 0000 0000 0002", expiry: "12/34", cvc: "123", amount: "44.00" });
    expect(refused.status).toBe(402);
    const alert = select(await refused.text(), "[data-focus-alert]");
    expect(alert).toHaveLength(1);
    expect(alert[0]!.attributes).toMatchObject({ role: "alert", tabindex: "-1", autofocus: "" });
    expect(alert[0]!.text).toContain("Your card was declined.");

    const res = await guest.postJson("/api/create-payment-intent", { activityId, hours: 1, amount: "44.00", proposedDate: dateOf(41), proposedTime: "11:00", message: "Hi" });
    const { sessionId } = (await res.json()) as { sessionId: string };
    const checkout = await guest.postForm(`/payments/test/checkout/${sessionId}`, { cardNumber: "4000 0000 0000 0002", expiry: "12/34", cvc: "123" });
    expect(checkout.status).toBe(402);
    expect(select(await checkout.text(), "[data-focus-alert][autofocus]")).toHaveLength(1);
    // Leaves the checkout: an open one would stop the guest holding another slot in the tests that follow.
    await guest.postForm(`/payments/test/checkout/${sessionId}/cancel`, {});
  });
});

describe("onboarding's age rule", () => {
  /** A person at step 3 of onboarding (name and username given), signed in; `locale` their language. */
  async function atBirthday(locale: Locale = "en") {
    const person = await insert(t.db).user(userRow({ firstName: "Tia", lastName: "Young", username: `tia${Date.now()}`, locale }, { complete: false }));
    const c = t.client();
    await c.signInAs(person.id);
    return c;
  }
  const described = (page: string) => {
    const input = select(page, "#field-dateOfBirth")[0]!;
    return { invalid: input.attributes["aria-invalid"], ids: input.attributes["aria-describedby"]!.split(" ") };
  };

  test("the birthday field is described by the age message's place, empty until a date makes the person under 18", async () => {
    const c = await atBirthday();
    const page = await html(c, "/onboarding?step=3");
    expect(described(page).ids).toContain("field-dateOfBirth-age");
    expect(select(page, "#field-dateOfBirth-age")).toHaveLength(1);
    // In place for the page script, hidden: nothing is read out yet.
    expect(select(page, "#field-dateOfBirth-age p[data-age-message][hidden]")).toHaveLength(1);
    expect(select(page, "#field-dateOfBirth")[0]!.attributes["data-after-max"]).toBe("field-dateOfBirth-age");
  });

  test("without script, the server's answer to an under-18 date says the rule under the field, tied to it, in the person's language", async () => {
    for (const [locale, body] of [["en", "You must be at least 18 years old to use this platform"], ["fr", "Vous devez avoir au moins 18 ans pour utiliser cette plateforme"]] as const) {
      const c = await atBirthday(locale);
      const res = await c.postForm("/onboarding", { step: "3", dateOfBirth: "2010-01-01" });
      expect(res.status).toBe(400);
      const page = await res.text();
      expect(described(page)).toMatchObject({ invalid: "true" });
      expect(described(page).ids).toContain("field-dateOfBirth-age");
      const message = select(page, "#field-dateOfBirth-age p[data-age-message]");
      expect(message).toHaveLength(1);
      expect(message[0]!.attributes.hidden).toBeUndefined();
      expect(message[0]!.text.replace(/\s+/g, " ")).toContain(body);
      expect(message[0]!.text).toContain(translator(locale)("profile.ageRequirementTitle"));
      // Said once: not again in an alert above the form.
      expect(page.split(body).length - 1).toBe(1);
    }
  });
});

describe("settings: the date of birth, the username check and the location form", () => {
  test("the date of birth reads as people write it, in the person's language, on /settings and /settings/account", async () => {
    const person = await insert(t.db).user(userRow({ dateOfBirth: "2008-11-23" }));
    const c = t.client();
    await c.signInAs(person.id);
    const row = (page: string) => text(select(page, 'a[href="/settings/birthday"] span.text-right'));
    expect(row(await html(c, "/settings"))).toEqual(["November 23, 2008"]);
    const account = await html(c, "/settings/account");
    expect(account).not.toContain("2008-11-23");
    expect(account).toContain("November 23, 2008");
    await c.postJson("/api/locale", { locale: "fr" });
    expect(row(await html(c, "/settings"))).toEqual(["23 novembre 2008"]);
    expect(await html(c, "/settings/account")).toContain("23 novembre 2008");
  });

  test("the username screen says a taken name as the spec does, 'This username is already taken', in its check and its Save; onboarding keeps its own words", async () => {
    const person = await insert(t.db).user(userRow({ username: "first.owner" }));
    const other = await insert(t.db).user(userRow());
    const c = t.client();
    await c.signInAs(other.id);
    const screen = await html(c, "/settings/username");
    const input = select(screen, "#field-username")[0]!;
    expect(input.attributes["hx-get"]).toBe("/fragments/username-status?screen=settings");
    const check = await html(c, `/fragments/username-status?screen=settings&username=${person.username}`);
    expect(text(select(check, "#username-status"))).toEqual(["✗ This username is already taken"]);
    const saved = await c.postForm("/settings/username", { username: person.username! });
    expect(saved.status).toBe(409);
    expect(text(select(await saved.text(), "#username-error"))).toEqual(["This username is already taken"]);
    const api = await c.putJson("/api/user/username", { username: person.username });
    expect(((await api.json()) as { message: string }).message).toBe("This username is already taken");
    // Onboarding's step 2 (spec §5): 'Username not available' / 'Please choose a different username'.
    const onboarding = await html(c, `/fragments/username-status?screen=onboarding&username=${person.username}`);
    expect(text(select(onboarding, "#username-status"))).toEqual(["✗ Username not available: Please choose a different username"]);
    const french = await (await c.get(`/fragments/username-status?screen=settings&username=${person.username}`, { "accept-language": "fr" })).text();
    expect(text(select(french, "#username-status"))).toEqual(["✗ Ce nom d'utilisateur est déjà pris"]);
  });

  test("the location form has a visible submit button, outside <noscript>, that saves through htmx with script and by a plain post without", async () => {
    const person = await insert(t.db).user(userRow({ country: "United States", city: "New York" }));
    const c = t.client();
    await c.signInAs(person.id);
    const page = await html(c, "/settings");
    const start = page.indexOf('<form method="post" action="/settings/location"');
    const form = page.slice(start, page.indexOf("</form>", start));
    expect(form).not.toContain("<noscript>");
    expect(text(select(form, 'button[type="submit"]'))).toEqual(["Save"]);
    expect(select(page, 'form[action="/settings/location"]')[0]!.attributes).toMatchObject({ "hx-post": "/settings/location", "hx-target": "#location-fields" });
    const plain = await c.postForm("/settings/location", { country: "France", city: "Lyon" });
    expect(plain.status).toBe(303);
    expect(await one(t.db.select().from(users).where(eq(users.id, person.id)))).toMatchObject({ country: "France", city: "Lyon" });
  });
});

describe("the demo's money", () => {
  test("each completed demo booking was paid with the test provider; once the demo host sets up payouts, the due jobs send the pending payouts", async () => {
    const d = await makeTestApp({ demo: true });
    try {
      const host = (await one(d.db.select().from(users).where(eq(users.email, DEMO_HOST_EMAIL))))!;
      const completed = await d.db.select().from(bookings).where(and(eq(bookings.hostId, host.id), eq(bookings.status, "completed")));
      expect(completed.length).toBeGreaterThan(0);
      // A real payment behind each: captured at the test provider, the ledger as a real completion writes it.
      for (const b of completed) {
        expect(b.paymentIntentId).toBeTruthy();
        expect(await one(d.db.select().from(testPaymentIntents).where(eq(testPaymentIntents.id, b.paymentIntentId!)))).toMatchObject({ status: "succeeded", amountCents: b.totalCents });
      }
      expect(await moneyViolations(d.deps)).toEqual([]);

      const c = d.client();
      await c.signInAs(host.id);
      const before = (await (await c.get("/api/host/earnings")).json()) as { totalEarnings: string; pendingPayouts: string };
      expect(before.pendingPayouts).toBe(before.totalEarnings);
      expect(Number(before.pendingPayouts)).toBeGreaterThan(0);

      // Payout setup with the test provider: the screen's button, then its onboarding page.
      const setup = await c.postForm("/stripe-connect-setup", {});
      expect(setup.status).toBe(303);
      const onboarding = new URL(setup.headers.get("location")!, ORIGIN);
      expect(onboarding.pathname).toStartWith("/payments/test/onboarding/");
      expect((await c.postForm(onboarding.pathname, { return: "/host" })).status).toBe(303);
      await d.deps.jobs.runDue();

      for (const b of completed) {
        const transfer = await d.db.select().from(ledgerEntries).where(and(eq(ledgerEntries.bookingId, b.id), eq(ledgerEntries.kind, "transfer")));
        expect(transfer.map((r) => r.amountCents)).toEqual([b.hostEarningsCents]);
      }
      const after = (await (await c.get("/api/host/earnings")).json()) as { totalEarnings: string; pendingPayouts: string };
      expect(after).toMatchObject({ totalEarnings: before.totalEarnings, pendingPayouts: "0.00" });
      const dashboard = await html(c, "/host");
      const rows = text(select(dashboard, "dl.card dt")).map((l, i) => [l, text(select(dashboard, "dl.card dd"))[i]]);
      expect(rows).toContainEqual(["Pending payouts", "$0.00"]);
      expect(await moneyViolations(d.deps)).toEqual([]);
    } finally {
      d.cleanup();
    }
  }, 60_000);

  test("with Stripe, the seed makes up no payment: the demo shares are already paid out, nothing is owed", async () => {
    const d = await makeTestApp({ demo: true, env: { STRIPE_SECRET_KEY: "sk_test_demo", STRIPE_PUBLISHABLE_KEY: "pk_test_demo" } });
    try {
      expect(d.deps.payments.name).toBe("stripe");
      const all = await d.db.select().from(bookings);
      expect(all.length).toBeGreaterThan(0);
      expect(all.every((b) => b.paymentIntentId === null)).toBe(true);
      expect(await d.db.select().from(testPaymentIntents)).toEqual([]);
      for (const b of all) {
        const kinds = (await d.db.select().from(ledgerEntries).where(eq(ledgerEntries.bookingId, b.id))).map((r) => r.kind);
        expect(kinds).toContain("payout_pending");
        expect(kinds).toContain("transfer");
      }
      const host = (await one(d.db.select().from(users).where(eq(users.email, DEMO_HOST_EMAIL))))!;
      const c = d.client();
      await c.signInAs(host.id);
      const earnings = (await (await c.get("/api/host/earnings")).json()) as { totalEarnings: string; pendingPayouts: string };
      expect(Number(earnings.totalEarnings)).toBeGreaterThan(0);
      expect(earnings.pendingPayouts).toBe("0.00");
    } finally {
      d.cleanup();
    }
  }, 60_000);
});

describe("answers in the language a signed-in person chose, whatever their browser says", () => {
  let lt: Awaited<ReturnType<typeof makeTestApp>>;
  beforeAll(async () => {
    lt = await makeTestApp({ limits: { uploadsByUser: new RateLimiter(1, 60 * 60 * 1000) } });
  });
  afterAll(() => lt.cleanup());

  /** A person who chose `locale` (on another device: this browser has no `lang` cookie), signed in. */
  async function chooser(locale: Locale) {
    const person = await insert(lt.db).user(userRow({ locale }));
    const c = lt.client();
    await c.signInAs(person.id);
    return c;
  }

  const message = async (res: Response) => ((await res.json()) as { message: string }).message;

  for (const [chosen, browser] of [["en", "fr"], ["fr", "en"]] as const) {
    test(`chose ${chosen}, browser says ${browser}: API errors (400, 404, 413, 429, 403) in ${chosen}`, async () => {
      const c = await chooser(chosen);
      const t = translator(chosen);
      const headers = { "accept-language": browser };
      const json = { ...headers, "content-type": "application/json" };
      const said = async (res: Response, status: number, key: MessageKey, params?: Record<string, string | number>) => {
        expect(res.status).toBe(status);
        expect(await message(res)).toBe(t(key, params));
      };
      await said(await c.request("/api/activities", { method: "POST", body: "{not json", headers: json }), 400, "error.badRequest");
      const invalid = await c.request("/api/activities", { method: "POST", json: { title: "" }, headers });
      expect(invalid.status).toBe(400);
      expect(await message(invalid)).toBe(t("activity.titleRequired"));
      await said(await c.request(`/api/activities/${crypto.randomUUID()}`, { headers }), 404, "activity.notFound");
      await said(await c.request("/api/no-such-call", { headers }), 404, "error.notFound");
      await said(await c.request("/api/activities", { method: "POST", body: JSON.stringify({ title: "x".repeat(70_000) }), headers: json }), 413, "error.bodyTooLarge");
      expect((await c.request("/api/objects/upload", { method: "POST", json: {}, headers })).status).toBe(200);
      const limited = await c.request("/api/objects/upload", { method: "POST", json: {}, headers });
      expect(limited.status).toBe(429);
      expect(await message(limited)).toBe(t("upload.tooMany", { minutes: 60 }));
      await said(await c.request("/api/activities", { method: "POST", json: {}, headers: { ...headers, "x-csrf-token": "not-the-token" } }), 403, "error.csrf");
    });

    test(`chose ${chosen}, browser says ${browser}: answers made without the session (a missing file, the last-resort error) in ${chosen} too`, async () => {
      const c = await chooser(chosen);
      const t = translator(chosen);
      const headers = { "accept-language": browser };
      // Any answer puts the chosen language in this browser's cookie...
      expect((await c.get("/api/user", headers)).status).toBe(200);
      expect(c.cookies.get(lt.deps.cookies.lang)).toBe(chosen);
      // ...which files and probes read, as they are answered without the session.
      const missing = await c.get("/static/no-such-file.png", headers);
      expect(missing.status).toBe(404);
      expect(await message(missing)).toBe(t("error.notFound"));
      // The error answer when the session cannot be read at all (the database is down).
      const down = { ...lt.deps, db: new Proxy({}, { get: () => { throw new Error("database is down"); } }) } as unknown as Deps;
      const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
      const quiet = spyOn(console, "error").mockImplementation(() => {});
      const failed = await lastResortAnswer(down, new Request(`${ORIGIN}/api/user`, { headers: { ...headers, cookie } }), new Error("boom"), {}).finally(() => quiet.mockRestore());
      expect(failed.status).toBe(500);
      expect(await message(failed)).toBe(t("error.title"));
      // Choosing again here wins over the old choice, in the cookie as in the account.
      const other = chosen === "en" ? "fr" : "en";
      await c.postJson("/api/locale", { locale: other });
      expect(c.cookies.get(lt.deps.cookies.lang)).toBe(other);
      expect(await message(await c.get("/static/no-such-file.png", headers))).toBe(translator(other)("error.notFound"));
    });
  }
});
