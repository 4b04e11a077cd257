import { afterAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { DEMO_PASSWORD } from "../../src/demo/demo-data";
import { startFakeOidc } from "../fakes/oidc";
import { startFakeSmtp, type ReceivedEmail } from "../fakes/smtp";
import { signUpAndOnboard } from "./flows";
import { expectAccessible, serverAndBrowser } from "./harness";

/**
 * Verified addresses and password reset in Chromium, on a 360 px phone, with a real SMTP server:
 * the links are taken from the emails it received and followed in the browser.
 */
const smtp = await startFakeSmtp();
const oidc = startFakeOidc({ clientId: "offline-e2e", clientSecret: "s3cret" });
const env = serverAndBrowser({
  env: { SMTP_URL: smtp.url, OIDC_ISSUER: oidc.issuer, OIDC_CLIENT_ID: "offline-e2e", OIDC_CLIENT_SECRET: "s3cret", OIDC_NAME: "Acme ID" },
});
afterAll(async () => {
  await smtp.close();
  void oidc.stop();
});

async function phone() {
  const context = await env.browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  return { context, page, errors };
}

/** The page fits the phone's width. */
const fits = async (page: Page) => expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(360);

const linkIn = (mail: ReceivedEmail, path: string) => {
  const link = mail.links.find((l) => l.includes(path));
  if (!link) throw new Error(`no ${path} link in "${mail.subject}"`);
  return link;
};

test("sign up, follow the emailed link, and Settings shows the address verified", async () => {
  const { context, page, errors } = await phone();
  const email = "verify.me@example.com";
  await signUpAndOnboard(page, env.server.url, { email, username: "verify.me" });

  await page.goto(`${env.server.url}/settings/account`);
  await page.getByText("Not verified").first().waitFor();
  await page.getByRole("button", { name: "Resend link" }).waitFor();
  await fits(page);
  await expectAccessible(page, "account settings, address not verified");

  const mail = await smtp.waitFor(email, /Confirm your email address/);
  await page.goto(linkIn(mail, "/verify-email?token="));
  await page.getByRole("heading", { name: "Email verified" }).waitFor();
  expect(await page.getByText(`${email} is verified. Thank you!`).count()).toBe(1);
  await fits(page);
  await expectAccessible(page, "address verified");

  await page.getByRole("link", { name: "Continue" }).click();
  await page.waitForURL(`${env.server.url}/settings/account`);
  await page.getByText("Verified", { exact: true }).waitFor();
  expect(await page.getByText("Not verified").count()).toBe(0);
  expect(await page.getByRole("button", { name: "Resend link" }).count()).toBe(0);

  // The same link again says the address is verified: there is nothing to resend.
  await page.goto(linkIn(mail, "/verify-email?token="));
  await page.getByRole("heading", { name: "Your email is verified" }).waitFor();
  expect(await page.getByRole("button", { name: "Resend link" }).count()).toBe(0);
  await fits(page);
  await expectAccessible(page, "verification link already used");
  expect(errors).toEqual([]);
  await context.close();
});

test("forgot password: the email's link, a new password, signed in; the old password is refused", async () => {
  const { context, page, errors } = await phone();
  const email = "aiko@offline.test";
  await page.goto(`${env.server.url}/api/login`);
  await page.getByLabel("Email").fill(email);
  await page.getByRole("link", { name: "Forgot password?" }).click();
  await page.waitForURL(/\/forgot-password/);
  await page.getByRole("heading", { name: "Reset your password" }).waitFor();
  await fits(page);
  await expectAccessible(page, "forgot password");

  // A typo is refused with the message tied to the field.
  await page.getByLabel("Email").fill("aiko@");
  await page.getByRole("button", { name: "Send reset link" }).click();
  await page.getByText("Please enter a valid email address").waitFor();
  expect(await page.getByLabel("Email").getAttribute("aria-invalid")).toBe("true");
  await expectAccessible(page, "forgot password with an error");

  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Send reset link" }).click();
  await page.getByText(`If an account exists for ${email}, we sent a link to it.`).waitFor();
  await fits(page);
  await expectAccessible(page, "reset link sent");

  const mail = await smtp.waitFor(email, /Reset your Offline password/);
  const link = linkIn(mail, "/reset-password?token=");
  await page.goto(link);
  await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
  await fits(page);
  await expectAccessible(page, "choose a new password");
  await page.getByLabel("New password").fill("12345");
  await page.getByRole("button", { name: "Save new password" }).click();
  await page.getByText("Password must be at least 6 characters").waitFor();
  expect(await page.getByLabel("New password").getAttribute("aria-invalid")).toBe("true");
  await expectAccessible(page, "choose a new password with an error");

  await page.getByLabel("New password").fill("a-brand-new-password");
  await page.getByRole("button", { name: "Save new password" }).click();
  await page.waitForURL(`${env.server.url}/`);
  await page.locator("#toasts").getByText("Password changed").waitFor();
  expect(await page.evaluate(async () => (await fetch("/api/auth/user")).status)).toBe(200);

  // The link worked once.
  await page.goto(link);
  await page.getByRole("heading", { name: "This link no longer works" }).waitFor();
  await page.getByRole("link", { name: "Get a new link" }).waitFor();
  await fits(page);
  await expectAccessible(page, "reset link already used");

  const other = await phone();
  await other.page.goto(`${env.server.url}/api/login`);
  await other.page.getByLabel("Email").fill(email);
  await other.page.getByLabel("Password").fill(DEMO_PASSWORD);
  await other.page.getByRole("button", { name: "Sign In" }).click();
  await other.page.getByText("Incorrect email or password.").waitFor();
  await other.page.getByLabel("Password").fill("a-brand-new-password");
  await other.page.getByRole("button", { name: "Sign In" }).click();
  await other.page.waitForURL(`${env.server.url}/`);
  await other.context.close();
  expect(errors).toEqual([]);
  await context.close();
});

test("a provider's sign-in with an existing account's email: a clear screen, then the password joins them", async () => {
  const { context, page, errors } = await phone();
  const email = "sam@offline.test";
  oidc.setUser({ sub: "sam-at-acme", email, email_verified: true });
  await page.goto(`${env.server.url}/api/login`);
  await page.getByRole("link", { name: "Continue with Acme ID" }).click();
  await page.getByRole("heading", { name: "Link your account" }).waitFor();
  await page.getByText(`An account with ${email} already exists.`).waitFor();
  expect(await page.evaluate(async () => (await fetch("/api/auth/user")).status)).toBe(401);
  await fits(page);
  await expectAccessible(page, "link a provider's account");

  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in and link Acme ID" }).click();
  await page.getByText("Incorrect password.").waitFor();
  expect(await page.getByLabel("Password").getAttribute("aria-invalid")).toBe("true");
  await expectAccessible(page, "link a provider's account, wrong password");

  await page.getByLabel("Password").fill(DEMO_PASSWORD);
  await page.getByRole("button", { name: "Sign in and link Acme ID" }).click();
  await page.waitForURL(`${env.server.url}/`);
  await page.locator("#toasts").getByText("Account linked").waitFor();
  expect(errors).toEqual([]);
  await context.close();
});
