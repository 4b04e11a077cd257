import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import type { PreferenceKey } from "../../src/notifications/rules";
import { unsubscribeToken } from "../../src/email/unsubscribe";
import { expectAccessible, serverAndBrowser } from "./harness";
import { signInAs } from "./flows";

/**
 * One-click unsubscribe in Chromium against the real server: the link of an email asks first,
 * its button stops that kind of email (and push), and Settings shows the switch off, whether the
 * person follows the link signed in or not, on a phone-sized screen.
 */
const env = serverAndBrowser();

/** The link an email to this person about this kind carries, signed with the server's secret. */
function linkFor(userId: string, kind: PreferenceKey) {
  const { sessionSecret } = JSON.parse(readFileSync(join(env.server.dataDir, "secrets.json"), "utf8")) as { sessionSecret: string };
  return `${env.server.url}/email/unsubscribe?t=${unsubscribeToken({ secrets: { sessionSecret } as never }, userId, kind)}`;
}

async function userIdOf(page: Page) {
  return ((await (await page.request.get(`${env.server.url}/api/auth/user`)).json()) as { id: string }).id;
}

const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

test("signed in: open the link, press the button, and Settings shows the switch off", async () => {
  const context = await env.browser.newContext({ viewport: { width: 360, height: 740 } });
  try {
    const page = await context.newPage();
    await signInAs(page, env.server.url, "guest@offline.test");
    const link = linkFor(await userIdOf(page), "messages");

    await page.goto(link);
    await page.getByRole("heading", { name: "Stop “Messages” emails?" }).waitFor();
    await page.getByText("This also stops push notifications about it").waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await expectAccessible(page, "unsubscribe, asking");

    await page.getByRole("button", { name: "Stop these emails" }).click();
    await page.getByRole("heading", { name: "You're unsubscribed" }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await expectAccessible(page, "unsubscribe, done");

    await page.getByRole("link", { name: "Open Settings" }).click();
    await page.waitForURL(`${env.server.url}/settings`);
    const card = page.locator("#push-card");
    // The switches govern email too: shown whether or not this browser has push on.
    const messages = card.getByRole("switch", { name: /^Messages/ });
    await messages.waitFor();
    expect(await messages.isChecked()).toBe(false);
    expect(await card.getByRole("switch", { name: /^Reminders/ }).isChecked()).toBe(true);
    await card.getByText("Each switch governs both the emails we send you and push notifications").waitFor();
    await expectAccessible(page, "settings after unsubscribing");

    // Turned back on from Settings, at once.
    const saved = page.waitForResponse((r) => r.url().endsWith("/api/notifications/preferences") && r.request().method() === "POST");
    await messages.click();
    expect((await saved).status()).toBe(200);
    await page.reload();
    expect(await card.getByRole("switch", { name: /^Messages/ }).isChecked()).toBe(true);
  } finally {
    await context.close();
  }
});

test("not signed in (another device): the button works without a session, and a broken link says so", async () => {
  const signedIn = await env.browser.newContext();
  const visitor = await env.browser.newContext({ viewport: { width: 360, height: 740 } });
  try {
    const owner = await signedIn.newPage();
    await signInAs(owner, env.server.url, "host@offline.test");
    const link = linkFor(await userIdOf(owner), "reminders");

    const page = await visitor.newPage();
    await page.goto(link);
    await page.getByRole("button", { name: "Stop these emails" }).click();
    await page.getByRole("heading", { name: "You're unsubscribed" }).waitFor();
    await expectAccessible(page, "unsubscribe, done, signed out");

    await owner.goto(`${env.server.url}/settings`);
    expect(await owner.locator("#push-card").getByRole("switch", { name: /^Reminders/ }).isChecked()).toBe(false);

    const broken = await page.goto(`${link.slice(0, -3)}xyz`);
    expect(broken!.status()).toBe(400);
    await page.getByRole("heading", { name: "This link does not work" }).waitFor();
    await expectAccessible(page, "unsubscribe, broken link");
  } finally {
    await signedIn.close();
    await visitor.close();
  }
});
