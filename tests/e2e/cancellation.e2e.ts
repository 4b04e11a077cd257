import { expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { DEMO_GUEST_EMAIL, DEMO_HOST_EMAIL } from "../../src/demo/demo-data";
import { expectAccessible, serverAndBrowser } from "./harness";
import { dateAhead, signInContext } from "./flows";

/**
 * A guest cancels an accepted booking under the host's moderate policy (docs/decisions/0050), in
 * real Chromium on a 360-pixel screen: the activity page names the policy, the conversation says
 * what cancelling now gives, the confirmation page says how much comes back (in English and in
 * French, each in its own money format) and fits the screen, and confirming ends the booking with
 * half refunded.
 */
const env = serverAndBrowser();
const PHONE = { width: 360, height: 740 };

async function person(email: string, french = false) {
  const context = await env.browser.newContext({ viewport: PHONE, ...(french ? { locale: "fr-FR", extraHTTPHeaders: { "Accept-Language": "fr" } } : {}) });
  const csrf = await signInContext(context, env.server.url, email);
  return { context, headers: { "x-csrf-token": csrf, origin: env.server.url } };
}

async function open(context: BrowserContext, path: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${env.server.url}${path}`);
  return page;
}

/** Nothing on the page is wider than the screen. */
const fitsTheScreen = async (page: Page) => expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

test("the cancel preview at 360 px, in English and French, and the cancellation under a moderate policy", async () => {
  const url = env.server.url;
  const host = await person(DEMO_HOST_EMAIL);
  const guest = await person(DEMO_GUEST_EMAIL);

  // The host makes one of their New York activities moderate.
  const activities = (await (await host.context.request.get(`${url}/api/user/activities`)).json()) as { id: string; duration: string; city: string; hourlyRate: string; format: string }[];
  const activity = activities.find((a) => Number(a.duration) <= 1 && a.city === "New York" && a.format === "private")!;
  const changed = await host.context.request.patch(`${url}/api/activities/${activity.id}`, { data: { cancellationPolicy: "moderate" }, headers: host.headers });
  expect(changed.status()).toBe(200);
  const activityPage = await open(guest.context, `/activity/${activity.id}`);
  expect(await activityPage.locator("[data-cancellation-policy]").innerText()).toContain("Full refund up to 3 days before the start; half after, until the start.");

  // A paid request two days ahead, accepted: inside the half-refund window.
  const date = dateAhead(2);
  const amount = (Math.round(Math.round(Number(activity.hourlyRate) * 100) * 1.1) / 100).toFixed(2);
  const intent = (await (await guest.context.request.post(`${url}/api/create-payment-intent`, { data: { amount, metadata: { activityId: activity.id, date, time: "12:00", duration: "1" } }, headers: guest.headers })).json()) as Record<string, string>;
  await guest.context.request.post(`${url}/api/payments/test/confirm`, { data: { clientSecret: intent.clientSecret, cardNumber: "4242424242424242", expiry: "12/34", cvc: "123" }, headers: guest.headers });
  const made = await guest.context.request.post(`${url}/api/bookings`, { data: { activityId: activity.id, proposedDatetime: `${date}T12:00:00`, durationHours: 1, priceTotal: amount, paymentIntentId: intent.paymentIntentId }, headers: guest.headers });
  expect(made.status()).toBe(201);
  const bookingId = ((await made.json()) as { id: string }).id;
  expect((await host.context.request.post(`${url}/api/bookings/${bookingId}/accept`, { data: {}, headers: host.headers })).status()).toBe(200);
  const totalCents = Math.round(Number(amount) * 100);
  const half = Math.floor(totalCents / 2);
  const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

  // The conversation says what cancelling now gives; its button opens the preview.
  const conversation = await open(guest.context, `/bookings/${bookingId}`);
  expect(await conversation.locator("[data-cancel-card]").innerText()).toContain("If you cancel now, half is refunded, until");
  await conversation.locator("[data-cancel-card]").getByRole("link", { name: "Cancel booking" }).click();
  await conversation.waitForURL(new RegExp(`/bookings/${bookingId}/cancel$`));
  expect(await conversation.locator("#cancel-refund").innerText()).toBe(`You get ${dollars(half)} of ${dollars(totalCents)} back.`);
  expect(await conversation.locator("[data-cancel-preview]").innerText()).toContain("Under the host's moderate policy.");
  await fitsTheScreen(conversation);
  await expectAccessible(conversation, "the cancel preview (en)");

  // The same page in French: the amounts in French format.
  const french = await person(DEMO_GUEST_EMAIL, true);
  const fr = await open(french.context, `/bookings/${bookingId}/cancel`);
  const euros = (cents: number) => new Intl.NumberFormat("fr-FR", { style: "currency", currency: "USD" }).format(cents / 100);
  expect(await fr.locator("html").getAttribute("lang")).toBe("fr");
  expect(await fr.locator("#cancel-refund").innerText()).toBe(`Vous récupérez ${euros(half)} sur ${euros(totalCents)}.`);
  expect(await fr.getByRole("button", { name: `Annuler et récupérer ${euros(half)}` }).count()).toBe(1);
  await fitsTheScreen(fr);
  await expectAccessible(fr, "the cancel preview (fr)");

  // Confirming: back to the conversation, cancelled, half refunded.
  await conversation.getByRole("button", { name: `Cancel and get ${dollars(half)} back` }).click();
  await conversation.waitForURL(new RegExp(`/bookings/${bookingId}$`));
  expect(await conversation.locator("[data-booking-card] [data-status]").innerText()).toBe("Canceled");
  const preview = await guest.context.request.get(`${url}/api/bookings/${bookingId}/cancellation`);
  expect(preview.status()).toBe(409);
});
