import { expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { closeDb, one, writeTransaction } from "../../db/client";
import { bookings } from "../../db/schema";
import { openDatabaseOf } from "../helpers";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expectAccessible, serverAndBrowser } from "./harness";
import { signInAs, dateAhead } from "./flows";

/**
 * The bookings inbox and a conversation with JavaScript turned off, in real Chromium: a guest's
 * paid request reaches the host, who accepts it from the conversation; the two exchange messages
 * through the plain form; the host marks the activity complete once it has started. (The live,
 * JavaScript flow is the chat island's own test.)
 */
const env = serverAndBrowser();

async function noScript(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 360, height: 740 } });
  return { context, page: await context.newPage() };
}

const signIn = (page: Page, email: string) => signInAs(page, env.server.url, email);

const toast = (page: Page) => page.locator("#toasts .toast");

/**
 * axe runs as a script in the page, which a context without JavaScript cannot run: the same
 * person's session opens the same page in a context with it (the page is the same server HTML).
 * One such context per person, opened at their first check.
 */
const withScript = new Map<BrowserContext, Promise<Page>>();
async function checkAccessible(signedIn: BrowserContext, path: string, label: string) {
  if (!withScript.has(signedIn)) {
    withScript.set(signedIn, (async () => (await env.browser.newContext({ storageState: await signedIn.storageState(), viewport: { width: 360, height: 740 } })).newPage())());
  }
  const page = await withScript.get(signedIn)!;
  await page.goto(`${env.server.url}${path}`);
  await expectAccessible(page, label);
  // Left open on a conversation, its live chat would read what arrives next, which the tests count.
  await page.goto("about:blank");
}

let bookingId = "";

test("without JavaScript: the guest's paid request reaches the host, who accepts it from the conversation", async () => {
  const guest = await noScript(env.browser);
  await signIn(guest.page, "guest@offline.test");
  // One of the demo host's New York activities, booked through the plain date-time and payment forms.
  const activities = (await (await guest.page.request.get(`${env.server.url}/api/activities?city=New%20York`)).json()) as { id: string; host: { name: string }; duration: string; format: string }[];
  const activity = activities.find((a) => a.host.name === "Maya" && a.format === "private" && Number(a.duration) <= 1.5) ?? activities.find((a) => a.host.name === "Maya" && a.format === "private")!;
  await guest.page.goto(`${env.server.url}/booking/${activity.id}/date-time`);
  await guest.page.locator("#bk-date").fill(dateAhead(5));
  await guest.page.getByRole("button", { name: "Show free times for this date" }).click();
  await guest.page.waitForURL(/date=/);
  await guest.page.locator("#bk-time").selectOption("11:00");
  const duration = await guest.page.locator("#bk-duration option:not([disabled])").nth(1).getAttribute("value");
  await guest.page.locator("#bk-duration").selectOption(duration!);
  await guest.page.getByRole("button", { name: "Continue to Payment" }).click();
  await guest.page.waitForURL(/\/payment$/);
  await guest.page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await guest.page.getByLabel("Expiry (MM/YY)").fill("12/34");
  await guest.page.getByLabel("CVC").fill("123");
  await guest.page.getByRole("button", { name: /^Confirm & Pay \$/ }).click();
  await guest.page.waitForURL(/\/booking-success(\?booking=[0-9a-f-]+)?$/);

  // The guest's inbox: the request, pending, worded from their side.
  await guest.page.goto(`${env.server.url}/bookings`);
  const guestRow = guest.page.locator("li[data-booking]").first();
  bookingId = (await guestRow.getAttribute("data-booking"))!;
  expect(await guestRow.locator("[data-status]").textContent()).toBe("Pending");
  expect(await guestRow.locator("[data-preview]").textContent()).toBe("You sent a booking request");
  await checkAccessible(guest.context, "/bookings", "the inbox");

  // The host: one unread conversation on the Bookings tab, the request at the top.
  const host = await noScript(env.browser);
  await signIn(host.page, "host@offline.test");
  expect(await host.page.locator("[data-unread-badge]").textContent()).toBe("1");
  await host.page.getByRole("link", { name: /^Bookings/ }).click();
  await host.page.waitForURL(/\/bookings$/);
  const row = host.page.locator(`li[data-booking="${bookingId}"]`);
  expect(await row.getAttribute("data-unread")).toBe("true");
  expect(await row.locator("[data-preview]").textContent()).toBe("Alex sent you a booking request");
  await row.locator("a").first().click();
  await host.page.waitForURL(new RegExp(`/bookings/${bookingId}$`));
  await host.page.getByRole("heading", { name: "Alex", exact: true }).waitFor();
  expect(await host.page.locator("[data-chat-disabled]").textContent()).toBe("Messages are only available after booking is accepted");
  expect(await host.page.getByRole("textbox", { name: "Message" }).isDisabled()).toBe(true);
  // Opening it read it: the badge is gone.
  expect(await host.page.locator("[data-unread-badge]").count()).toBe(0);
  await checkAccessible(host.context, `/bookings/${bookingId}`, "the conversation (pending, host)");

  // The profile button opens the guest's profile, without a script.
  await host.page.getByLabel("View Alex's profile").click();
  await host.page.locator("[data-profile-sheet]").waitFor();
  expect(await host.page.locator("[data-profile-sheet] h2").textContent()).toMatch(/^Alex, \d+$/);
  await host.page.getByLabel("View Alex's profile").click();

  await host.page.locator("[data-request-card]").getByRole("button", { name: "Accept" }).click();
  await host.page.waitForURL(new RegExp(`/bookings/${bookingId}$`));
  expect(await toast(host.page).textContent()).toContain("Booking Accepted");
  expect(await toast(host.page).textContent()).toContain("You can now chat with your guest!");
  expect(await host.page.locator("[data-chat-disabled]").count()).toBe(0);

  // The guest sees it accepted, and writes through the plain form.
  await guest.page.goto(`${env.server.url}/bookings/${bookingId}`);
  expect(await guest.page.locator("[data-booking-card] [data-status]").textContent()).toBe("Accepted");
  expect(await guest.page.locator("li[data-system]").last().textContent()).toContain("Maya accepted your request");
  expect(await guest.page.locator("[data-cancel-card]").textContent()).toContain("You can cancel for a full refund until");
  await guest.page.getByRole("textbox", { name: "Message" }).fill("Hi Maya! Should I bring a racket?");
  await guest.page.getByRole("button", { name: "Send" }).click();
  await guest.page.waitForURL(new RegExp(`/bookings/${bookingId}#latest$`));
  expect(await guest.page.locator("li#latest").textContent()).toContain("Hi Maya! Should I bring a racket?");
  await checkAccessible(guest.context, `/bookings/${bookingId}`, "the conversation (accepted, guest)");

  // The host reads and answers.
  await host.page.goto(`${env.server.url}/bookings`);
  expect(await host.page.locator(`li[data-booking="${bookingId}"] [data-preview]`).textContent()).toBe("Hi Maya! Should I bring a racket?");
  expect(await host.page.locator("[data-unread-badge]").textContent()).toBe("1");
  await host.page.goto(`${env.server.url}/bookings/${bookingId}`);
  await host.page.getByRole("textbox", { name: "Message" }).fill("No need, I have spares.");
  await host.page.getByRole("button", { name: "Send" }).click();
  await host.page.waitForURL(/#latest$/);
  await guest.page.goto(`${env.server.url}/bookings/${bookingId}`);
  expect(await guest.page.locator("li[data-mine=false]").last().textContent()).toContain("No need, I have spares.");
  // The host had read the guest's message when they answered: 'Seen' shows under it.
  expect(await guest.page.locator("[data-seen]").count()).toBe(1);

  await guest.context.close();
  await host.context.close();
}, 90_000);

test("without JavaScript: once the activity has started, the host marks it complete and both are asked for a review", async () => {
  expect(bookingId).not.toBe("");
  // The activity starts: the booking's start and end move into the past, as time passing would.
  const db = await openDatabaseOf(env.server.dataDir);
  const hour = 60 * 60 * 1000;
  const { minutes } = (await one(db.select({ minutes: bookings.durationMinutes }).from(bookings).where(eq(bookings.id, bookingId))))!;
  await writeTransaction(db, (tx) => tx.update(bookings).set({ startsAt: Date.now() - hour, endsAt: Date.now() - hour + minutes * 60_000 }).where(eq(bookings.id, bookingId)));
  await closeDb(db);

  const host = await noScript(env.browser);
  await signIn(host.page, "host@offline.test");
  await host.page.goto(`${env.server.url}/bookings`);
  // The row offers Complete now.
  await host.page.locator(`li[data-booking="${bookingId}"]`).getByRole("button", { name: "Mark complete" }).waitFor();
  await host.page.goto(`${env.server.url}/bookings/${bookingId}`);
  await host.page.locator("[data-complete-card]").getByRole("button", { name: "Mark complete" }).click();
  await host.page.waitForURL(new RegExp(`/bookings/${bookingId}$`));
  expect(await toast(host.page).textContent()).toContain("Activity Completed");
  expect(await toast(host.page).textContent()).toContain("Payment has been released to your account.");
  expect(await host.page.locator("li[data-system]").last().textContent()).toContain("You marked the activity as complete");
  expect(await host.page.getByRole("link", { name: "Leave a review" }).getAttribute("href")).toBe(`/review?bookingId=${bookingId}&userType=host`);
  await checkAccessible(host.context, `/bookings/${bookingId}`, "the conversation (completed, host)");

  const guest = await noScript(env.browser);
  await signIn(guest.page, "guest@offline.test");
  await guest.page.goto(`${env.server.url}/bookings/${bookingId}`);
  expect(await guest.page.locator("li[data-system]").last().textContent()).toContain("Maya marked the activity as complete");
  expect(await guest.page.getByRole("link", { name: "Leave a review" }).getAttribute("href")).toBe(`/review?bookingId=${bookingId}&userType=guest`);
  await host.context.close();
  await guest.context.close();
}, 60_000);

test("with JavaScript: the sort swaps the list in place, and the cards follow a status change the chat announces", async () => {
  const guestContext = await env.browser.newContext({ viewport: { width: 360, height: 740 } });
  const guest = await guestContext.newPage();
  await signIn(guest, "guest@offline.test");
  // A fresh request through the API, as scripts make one (intent, card, booking).
  const csrf = (await guest.request.get(`${env.server.url}/api/auth/user`)).headers()["x-csrf-token"]!;
  const headers = { "X-CSRF-Token": csrf };
  const activities = (await (await guest.request.get(`${env.server.url}/api/activities?city=New%20York`)).json()) as { id: string; host: { name: string }; duration: string; hourlyRate: string }[];
  const activity = activities.find((a) => a.host.name === "Maya" && Number(a.duration) <= 1)!;
  const date = dateAhead(9);
  const amount = (Number(activity.hourlyRate) * 1.1).toFixed(2);
  const intent = (await (await guest.request.post(`${env.server.url}/api/create-payment-intent`, { headers, data: { amount, metadata: { activityId: activity.id, date, time: "15:00", duration: "1" } } })).json()) as { clientSecret: string; paymentIntentId: string };
  await guest.request.post(`${env.server.url}/api/payments/test/confirm`, { headers, data: { clientSecret: intent.clientSecret, cardNumber: "4242424242424242", expiry: "12/34", cvc: "123" } });
  const made = await guest.request.post(`${env.server.url}/api/bookings`, { headers, data: { activityId: activity.id, proposedDatetime: `${date}T15:00:00`, durationHours: 1, priceTotal: amount, paymentIntentId: intent.paymentIntentId } });
  expect(made.status()).toBe(201);
  const requestId = ((await made.json()) as { id: string }).id;

  // The sort: htmx swaps the list and the address, no page load.
  await guest.goto(`${env.server.url}/bookings`);
  await guest.evaluate(() => ((window as unknown as { samePage: boolean }).samePage = true));
  const newestFirst = await guest.locator("li[data-booking]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-booking")));
  await guest.getByRole("link", { name: "Oldest first" }).click();
  await guest.waitForURL(/\/bookings\?sort=oldest$/);
  await guest.locator('ul[data-order="oldest"]').waitFor();
  const oldestFirst = await guest.locator("li[data-booking]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-booking")));
  expect(oldestFirst).toEqual([...newestFirst].reverse());
  expect(await guest.getByRole("link", { name: "Oldest first" }).getAttribute("aria-current")).toBe("true");
  expect(await guest.evaluate(() => (window as unknown as { samePage?: boolean }).samePage)).toBe(true);
  expect(await guest.locator("#inbox-loading").isVisible()).toBe(false);

  // The host has the request open; the guest withdraws it elsewhere; the chat's status event refreshes the cards.
  const hostContext = await env.browser.newContext({ viewport: { width: 360, height: 740 } });
  const host = await hostContext.newPage();
  await signIn(host, "host@offline.test");
  await host.goto(`${env.server.url}/bookings/${requestId}`);
  await host.locator("[data-request-card]").waitFor();
  expect((await guest.request.post(`${env.server.url}/api/bookings/${requestId}/cancel`, { headers, data: {} })).status()).toBe(200);
  await host.evaluate((id) => document.body.dispatchEvent(new CustomEvent("offline:booking-status", { detail: { bookingId: id, status: "canceled" } })), requestId);
  await host.locator("[data-booking-card] [data-status='canceled']").waitFor();
  expect(await host.locator("[data-request-card]").count()).toBe(0);
  await guestContext.close();
  await hostContext.close();
}, 60_000);

test("without JavaScript: Settings offers the notification switches as a form, not an Enable button that cannot work", async () => {
  const guest = await noScript(env.browser);
  await signIn(guest.page, "guest@offline.test");
  await guest.page.goto(`${env.server.url}/settings`);
  const card = guest.page.locator("#push-card");
  await card.getByRole("button", { name: "Save" }).waitFor();
  expect(await card.getByRole("button", { name: "Enable" }).isVisible()).toBe(false);
  expect(await card.getByText("Hear about requests, answers and messages even when the app is closed.").isVisible()).toBe(false);
  await guest.context.close();
});
