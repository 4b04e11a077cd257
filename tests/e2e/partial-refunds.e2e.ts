import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, BrowserContext } from "playwright-core";
import { DEMO_GUEST_EMAIL, DEMO_HOST_EMAIL } from "../../src/demo/demo-data";
import { makeTestApp } from "../helpers";
import { signInContext } from "./flows";
import { closeContexts, expectAccessible, sharedBrowser } from "./harness";

/**
 * A host's partial refund in Chromium at 360 px (docs/decisions/0051): the form on the
 * conversation works without JavaScript (a refused amount is shown beside its field, what was
 * typed kept), the refund is made, and the guest's open conversation shows it live with the
 * reason.
 */
const clock = Date.now();
let t: Awaited<ReturnType<typeof makeTestApp>>;
let url: string;
let browser: Browser;

beforeAll(async () => {
  t = await makeTestApp({ demo: true, now: () => clock });
  t.app.listen({ port: 0, hostname: "127.0.0.1" });
  url = `http://127.0.0.1:${t.app.server!.port}`;
  browser = await sharedBrowser();
});
afterAll(async () => {
  await closeContexts(browser);
  await t?.app.stop(true);
  t?.cleanup();
});

async function person(email: string, opts: { javaScriptEnabled?: boolean } = {}): Promise<{ context: BrowserContext; csrf: string }> {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, ...opts });
  const csrf = await signInContext(context, url, email);
  return { context, csrf };
}

const dayAhead = (days: number) => new Intl.DateTimeFormat("sv-SE", { timeZone: "America/New_York" }).format(clock + days * 86_400_000);

test("the host refunds part of an accepted booking from a phone, without JavaScript; the guest reads it live", async () => {
  const host = await person(DEMO_HOST_EMAIL, { javaScriptEnabled: false });
  const guest = await person(DEMO_GUEST_EMAIL);

  // An accepted booking of one of the host's New York activities.
  const activities = (await (await host.context.request.get(`${url}/api/user/activities`)).json()) as { id: string; duration: string; city: string; hourlyRate: string; format: string }[];
  const activity = activities.find((a) => Number(a.duration) <= 1 && a.city === "New York" && a.format === "private")!;
  const amount = (Math.round(Math.round(Number(activity.hourlyRate) * 100) * 1.1) / 100).toFixed(2);
  const headers = { "x-csrf-token": guest.csrf, origin: url };
  const intent = (await (await guest.context.request.post(`${url}/api/create-payment-intent`, { data: { amount, metadata: { activityId: activity.id, date: dayAhead(4), time: "10:00", duration: "1" } }, headers })).json()) as Record<string, string>;
  await guest.context.request.post(`${url}/api/payments/test/confirm`, { data: { clientSecret: intent.clientSecret, cardNumber: "4242424242424242", expiry: "12/34", cvc: "123" }, headers });
  const made = await guest.context.request.post(`${url}/api/bookings`, { data: { activityId: activity.id, proposedDatetime: `${dayAhead(4)}T10:00:00`, durationHours: 1, priceTotal: amount, paymentIntentId: intent.paymentIntentId }, headers });
  expect(made.status()).toBe(201);
  const bookingId = ((await made.json()) as { id: string }).id;
  expect((await host.context.request.post(`${url}/api/bookings/${bookingId}/accept`, { data: {}, headers: { "x-csrf-token": host.csrf, origin: url } })).status()).toBe(200);

  const g = await guest.context.newPage();
  await g.goto(`${url}/bookings/${bookingId}`);
  await g.locator('[data-island="Chat"] [data-link="open"]').waitFor({ state: "attached" });

  const h = await host.context.newPage();
  await h.goto(`${url}/bookings/${bookingId}`);
  const form = h.locator("[data-refund-form]");
  await form.waitFor();
  // Nothing wider than the phone.
  expect(await h.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  // The same page with scripts, for the accessibility check (it runs as a script in the page).
  const withScripts = await person(DEMO_HOST_EMAIL);
  const hs = await withScripts.context.newPage();
  await hs.goto(`${url}/bookings/${bookingId}`);
  await hs.locator("[data-refund-form]").waitFor();
  await expectAccessible(hs, "the host's refund form");

  // More than was paid: refused beside the field, what was typed kept, nothing refunded.
  await h.getByLabel("Amount (USD)").fill("9999");
  await h.getByLabel("Reason (the guest reads it)").fill("The court was closed for half an hour.");
  await h.getByRole("button", { name: "Refund", exact: true }).click();
  await h.locator("#field-amount-error").waitFor();
  expect(await h.locator("#field-amount-error").innerText()).toContain("more than what remains");
  expect(await h.getByLabel("Reason (the guest reads it)").inputValue()).toBe("The court was closed for half an hour.");
  expect(await h.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

  await h.getByLabel("Amount (USD)").fill("5");
  await h.getByRole("button", { name: "Refund", exact: true }).click();
  await h.locator("[data-refund]").waitFor();
  expect(await h.locator("[data-refunded]").innerText()).toContain("$5.00");

  // The guest's open conversation shows it without a reload, with the reason.
  await g.locator('[data-system="booking_refunded"]').waitFor();
  await expectAccessible(g, "the guest's conversation with a refund");
  expect(await g.locator('[data-system="booking_refunded"]').innerText()).toContain("The court was closed for half an hour.");
  expect(await g.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
});
