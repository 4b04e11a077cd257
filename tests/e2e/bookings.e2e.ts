import { expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { serverAndBrowser } from "./harness";
import { signInAs, dateAhead, dayButton, openRequestDialog } from "./flows";

/** A guest books and pays with the test provider; the host accepts. Real server, real Chromium. */
const env = serverAndBrowser();

const signIn = (page: Page, email: string) => signInAs(page, env.server.url, email);


let activity: { id: string; duration: string } | null = null;
/** One of the demo host's New York activities whose minimum is short enough for every flow below. */
async function demoActivity(browser: Browser) {
  if (activity) return activity;
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, "host@offline.test");
  const list = (await (await page.request.get(`${env.server.url}/api/user/activities`)).json()) as { id: string; duration: string; city: string; format: string }[];
  await context.close();
  activity = list.find((a) => Number(a.duration) <= 1.5 && a.city === "New York" && a.format === "private")!;
  return activity;
}

const bookingCount = async (page: Page) => ((await (await page.request.get(`${env.server.url}/api/bookings`)).json()) as unknown[]).length;

async function fillCard(page: Page, number: string) {
  await page.getByLabel("Card number").fill(number);
  await page.getByLabel("Expiry (MM/YY)").fill("12/34");
  await page.getByLabel("CVC").fill("123");
}

const date = dateAhead(4);

test("a guest picks a date, time and duration, pays with 4242… and the request is sent", async () => {
  const a = await demoActivity(env.browser);
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await signIn(page, "guest@offline.test");
  await page.goto(`${env.server.url}/activity/${a.id}`);
  await page.getByRole("link", { name: "Request & Pay" }).click();
  await page.waitForURL(/\/date-time$/);
  await page.locator("[data-hydrated]").waitFor();
  expect(await page.getByText("Greyed-out durations have been deactivated by the host.").count()).toBeGreaterThan(0);
  expect(await page.locator("[data-test-mode]").count()).toBe(0); // no money taken here
  await (await dayButton(page, date)).click();
  await page.locator('[data-time="10:00"]').click();
  await page.locator("[data-duration]:not([disabled])").first().click();
  await page.locator("[data-total]").waitFor();
  expect(await page.locator("[data-total]").textContent()).toMatch(/\$\d+\.\d\d/);
  await page.getByRole("button", { name: "Continue to Payment" }).click();
  await page.waitForURL(/\/payment$/);
  await page.getByRole("heading", { name: "Confirm & Pay" }).first().waitFor();
  expect(await page.getByText("Cancellation policy").count()).toBe(1);
  expect(await page.locator("[data-test-mode]").count()).toBe(1);
  // A reload keeps the choice: it is kept on the server.
  await page.reload();
  expect(await page.locator("[data-booking-date]").textContent()).toContain(new Date(`${date}T12:00:00Z`).toLocaleDateString("en-US", { month: "long", timeZone: "UTC" }));
  await fillCard(page, "4242 4242 4242 4242");
  await page.getByRole("button", { name: /^Confirm & Pay \$/ }).click();
  await page.waitForURL(/\/booking-success(\?booking=[0-9a-f-]+)?$/);
  await page.getByRole("heading", { name: "Request Sent!" }).waitFor();
  expect(await page.getByText("What happens next?").count()).toBe(1);
  // The success screen cleared the selection: the payment screen goes home.
  await page.goto(`${env.server.url}/booking/${a.id}/payment`);
  await page.waitForURL(`${env.server.url}/`);
  expect(errors).toEqual([]);
  await page.close();
}, 60_000);

test("a declined card shows its message and creates nothing", async () => {
  const a = await demoActivity(env.browser);
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  await signIn(page, "guest@offline.test");
  const before = await bookingCount(page);
  await page.goto(`${env.server.url}/booking/${a.id}/date-time`);
  await page.locator("[data-hydrated]").waitFor();
  await (await dayButton(page, date)).click();
  // 10:00 is now taken by the request above.
  expect(await page.locator('[data-time="10:00"]').isDisabled()).toBe(true);
  await page.locator('[data-time="13:00"]').click();
  await page.locator("[data-duration]:not([disabled])").first().click();
  await page.getByRole("button", { name: "Continue to Payment" }).click();
  await page.waitForURL(/\/payment$/);
  await fillCard(page, "4000 0000 0000 0002");
  await page.getByRole("button", { name: /^Confirm & Pay \$/ }).click();
  await page.getByText("Your card was declined.").waitFor();
  expect(page.url()).toContain("/payment");
  expect(await bookingCount(page)).toBe(before);
  await page.close();
}, 60_000);

test("the booking dialog goes through the hosted test checkout and lands on the bookings list", async () => {
  const a = await demoActivity(env.browser);
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  await signIn(page, "guest@offline.test");
  await page.goto(`${env.server.url}/activity/${a.id}`);
  await openRequestDialog(page);
  await page.getByLabel("Message to the host").fill("Hello! Could we play at 4?");
  await page.getByLabel("Date", { exact: true }).selectOption(date);
  await page.getByLabel("Start").selectOption("16:00");
  const hours = page.getByLabel("Duration");
  const enabled = await hours.locator("option:not([disabled])").first().getAttribute("value");
  await hours.selectOption(enabled!);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.locator("[data-host-rating]").waitFor();
  await page.getByRole("button", { name: /^Pay \$/ }).click();
  await page.waitForURL(/\/payments\/test\/checkout\//);
  expect(await page.locator("[data-test-mode]").count()).toBe(1);
  await fillCard(page, "4242 4242 4242 4242");
  await page.getByRole("button", { name: /^Pay \$/ }).click();
  // Back on the list: the toast came as a flash, and the address is plain /bookings again.
  await page.waitForURL(/\/bookings$/);
  await page.getByText("Payment Successful!").waitFor();
  expect(await page.locator('[data-status="pending"]').count()).toBeGreaterThanOrEqual(2);
  await page.close();
}, 60_000);

test("without JavaScript the same booking works through plain forms", async () => {
  const a = await demoActivity(env.browser);
  const context = await env.browser.newContext({ javaScriptEnabled: false, viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  await signIn(page, "guest@offline.test");
  await page.goto(`${env.server.url}/booking/${a.id}/date-time`);
  await page.locator("#bk-date").fill(date);
  await page.getByRole("button", { name: "Show free times for this date" }).click();
  await page.waitForURL(/date=/);
  // The host's held times are marked taken in the fallback too.
  expect(await page.locator('#bk-time option[value="10:00"]').isDisabled()).toBe(true);
  // An evening hour the host has free (the demo's group classes hold some of their evenings).
  const evening = await page.locator("#bk-time option:not([disabled])").evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value).filter((v) => v >= "17:00"));
  await page.locator("#bk-time").selectOption(evening[0]!);
  const enabled = await page.locator("#bk-duration option:not([disabled])").nth(1).getAttribute("value");
  await page.locator("#bk-duration").selectOption(enabled!);
  await page.getByRole("button", { name: "Continue to Payment" }).click();
  await page.waitForURL(/\/payment$/);
  await fillCard(page, "4242 4242 4242 4242");
  await page.getByRole("button", { name: /^Confirm & Pay \$/ }).click();
  await page.waitForURL(/\/booking-success(\?booking=[0-9a-f-]+)?$/);
  await page.getByRole("heading", { name: "Request Sent!" }).waitFor();
  await context.close();
}, 60_000);

test("the host sees the requests on the dashboard and accepts one", async () => {
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  await signIn(page, "host@offline.test");
  await page.goto(`${env.server.url}/host`);
  const requests = page.locator("[data-request]");
  expect(await requests.count()).toBeGreaterThanOrEqual(3);
  const first = await requests.first().getAttribute("data-request");
  await requests.first().getByRole("button", { name: "Accept" }).click();
  await page.getByText("Booking Accepted").waitFor();
  expect(await page.locator(`[data-request="${first}"]`).count()).toBe(0);
  const res = (await (await page.request.get(`${env.server.url}/api/bookings`)).json()) as { id: string; status: string }[];
  expect(res.find((b) => b.id === first)?.status).toBe("accepted");
  await page.close();
}, 60_000);

test("the host sets up payouts through the test onboarding page and the dashboard stops asking", async () => {
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  await signIn(page, "host@offline.test");
  await page.goto(`${env.server.url}/host`);
  // The demo host has earnings and no payout account yet.
  await page.getByRole("link", { name: "Verify Account to Withdraw" }).click();
  await page.waitForURL(/\/stripe-connect-setup/);
  await page.getByRole("button", { name: "Start Payment Setup" }).click();
  await page.waitForURL(/\/payments\/test\/onboarding\//);
  await page.getByRole("button", { name: "Enable payouts and go back" }).click();
  await page.waitForURL(/\/stripe-connect-setup/);
  await page.getByText("Payouts are enabled").waitFor();
  await page.goto(`${env.server.url}/host`);
  expect(await page.getByRole("link", { name: "Verify Account to Withdraw" }).count()).toBe(0);
  await page.close();
}, 60_000);
