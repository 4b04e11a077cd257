import { one } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { bookings, testPaymentIntents } from "../db/schema";
import { CARDS, FAKE_PUBLISHABLE_KEY, startFakeStripe, type FakeStripe } from "./fakes/stripe";
import { Client, ledgerLines, makeTestApp, ORIGIN, systemMessageTypes, TENNIS } from "./helpers";
import { islandProps } from "./html";

/**
 * Booking and paying with Stripe (docs/decisions/0016, 0017): the Payment Element's island on the
 * payment and checkout screens, the server finishing only from Stripe's own copy of the intent,
 * the return address after authentication, hosted Checkout through the webhook, and the test
 * provider's screens untouched by any of it. The real SDK talks to tests/fakes/stripe.ts; the
 * browser's part (Stripe.js confirming the card) is played by the fake's `confirm`.
 */
const HOUR = 60 * 60 * 1000;
// 2026-06-01 12:00 in New York.
const START = Date.UTC(2026, 5, 1, 16, 0);
const now = () => START;
const body = async (res: Response) => (await res.json()) as Record<string, any>;

let day = 2;
const nextDate = () => new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);

async function setUp(env: Record<string, string> = {}) {
  const t = await makeTestApp({ env, now });
  const host = t.client();
  const guest = t.client();
  const other = t.client();
  await host.signUpComplete();
  const guestId = (await guest.signUpComplete()).user.id;
  await other.signUpComplete();
  // $40 an hour, 1 to 4 hours, in New York: 2 hours cost $88.00.
  const res = await host.postJson("/api/activities", TENNIS);
  expect(res.status).toBe(201);
  const activityId = (await body(res)).id as string;
  const bookingsOf = async () => await t.db.select().from(bookings).where(eq(bookings.guestId, guestId));
  const ledgerOf = (id: string) => ledgerLines(t.db, id);
  const systemOf = (id: string) => systemMessageTypes(t.db, id);
  /** The date-time screen's choice, saved on the server; the payment screen reads it. */
  async function choose(c: Client = guest, date = nextDate()) {
    const res = await c.postForm(`/booking/${activityId}/date-time`, { date, time: "10:00", duration: "2" });
    expect(res.status).toBe(303);
    return date;
  }
  /** The dialog's first step: an awaiting-payment booking and its hosted checkout session. */
  async function dialog(c: Client = guest, date = nextDate()) {
    const res = await c.postJson("/api/create-payment-intent", { activityId, hours: 2, amount: "88.00", proposedDate: date, proposedTime: "10:00", message: "Hello!" });
    expect(res.status).toBe(200);
    return (await body(res)) as { sessionId: string; url: string; bookingId: string };
  }
  const statusOf = async (id: string) => (await one(t.db.select().from(bookings).where(eq(bookings.id, id))))!.status;
  return { t, host, guest, other, guestId, activityId, bookingsOf, ledgerOf, systemOf, choose, dialog, statusOf };
}

type Setup = Awaited<ReturnType<typeof setUp>>;

describe("the card form with Stripe", () => {
  let fake: FakeStripe;
  let s: Setup;
  beforeAll(async () => {
    fake = startFakeStripe();
    s = await setUp(fake.env);
  });
  afterAll(() => {
    fake.stop();
    s.t.cleanup();
  });

  const paymentPage = async () => {
    const res = await s.guest.get(`/booking/${s.activityId}/payment`);
    expect(res.status).toBe(200);
    return { res, html: await res.text() };
  };
  const intentOfPage = (html: string) => {
    const props = islandProps(html, "StripePayment") as { clientSecret: string };
    return [...fake.intents.values()].find((pi) => pi.client_secret === props.clientSecret)!;
  };

  test("the payment screen mounts Stripe's Payment Element for this choice's intent, under a policy that lets Stripe.js in", async () => {
    await s.choose();
    const { res, html } = await paymentPage();
    const intentsMade = fake.intents.size;
    const props = islandProps(html, "StripePayment");
    const intent = intentOfPage(html);
    expect(intent).toMatchObject({ amount: 8800, capture_method: "manual", metadata: { activityId: s.activityId, guestId: s.guestId, time: "10:00", duration: "2" } });
    expect(props).toEqual({
      publishableKey: FAKE_PUBLISHABLE_KEY,
      clientSecret: intent.client_secret,
      returnUrl: `${ORIGIN}/booking/${s.activityId}/payment/return`,
      amountLabel: "$88.00",
      locale: "en",
      finish: { action: `/booking/${s.activityId}/payment`, csrf: s.guest.csrf, amount: "88.00" },
      texts: { pay: "Confirm & Pay {amount}", processing: "Processing...", failed: "Payment Failed", loading: "Loading the secure card form…", loadFailed: expect.any(String) },
    });
    // sk_test_ keys: the screen says it is test mode; no card number ever reaches our server.
    expect(html).toContain("Test mode.");
    expect(html).not.toContain('name="cardNumber"');
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self' 'sha256-");
    expect(csp).toMatch(/script-src [^;]*https:\/\/js\.stripe\.com/);
    expect(csp).toMatch(/frame-src 'self' https:\/\/js\.stripe\.com https:\/\/hooks\.stripe\.com(;|$)/);
    expect(csp).toMatch(/connect-src [^;]*https:\/\/api\.stripe\.com/);
    // A reload shows the same intent: one per choice.
    expect(islandProps((await paymentPage()).html, "StripePayment").clientSecret).toBe(intent.client_secret);
    expect(fake.intents.size).toBe(intentsMade);
    // In French too.
    const fr = await (await s.guest.get(`/booking/${s.activityId}/payment`, { "accept-language": "fr" })).text();
    expect(islandProps(fr, "StripePayment")).toMatchObject({ locale: "fr", texts: { processing: "Traitement..." } });
  });

  test("the finishing post makes the booking only once Stripe says the card is held; a declined or unconfirmed intent writes nothing", async () => {
    await s.choose();
    const { html } = await paymentPage();
    const intent = intentOfPage(html);
    const finish = (fields: Record<string, string>) => s.guest.postForm(`/booking/${s.activityId}/payment`, { amount: "88.00", ...fields });
    const before = (await s.bookingsOf()).length;

    // The browser claims success before anything was confirmed: Stripe's copy says otherwise.
    const early = await finish({ paymentIntentId: intent.id });
    expect(early.status).toBe(402);
    expect((await s.bookingsOf()).length).toBe(before);

    expect(() => fake.confirm(intent.id, CARDS.declined)).toThrow("Your card was declined.");
    const declined = await finish({ paymentIntentId: intent.id });
    expect(declined.status).toBe(402);
    const page = await declined.text();
    expect(page).toContain("Payment Failed");
    expect(page).toContain("Your card was declined.");
    // The form is shown again for the same intent, to try another card.
    expect(islandProps(page, "StripePayment").clientSecret).toBe(intent.client_secret);
    expect((await s.bookingsOf()).length).toBe(before);

    // Nothing named, or something that is not an intent of this guest: refused, nothing written.
    expect((await finish({})).status).toBe(400);
    expect((await finish({ paymentIntentId: "pi_doesnotexist0000" })).status).toBe(404);
    expect((await s.bookingsOf()).length).toBe(before);

    fake.confirm(intent.id, CARDS.ok);
    const ok = await finish({ paymentIntentId: intent.id });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toMatch(/^\/booking-success\?booking=[0-9a-f-]{36}$/);
    const made = (await s.bookingsOf()).filter((b) => b.paymentIntentId === intent.id);
    expect(made.map((b) => b.status)).toEqual(["pending"]);
    expect(await s.ledgerOf(made[0]!.id)).toEqual(["authorize:8800"]);
    expect(await s.systemOf(made[0]!.id)).toEqual(["booking_request"]);
    // Stripe was asked, not the browser.
    expect(fake.requestsTo("GET", "/v1/payment_intents/:id").some((r) => r.path.endsWith(intent.id))).toBe(true);
  });

  test("someone else's held intent finishes nothing here", async () => {
    const date = await s.choose(s.other);
    const theirs = intentOfPage(await (await s.other.get(`/booking/${s.activityId}/payment`)).text());
    fake.confirm(theirs.id, CARDS.ok);
    await s.choose(s.guest, date);
    const before = (await s.t.db.select().from(bookings)).length;
    const res = await s.guest.postForm(`/booking/${s.activityId}/payment`, { amount: "88.00", paymentIntentId: theirs.id });
    expect(res.status).toBe(404);
    expect((await s.t.db.select().from(bookings)).length).toBe(before);
  });

  test("back from authentication (the return address), the booking is finished from Stripe's copy of the intent", async () => {
    await s.choose();
    const intent = intentOfPage((await paymentPage()).html);
    const back = (id: string) => s.guest.get(`/booking/${s.activityId}/payment/return?payment_intent=${id}&payment_intent_client_secret=${intent.client_secret}&redirect_status=succeeded`);
    fake.confirm(intent.id, CARDS.authenticate);
    // Authentication not done: redirect_status in the address proves nothing.
    const pending = await back(intent.id);
    expect(pending.status).toBe(402);
    expect((await s.bookingsOf()).some((b) => b.paymentIntentId === intent.id)).toBe(false);
    // An unknown or foreign intent goes back to the screen.
    expect((await back("pi_doesnotexist0000")).headers.get("location")).toBe(`/booking/${s.activityId}/payment`);

    fake.confirm(intent.id, CARDS.ok);
    const done = await back(intent.id);
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toMatch(/^\/booking-success\?booking=[0-9a-f-]{36}$/);
    // Coming back twice (a reload) finds the same booking.
    expect((await back(intent.id)).status).toBe(303);
    expect((await s.bookingsOf()).filter((b) => b.paymentIntentId === intent.id).map((b) => b.status)).toEqual(["pending"]);
  });

  test("/checkout/{bookingId}: the Payment Element for the held booking; only an authorised intent of this booking sends the request", async () => {
    const { bookingId } = await s.dialog();
    const res = await s.guest.get(`/checkout/${bookingId}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const props = islandProps(html, "StripePayment") as Record<string, any>;
    expect(props).toMatchObject({ returnUrl: `${ORIGIN}/checkout/${bookingId}/return`, amountLabel: "$88.00", finish: { action: `/checkout/${bookingId}`, amount: "88.00" } });
    const intent = [...fake.intents.values()].find((pi) => pi.client_secret === props.clientSecret)!;
    expect(intent.metadata).toMatchObject({ bookingId });
    const pay = (id: string) => s.guest.postForm(`/checkout/${bookingId}`, { amount: "88.00", paymentIntentId: id });

    expect((await pay(intent.id)).status).toBe(402);
    expect(await s.statusOf(bookingId)).toBe("awaiting_payment");
    // An authorised intent made for something else does not pay for this booking.
    await s.choose();
    const stray = intentOfPage((await paymentPage()).html);
    fake.confirm(stray.id, CARDS.ok);
    expect((await pay(stray.id)).status).toBe(402);
    expect(await s.statusOf(bookingId)).toBe("awaiting_payment");
    expect(await s.ledgerOf(bookingId)).toEqual([]);

    fake.confirm(intent.id, CARDS.ok);
    const ok = await pay(intent.id);
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe("/");
    expect(await s.statusOf(bookingId)).toBe("pending");
    expect(await s.ledgerOf(bookingId)).toEqual(["authorize:8800"]);
    // Back through the return address afterwards: still one request, and a success.
    const back = await s.guest.get(`/checkout/${bookingId}/return?payment_intent=${intent.id}`);
    expect(back.headers.get("location")).toBe("/");
    expect(await s.systemOf(bookingId)).toEqual(["booking_request"]);
  });
});

describe("Stripe's hosted Checkout, through the webhook", () => {
  let fake: FakeStripe;
  let s: Setup;
  const deliver = (evt: Record<string, unknown> & { id: string }) => fake.sendWebhook(`${ORIGIN}/api/webhooks/stripe`, evt, { handle: (req) => s.t.app.handle(req) });
  beforeAll(async () => {
    fake = startFakeStripe();
    s = await setUp(fake.env);
  });
  afterAll(() => {
    fake.stop();
    s.t.cleanup();
  });

  test("checkout.session.completed makes the held booking a request once, whatever the order and however often it arrives", async () => {
    const { sessionId, url, bookingId } = await s.dialog();
    expect(url).toStartWith(`${fake.apiBase}/c/pay/`);
    const sent = fake.requestsTo("POST", "/v1/checkout/sessions").at(-1)!;
    // Stripe needs absolute addresses: the request's own origin.
    expect(sent.params).toMatchObject({ success_url: `${ORIGIN}/bookings?success=true&booking=${bookingId}`, cancel_url: `${ORIGIN}/bookings?canceled=true`, metadata: { bookingId } });
    expect(await s.statusOf(bookingId)).toBe("awaiting_payment");

    const first = fake.events.length;
    fake.completeCheckout(sessionId);
    const events = fake.events.slice(first);
    expect(events.map((e) => e.type)).toEqual(["payment_intent.amount_capturable_updated", "checkout.session.completed"]);
    // Three deliveries of each, the completion first.
    for (const evt of [...events, ...events, ...events].reverse()) expect((await deliver(evt)).status).toBe(200);
    expect(await s.statusOf(bookingId)).toBe("pending");
    expect(await s.ledgerOf(bookingId)).toEqual(["authorize:8800"]);
    expect(await s.systemOf(bookingId)).toEqual(["booking_request"]);
    const row = (await one(s.t.db.select().from(bookings).where(eq(bookings.id, bookingId))))!;
    expect(row.paymentIntentId).toBe(String(fake.sessions.get(sessionId)!.payment_intent));
    // The guest lands on the list with the toast, once.
    const back = await s.guest.get("/bookings?success=true");
    expect(back.status).toBe(303);
    expect(back.headers.get("location")).toBe("/bookings");
  });

  test("the completion alone (its intent's event lost) is enough", async () => {
    const { sessionId, bookingId } = await s.dialog();
    const first = fake.events.length;
    fake.completeCheckout(sessionId);
    const completed = fake.events.slice(first).find((e) => e.type === "checkout.session.completed")!;
    for (let i = 0; i < 3; i++) expect((await deliver(completed)).status).toBe(200);
    expect(await s.statusOf(bookingId)).toBe("pending");
    expect(await s.ledgerOf(bookingId)).toEqual(["authorize:8800"]);
  });

  test("with an https PUBLIC_URL, Checkout sends the guest back there", async () => {
    const live = await setUp({ ...fake.env, PUBLIC_URL: "https://offline.example" });
    try {
      await live.dialog();
      const sent = fake.requestsTo("POST", "/v1/checkout/sessions").at(-1)!;
      expect(sent.params).toMatchObject({ success_url: expect.stringMatching(/^https:\/\/offline\.example\/bookings\?success=true&booking=[0-9a-f-]{36}$/), cancel_url: "https://offline.example/bookings?canceled=true" });
    } finally {
      live.t.cleanup();
    }
  });
});

describe("with the built-in test provider", () => {
  let s: Setup;
  beforeAll(async () => {
    s = await setUp();
  });
  afterAll(() => s.t.cleanup());

  test("the payment and checkout screens keep their own card form, and nothing of Stripe in their policy or HTML", async () => {
    await s.choose();
    const held = (await s.dialog()).bookingId;
    const pages = [await s.guest.get(`/booking/${s.activityId}/payment`), await s.guest.get(`/checkout/${held}`)];
    for (const res of pages) {
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain('name="cardNumber"');
      expect(html).toContain("Test mode.");
      expect(html.toLowerCase()).not.toContain("js.stripe.com");
      expect(html).not.toContain("StripePayment");
      const csp = res.headers.get("content-security-policy")!;
      expect(csp.toLowerCase()).not.toContain("stripe");
      expect(csp).not.toContain("frame-src");
    }
    // One unpaid hold at a time: this one is let go before the next test holds another.
    expect((await s.guest.postJson(`/api/bookings/${held}/cancel`, {})).status).toBe(200);
  });

  test("the dialog's checkout returns to the request's origin; /bookings?success=true shows its toast once, then the address is /bookings", async () => {
    const { url, bookingId } = await s.dialog();
    const paid = await s.guest.postForm(url, { cardNumber: "4242 4242 4242 4242", expiry: "12/30", cvc: "123" });
    // The booking is named, so the landing can tell a booking accepted at once (instant booking) from a request.
    expect(paid.headers.get("location")).toBe(`${ORIGIN}/bookings?success=true&booking=${bookingId}`);
    const landing = await s.guest.get(`/bookings?success=true&booking=${bookingId}`);
    expect(landing.status).toBe(303);
    expect(landing.headers.get("location")).toBe("/bookings");
    expect(await (await s.guest.get("/bookings")).text()).toContain("Payment Successful!");
    expect(await (await s.guest.get("/bookings")).text()).not.toContain("Payment Successful!");
    const canceled = await s.guest.get("/bookings?canceled=true");
    expect(canceled.headers.get("location")).toBe("/bookings");
    expect(await (await s.guest.get("/bookings")).text()).toContain("Payment Canceled");
  });

  test("cancelling on the hosted checkout page frees the slot and releases the payment at once", async () => {
    const date = nextDate();
    const { url, bookingId, sessionId } = await s.dialog(s.guest, date);
    const intentId = (await one(s.t.db.select().from(bookings).where(eq(bookings.id, bookingId))))!.paymentIntentId!;
    expect((await s.other.postForm(`${url}/cancel`, {})).status).toBe(404);
    expect(await s.statusOf(bookingId)).toBe("awaiting_payment");
    const res = await s.guest.postForm(`${url}/cancel`, {});
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`${ORIGIN}/bookings?canceled=true`);
    expect(await s.statusOf(bookingId)).toBe("expired");
    expect((await one(s.t.db.select().from(testPaymentIntents).where(eq(testPaymentIntents.id, intentId))))!.status).toBe("canceled");
    // No hold job left behind, and another guest can take the time straight away.
    expect((await s.other.postJson("/api/create-payment-intent", { activityId: s.activityId, hours: 2, amount: "88.00", proposedDate: date, proposedTime: "10:00", message: "Hi" })).status).toBe(200);
    // Cancelling again, or paying the dead session, changes nothing.
    expect((await s.guest.postForm(`${url}/cancel`, {})).status).toBe(303);
    const late = await s.guest.postForm(url, { cardNumber: "4242 4242 4242 4242", expiry: "12/30", cvc: "123" });
    expect(late.status).toBe(402);
    expect(await s.statusOf(bookingId)).toBe("expired");
    expect(sessionId).toStartWith("tcs_");
  });
});

test("Stripe.js is not in the page script: only the StripePayment island's own chunk loads it", () => {
  const root = join(import.meta.dir, "..");
  const manifest = JSON.parse(readFileSync(join(root, "build/manifest.json"), "utf8")) as { loader: string; files: Record<string, string> };
  const read = (asset: string) => readFileSync(join(root, manifest.files[asset]!), "utf8");
  const loader = read(manifest.loader);
  // What the page script pulls in statically (its `import … from`), as opposed to `import()` on demand.
  const statics = [...loader.matchAll(/from\s*"(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  for (const code of [loader, ...statics.map(read)]) expect(code).not.toContain("js.stripe.com");
  const withStripe = Object.keys(manifest.files).filter((a) => a.endsWith(".js") && read(a).includes("js.stripe.com"));
  expect(withStripe.length).toBe(1);
  expect(loader).toContain(`import("${withStripe[0]}")`);
});
