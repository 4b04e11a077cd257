import { expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signInAs } from "./flows";
import { axeFindings, islandsRendered, serverAndBrowser, type AxeFinding } from "./harness";

const env = serverAndBrowser();

/**
 * Visits each path in the theme: the page must fit the width and axe must find no serious or
 * critical violation (in the dark theme, among the rules colours decide: the markup is the same).
 * Returns what failed, so one run reports every screen at once.
 */
async function visitAll(page: Page, theme: "light" | "dark", paths: string[]) {
  const problems: { path: string; theme: string; width?: number; findings?: AxeFinding[] }[] = [];
  await page.evaluate((t) => localStorage.setItem("theme", t), theme);
  for (const path of paths) {
    await page.goto(`${env.server.url}${path}`);
    await islandsRendered(page);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    if (width !== 360) problems.push({ path, theme, width });
    const findings = (await axeFindings(page, theme === "dark" ? "colours" : "everything")).filter((f) => f.impact === "serious" || f.impact === "critical");
    if (findings.length) problems.push({ path, theme, findings });
  }
  return problems;
}

async function phone() {
  const context = await env.browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  return { context, page, errors };
}

test("signed-out screens fit a 360 px wide phone and pass axe, in both themes, without script errors", async () => {
  const { context, page, errors } = await phone();
  await page.goto(`${env.server.url}/api/login`);
  const paths = ["/", "/api/login", "/api/login?mode=signup", "/forgot-password", "/reset-password?token=expired", "/verify-email?token=expired", "/no-such-page"];
  expect([...(await visitAll(page, "light", paths)), ...(await visitAll(page, "dark", paths))]).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
});

for (const theme of ["light", "dark"] as const) {
  test(`every signed-in screen fits a 360 px wide phone and passes axe, ${theme} theme, without script errors`, async () => {
    const { context, page, errors } = await phone();
    await signInAs(page, env.server.url, "host@offline.test");
    const activity = await page.locator("#results a[href^='/activity/']").first().getAttribute("href");
    const edit = await page.evaluate(async () => ((await (await fetch("/api/user/activities")).json()) as { id: string }[])[0]!.id);
    const paths = [
      "/", "/browse?city=Paris&category=food&filters=1", activity!, "/host", "/host/activities", "/create-activity", "/create-activity-flow", `/edit-activity/${edit}`,
      "/stripe-connect-setup", "/profile", "/profile/alex.guest", "/edit-profile", "/settings", "/settings/account", "/settings/email", "/settings/password", "/settings/username", "/help", "/reviews", "/saved", "/no-such-page",
    ];
    expect(await visitAll(page, theme, paths)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
}
