import { beforeAll, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { DEMO_GUEST_EMAIL, DEMO_HOST_EMAIL } from "../../src/demo/demo-data";
import { expectAccessible, serverAndBrowser } from "./harness";
import { dateAhead, openRequestDialog, signInContext } from "./flows";

/**
 * Weekly hours as people meet them at 360 px, in English and French: the booking dialog offers
 * only the durations that fit the host's hours and calls a refused time what it is (not a payment
 * error), the plain weekly-hours form says "Closed" on a closed day, and the wizard's "Copy Monday
 * to every day" neither empties the week from a closed Monday nor copies without a way back.
 * The demo host's New York activity keeps weekend mornings (Saturday and Sunday 09:00–12:00).
 */
const env = serverAndBrowser();
const PHONE = { width: 360, height: 740 };
const WEEKEND_MORNINGS = ["", "", "", "", "", "09:00-12:00", "09:00-12:00"];

const weekday = (date: string) => new Date(`${date}T12:00:00Z`).getUTCDay();
/** A Sunday from three days on (past any notice), New York wall clock. */
const sunday = Array.from({ length: 7 }, (_, i) => dateAhead(i + 3)).find((d) => weekday(d) === 0)!;

let activityId = "";

/** A demo person in a phone-sized context of their own, in English or French; `script: false` is a browser without JavaScript. */
async function person(email: string, opts: { french?: boolean; script?: boolean } = {}) {
  const context = await env.browser.newContext({
    viewport: PHONE,
    javaScriptEnabled: opts.script ?? true,
    ...(opts.french ? { locale: "fr-FR", extraHTTPHeaders: { "Accept-Language": "fr" } } : {}),
  });
  const csrf = await signInContext(context, env.server.url, email);
  return { context, csrf };
}

async function open(context: BrowserContext, path: string) {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${env.server.url}${path}`);
  return { page, errors };
}

beforeAll(async () => {
  const host = await person(DEMO_HOST_EMAIL);
  const list = (await (await host.context.request.get(`${env.server.url}/api/user/activities`)).json()) as { id: string; city: string; format: string; duration: string; maxDuration: string | null }[];
  // A private New York activity that may run 2 hours or more: its dialog offers longer durations than Sunday 11:00 allows.
  const activity = list.find((a) => a.city === "New York" && a.format === "private" && Number(a.duration) <= 1 && (a.maxDuration === null || Number(a.maxDuration) >= 2))!;
  activityId = activity.id;
  const saved = await host.context.request.patch(`${env.server.url}/api/activities/${activityId}`, { data: { weeklyHours: WEEKEND_MORNINGS }, headers: { "x-csrf-token": host.csrf, origin: env.server.url } });
  expect(saved.status()).toBe(200);
  await host.context.close();
});

/** The durations the dialog lets one choose (their values, in hours). */
const enabledDurations = (page: Page) => page.locator("#rq-hours").evaluate((s) => [...(s as HTMLSelectElement).options].filter((o) => !o.disabled).map((o) => o.value));

test("the booking dialog offers only the durations that fit the start, in English and French", async () => {
  for (const french of [false, true]) {
    const guest = await person(DEMO_GUEST_EMAIL, { french });
    const { page, errors } = await open(guest.context, `/activity/${activityId}`);
    await openRequestDialog(page);
    await page.locator("#rq-date").selectOption(sunday);
    await page.locator("#rq-time").selectOption("11:00");
    // Sunday's hours end at noon: one hour from 11:00, nothing longer.
    expect(await enabledDurations(page)).toEqual(["1"]);
    expect(await page.locator("#rq-hours").inputValue()).toBe("1");
    // From 09:00 up to three hours fit.
    await page.locator("#rq-time").selectOption("09:00");
    expect(await enabledDurations(page)).toEqual(["1", "2", "3"]);
    await expectAccessible(page, `booking dialog (${french ? "fr" : "en"})`);
    expect(errors).toEqual([]);
    await guest.context.close();
  }
}, 60_000);

test("without JavaScript a refused time is titled about the time, never as a payment error", async () => {
  for (const french of [false, true]) {
    const guest = await person(DEMO_GUEST_EMAIL, { french, script: false });
    const { page } = await open(guest.context, `/activity/${activityId}`);
    await page.locator("[data-request-dialog] summary").click();
    await page.locator("#rq-message").fill(french ? "Bonjour ! Le dimanche matin vous va ?" : "Hello! Is Sunday morning fine?");
    await page.locator("#rq-date").selectOption(sunday);
    await page.locator("#rq-time").selectOption("11:00");
    await page.locator("#rq-hours").selectOption("2");
    await page.getByRole("button", { name: french ? "Continuer" : "Continue", exact: true }).click();
    const alert = page.locator("[role=alert]").first();
    await alert.waitFor();
    const text = (await alert.textContent()) ?? "";
    expect(text).toContain(french ? "Cet horaire ne peut pas être réservé" : "This time can't be booked");
    expect(text).toContain(french ? "L'hôte ne propose pas cet horaire" : "The host does not offer this time");
    expect(text).not.toContain(french ? "Erreur de paiement" : "Payment error");
    // The choice comes back with the longer durations greyed out; the one sent stays chosen.
    const back = await page.locator("#rq-hours").evaluate((s) => [...(s as HTMLSelectElement).options].filter((o) => !o.disabled).map((o) => o.value));
    expect(back).toEqual(["1", "2"]);
    expect(await page.locator("#rq-hours").inputValue()).toBe("2");
    // (axe needs the page's script: this browser runs none.)
    await guest.context.close();
  }
}, 60_000);

test("the plain weekly-hours form says Closed on a closed day, in English and French", async () => {
  for (const french of [false, true]) {
    const host = await person(DEMO_HOST_EMAIL, { french });
    const { page, errors } = await open(host.context, `/host/availability/activities/${activityId}`);
    const closed = french ? "Fermé" : "Closed";
    // Monday to Friday are closed; the weekend keeps its hours.
    for (let day = 0; day < 5; day++) {
      const field = page.locator(`#field-hours${day}`);
      expect(await field.inputValue()).toBe("");
      expect(await field.getAttribute("placeholder")).toBe(closed);
    }
    expect(await page.locator("#field-hours6").inputValue()).toBe("09:00-12:00");
    // The example format is given once, in the hint, not as every day's placeholder.
    expect(await page.locator('input[placeholder="09:00-12:00"]').count()).toBe(0);
    await page.locator("#hours-hint", { hasText: "09:00-12:00" }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await expectAccessible(page, `weekly hours form (${french ? "fr" : "en"})`);
    expect(errors).toEqual([]);
    await host.context.close();
  }
}, 60_000);

test("Copy Monday to every day waits for Monday's hours, and its copy can be undone, in English and French", async () => {
  for (const french of [false, true]) {
    const host = await person(DEMO_HOST_EMAIL, { french });
    const { page, errors } = await open(host.context, `/edit-activity/${activityId}`);
    await page.locator("[data-hydrated]").waitFor();
    const nextButton = page.getByRole("button", { name: french ? "Suivant" : "Next", exact: true });
    for (let i = 0; i < 8 && !(await page.locator("[data-weekly-hours]").count()); i++) await nextButton.click();
    await page.locator("[data-weekly-hours]").waitFor();
    const monday = french ? "Lundi" : "Monday";
    const tuesday = french ? "Mardi" : "Tuesday";
    const saturday = french ? "Samedi" : "Saturday";
    const rangeFrom = (day: string) => page.getByLabel(french ? `${day}, plage 1 : de` : `${day}, range 1: from`, { exact: true });
    const copy = page.getByRole("button", { name: french ? "Copier le lundi sur tous les jours" : "Copy Monday to every day" });

    // Monday is closed: copying it would empty the week, so the button waits and says why.
    expect(await copy.isDisabled()).toBe(true);
    await page.getByText(french ? "Ajoutez d'abord des horaires au lundi : copier un lundi vide viderait toute la semaine." : "Add hours to Monday first: copying an empty Monday would empty the whole week.").waitFor();
    await expectAccessible(page, `wizard hours, Monday closed (${french ? "fr" : "en"})`);

    // Monday gets hours; the copy fills every day, and Undo gives the week back as it was.
    await page.getByRole("button", { name: french ? `Ajouter une plage : ${monday}` : `Add hours on ${monday}` }).click();
    await rangeFrom(monday).waitFor();
    expect(await copy.isDisabled()).toBe(false);
    await copy.click();
    await rangeFrom(tuesday).waitFor();
    expect(await rangeFrom(saturday).inputValue()).toBe(await rangeFrom(monday).inputValue());
    await page.getByText(french ? "Les horaires du lundi ont été copiés sur tous les jours." : "Monday's hours were copied to every day.").waitFor();
    await expectAccessible(page, `wizard hours, copied (${french ? "fr" : "en"})`);
    await page.getByRole("button", { name: french ? "Annuler" : "Undo", exact: true }).click();
    await rangeFrom(tuesday).waitFor({ state: "detached" });
    expect(await rangeFrom(saturday).inputValue()).toBe("540");
    expect(await rangeFrom(monday).count()).toBe(1);
    expect(errors).toEqual([]);
    await host.context.close();
  }
}, 90_000);
