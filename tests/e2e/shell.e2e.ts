import { expect, test } from "bun:test";
import { expectAccessible, serverAndBrowser } from "./harness";

const env = serverAndBrowser({ env: { DEMO_DATA: "false" } });

test("the theme persists across reloads and is applied before first paint", async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  await page.goto(env.server.url);
  expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(false);
  await page.getByRole("button", { name: "Dark theme" }).click();
  expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(true);
  expect(await page.evaluate(() => localStorage.getItem("theme"))).toBe("dark");

  // Record the class at the very first parse of <body>, before any of our deferred scripts run.
  await page.addInitScript(() => {
    document.addEventListener("readystatechange", () => {
      if (document.readyState === "interactive") (window as unknown as { firstPaintDark: boolean }).firstPaintDark = document.documentElement.classList.contains("dark");
    });
  });
  await page.reload();
  expect(await page.evaluate(() => (window as unknown as { firstPaintDark: boolean }).firstPaintDark)).toBe(true);
  const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expect(background).toBe("rgb(18, 17, 16)");
  await expectAccessible(page, "landing, dark");
  expect(await page.getByRole("button", { name: "Dark theme" }).getAttribute("aria-pressed")).toBe("true");

  await page.getByRole("button", { name: "Dark theme" }).click();
  await page.reload();
  expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(false);
  await context.close();
});

test("a page with no island loads no React; the install card shows when installable, still without React", async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const scripts = new Map<string, number>();
  page.on("response", async (r) => {
    if (r.request().resourceType() === "script") scripts.set(new URL(r.url()).pathname, (await r.body()).length);
  });
  await page.goto(env.server.url);
  await page.waitForLoadState("networkidle");
  const before = new Set(scripts.keys());
  const bytesBefore = [...scripts.values()].reduce((a, b) => a + b, 0);
  // htmx and our few lines of shell script, but no React (which alone is ~190 KB minified).
  expect(bytesBefore).toBeLessThan(80_000);
  expect(await page.getByRole("dialog").count()).toBe(0);

  // The browser announces the app can be installed.
  await page.evaluate(() => {
    const event = new Event("beforeinstallprompt", { cancelable: true });
    Object.assign(event, { prompt: async () => ((window as unknown as { prompted: boolean }).prompted = true), userChoice: Promise.resolve({ outcome: "accepted" }) });
    window.dispatchEvent(event);
  });
  const card = page.getByRole("dialog", { name: "Install Offline" });
  await card.waitFor();
  expect(await card.getByText("Add Offline to your home screen for quick access.").isVisible()).toBe(true);
  await expectAccessible(page, "landing with the install card");
  await page.waitForLoadState("networkidle");
  // Showing the card fetched no script at all: no island, no React.
  expect([...scripts.keys()].filter((path) => !before.has(path))).toEqual([]);

  await card.getByRole("button", { name: "Install" }).click();
  await card.waitFor({ state: "hidden" });
  expect(await page.evaluate(() => (window as unknown as { prompted: boolean }).prompted)).toBe(true);

  // "Not now" is remembered.
  await page.reload();
  await page.evaluate(() => window.dispatchEvent(Object.assign(new Event("beforeinstallprompt"), { prompt: async () => {} })));
  await page.getByRole("button", { name: "Not now" }).click();
  await card.waitFor({ state: "hidden" });
  expect(await page.evaluate(() => localStorage.getItem("install-dismissed"))).toBe("true");
  await page.reload();
  await page.evaluate(() => window.dispatchEvent(Object.assign(new Event("beforeinstallprompt"), { prompt: async () => {} })));
  await page.waitForTimeout(300);
  expect(await page.getByRole("dialog").count()).toBe(0);
  await context.close();
});

test("the install card speaks the page's language", async () => {
  const context = await env.browser.newContext({ locale: "fr-FR", extraHTTPHeaders: { "Accept-Language": "fr" } });
  const page = await context.newPage();
  await page.goto(env.server.url);
  await page.evaluate(() => window.dispatchEvent(Object.assign(new Event("beforeinstallprompt"), { prompt: async () => {} })));
  const card = page.getByRole("dialog", { name: "Installer Offline" });
  await card.waitFor();
  expect(await card.getByRole("button", { name: "Plus tard" }).isVisible()).toBe(true);
  await context.close();
});

test("a toast can be swiped away to the right", async () => {
  const context = await env.browser.newContext({ hasTouch: true });
  const page = await context.newPage();
  await page.goto(`${env.server.url}/api/login?mode=signup`);
  await page.getByLabel("Email").fill("swiper@example.com");
  await page.getByLabel("Password").fill("swipe-me-please");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(/\/onboarding/);
  const toast = page.locator("#toasts .toast");
  await toast.waitFor();
  await expectAccessible(page, "onboarding with a toast");
  const box = (await toast.boundingBox())!;
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + 20, y);
  await page.mouse.down();
  await page.mouse.move(box.x + 50, y, { steps: 3 });
  await page.mouse.move(box.x + 90, y, { steps: 3 });
  await page.mouse.up();
  await toast.waitFor({ state: "detached", timeout: 2000 });
  await context.close();
});

test("an island that arrives in an htmx swap is mounted", async () => {
  // Without the service worker: requests a worker takes over can slip past page.route, and which
  // ones it takes depends on when it claims the page (a race this test is not about).
  const page = await env.browser.newPage({ serviceWorkers: "block" });
  await page.goto(env.server.url);
  await page.waitForFunction(() => "htmx" in window);
  // Serve a fragment holding an island and swap it in with htmx, as any screen would.
  await page.route("**/fragment-with-island", (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<div data-island="AddressInput" data-props='{"name":"swapped","value":"Swapped in","label":"Address","placeholder":"","geocoderUrl":"","near":"","maxLength":200}'></div>`,
    }),
  );
  await page.evaluate(() => {
    const target = document.createElement("div");
    target.id = "swap-target";
    document.body.append(target);
    return (window as unknown as { htmx: { ajax(verb: string, path: string, target: string): Promise<void> } }).htmx.ajax("GET", "/fragment-with-island", "#swap-target");
  });
  await page.locator("#swap-target [data-hydrated]").waitFor();
  expect(await page.getByRole("combobox", { name: "Address" }).inputValue()).toBe("Swapped in");
  await page.close();
});
