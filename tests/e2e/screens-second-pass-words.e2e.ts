import { afterAll, expect, test } from "bun:test";
import type { BrowserContextOptions, Page } from "playwright-core";
import { DEMO_GUEST_EMAIL, DEMO_HOST_EMAIL } from "../../src/demo/demo-data";
import { startFakeSmtp } from "../fakes/smtp";
import { dateAhead, signInContext } from "./flows";
import { expectAccessible, islandsRendered, serverAndBrowser } from "./harness";

/**
 * Words, numbers and clocks as people of each language read them, on a 360 px phone: ratings
 * with the language's decimal mark, French typography in emails, one word for one thing, zone
 * names instead of zone ids, one clock per language, message times in the reader's own zone,
 * and a verification link opened again after it did its work.
 */
const smtp = await startFakeSmtp();
const env = serverAndBrowser({ env: { SMTP_URL: smtp.url } });
afterAll(() => smtp.close());

const PHONE = { width: 360, height: 740 };
type Lang = "en" | "fr";

/** A demo person signed in, in a language of their choosing (kept on their account), on a phone. */
async function person(email: string, lang: Lang, options: BrowserContextOptions = {}) {
  const url = env.server.url;
  const context = await env.browser.newContext({ viewport: PHONE, locale: lang === "fr" ? "fr-FR" : "en-US", ...options });
  const csrf = await signInContext(context, url, email);
  const chosen = await context.request.post(`${url}/api/locale`, { form: { locale: lang, next: "/" }, headers: { "x-csrf-token": csrf, origin: url }, maxRedirects: 0 });
  expect(chosen.status()).toBeLessThan(400);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  return { context, page, csrf, errors };
}

const textOf = (page: Page) => page.locator("body").innerText();

test("ratings are written with the language's decimal mark: the card, the activity page and the dialog", async () => {
  for (const lang of ["en", "fr"] as const) {
    const { context, page, errors } = await person(DEMO_GUEST_EMAIL, lang);
    const [mark, wrong] = lang === "fr" ? [",", "."] : [".", ","];
    const rated = new RegExp(`★ \\d\\${mark}\\d`);
    const misrated = new RegExp(`★ \\d\\${wrong}\\d`);

    // A card with a rating on the browse page.
    await page.goto(`${env.server.url}/browse`);
    const card = page.locator("a.card-link", { hasText: "★" }).first();
    await card.waitFor();
    const cardText = await card.innerText();
    expect(cardText).toMatch(rated);
    expect(cardText).not.toMatch(misrated);

    // Its activity page.
    await card.click();
    await page.waitForURL(/\/activity\//);
    await islandsRendered(page);
    const pageText = await textOf(page);
    expect(pageText).toMatch(rated);
    expect(pageText).not.toMatch(misrated);
    await expectAccessible(page, `activity page with its rating, ${lang}`);

    // The dialog's payment step, with the host's rating and count.
    const dialog = page.locator("[data-request-dialog]");
    for (let i = 0; i < 5 && !(await dialog.evaluate((d) => (d as HTMLDetailsElement).open)); i++) {
      await dialog.locator("summary").click();
      await page.waitForTimeout(300);
    }
    await page.locator("#rq-message").fill(lang === "fr" ? "Bonjour !" : "Hello!");
    const firstOpen = async (select: string) => {
      const value = await page.locator(`${select} option:not([disabled])`).evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value).find((v) => v !== ""));
      await page.locator(select).selectOption(value!);
    };
    await firstOpen("#rq-date");
    await firstOpen("#rq-time");
    await firstOpen("#rq-hours");
    await dialog.locator("button[type=submit]").last().click();
    const hostRating = page.locator("[data-host-rating]");
    await hostRating.waitFor();
    const ratingText = await hostRating.innerText();
    expect(ratingText).toMatch(new RegExp(`^★ \\d\\${mark}\\d \\(\\d+ (avis|reviews?)\\)$`));
    await expectAccessible(page, `the dialog's payment step with the host's rating, ${lang}`);
    expect(errors).toEqual([]);
    await context.close();
  }
}, 120_000);

test("French: one word for notice and guests, and no notice reads 'Aucun préavis'", async () => {
  for (const lang of ["en", "fr"] as const) {
    const { context, page } = await person(DEMO_HOST_EMAIL, lang);
    await page.goto(`${env.server.url}/host/availability`);
    const text = await textOf(page);
    if (lang === "fr") {
      expect(text).not.toMatch(/voyageur/i);
      expect(text).not.toMatch(/délai de prévenance/i);
      expect(text).not.toContain("aucune heure");
      expect(text).toContain("Aucun préavis");
    } else {
      expect(text).not.toContain("no hours");
      expect(text).toContain("No notice");
    }
    await expectAccessible(page, `availability screen, ${lang}`);
    await context.close();
  }
}, 60_000);

test("a French host's request email: a narrow no-break space before colons, and 'la carte d'Alex'", async () => {
  const url = env.server.url;
  // The host chooses French; the guest Alex sends a paid request for one of her activities.
  const host = await person("camille@offline.test", "fr");
  const guest = await person(DEMO_GUEST_EMAIL, "en");
  const activities = (await (await host.context.request.get(`${url}/api/user/activities`)).json()) as { id: string; duration: string; hourlyRate: string; format: string; weeklyHours: unknown }[];
  const activity = activities.find((a) => Number(a.duration) <= 1 && a.format === "private" && !a.weeklyHours) ?? activities.find((a) => a.format === "private")!;
  const date = new Intl.DateTimeFormat("sv-SE", { timeZone: "Europe/Paris" }).format(Date.now() + 5 * 86_400_000);
  const amount = (Math.round(Math.round(Number(activity.hourlyRate) * 100) * 1.1) / 100).toFixed(2);
  const headers = { "x-csrf-token": guest.csrf, origin: url };
  const intent = (await (await guest.context.request.post(`${url}/api/create-payment-intent`, { data: { amount, metadata: { activityId: activity.id, date, time: "10:00", duration: "1" } }, headers })).json()) as Record<string, string>;
  await guest.context.request.post(`${url}/api/payments/test/confirm`, { data: { clientSecret: intent.clientSecret, cardNumber: "4242424242424242", expiry: "12/34", cvc: "123" }, headers });
  const made = await guest.context.request.post(`${url}/api/bookings`, { data: { activityId: activity.id, proposedDatetime: `${date}T10:00:00`, durationHours: 1, priceTotal: amount, paymentIntentId: intent.paymentIntentId }, headers });
  expect(made.status()).toBe(201);

  const mail = await smtp.waitFor("camille@offline.test", /Nouvelle demande/);
  expect(mail.text).toContain("la carte d'Alex");
  expect(mail.text).not.toContain("de Alex");
  expect(mail.text).toContain("Activité\u202f: ");
  expect(mail.text).toContain("Durée\u202f: ");
  expect(mail.text).not.toMatch(/\S: /);

  // The same booking seen by the French host, in the browser: the words of the conversation.
  const id = ((await made.json()) as { id: string }).id;
  await host.page.goto(`${url}/bookings/${id}`);
  await islandsRendered(host.page);
  expect(await textOf(host.page)).not.toMatch(/voyageur/i);
  await host.context.close();
  await guest.context.close();
}, 60_000);

test("the date-time screen names the activity's zone as people say it, never its id", async () => {
  // Camille lives in Paris and her browser keeps Paris time; Maya's activity is in New York.
  for (const lang of ["en", "fr"] as const) {
    const viewer = await person("camille@offline.test", lang, { timezoneId: "Europe/Paris" });
    const hostSide = await person(DEMO_HOST_EMAIL, "en");
    const list = (await (await hostSide.context.request.get(`${env.server.url}/api/user/activities`)).json()) as { id: string; city: string; format: string }[];
    await hostSide.context.close();
    const activity = list.find((a) => a.city === "New York" && a.format === "private")!;
    await viewer.page.goto(`${env.server.url}/booking/${activity.id}/date-time?date=${dateAhead(4)}`);
    await islandsRendered(viewer.page);
    const text = await textOf(viewer.page);
    expect(text).not.toContain("America/");
    expect(text).not.toContain("_");
    expect(text).toContain(lang === "fr" ? "heure de New York" : "New York time");
    await expectAccessible(viewer.page, `date-time screen for a viewer in Paris, ${lang}`);
    await viewer.context.close();
  }
}, 60_000);

test("one clock per language on the availability screens: English 12-hour, French 24-hour", async () => {
  for (const lang of ["en", "fr"] as const) {
    const { context, page, csrf } = await person(DEMO_HOST_EMAIL, lang);
    const url = env.server.url;
    // A blocked time, so the screen lists times of its own besides the weekly hours.
    await context.request.post(`${url}/host/availability/blocks`, { form: { _csrf: csrf, kind: "time", date: dateAhead(20 + (lang === "fr" ? 1 : 0)), from: "14:00", to: "16:30", note: "" }, headers: { origin: url }, maxRedirects: 0 });
    await page.goto(`${url}/host/availability`);
    const text = await textOf(page);
    if (lang === "en") {
      expect(text).toContain("2:00 PM–4:30 PM");
      expect(text).toContain("8:00 AM to 10:00 PM");
      // No 24-hour time anywhere on the page ("14:00", "09:00", "22:00").
      expect(text).not.toMatch(/\b(0\d|1[3-9]|2[0-4]):\d\d\b/);
    } else {
      expect(text).toContain("14:00–16:30");
      expect(text).not.toMatch(/\b\d{1,2}:\d\d\s?(AM|PM)\b/);
    }
    await expectAccessible(page, `availability screen's clock, ${lang}`);
    await context.close();
  }
}, 60_000);

test("a conversation's times are the reader's own clock", async () => {
  const url = env.server.url;
  // Alex lives in New York but reads from Paris: his browser keeps Paris time.
  const guest = await person(DEMO_GUEST_EMAIL, "en", { timezoneId: "Europe/Paris" });
  const hostSide = await person(DEMO_HOST_EMAIL, "en");
  const activities = (await (await hostSide.context.request.get(`${url}/api/user/activities`)).json()) as { id: string; duration: string; city: string; hourlyRate: string; format: string }[];
  await hostSide.context.close();
  const activity = activities.find((a) => Number(a.duration) <= 1 && a.city === "New York" && a.format === "private")!;
  const date = dateAhead(6);
  const amount = (Math.round(Math.round(Number(activity.hourlyRate) * 100) * 1.1) / 100).toFixed(2);
  const headers = { "x-csrf-token": guest.csrf, origin: url };
  const intent = (await (await guest.context.request.post(`${url}/api/create-payment-intent`, { data: { amount, metadata: { activityId: activity.id, date, time: "11:00", duration: "1" } }, headers })).json()) as Record<string, string>;
  await guest.context.request.post(`${url}/api/payments/test/confirm`, { data: { clientSecret: intent.clientSecret, cardNumber: "4242424242424242", expiry: "12/34", cvc: "123" }, headers });
  const made = await guest.context.request.post(`${url}/api/bookings`, { data: { activityId: activity.id, proposedDatetime: `${date}T11:00:00`, durationHours: 1, priceTotal: amount, paymentIntentId: intent.paymentIntentId }, headers });
  expect(made.status()).toBe(201);
  const id = ((await made.json()) as { id: string }).id;

  await guest.page.goto(`${url}/bookings/${id}`);
  await islandsRendered(guest.page);
  const stamps = guest.page.locator("[data-message-list] time, [data-island] time");
  await stamps.first().waitFor();
  const shown = await stamps.evaluateAll((times) => times.map((t) => ({ iso: t.getAttribute("datetime") ?? (t as HTMLTimeElement).dateTime, text: t.textContent ?? "" })));
  expect(shown.length).toBeGreaterThan(0);
  const paris = new Intl.DateTimeFormat("en-US", { hour: "numeric", minute: "2-digit", timeZone: "Europe/Paris" });
  for (const { iso, text } of shown) expect(text).toBe(paris.format(Date.parse(iso)));
  await expectAccessible(guest.page, "a conversation read from Paris");
  expect(guest.errors).toEqual([]);
  await guest.context.close();
}, 60_000);

test("a verification link opened again after verifying says the address is verified", async () => {
  const url = env.server.url;
  for (const lang of ["en", "fr"] as const) {
    const email = `verified.twice.${lang}@example.com`;
    const context = await env.browser.newContext({ viewport: PHONE, locale: lang === "fr" ? "fr-FR" : "en-US", extraHTTPHeaders: { "Accept-Language": lang } });
    const registered = await context.request.post(`${url}/api/register`, { data: { email, password: "a-good-password" }, headers: { origin: url } });
    expect(registered.status()).toBe(201);
    const mail = await smtp.waitFor(email, lang === "fr" ? /Confirmez votre adresse e-mail/ : /Confirm your email address/);
    const link = mail.links.find((l) => l.includes("/verify-email?token="))!;
    const page = await context.newPage();
    await page.goto(link);
    await page.getByRole("heading", { name: lang === "fr" ? "E-mail vérifié" : "Email verified" }).waitFor();

    // Opened again, from the email: the address is verified, and there is nothing to resend.
    await page.goto(link);
    await page.getByRole("heading", { name: lang === "fr" ? "Votre e-mail est vérifié" : "Your email is verified" }).waitFor();
    const text = await textOf(page);
    expect(text).toContain(email);
    expect(text).not.toContain(lang === "fr" ? "Renvoyer le lien" : "Resend link");
    expect(text).not.toContain(lang === "fr" ? "ne fonctionne plus" : "no longer works");
    expect(await page.getByRole("link", { name: lang === "fr" ? "Continuer" : "Continue" }).count()).toBe(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(360);
    await expectAccessible(page, `verification link opened again, ${lang}`);
    await context.close();
  }
}, 60_000);
