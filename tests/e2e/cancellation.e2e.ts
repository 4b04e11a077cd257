import { expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { DEMO_GUEST_EMAIL } from "../../src/demo/demo-data";
import { expectAccessible, serverAndBrowser } from "./harness";
import { dateAhead, signInContext } from "./flows";

/**
 * A guest cancels an accepted booking of a Paris activity, priced in euros, under its host's
 * moderate policy (docs/decisions/0050), in real Chromium on a 360-pixel screen: the activity page
 * shows the price in the reader's format of euros and names the policy, the conversation says
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

test("a Paris activity in euros at 360 px, in English and French: its price, its policy, the cancel preview and the cancellation", async () => {
  const url = env.server.url;
  const host = await person("camille@offline.test");
  const guest = await person(DEMO_GUEST_EMAIL);
  const french = await person(DEMO_GUEST_EMAIL, true);

  // The host makes one of their Paris activities moderate.
  const activities = (await (await host.context.request.get(`${url}/api/user/activities`)).json()) as { id: string; duration: string; city: string; hourlyRate: string; currency: string; format: string }[];
  const activity = activities.filter((a) => a.city === "Paris" && a.format === "private").sort((a, b) => Number(a.duration) - Number(b.duration))[0]!;
  expect(activity.currency).toBe("eur");
  const hours = Number(activity.duration);
  const changed = await host.context.request.patch(`${url}/api/activities/${activity.id}`, { data: { cancellationPolicy: "moderate" }, headers: host.headers });
  expect(changed.status()).toBe(200);

  // The activity page: the hourly rate in whole euros as each language writes them, and the policy.
  const rateCents = Math.round(Number(activity.hourlyRate) * 100);
  const wholeEuros = (locale: string) => new Intl.NumberFormat(locale, { style: "currency", currency: "EUR", minimumFractionDigits: 0, maximumFractionDigits: 0 }).format(rateCents / 100);
  const activityPage = await open(guest.context, `/activity/${activity.id}`);
  expect(await activityPage.locator("main").innerText()).toContain(wholeEuros("en-US"));
  expect(await activityPage.locator("[data-cancellation-policy]").innerText()).toContain("Full refund up to 3 days before the start; half after, until the start.");
  await fitsTheScreen(activityPage);
  const frenchPage = await open(french.context, `/activity/${activity.id}`);
  expect(await frenchPage.locator("main").innerText()).toContain(wholeEuros("fr-FR"));
  expect(await frenchPage.locator("[data-cancellation-policy]").innerText()).toContain("Remboursement intégral jusqu'à 3 jours avant le début ; la moitié ensuite, jusqu'au début.");
  await fitsTheScreen(frenchPage);

  // A paid request two days ahead, accepted: inside the half-refund window.
  const date = dateAhead(2);
  const subtotal = Math.round(rateCents * hours);
  const amount = ((subtotal + Math.round(subtotal * 0.1)) / 100).toFixed(2);
  const intent = (await (await guest.context.request.post(`${url}/api/create-payment-intent`, { data: { amount, metadata: { activityId: activity.id, date, time: "12:00", duration: String(hours) } }, headers: guest.headers })).json()) as Record<string, string>;
  await guest.context.request.post(`${url}/api/payments/test/confirm`, { data: { clientSecret: intent.clientSecret, cardNumber: "4242424242424242", expiry: "12/34", cvc: "123" }, headers: guest.headers });
  const made = await guest.context.request.post(`${url}/api/bookings`, { data: { activityId: activity.id, proposedDatetime: `${date}T12:00:00`, durationHours: hours, priceTotal: amount, paymentIntentId: intent.paymentIntentId }, headers: guest.headers });
  expect(made.status()).toBe(201);
  const bookingId = ((await made.json()) as { id: string }).id;
  expect((await host.context.request.post(`${url}/api/bookings/${bookingId}/accept`, { data: {}, headers: host.headers })).status()).toBe(200);
  const totalCents = Math.round(Number(amount) * 100);
  const half = Math.floor(totalCents / 2);
  const inEnglish = (cents: number) => new Intl.NumberFormat("en-US", { style: "currency", currency: "EUR" }).format(cents / 100);

  // The conversation says what cancelling now gives; its button opens the preview.
  const conversation = await open(guest.context, `/bookings/${bookingId}`);
  expect(await conversation.locator("[data-cancel-card]").innerText()).toContain("If you cancel now, half is refunded, until");
  await conversation.locator("[data-cancel-card]").getByRole("link", { name: "Cancel booking" }).click();
  await conversation.waitForURL(new RegExp(`/bookings/${bookingId}/cancel$`));
  expect(await conversation.locator("#cancel-refund").innerText()).toBe(`You get ${inEnglish(half)} of ${inEnglish(totalCents)} back.`);
  expect(await conversation.locator("[data-cancel-preview]").innerText()).toContain("Under the host's moderate policy.");
  await fitsTheScreen(conversation);
  await expectAccessible(conversation, "the cancel preview (en)");

  // The same page in French: the amounts in French format.
  const fr = await open(french.context, `/bookings/${bookingId}/cancel`);
  const euros = (cents: number) => new Intl.NumberFormat("fr-FR", { style: "currency", currency: "EUR" }).format(cents / 100);
  expect(await fr.locator("html").getAttribute("lang")).toBe("fr");
  expect(await fr.locator("#cancel-refund").innerText()).toBe(`Vous récupérez ${euros(half)} sur ${euros(totalCents)}.`);
  expect(await fr.getByRole("button", { name: `Annuler et récupérer ${euros(half)}` }).count()).toBe(1);
  await fitsTheScreen(fr);
  await expectAccessible(fr, "the cancel preview (fr)");

  // Confirming: back to the conversation, cancelled, half refunded.
  await conversation.getByRole("button", { name: `Cancel and get ${inEnglish(half)} back` }).click();
  await conversation.waitForURL(new RegExp(`/bookings/${bookingId}$`));
  expect(await conversation.locator("[data-booking-card] [data-status]").innerText()).toBe("Canceled");
  const preview = await guest.context.request.get(`${url}/api/bookings/${bookingId}/cancellation`);
  expect(preview.status()).toBe(409);
});
