import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { FakePushService, type FakeSubscription } from "../fakes/push-service";
import { closeContexts, expectAccessible, sharedBrowser, startServer } from "./harness";
import { signInAs } from "./flows";

/**
 * Push notifications and offline reading in Chromium, against the real server.
 *
 * Chromium's `pushManager.subscribe` registers with Google's push service (FCM), which this
 * machine cannot reach (it fails with "Registration failed"). So the page's PushManager hands out
 * a subscription of the local push service instead (tests/fakes/push-service.ts); everything else
 * is real: the permission the browser grants, the Settings card and its calls, the server
 * encrypting and signing the message, the push service checking and decrypting it, and the
 * service worker showing it, reached through the DevTools protocol's
 * `ServiceWorker.deliverPushMessage`, as the browser's push client would deliver it.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await sharedBrowser();
});
afterAll(async () => {
  await closeContexts(browser);
});

const signIn = (page: Page, url: string) => signInAs(page, url, "guest@offline.test");

/** Polls `check` (in the test, so it may call into the page) until it holds. */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

/** The pages the service worker keeps for offline reading, by path. */
const keptPages = (page: Page) =>
  page.evaluate(async () => {
    const names = (await caches.keys()).filter((n) => n.startsWith("offline-pages-"));
    const keys = await Promise.all(names.map(async (n) => (await (await caches.open(n)).keys()).map((r) => new URL(r.url).pathname)));
    return keys.flat();
  });

/** Waits until the service worker controls the page (it claims open pages once active). */
const controlled = (page: Page) => page.waitForFunction(() => navigator.serviceWorker.controller !== null);

/** Makes the page's PushManager subscribe to the local push service (see above). */
async function useLocalPushService(context: BrowserContext, subscription: FakeSubscription) {
  await context.addInitScript((sub) => {
    const KEY = "test-push-subscription";
    const bytes = (b64: string) => Uint8Array.from(atob(b64.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(b64.length / 4) * 4, "=")), (c) => c.charCodeAt(0));
    const made = (applicationServerKey: string) => ({
      endpoint: sub.endpoint,
      expirationTime: null,
      options: { userVisibleOnly: true, applicationServerKey: bytes(applicationServerKey).buffer },
      getKey: (name: "p256dh" | "auth") => bytes(sub.keys[name]).buffer,
      toJSON: () => ({ endpoint: sub.endpoint, expirationTime: null, keys: sub.keys }),
      unsubscribe: async () => (localStorage.removeItem(KEY), true),
    });
    PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
      if (Notification.permission !== "granted") throw new DOMException("Registration failed - permission denied", "NotAllowedError");
      const key = options?.applicationServerKey as Uint8Array;
      const text = btoa(String.fromCharCode(...key)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
      localStorage.setItem(KEY, text);
      return made(text) as unknown as PushSubscription;
    };
    PushManager.prototype.getSubscription = async function () {
      const key = localStorage.getItem(KEY);
      return (key ? made(key) : null) as unknown as PushSubscription;
    };
  }, subscription);
}

test("enable notifications, choose what to hear about, and receive the test notification through the service worker", async () => {
  const push = FakePushService.start();
  const server = await startServer();
  const context = await browser.newContext();
  try {
    await context.grantPermissions(["notifications"], { origin: server.url });
    const page = await context.newPage();
    await signIn(page, server.url);
    const { publicKey } = (await (await page.request.get(`${server.url}/api/notifications/vapid-public-key`)).json()) as { publicKey: string };
    await useLocalPushService(context, push.subscribe(publicKey));

    await page.goto(`${server.url}/settings`);
    const card = page.locator("#push-card");
    await card.getByRole("button", { name: "Enable" }).waitFor();
    await expectAccessible(page, "settings, notifications off");
    await card.getByRole("button", { name: "Enable" }).click();
    await page.getByText("Notifications enabled").waitFor();
    const messages = card.getByRole("switch", { name: /^Messages/ });
    expect(await messages.isChecked()).toBe(true);
    expect(await card.getByRole("switch", { name: /^Marketing emails/ }).isChecked()).toBe(false);
    await expectAccessible(page, "settings, notifications on");

    // A switch applies at once, and stays as set.
    const saved = page.waitForResponse((r) => r.url().endsWith("/api/notifications/preferences") && r.request().method() === "POST");
    await messages.click();
    expect((await saved).status()).toBe(200);
    await page.reload();
    await card.getByRole("button", { name: "Send test notification" }).waitFor();
    expect(await card.getByRole("switch", { name: /^Messages/ }).isChecked()).toBe(false);

    await card.getByRole("button", { name: "Send test notification" }).click();
    await page.getByText("Test notification sent").waitFor();
    await push.waitForDeliveries(1);
    expect(push.rejections).toEqual([]);
    const delivery = push.deliveries[0]!;
    expect(delivery.payload).toEqual({ title: "Test notification", body: "Notifications are working on this device.", url: "/settings", tag: "test" });
    expect(delivery.claims.aud).toBe(push.origin);

    // The browser's push client hands the decrypted message to the service worker.
    await controlled(page);
    const cdp = await context.newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string }[] = [];
    cdp.on("ServiceWorker.workerRegistrationUpdated", (e: { registrations: { registrationId: string; scopeURL: string }[] }) => registrations.push(...e.registrations));
    await cdp.send("ServiceWorker.enable");
    await until(async () => registrations.some((r) => r.scopeURL === `${server.url}/`), "the service worker's registration");
    const registration = registrations.find((r) => r.scopeURL === `${server.url}/`)!;
    const shownNotifications = () =>
      page.evaluate(async () =>
        (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, icon: n.icon, url: (n.data as { url: string }).url })),
      );
    // On a busy machine DevTools can drop a push sent while the worker is starting. As a push service
    // would, the test sends it again until it shows; its tag keeps it a single notification.
    const deliver = () => cdp.send("ServiceWorker.deliverPushMessage", { origin: server.url, registrationId: registration.registrationId, data: JSON.stringify(delivery.payload) });
    await deliver();
    for (let attempt = 1; !(await shownNotifications()).length; attempt++) {
      if (attempt > 4) throw new Error("timed out waiting for the notification");
      await until(async () => (await shownNotifications()).length > 0, "the notification", 5_000).catch(deliver);
    }
    expect(await shownNotifications()).toEqual([{ title: "Test notification", body: "Notifications are working on this device.", tag: "test", icon: `${server.url}/static/icon-192.png`, url: `${server.url}/settings` }]);

    await card.getByRole("button", { name: "Turn off" }).click();
    await page.getByText("Notifications turned off").waitFor();
    await card.getByRole("button", { name: "Enable" }).waitFor();
  } finally {
    await context.close();
    await server.stop();
    push.stop();
  }
});

test("without permission the card says so", async () => {
  const server = await startServer();
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await signIn(page, server.url);
    // The person (here: the browser's default for a headless test) did not allow notifications.
    await page.addInitScript(() => {
      Notification.requestPermission = async () => "denied";
    });
    await page.goto(`${server.url}/settings`);
    await page.locator("#push-card").getByRole("button", { name: "Enable" }).click();
    await page.getByText("Permission Denied").waitFor();
    await page.getByText("Please allow notifications in your browser settings.").waitFor();
  } finally {
    await context.close();
    await server.stop();
  }
});

test("offline, the bookings list and a conversation opened before can still be read, with the banner; a page never opened shows the offline page", async () => {
  const server = await startServer();
  const context = await browser.newContext();
  let stopped = false;
  try {
    const page = await context.newPage();
    await signIn(page, server.url);
    await controlled(page);
    // The worker keeps the pages a person opens once it controls the page.
    await page.goto(`${server.url}/bookings`);
    const bookingsText = await page.locator("main").innerText();
    const booking = ((await (await page.request.get(`${server.url}/api/bookings`)).json()) as { id: string; activity: { title: string }; pricePerPerson: string | null }[]).find((b) => b.pricePerPerson === null);
    await page.goto(`${server.url}/bookings/${booking!.id}`);
    const conversationText = await page.locator("main").innerText();
    expect(conversationText).toContain(booking!.activity.title);
    // The chat island mounted: its script went through the worker, which keeps built files.
    await page.locator('[data-island="Chat"][data-mounted]').waitFor();
    await until(async () => (await keptPages(page)).includes(`/bookings/${booking!.id}`), "the conversation to be kept");

    // The server goes away and the browser loses its connection.
    await server.stop();
    stopped = true;
    await context.setOffline(true);

    await page.goto(`${server.url}/bookings/${booking!.id}`);
    await page.getByText(booking!.activity.title).first().waitFor();
    // The same conversation as online; the chat adds that what is typed waits for the connection.
    const offlineNote = "You're offline. Messages will be sent when you're back online.";
    await page.getByText(offlineNote).waitFor();
    expect((await page.locator("main").innerText()).replace(offlineNote, "").replace(/\n{3,}/g, "\n\n")).toBe(conversationText.replace(/\n{3,}/g, "\n\n"));
    await page.getByText("You're offline. Some features may be limited.").waitFor();
    await expectAccessible(page, "a conversation, offline");

    await page.goto(`${server.url}/bookings`);
    await page.getByRole("heading", { name: "Bookings" }).waitFor();
    expect(await page.locator("main").innerText()).toBe(bookingsText);
    await page.getByText("You're offline. Some features may be limited.").waitFor();

    await page.goto(`${server.url}/host`);
    await page.getByRole("heading", { name: "You're offline" }).waitFor();
    await page.getByText("You're offline. Some features may be limited.").waitFor();
    await expectAccessible(page, "the offline page");
    await page.getByRole("link", { name: "Open your bookings" }).click();
    await page.getByRole("heading", { name: "Bookings" }).waitFor();
  } finally {
    await context.close();
    if (!stopped) await server.stop();
  }
});

test("signing out forgets the pages kept for offline reading", async () => {
  const server = await startServer();
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await signIn(page, server.url);
    await controlled(page);
    await page.goto(`${server.url}/bookings`);
    await until(async () => (await keptPages(page)).includes("/bookings"), "the bookings page to be kept");
    expect(await keptPages(page)).toEqual(["/bookings"]);

    await page.goto(`${server.url}/settings`);
    await page.getByText("Sign Out").first().click();
    await page.getByRole("button", { name: "Sign Out" }).click();
    await page.waitForURL(`${server.url}/`);
    await until(async () => (await keptPages(page)).length === 0, "the kept pages to go");
  } finally {
    await context.close();
    await server.stop();
  }
});
