import { expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { expectAccessible, serverAndBrowser } from "./harness";
import { findWeekendMorningForTwoByPrice, signInAs } from "./flows";

/**
 * Saved activities in Chromium on a 360 px phone (docs/decisions/0055): a guest saves an
 * activity from browse, loses the connection, opens Saved and reads the activity's page; a
 * heart pressed while offline is sent once the connection is back.
 */
const env = serverAndBrowser();

/** Polls `check` until it holds. */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

/** The pages the service worker keeps for the Saved list, by path. */
const keptSaved = (page: Page) =>
  page.evaluate(async () => {
    const names = (await caches.keys()).filter((n) => n.startsWith("offline-saved-"));
    const keys = await Promise.all(names.map(async (n) => (await (await caches.open(n)).keys()).map((r) => new URL(r.url).pathname)));
    return keys.flat();
  });

/**
 * Waits until the service worker controls the page. It claims the pages open when it activates;
 * a page that finished loading while the worker was still installing under load is controlled
 * from its next load, as it is for a person who reads on.
 */
async function controlled(page: Page) {
  await page.evaluate(async () => void (await navigator.serviceWorker.ready));
  if (!(await page.evaluate(() => navigator.serviceWorker.controller !== null))) await page.reload();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
}

/** The activity id of the index-th heart (it posts to `/saved/{id}`). */
const activityOf = async (page: Page, index: number) => (await page.locator('button[form="hearts"]').nth(index).getAttribute("formaction"))!.slice("/saved/".length);
/** The heart of an activity. */
const heartOf = (page: Page, activityId: string, pressed?: boolean) =>
  page.locator(`button[formaction="/saved/${activityId}"]${pressed === undefined ? "" : `[aria-pressed="${pressed}"]`}`);

test("a guest saves an activity from browse, goes offline, opens Saved and reads it; a save made offline is sent once back online", async () => {
  const { url } = env.server;
  const context = await env.browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  try {
    await signInAs(page, url, "guest@offline.test");
    await page.goto(`${url}/browse?city=New%20York`);
    await controlled(page);

    // The first card's heart: "Save {title}", not pressed.
    const firstId = await activityOf(page, 0);
    const firstHeart = heartOf(page, firstId);
    const label = (await firstHeart.getAttribute("aria-label"))!;
    expect(label).toStartWith("Save ");
    const title = label.slice("Save ".length);
    expect(await firstHeart.getAttribute("aria-pressed")).toBe("false");
    await expectAccessible(page, "browse with hearts, 360 px");

    await firstHeart.click();
    await heartOf(page, firstId, true).waitFor();
    expect(await firstHeart.getAttribute("aria-label")).toBe("Saved");
    // Only that heart was swapped: the next one is as it was.
    expect(await heartOf(page, await activityOf(page, 1)).getAttribute("aria-pressed")).toBe("false");
    // The worker keeps the Saved page and the saved activity's page for reading offline.
    await until(async () => {
      const kept = await keptSaved(page);
      return kept.includes("/saved") && kept.includes(`/activity/${firstId}`);
    }, "the Saved page and the activity's page to be kept");

    // No connection. A heart pressed now is queued, and shows as pressed.
    await context.setOffline(true);
    const secondId = await activityOf(page, 1);
    const secondHeart = heartOf(page, secondId);
    await secondHeart.click();
    await heartOf(page, secondId, true).waitFor();
    expect(await secondHeart.getAttribute("aria-label")).toBe("Saved");

    // Saved, from the menu, offline: the list as it was kept, and the activity's page.
    await page.getByRole("link", { name: "Saved", exact: true }).click();
    await page.getByRole("heading", { name: "Saved" }).waitFor();
    await page.getByText("You're offline. Some features may be limited.").waitFor();
    const item = page.locator(`[data-saved-activity="${firstId}"]`);
    expect(await item.innerText()).toContain(title);
    await expectAccessible(page, "Saved, offline, 360 px");
    await item.getByRole("link").click();
    await page.waitForURL(`${url}/activity/${firstId}`);
    await page.getByRole("heading", { name: title }).waitFor();
    expect(await heartOf(page, firstId).getAttribute("aria-pressed")).toBe("true");
    await expectAccessible(page, "a saved activity, offline, 360 px");

    // The server has not heard of the second save yet; once back online, it has, once.
    const savedIds = async () => ((await (await page.request.get(`${url}/api/saved`)).json()) as { activityId: string }[]).map((s) => s.activityId);
    expect(await savedIds()).toEqual([firstId]);
    await context.setOffline(false);
    await until(async () => (await savedIds()).includes(secondId), "the save made offline to reach the server");
    expect(await savedIds()).toEqual([secondId, firstId]);
    await page.goto(`${url}/saved`);
    await page.locator(`[data-saved-activity="${secondId}"]`).waitFor();
    expect(await page.locator("[data-saved-activity]").count()).toBe(2);
  } finally {
    await context.close();
  }
}, 120_000);

test("without JavaScript, the heart is a form that comes back to the page, pressed", async () => {
  const { url } = env.server;
  const context = await env.browser.newContext({ viewport: { width: 360, height: 740 }, javaScriptEnabled: false });
  const page = await context.newPage();
  try {
    await signInAs(page, url, "guest@offline.test");
    await page.goto(`${url}/browse?city=Paris`);
    const id = await activityOf(page, 0);
    const label = (await heartOf(page, id).getAttribute("aria-label"))!;
    await page.getByRole("button", { name: label }).click();
    await page.waitForURL(`${url}/browse?city=Paris`);
    await page.getByText("Find it again under Saved.").waitFor();
    expect(await heartOf(page, id).getAttribute("aria-pressed")).toBe("true");
    await page.goto(`${url}/activity/${id}`);
    await page.getByRole("button", { name: "Saved", exact: true }).click();
    await page.waitForURL(`${url}/activity/${id}`);
    await page.getByText("Removed from Saved").waitFor();
    expect(await heartOf(page, id).getAttribute("aria-label")).toBe(label);
  } finally {
    await context.close();
  }
}, 60_000);

test("a plain form post goes through the worker: sent online, queued offline and sent once back", async () => {
  const { url } = env.server;
  const context = await env.browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  try {
    await signInAs(page, url, "guest@offline.test");
    await page.goto(`${url}/browse?city=London`);
    await controlled(page);
    const id = await activityOf(page, 0);
    // The form a page without script (or the Saved page's Remove) posts: a navigation, not htmx.
    const post = (save: string) =>
      page.evaluate(
        ({ id, save }) => {
          const form = Object.assign(document.createElement("form"), { method: "post", action: `/saved/${id}` });
          const csrf = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')!.content;
          for (const [name, value] of [["_csrf", csrf], ["save", save], ["back", `/activity/${id}`]] as const) form.append(Object.assign(document.createElement("input"), { type: "hidden", name, value }));
          document.body.append(form);
          form.submit();
        },
        { id, save },
      );
    const savedIds = async () => ((await (await page.request.get(`${url}/api/saved`)).json()) as { activityId: string }[]).map((s) => s.activityId);

    await post("1");
    await page.waitForURL(`${url}/activity/${id}`);
    await page.getByText("Find it again under Saved.").waitFor();
    expect(await heartOf(page, id).getAttribute("aria-pressed")).toBe("true");
    await until(async () => (await keptSaved(page)).includes(`/activity/${id}`), "the saved page to be kept");

    // Offline, the worker queues it and sends the browser back to the page, as kept.
    await context.setOffline(true);
    await post("0");
    await page.waitForURL(`${url}/activity/${id}`);
    await page.getByText("You're offline. Some features may be limited.").waitFor();
    expect(await savedIds()).toContain(id);
    await context.setOffline(false);
    await page.goto(`${url}/saved`);
    await until(async () => !(await savedIds()).includes(id), "the unsave made offline to reach the server");
  } finally {
    await context.close();
  }
}, 60_000);

test("back online, a save the worker could not send at once is sent a moment later, without opening a page", async () => {
  const { url } = env.server;
  const context = await env.browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  try {
    await signInAs(page, url, "guest@offline.test");
    await page.goto(`${url}/browse?city=Tokyo`);
    await controlled(page);
    const id = await activityOf(page, 0);
    const savedIds = async () => ((await (await page.request.get(`${url}/api/saved`)).json()) as { activityId: string }[]).map((s) => s.activityId);

    await context.setOffline(true);
    await heartOf(page, id).click();
    await heartOf(page, id, true).waitFor();
    // The page is back online before the worker's first send can get through (as when a browser
    // brings its pages back before its workers): that send fails, and nothing opens a page after.
    let refused = 0;
    await context.route(`${url}/api/saved/${id}`, (route) => (refused++ === 0 ? route.abort("internetdisconnected") : route.fallback()));
    await context.setOffline(false);
    await until(async () => (await savedIds()).includes(id), "the save to be sent again", 20_000);
    expect(refused).toBeGreaterThanOrEqual(2);
  } finally {
    await context.close();
  }
}, 60_000);

test("the whole story at 360 px: this weekend, morning, 2 people, under $60, by price; saved; read offline from Saved", async () => {
  const { url } = env.server;
  const context = await env.browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  try {
    await signInAs(page, url, "guest@offline.test");
    await page.goto(`${url}/browse?city=New%20York`);
    await controlled(page);

    await findWeekendMorningForTwoByPrice(page);

    // The cheapest weekend morning for two: its heart, in the results htmx swapped in.
    const id = await activityOf(page, 0);
    const heart = heartOf(page, id);
    const title = (await heart.getAttribute("aria-label"))!.slice("Save ".length);
    const card = (await page.locator("#results li").first().innerText()).replace(/\s+/g, " ");
    expect(card).toContain(title);
    // Its first start is a weekend morning, under $60 a person or an hour.
    expect(card).toMatch(/(Sat|Sun) ([89]|1[01]):\d\d AM/);
    expect(Number(/\$(\d+)/.exec(card)![1])).toBeLessThanOrEqual(60);
    await expectAccessible(page, "browse filtered by when, with hearts");
    await heart.click();
    await heartOf(page, id, true).waitFor();
    await until(async () => (await keptSaved(page)).includes(`/activity/${id}`), "the saved activity's page to be kept");

    await context.setOffline(true);
    await page.getByRole("link", { name: "Saved", exact: true }).click();
    await page.getByRole("heading", { name: "Saved" }).waitFor();
    await page.locator(`[data-saved-activity="${id}"]`).getByRole("link").click();
    await page.waitForURL(`${url}/activity/${id}`);
    await page.getByRole("heading", { name: title }).waitFor();
    await page.getByText("You're offline. Some features may be limited.").waitFor();
    expect(await page.locator("main").innerText()).toContain(title);
  } finally {
    await context.close();
  }
}, 120_000);
