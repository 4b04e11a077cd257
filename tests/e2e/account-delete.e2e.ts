import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { strFromU8, unzipSync } from "fflate";
import type { Page } from "playwright-core";
import { expectAccessible, serverAndBrowser } from "./harness";
import { signInAs, signUpAndOnboard } from "./flows";

/**
 * Deleting an account in Chromium against the real server, on a 360 px phone, as a person does
 * (docs/decisions/0057): a copy of their data downloaded first from Settings, then the screen that
 * says what happens, a wrong password refused, then the right one, and the page saying it is done;
 * in English and in French. And an operator deleting an account asked for by email.
 */
// The demo host is an operator here, for the operators' screen.
const OPERATOR = "host@offline.test";
const env = serverAndBrowser({ env: { ADMIN_EMAILS: OPERATOR } });

/** `data.json` of a downloaded copy, a zip or the JSON alone. */
function dataOf(bytes: Uint8Array): Record<string, any> {
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return JSON.parse(strFromU8(unzipSync(bytes)["data.json"]!));
  return JSON.parse(strFromU8(bytes));
}

const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

const WORDS = {
  en: {
    download: "Download my data",
    row: "Delete my account",
    heading: "Delete my account",
    password: "Your password",
    submit: "Delete my account",
    wrong: "This password is not right. Nothing was deleted.",
    done: "Your account has been deleted",
  },
  fr: {
    download: "Télécharger mes données",
    row: "Supprimer mon compte",
    heading: "Supprimer mon compte",
    password: "Votre mot de passe",
    submit: "Supprimer mon compte",
    wrong: "Ce mot de passe n’est pas le bon. Rien n’a été supprimé.",
    done: "Votre compte a été supprimé",
  },
} as const;

for (const language of ["en", "fr"] as const) {
  test(`delete my account from Settings, in ${language === "en" ? "English" : "French"}`, async () => {
    const words = WORDS[language];
    const context = await env.browser.newContext({ viewport: { width: 360, height: 740 }, acceptDownloads: true });
    try {
      const page = await context.newPage();
      const handle = `leaver${language}${Date.now().toString(36)}`;
      const email = `${handle}@example.com`;
      await signUpAndOnboard(page, env.server.url, { email, username: handle, password: "a-good-password" });
      // The language this browser chose (the switch sets the same cookie).
      await context.addCookies([{ name: "lang", value: language, url: env.server.url }]);

      // First a copy of their data (docs/decisions/0056), as the deletion screen suggests.
      await page.goto(`${env.server.url}/settings`);
      const [file] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: words.download }).click()]);
      const data = dataOf(new Uint8Array(readFileSync((await file.path())!)));
      expect(data.profile.email).toBe(email);

      await page.getByRole("link", { name: words.row }).click();
      await page.waitForURL(`${env.server.url}/settings/delete-account`);
      await page.getByRole("heading", { name: words.heading, level: 1 }).waitFor();
      expect(await fitsWidth(page)).toBe(true);
      await expectAccessible(page, `delete account (${language})`);

      // A wrong password: refused, said beside the field, nothing deleted.
      await page.getByLabel(words.password).fill("not-my-password");
      await page.getByRole("button", { name: words.submit }).click();
      await page.getByText(words.wrong).first().waitFor();
      expect(await fitsWidth(page)).toBe(true);
      await expectAccessible(page, `delete account, wrong password (${language})`);

      await page.getByLabel(words.password).fill("a-good-password");
      await page.getByRole("button", { name: words.submit }).click();
      await page.waitForURL(`${env.server.url}/account-deleted`);
      await page.getByRole("heading", { name: words.done }).waitFor();
      expect(await fitsWidth(page)).toBe(true);
      await expectAccessible(page, `account deleted (${language})`);

      // Signed out, and the account no longer signs in.
      expect((await page.request.get(`${env.server.url}/api/user`)).status()).toBe(401);
      const signIn = await page.request.post(`${env.server.url}/api/login`, { data: { email, password: "a-good-password" }, headers: { origin: env.server.url } });
      expect(signIn.status()).toBe(401);
    } finally {
      await context.close();
    }
  });
}

test("an operator deletes an account asked by email, at 360 px, and sees the log", async () => {
  const context = await env.browser.newContext({ viewport: { width: 360, height: 740 } });
  const asker = await env.browser.newContext();
  try {
    const person = await asker.newPage();
    const handle = `asker${Date.now().toString(36)}`;
    const email = `${handle}@example.com`;
    await signUpAndOnboard(person, env.server.url, { email, username: handle });

    const page = await context.newPage();
    await signInAs(page, env.server.url, OPERATOR);
    await page.goto(`${env.server.url}/admin/deletions`);
    await page.getByRole("heading", { name: "Account deletions", level: 1 }).waitFor();
    await page.getByLabel("The account's email").fill(email);
    await page.getByRole("button", { name: "Find the account" }).click();
    await page.getByRole("heading", { name: `Account found: ${email}` }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await expectAccessible(page, "admin deletions, account found");

    await page.getByRole("button", { name: "Delete this account" }).click();
    await page.getByText("The account was deleted and its owner emailed.").first().waitFor();
    const log = page.locator("[data-deletion-log]");
    await log.getByText("An operator").first().waitFor();
    expect(await log.textContent()).not.toContain(email);
    expect(await fitsWidth(page)).toBe(true);
    await expectAccessible(page, "admin deletions, the log");
    // The person was signed out.
    expect((await person.request.get(`${env.server.url}/api/user`)).status()).toBe(401);
  } finally {
    await context.close();
    await asker.close();
  }
});
