import { expect, test } from "bun:test";
import { makeJpeg } from "../images";
import { next } from "./flows";
import { expectAccessible, serverAndBrowser } from "./harness";

const env = serverAndBrowser();

test("a new user signs up from the landing page, completes onboarding and reaches the app", async () => {
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  // Answers with an error status (refused forms) are expected here.
  page.on("console", (m) => m.type() === "error" && !m.text().startsWith("Failed to load resource") && errors.push(m.text()));

  await page.goto(env.server.url);
  expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Find amazing activities in your city");
  await expectAccessible(page, "landing");
  await page.getByRole("link", { name: "Get Started" }).click();
  // A bad password is refused with the message, and the email is kept.
  await page.getByLabel("Email").fill("newcomer@example.com");
  await page.getByLabel("Password").fill("123");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByText("Password must be at least 6 characters").waitFor();
  expect(await page.getByLabel("Email").inputValue()).toBe("newcomer@example.com");
  await expectAccessible(page, "sign-up form with an error");

  await page.getByLabel("Password").fill("a-good-password");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(/\/onboarding/);
  // Step 1 has no back button; Next waits for both names.
  expect(await page.getByRole("link", { name: "Back" }).count()).toBe(0);
  expect(await next(page).isDisabled()).toBe(true);
  await expectAccessible(page, "onboarding step 1");
  await page.getByLabel("First name").fill("Nina");
  expect(await next(page).isDisabled()).toBe(true);
  await page.getByLabel("Last name").fill("Park");
  expect(await next(page).isDisabled()).toBe(false);
  await next(page).click();

  // Step 2: lowercased as typed; a taken name blocks Next.
  await page.waitForURL(/step=2/);
  const username = page.getByLabel("Username");
  await username.pressSequentially("Maya.Host", { delay: 20 });
  expect(await username.inputValue()).toBe("maya.host");
  await page.getByText("Username not available").waitFor();
  expect(await next(page).isDisabled()).toBe(true);
  await expectAccessible(page, "onboarding step 2, name taken");
  await username.fill("");
  await username.pressSequentially("ab", { delay: 20 });
  await page.getByText("Username must be at least 3 characters").waitFor();
  expect(await next(page).isDisabled()).toBe(true);
  await username.pressSequentially("c.nina", { delay: 20 });
  await page.getByText("Username available").waitFor();
  await next(page).click();

  // Step 3: under 18 is refused by the server with the spec's message.
  await page.waitForURL(/step=3/);
  const tooYoung = new Date();
  tooYoung.setUTCFullYear(tooYoung.getUTCFullYear() - 17);
  await page.getByLabel("Birthday").evaluate((el: HTMLInputElement, v: string) => {
    el.removeAttribute("max");
    el.value = v;
    el.dispatchEvent(new Event("input", { bubbles: true }));
  }, tooYoung.toISOString().slice(0, 10));
  await next(page).click();
  await page.getByText("You must be at least 18 years old to use this platform").waitFor();
  await expectAccessible(page, "onboarding step 3, refused birthday");
  await page.getByLabel("Birthday").fill("1995-04-02");
  await next(page).click();

  // Step 4: a real photo upload enables Next.
  await page.waitForURL(/step=4/);
  await page.locator("[data-hydrated]").waitFor();
  expect(await next(page).isDisabled()).toBe(true);
  await page.locator("input[data-photo-input]").first().setInputFiles({ name: "me.jpg", mimeType: "image/jpeg", buffer: Buffer.from(await makeJpeg({ width: 1600, height: 1200 })) });
  const photo = page.locator("img[data-photo]").first();
  await photo.waitFor();
  expect(await photo.evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth))).toBe(480);
  expect(await next(page).isDisabled()).toBe(false);
  await expectAccessible(page, "onboarding step 4 with a photo");
  await next(page).click();

  // Step 5: choosing a country resets the city.
  await page.waitForURL(/step=5/);
  await page.getByLabel("Country").selectOption("France");
  await page.locator("#field-city option", { hasText: "Lyon" }).waitFor({ state: "attached" });
  expect(await page.getByLabel("City").inputValue()).toBe("");
  await page.getByLabel("City").selectOption("Lyon");
  await expectAccessible(page, "onboarding step 5");
  await page.getByRole("button", { name: "Complete Profile" }).click();
  await page.waitForURL(`${env.server.url}/browse`);
  await page.getByText("Profile completed!").waitFor();
  await expectAccessible(page, "browse with a toast");
  await page.getByRole("heading", { name: "Activities in Lyon" }).waitFor();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

  // F8 moves focus to the notifications; the toast leaves by itself after 5 s.
  await page.keyboard.press("F8");
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("toasts");
  await page.locator("h1").click();
  await page.waitForSelector("#toasts .toast", { state: "detached", timeout: 8000 });

  // Signing out returns to the landing page; signing in from a deep link comes back to it.
  await page.evaluate(async () => {
    const token = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')!.content;
    await fetch("/api/auth/logout", { method: "POST", headers: { "X-CSRF-Token": token, "Content-Type": "application/json" }, body: "{}" });
  });
  await page.goto(`${env.server.url}/settings`);
  await page.getByRole("link", { name: "Sign In" }).first().click();
  await page.getByLabel("Email").fill("newcomer@example.com");
  await page.getByLabel("Password").fill("a-good-password");
  await page.getByRole("button", { name: "Sign In" }).click();
  await page.waitForURL(`${env.server.url}/settings`);

  expect(errors).toEqual([]);
  await page.close();
});

test("the demo guest signs in and sees demo activities with their photos", async () => {
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  await page.goto(`${env.server.url}/api/login`);
  await page.getByLabel("Email").fill("guest@offline.test");
  await page.getByLabel("Password").fill("offline-demo");
  await page.getByRole("button", { name: "Sign In" }).click();
  await page.waitForURL(`${env.server.url}/`);
  expect(await page.locator("main ul > li").count()).toBeGreaterThan(5);
  const loaded = await page.locator("main ul > li img").first().evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth));
  expect(loaded).toBeGreaterThan(0);
  await page.close();
});

test("the offline banner follows the connection", async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  await page.goto(env.server.url);
  const banner = page.getByText("You're offline. Some features may be limited.");
  expect(await banner.isVisible()).toBe(false);
  await context.setOffline(true);
  await banner.waitFor({ state: "visible" });
  await context.setOffline(false);
  await banner.waitFor({ state: "hidden" });
  await context.close();
});
