import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { launchBrowser, startServer } from "./harness";

let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;
beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

test("a new user signs up from the landing page and reaches the app", async () => {
  const page = await browser.newPage({ viewport: { width: 360, height: 740 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  // Answers with an error status (the refused form, pages still to come) are expected here.
  page.on("console", (m) => m.type() === "error" && !m.text().startsWith("Failed to load resource") && errors.push(m.text()));

  await page.goto(server.url);
  await expect(page.getByRole("heading", { level: 1 }).textContent()).resolves.toBe("Find amazing activities in your city");
  await page.getByRole("link", { name: "Get Started" }).click();
  await page.waitForURL(/\/api\/login\?mode=signup/);

  // A bad password is refused with the message, and the email is kept.
  await page.getByLabel("Email").fill("newcomer@example.com");
  await page.getByLabel("Password").fill("123");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("Password must be at least 6 characters").isVisible()).resolves.toBe(true);
  expect(await page.getByLabel("Email").inputValue()).toBe("newcomer@example.com");

  await page.getByLabel("Password").fill("a-good-password");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(`${server.url}/`);
  await expect(page.getByRole("heading", { name: "Activities in New York" }).isVisible()).resolves.toBe(true);
  await expect(page.getByRole("status").filter({ hasText: "Account created" }).isVisible()).resolves.toBe(true);
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link", { name: "Browse" }).getAttribute("aria-current")).resolves.toBe("page");

  // The page fits a 360 px phone: nothing scrolls sideways.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

  // F8 moves focus to the notifications; the toast leaves by itself after 5 s.
  await page.keyboard.press("F8");
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("toasts");
  await page.mouse.move(0, 0);
  await page.locator("body").click({ position: { x: 5, y: 5 } });
  await page.waitForSelector("#toasts .toast", { state: "detached", timeout: 8000 });

  // Signing out returns to the landing page.
  await page.evaluate(async () => {
    const token = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')!.content;
    await fetch("/api/auth/logout", { method: "POST", headers: { "X-CSRF-Token": token, "Content-Type": "application/json" }, body: "{}" });
  });
  await page.goto(`${server.url}/bookings`);
  await expect(page.getByRole("link", { name: "Get Started" }).isVisible()).resolves.toBe(true);

  // And signing in from a deep link comes back to it.
  await page.getByRole("link", { name: "Sign In" }).first().click();
  await page.getByLabel("Email").fill("newcomer@example.com");
  await page.getByLabel("Password").fill("a-good-password");
  await page.getByRole("button", { name: "Sign In" }).click();
  await page.waitForURL(`${server.url}/bookings`);

  expect(errors).toEqual([]);
  await page.close();
});

test("the demo guest signs in and sees demo activities with their photos", async () => {
  const page = await browser.newPage({ viewport: { width: 360, height: 740 } });
  await page.goto(`${server.url}/api/login`);
  await page.getByLabel("Email").fill("guest@offline.test");
  await page.getByLabel("Password").fill("offline-demo");
  await page.getByRole("button", { name: "Sign In" }).click();
  await page.waitForURL(`${server.url}/`);
  const cards = page.locator("main ul > li");
  expect(await cards.count()).toBeGreaterThan(5);
  const loaded = await page.locator("main ul > li img").first().evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth));
  expect(loaded).toBeGreaterThan(0);
  await page.close();
});

test("the offline banner follows the connection", async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.url);
  const banner = page.getByText("You're offline. Some features may be limited.");
  expect(await banner.isVisible()).toBe(false);
  await context.setOffline(true);
  await banner.waitFor({ state: "visible" });
  await context.setOffline(false);
  await banner.waitFor({ state: "hidden" });
  await context.close();
});
