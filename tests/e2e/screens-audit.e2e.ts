import { one } from "../../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { DEMO_GUEST_EMAIL, DEMO_HOST_EMAIL } from "../../src/demo/demo-data";
import { insert, userRow } from "../../src/demo/factories";
import { users } from "../../db/schema";
import { createSession } from "../../src/auth/service";
import { makeTestApp } from "../helpers";
import { dayButton, openRequestDialog, signInContext } from "./flows";
import { closeContexts, expectAccessible, sharedBrowser } from "./harness";

/**
 * What a screen audit at 360×740 found about layout and sight, each checked in Chromium: a
 * refused card's message is on screen and focused, the newest chat message is not under the
 * composer, images that failed before the page script ran still say so, picking a category
 * leaves the results on screen, targets are 44 px, stars are legible, the photo grid does not
 * move when its script arrives, dark mode's selected and disabled states read as such,
 * onboarding says the age rule as soon as a date makes the person under 18, and the settings
 * location form can be sent by keyboard.
 * The app runs in this process on demo data (the content checks are in tests/screens-audit.test.ts).
 */
let t: Awaited<ReturnType<typeof makeTestApp>>;
let url: string;
let browser: Browser;

beforeAll(async () => {
  t = await makeTestApp({ demo: true });
  t.app.listen({ port: 0, hostname: "127.0.0.1" });
  url = `http://127.0.0.1:${t.app.server!.port}`;
  browser = await sharedBrowser();
});
afterAll(async () => {
  await closeContexts(browser);
  await t?.app.stop(true);
  t?.cleanup();
});

/** A demo person signed in, in a phone-sized context of their own; `dark` sets the theme before any page loads. */
async function person(email: string, opts: { dark?: boolean } = {}) {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const csrf = await signInContext(context, url, email);
  if (opts.dark) await context.addInitScript(() => localStorage.setItem("theme", "dark"));
  return { context, csrf };
}

async function open(context: BrowserContext, path: string) {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${url}${path}`);
  return { page, errors };
}

const dayAhead = (days: number) => new Intl.DateTimeFormat("sv-SE", { timeZone: "America/New_York" }).format(Date.now() + days * 86_400_000);

/** One of the demo host's New York activities that can be booked for one hour. */
async function hostActivity(context: BrowserContext) {
  const list = (await (await context.request.get(`${url}/api/user/activities`)).json()) as { id: string; duration: string; city: string; hourlyRate: string }[];
  return list.find((a) => Number(a.duration) <= 1 && a.city === "New York")!;
}

/** A paid request from `guest` for the host's activity on a day ahead; its id. */
async function paidRequest(guest: { context: BrowserContext; csrf: string }, activity: { id: string; hourlyRate: string }, days: number, time = "10:00") {
  const date = dayAhead(days);
  const amount = (Math.round(Math.round(Number(activity.hourlyRate) * 100) * 1.1) / 100).toFixed(2);
  const headers = { "x-csrf-token": guest.csrf, origin: url };
  const intent = (await (await guest.context.request.post(`${url}/api/create-payment-intent`, { data: { amount, metadata: { activityId: activity.id, date, time, duration: "1" } }, headers })).json()) as Record<string, string>;
  await guest.context.request.post(`${url}/api/payments/test/confirm`, { data: { clientSecret: intent.clientSecret, cardNumber: "4242424242424242", expiry: "12/34", cvc: "123" }, headers });
  const made = await guest.context.request.post(`${url}/api/bookings`, { data: { activityId: activity.id, proposedDatetime: `${date}T${time}:00`, durationHours: 1, priceTotal: amount, paymentIntentId: intent.paymentIntentId }, headers });
  expect(made.status()).toBe(201);
  return ((await made.json()) as { id: string }).id;
}

/** Where the focused element is, and whether it is a form alert on screen. */
const focusedAlert = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    const r = el?.getBoundingClientRect();
    return { role: el?.getAttribute("role") ?? null, text: el?.textContent ?? "", onScreen: !!r && r.top >= 0 && r.bottom <= innerHeight };
  });

async function fillCard(page: Page, number: string) {
  await page.getByLabel("Card number").fill(number);
  await page.getByLabel("Expiry (MM/YY)").fill("12/34");
  await page.getByLabel("CVC").fill("123");
}

test("a declined card's message is on screen and focused, on the payment screen and after failed authentication in the dialog's checkout", async () => {
  const host = await person(DEMO_HOST_EMAIL);
  const activity = await hostActivity(host.context);
  // Two guests: each may hold one unpaid booking at a time.
  const first = await person("james@offline.test");
  const { page, errors } = await open(first.context, `/booking/${activity.id}/date-time`);
  await page.locator("[data-hydrated]").waitFor();
  const date = dayAhead(9);
  await (await dayButton(page, date)).click();
  await page.locator('[data-time="14:00"]').click();
  await page.locator("[data-duration]:not([disabled])").first().click();
  await page.getByRole("button", { name: "Continue to Payment" }).click();
  await page.waitForURL(/\/payment$/);
  await fillCard(page, "4000 0000 0000 0002");
  await page.getByRole("button", { name: /^Confirm & Pay \$/ }).click();
  await page.getByText("Your card was declined.").waitFor();
  // The page is long on a phone (summary, price, policy, then the card): the message comes to the screen.
  expect(await page.evaluate(() => document.documentElement.scrollHeight > innerHeight)).toBe(true);
  expect(await focusedAlert(page)).toMatchObject({ role: "alert", onScreen: true });
  expect((await focusedAlert(page)).text).toContain("Your card was declined.");

  const second = await person("aiko@offline.test");
  const dialog = await open(second.context, `/activity/${activity.id}`);
  await openRequestDialog(dialog.page);
  await dialog.page.getByLabel("Message to the host").fill("Hello! Is the morning fine?");
  await dialog.page.getByLabel("Date", { exact: true }).selectOption(dayAhead(10));
  await dialog.page.getByLabel("Start").selectOption("09:00");
  await dialog.page.getByRole("button", { name: "Continue" }).click();
  await dialog.page.getByRole("button", { name: /^Pay \$/ }).click();
  await dialog.page.waitForURL(/\/payments\/test\/checkout\//);
  await fillCard(dialog.page, "4000 0025 0000 3155");
  await dialog.page.getByRole("button", { name: /^Pay \$/ }).click();
  await dialog.page.getByRole("button", { name: "Fail authentication" }).click();
  await dialog.page.waitForURL(/\/return/);
  await dialog.page.locator("[role=alert]").first().waitFor();
  expect(await focusedAlert(dialog.page)).toMatchObject({ role: "alert", onScreen: true });
  expect([...errors, ...dialog.errors]).toEqual([]);
  await Promise.all([host.context.close(), first.context.close(), second.context.close()]);
}, 60_000);

test("a conversation opens on its newest message, above the composer", async () => {
  const host = await person(DEMO_HOST_EMAIL);
  const guest = await person(DEMO_GUEST_EMAIL);
  const activity = await hostActivity(host.context);
  const id = await paidRequest(guest, activity, 6);
  expect((await host.context.request.post(`${url}/api/bookings/${id}/accept`, { headers: { "x-csrf-token": host.csrf, origin: url, accept: "application/json" } })).status()).toBe(200);
  for (let i = 1; i <= 6; i++) {
    const who = i % 2 ? guest : host;
    const res = await who.context.request.post(`${url}/api/messages`, { data: { bookingId: id, content: `Message ${i}: a sentence long enough to take two lines on a phone.` }, headers: { "x-csrf-token": who.csrf, origin: url } });
    expect(res.ok()).toBe(true);
  }
  const { page, errors } = await open(guest.context, `/bookings/${id}`);
  await page.locator('[data-island="Chat"] [data-link="open"]').waitFor({ state: "attached" });
  await page.locator("[data-message]", { hasText: "Message 6:" }).waitFor();
  await page.waitForTimeout(200);
  const where = await page.evaluate(() => {
    const bubbles = [...document.querySelectorAll("[data-message]")];
    const composer = document.querySelector("[data-message-form]")!.parentElement!;
    return { lastBottom: bubbles.at(-1)!.getBoundingClientRect().bottom, composerTop: composer.getBoundingClientRect().top };
  });
  expect(where.lastBottom).toBeLessThanOrEqual(where.composerTop);
  // "View activity" on the booking card is a 44 px target.
  expect((await page.getByRole("link", { name: "View activity" }).boundingBox())!.height).toBeGreaterThanOrEqual(44);
  expect(errors).toEqual([]);
  await Promise.all([host.context.close(), guest.context.close()]);
}, 60_000);

test("an image that failed before the page script ran says 'Failed to load image'", async () => {
  const guest = await person(DEMO_GUEST_EMAIL);
  const page = await guest.context.newPage();
  // The cards' photos fail at once; the page script arrives late, after they failed.
  await page.route(/\/(objects|static\/photos)\//, (route) => route.abort());
  await page.route(/\/assets\/loader-[^/]+\.js$/, async (route) => {
    await new Promise((r) => setTimeout(r, 1000));
    await route.continue();
  });
  await page.goto(`${url}/browse?city=New%20York`);
  await page.waitForFunction(() => "offline" in window);
  const first = page.locator("#results .img-frame").first();
  await page.waitForFunction(() => document.querySelector("#results .img-frame")?.classList.contains("is-failed"), undefined, { timeout: 3000 });
  expect(await first.getAttribute("data-failed-text")).toBe("Failed to load image");
  await guest.context.close();
}, 60_000);

test("picking a category on a phone leaves the count and the first results on screen; the city form has a visible Show button", async () => {
  const guest = await person(DEMO_GUEST_EMAIL);
  const { page, errors } = await open(guest.context, "/browse?city=New%20York");
  await page.locator("summary", { hasText: "Filters" }).click();
  const food = page.locator("#categories a", { hasText: "Food" });
  await food.click();
  await page.waitForURL(/category=food/);
  await page.locator("summary", { hasText: "Food" }).waitFor();
  const results = await page.evaluate(() => {
    const count = document.querySelector("#results p")!.getBoundingClientRect();
    const card = document.querySelector("#results li")?.getBoundingClientRect();
    return { countBottom: count.bottom, cardTop: card?.top ?? 0, gridOpen: document.querySelector("#browse details")!.hasAttribute("open") };
  });
  expect(results.gridOpen).toBe(false);
  expect(results.countBottom).toBeLessThan(740);
  expect(results.cardTop).toBeLessThan(740 - 100);
  // The city form can be sent by keyboard and assistive technology too: a visible submit button.
  const show = page.locator('form[action="/browse"] button[type=submit]');
  expect(await show.isVisible()).toBe(true);
  expect((await show.boundingBox())!.height).toBeGreaterThanOrEqual(44);
  await page.locator("#browse-city").selectOption("Paris");
  await page.waitForURL(/city=Paris/);
  expect(errors).toEqual([]);
  await guest.context.close();
}, 60_000);

test("the dashboard's 'View all' links, and the photo grid's buttons, are 44 px targets; review stars reach 3:1", async () => {
  const host = await person(DEMO_HOST_EMAIL);
  const guest = await person("sam@offline.test");
  await paidRequest(guest, await hostActivity(host.context), 7, "12:00");
  const { page, errors } = await open(host.context, "/host");
  const viewAll = page.getByRole("link", { name: "View all" });
  expect(await viewAll.count()).toBe(2);
  for (const box of [await viewAll.nth(0).boundingBox(), await viewAll.nth(1).boundingBox()]) expect(box!.height).toBeGreaterThanOrEqual(44);

  await page.goto(`${url}/edit-profile`);
  await page.locator("[data-hydrated] img[data-photo]").first().waitFor();
  const sizes = await page.locator("[data-hydrated] li button").evaluateAll((buttons) => buttons.map((b) => b.getBoundingClientRect()).map((r) => Math.min(r.width, r.height)));
  expect(sizes.length).toBeGreaterThan(0);
  expect(Math.min(...sizes)).toBeGreaterThanOrEqual(44);

  // Stars are a graphic that carries the rating: 3:1 against what they sit on.
  await page.goto(`${url}/reviews`);
  const ratio = await contrastOf(page, '[role="img"]');
  expect(ratio).toBeGreaterThanOrEqual(3);
  expect(errors).toEqual([]);
  await Promise.all([host.context.close(), guest.context.close()]);
}, 60_000);

/** The contrast ratio of the first match's text colour against the nearest background behind it. */
function contrastOf(page: Page, selector: string) {
  return page.evaluate((sel) => {
    const el = document.querySelector<HTMLElement>(sel);
    if (!el) throw new Error(`nothing matches ${sel}`);
    const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
    let bg: number[] = [];
    for (let n: HTMLElement | null = el; n; n = n.parentElement) {
      const c = rgb(getComputedStyle(n).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3]! > 0.5)) {
        bg = c.slice(0, 3);
        break;
      }
    }
    if (!bg.length) bg = [255, 255, 255];
    const lum = ([r, g, b]: number[]) => {
      const ch = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * ch(r!) + 0.7152 * ch(g!) + 0.0722 * ch(b!);
    };
    const [a, b] = [lum(rgb(getComputedStyle(el).color).slice(0, 3)), lum(bg)];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  }, selector);
}

test("the photo grid does not move when its script arrives, and shows no filled empty tiles before, in dark mode", async () => {
  const host = await person(DEMO_HOST_EMAIL, { dark: true });
  const page = await host.context.newPage();
  // Hold back the page script so the server's fallback can be measured (the page still parses and styles).
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route(/\/assets\/loader-[^/]+\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${url}/create-activity`, { waitUntil: "commit" });
  await page.waitForFunction(() => !!document.querySelector<HTMLLinkElement>('link[rel=stylesheet][href*="/assets/app-"]')?.sheet && !!document.querySelector("form[action='/create-activity'] button[type=submit]"));
  const before = await page.evaluate(() => ({
    title: document.getElementById("field-title")!.getBoundingClientRect().top,
    empty: getComputedStyle(document.querySelector('[data-island="PhotoGrid"] li')!).backgroundColor,
  }));
  expect(before.empty).toBe("rgba(0, 0, 0, 0)");
  release();
  await page.locator('[data-island="PhotoGrid"] [data-hydrated]').waitFor();
  const after = await page.evaluate(() => document.getElementById("field-title")!.getBoundingClientRect().top);
  expect(Math.abs(after - before.title)).toBeLessThanOrEqual(2);
  await host.context.close();
}, 60_000);

test("dark mode: the wizard's chosen category is dark, and a closed chat's message box looks disabled", async () => {
  const host = await person(DEMO_HOST_EMAIL, { dark: true });
  const guest = await person("lea@offline.test", { dark: true });
  const { page, errors } = await open(host.context, "/create-activity-flow");
  const chosen = page.getByRole("radio").first();
  await chosen.click();
  expect(await chosen.getAttribute("aria-checked")).toBe("true");
  const lightness = await chosen.evaluate((el) => {
    const [r, g, b] = (getComputedStyle(el).backgroundColor.match(/[\d.]+/g) ?? []).map(Number);
    return (r! + g! + b!) / 3;
  });
  expect(lightness).toBeLessThan(100);

  const id = await paidRequest(guest, await hostActivity(host.context), 8, "15:00");
  await page.goto(`${url}/bookings/${id}`);
  await page.locator('[data-island="Chat"][data-mounted]').waitFor();
  const box = page.getByRole("textbox", { name: "Message", exact: true });
  expect(await box.isDisabled()).toBe(true);
  const looks = await box.evaluate((el) => {
    const style = getComputedStyle(el);
    return { border: style.borderTopStyle, cursor: style.cursor };
  });
  expect(looks).toEqual({ border: "dashed", cursor: "not-allowed" });
  expect(errors).toEqual([]);
  await Promise.all([host.context.close(), guest.context.close()]);
}, 60_000);

/**
 * A person made with the factories, signed in, in a phone-sized context of their own (the demo
 * accounts are left as they are for the tests above): `dark` sets the theme, `script: false`
 * turns JavaScript off.
 */
async function newPerson(overrides: Parameters<typeof userRow>[0], opts: { complete?: boolean; dark?: boolean; script?: boolean } = {}) {
  const row = await insert(t.db).user(userRow(overrides, { complete: opts.complete ?? true }));
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, javaScriptEnabled: opts.script ?? true });
  const session = await createSession(t.db, row.id, Date.now());
  await context.addCookies([{ name: t.deps.cookies.session, value: session.token, url }]);
  if (opts.dark) await context.addInitScript(() => localStorage.setItem("theme", "dark"));
  return { context, row };
}

/** A date that makes someone 17 today, and one that makes them 30. */
const yearsAgo = (years: number) => {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() - years);
  return d.toISOString().slice(0, 10);
};

/** The text of what the input's aria-describedby names, as read out (hidden parts left out). */
const descriptionOf = (page: Page, selector: string) =>
  page.locator(selector).evaluate((el) =>
    (el.getAttribute("aria-describedby") ?? "")
      .split(/\s+/)
      .map((id) => (document.getElementById(id) as HTMLElement | null)?.innerText ?? "")
      .join(" ")
      .replace(/\s+/g, " ")
      .trim(),
  );

describe("onboarding's age rule, said as soon as the date makes the person under 18", () => {
  for (const [locale, dark, rule] of [
    ["en", false, "You must be at least 18 years old to use this platform"],
    ["fr", true, "Vous devez avoir au moins 18 ans pour utiliser cette plateforme"],
  ] as const) {
    test(`with script, ${locale}, ${dark ? "dark" : "light"}: on screen, legible, tied to the field; gone once the date is fine`, async () => {
      const { context } = await newPerson({ firstName: "Tia", lastName: "Young", username: `tia${Date.now()}`, locale }, { complete: false, dark });
      const { page, errors } = await open(context, "/onboarding?step=3");
      await page.waitForFunction(() => "offline" in window);
      const next = page.locator("button[type=submit][data-needs-valid]");
      const message = page.locator("[data-age-message]");
      expect(await message.isVisible()).toBe(false);
      expect(await descriptionOf(page, "#field-dateOfBirth")).not.toContain(rule);

      await page.locator("#field-dateOfBirth").fill(yearsAgo(17));
      await message.waitFor();
      expect(await next.isDisabled()).toBe(true);
      expect(await page.locator("#field-dateOfBirth").getAttribute("aria-invalid")).toBe("true");
      expect(await descriptionOf(page, "#field-dateOfBirth")).toContain(rule);
      const box = (await message.boundingBox())!;
      expect(box.y + box.height).toBeLessThanOrEqual(740);
      expect(await contrastOf(page, "[data-age-message]")).toBeGreaterThanOrEqual(4.5);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await expectAccessible(page, `onboarding step 3, under 18 (${locale})`);

      await page.locator("#field-dateOfBirth").fill(yearsAgo(30));
      await message.waitFor({ state: "hidden" });
      expect(await next.isDisabled()).toBe(false);
      expect(await page.locator("#field-dateOfBirth").getAttribute("aria-invalid")).toBeNull();
      expect(await descriptionOf(page, "#field-dateOfBirth")).not.toContain(rule);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }

  test("without script, the server's answer says the same under the field", async () => {
    const { context } = await newPerson({ firstName: "Tia", lastName: "Young", username: `tia${Date.now()}` }, { complete: false, script: false });
    const page = await context.newPage();
    await page.goto(`${url}/onboarding?step=3`);
    await page.locator("#field-dateOfBirth").fill(yearsAgo(17));
    await page.locator("button[type=submit]").click();
    await page.waitForLoadState();
    const message = page.locator("[data-age-message]");
    expect(await message.isVisible()).toBe(true);
    expect(await message.innerText()).toContain("You must be at least 18 years old to use this platform");
    expect(await page.locator("#field-dateOfBirth").getAttribute("aria-invalid")).toBe("true");
    expect((await page.locator("#field-dateOfBirth").getAttribute("aria-describedby"))!.split(" ")).toContain("field-dateOfBirth-age");
    await context.close();
  }, 60_000);
});

describe("settings on a phone", () => {
  test("the location form's Save button is visible and sends by keyboard with script on; the date of birth reads in full, in French and dark mode", async () => {
    const { context, row } = await newPerson({ dateOfBirth: "2008-11-23", locale: "fr", country: "United States", city: "New York" }, { dark: true });
    const { page, errors } = await open(context, "/settings");
    await page.waitForFunction(() => "offline" in window);
    // The date of birth as people write it, not cut short.
    const birthday = page.locator('a[href="/settings/birthday"] span.text-right');
    expect(await birthday.innerText()).toBe("23 novembre 2008");
    expect(await birthday.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);

    const save = page.locator('form[action="/settings/location"] button[type=submit]');
    expect(await save.isVisible()).toBe(true);
    expect((await save.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    // A city chosen the way assistive technology can (no change event), then Save by keyboard.
    await page.locator("#field-city").evaluate((el: HTMLSelectElement) => (el.value = "Chicago"));
    await save.focus();
    await page.keyboard.press("Enter");
    await page.getByText("Profil mis à jour").first().waitFor();
    expect((await one(t.db.select().from(users).where(eq(users.id, row.id))))!.city).toBe("Chicago");
    // Still there after the swap, for the next change.
    expect(await save.isVisible()).toBe(true);
    await expectAccessible(page, "settings, location saved (fr, dark)");
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
