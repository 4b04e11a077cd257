/**
 * A shared phone (docs/decisions/0031-browser-hardening.md): after one person signs out, Back
 * and the offline copies show nothing of theirs to the next person holding the phone.
 */
import { expect, test } from "bun:test";
import { DEMO_GUEST_EMAIL } from "../../src/demo/demo-data";
import { signInAs } from "./flows";
import { serverAndBrowser } from "./harness";

const env = serverAndBrowser();

test("after signing out, Back shows neither the settings with the email nor the bookings, online or offline", async () => {
  const context = await env.browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const url = env.server.url;
  await signInAs(page, url, DEMO_GUEST_EMAIL);
  // The service worker controls the pages from here on, and keeps the bookings for offline reading.
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  await page.goto(`${url}/bookings`);
  await page.goto(`${url}/bookings`);
  expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
  const keptBefore = await page.evaluate(async () => {
    const names = (await caches.keys()).filter((n) => n.startsWith("offline-pages-"));
    const counts = await Promise.all(names.map(async (n) => (await (await caches.open(n)).keys()).length));
    return counts.reduce((a, b) => a + b, 0);
  });
  expect(keptBefore).toBeGreaterThan(0);

  await page.goto(`${url}/settings`);
  await page.getByText(DEMO_GUEST_EMAIL).first().waitFor();

  // Sign out from Settings, as a person does.
  await page.locator("summary", { hasText: "Sign Out" }).click();
  await page.locator('form[action="/api/auth/logout"] button[type=submit]').click();
  await page.waitForURL(`${url}/`);

  // Back: the settings page is asked for again (not restored from a cache) and answered for a visitor.
  const settings = await page.goBack({ waitUntil: "load" });
  expect(new URL(page.url()).pathname).toBe("/settings");
  expect(settings?.headers()["x-offline-user"]).toBe("-");
  expect(await page.content()).not.toContain(DEMO_GUEST_EMAIL);
  // Back again: the bookings are not shown either.
  const bookings = await page.goBack({ waitUntil: "load" });
  expect(new URL(page.url()).pathname).toBe("/bookings");
  expect(bookings?.headers()["x-offline-user"]).toBe("-");
  expect(await page.content()).not.toContain(DEMO_GUEST_EMAIL);

  // The worker's copies went with the sign-out: offline, /bookings is the offline page.
  const keptAfter = await page.evaluate(async () => {
    const names = (await caches.keys()).filter((n) => n.startsWith("offline-pages-"));
    const counts = await Promise.all(names.map(async (n) => (await (await caches.open(n)).keys()).length));
    return counts.reduce((a, b) => a + b, 0);
  });
  expect(keptAfter).toBe(0);
  await context.setOffline(true);
  await page.goto(`${url}/bookings`).catch(() => {});
  expect(await page.content()).not.toContain(DEMO_GUEST_EMAIL);
  await context.close();
}, 90_000);
