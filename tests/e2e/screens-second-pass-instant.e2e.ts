import { afterAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { startFakeSmtp } from "../fakes/smtp";
import { dateAhead, dayButton, openRequestDialog, signInContext } from "./flows";
import { expectAccessible, serverAndBrowser } from "./harness";

/**
 * An activity that books instantly, as its guest meets it on a 360 px phone in English and
 * French: every screen, toast and email says booked and charged now, with the cancellation policy
 * that applies; and the booking dialog's empty message is answered in the page's language.
 */
const smtp = await startFakeSmtp();
const env = serverAndBrowser({ env: { SMTP_URL: smtp.url } });
afterAll(() => smtp.close());

const GUEST = "guest@offline.test";

let instantId: string | null = null;
/** The demo host's New York private activity, switched to instant booking through the API. */
async function instantActivity() {
  if (instantId) return instantId;
  const context = await env.browser.newContext();
  const csrf = await signInContext(context, env.server.url, "host@offline.test");
  const list = (await (await context.request.get(`${env.server.url}/api/user/activities`)).json()) as { id: string; duration: string; city: string; format: string }[];
  const a = list.find((x) => Number(x.duration) <= 1.5 && x.city === "New York" && x.format === "private")!;
  const answer = await context.request.patch(`${env.server.url}/api/activities/${a.id}`, { data: { instantBooking: true }, headers: { "x-csrf-token": csrf, origin: env.server.url } });
  expect(answer.status()).toBe(200);
  await context.close();
  instantId = a.id;
  return a.id;
}

async function guestPhone(locale: "en-US" | "fr-FR") {
  const context = await env.browser.newContext({ locale, viewport: { width: 360, height: 740 } });
  await signInContext(context, env.server.url, GUEST);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  return { context, page, errors };
}

async function fillCard(page: Page, labels: { number: string; expiry: string; cvc: string }) {
  await page.getByLabel(labels.number).fill("4242 4242 4242 4242");
  await page.getByLabel(labels.expiry).fill("12/34");
  await page.getByLabel(labels.cvc).fill("123");
}

const mainText = async (page: Page) => (await page.locator("main").innerText()).replace(/\s+/g, " ");

test("English, date-time flow: booked and charged on every screen, the toast and the email", async () => {
  const id = await instantActivity();
  const { context, page, errors } = await guestPhone("en-US");
  await page.goto(`${env.server.url}/activity/${id}`);
  await page.getByRole("link", { name: "Book & Pay" }).click();
  await page.waitForURL(/\/date-time$/);
  await page.locator("[data-hydrated]").waitFor();
  let text = await mainText(page);
  expect(text).toContain("This activity books instantly: your booking is confirmed as soon as you pay, and your card is charged then.");
  expect(text).toContain("the host's flexible cancellation policy applies");
  expect(text).not.toContain("sent to the host for approval");
  await expectAccessible(page, "instant date-time screen (en)");

  await (await dayButton(page, dateAhead(5))).click();
  await page.locator('[data-time="10:00"]').click();
  await page.locator("[data-duration]:not([disabled])").first().click();
  await page.getByRole("button", { name: "Continue to Payment" }).click();
  await page.waitForURL(/\/payment$/);
  text = await mainText(page);
  expect(text).toContain("your card is charged when you pay, and the booking is confirmed at once");
  expect(text).not.toContain("held, not charged");
  expect(text).not.toContain("withdraw a request");
  await expectAccessible(page, "instant payment screen (en)");

  await fillCard(page, { number: "Card number", expiry: "Expiry (MM/YY)", cvc: "CVC" });
  await page.getByRole("button", { name: /^Book & Pay \$/ }).click();
  await page.waitForURL(/\/booking-success/);
  await page.getByRole("heading", { name: "Booked!" }).waitFor();
  text = await mainText(page);
  expect(text).toContain("your card has been charged");
  expect(text).toContain("If you cancel, the host's flexible cancellation policy applies:");
  expect(await page.locator("[data-success-policy] [data-refund-windows] li").count()).toBeGreaterThan(0);
  // The toast of the booking says charged too.
  await page.getByText("Your booking is confirmed and your card has been charged.").first().waitFor();
  await expectAccessible(page, "instant success screen (en)");

  const mail = await smtp.waitFor(GUEST, /You're booked/);
  expect(mail.text).toContain("books instantly");
  expect(mail.text).toMatch(/was charged to your card/);
  expect(mail.text).toContain("flexible cancellation policy applies: Full refund until");
  expect(mail.text).not.toContain("accepted your request");
  expect(mail.subject).not.toContain("accepted");
  expect(errors).toEqual([]);
  await context.close();
}, 90_000);

test("French, booking dialog and hosted checkout: the dialog, its payment step and the bookings list say booked", async () => {
  const id = await instantActivity();
  const { context, page, errors } = await guestPhone("fr-FR");
  await page.goto(`${env.server.url}/activity/${id}`);
  expect(await page.getByRole("link", { name: "Réserver et payer" }).count()).toBe(1);
  const dialog = await openRequestDialog(page);
  expect(await dialog.locator("summary").innerText()).toBe("Réserver instantanément");
  await page.getByLabel("Message à l'hôte").fill("Bonjour ! À 16 h ?");
  await page.getByLabel("Date", { exact: true }).selectOption(dateAhead(6));
  await page.getByLabel("Début").selectOption("16:00");
  const hours = page.getByLabel("Durée");
  await hours.selectOption((await hours.locator("option:not([disabled])").first().getAttribute("value"))!);
  await page.getByRole("button", { name: "Continuer vers la réservation" }).click();
  await page.locator("[data-host-rating]").waitFor();
  await page.getByRole("heading", { name: "Réserver instantanément" }).first().waitFor();
  const text = await mainText(page);
  expect(text).toContain("Cette activité se réserve instantanément : votre réservation est confirmée dès le paiement, et votre carte est débitée à ce moment-là.");
  expect(text).toContain("votre carte est débitée au paiement");
  expect(text).not.toContain("bloqué, pas débité");
  await expectAccessible(page, "instant dialog payment step (fr)");

  await page.getByRole("button", { name: /^Réserver et payer / }).click();
  await page.waitForURL(/\/payments\/test\/checkout\//);
  await fillCard(page, { number: "Numéro de carte", expiry: "Expiration (MM/AA)", cvc: "CVC" });
  await page.getByRole("button", { name: /^Payer / }).click();
  await page.waitForURL(/\/bookings$/);
  await page.getByText("C'est réservé !").first().waitFor();
  expect(await page.getByText("Paiement réussi !").count()).toBe(0);
  await page.getByText("votre carte a été débitée").first().waitFor();
  await expectAccessible(page, "bookings list after the instant hosted checkout (fr)");
  expect(errors).toEqual([]);
  await context.close();
}, 90_000);

for (const [locale, title, body] of [
  ["en-US", "Message required", "Please add a message to your request"],
  ["fr-FR", "Message requis", "Veuillez ajouter un message à votre demande"],
] as const) {
  test(`${locale}: an empty message in the booking dialog is answered by the page, in its language`, async () => {
    const id = await instantActivity();
    const { context, page, errors } = await guestPhone(locale);
    await page.goto(`${env.server.url}/activity/${id}`);
    const dialog = await openRequestDialog(page);
    const form = dialog.locator("form");
    await form.locator("#rq-date").selectOption({ index: 1 });
    // The first start still open on that day: earlier ones are past once the day has begun.
    const open = await form.locator("#rq-time option[value]:not([value='']):not([disabled])").first().getAttribute("value");
    await form.locator("#rq-time").selectOption(open!);
    await form.locator("button[type=submit]").click();
    await page.getByText(title, { exact: true }).first().waitFor({ timeout: 10_000 });
    await page.getByText(body).first().waitFor();
    await expectAccessible(page, `empty dialog message (${locale})`);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
}
