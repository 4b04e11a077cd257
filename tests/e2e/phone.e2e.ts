import { expect, test } from "bun:test";
import { serverAndBrowser } from "./harness";

const env = serverAndBrowser();

test("every screen fits a 360 px wide phone, in both themes, without script errors", async () => {
  const context = await env.browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${env.server.url}/api/login`);
  await page.getByLabel("Email").fill("host@offline.test");
  await page.getByLabel("Password").fill("offline-demo");
  await page.getByRole("button", { name: "Sign In" }).click();
  await page.waitForURL(`${env.server.url}/`);
  const activity = await page.locator("#results a[href^='/activity/']").first().getAttribute("href");
  const edit = await page.evaluate(async () => ((await (await fetch("/api/user/activities")).json()) as { id: string }[])[0]!.id);
  const paths = [
    "/", "/browse?city=Paris&category=food&filters=1", activity!, "/host", "/host/activities", "/create-activity", "/create-activity-flow", `/edit-activity/${edit}`,
    "/stripe-connect-setup", "/profile", "/profile/alex.guest", "/edit-profile", "/settings", "/settings/account", "/settings/password", "/settings/username", "/help", "/reviews", "/no-such-page",
  ];
  for (const theme of ["light", "dark"]) {
    await page.evaluate((t) => localStorage.setItem("theme", t), theme);
    for (const path of paths) {
      await page.goto(`${env.server.url}${path}`);
      await page.waitForLoadState("networkidle");
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect({ path, theme, width }).toEqual({ path, theme, width: 360 });
    }
  }
  expect(errors).toEqual([]);
  await context.close();
});
