import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cacheNames, notificationFromPush, offlinePagePath, ownUrl, readableOffline, staleCaches } from "../islands/worker/rules";
import { makeTestApp, type Client } from "./helpers";

/**
 * The service worker (docs/decisions/0026): its rules, and what the server gives it. Its
 * behaviour in a browser (offline reading, the offline page, push) is in tests/e2e/push.e2e.ts.
 */
let t: Awaited<ReturnType<typeof makeTestApp>>;
let member: Client;
let memberId: string;
beforeAll(async () => {
  t = await makeTestApp();
  member = t.client();
  memberId = (await member.signUpComplete()).user.id;
});
afterAll(() => t.cleanup());

describe("the worker's rules", () => {
  test("keeps the bookings list, conversations and the host's dashboard for offline reading, nothing else", () => {
    for (const path of ["/bookings", "/bookings/", "/bookings/7b0c6f0e-2b61-4c47-9a38-2f7b2f0c1d11", "/messages", "/host", "/host-dashboard"]) {
      expect({ path, kept: readableOffline(path) }).toEqual({ path, kept: true });
    }
    for (const path of ["/", "/browse", "/settings", "/profile", "/bookings/a/b", "/api/bookings", "/booking/1/payment", "/checkout/1", "/hosting"]) {
      expect({ path, kept: readableOffline(path) }).toEqual({ path, kept: false });
    }
  });

  test("a new version deletes the caches of the others, and only ours", () => {
    const mine = cacheNames("v2");
    expect(staleCaches(["offline-shell-v1", "offline-pages-v1", mine.shell, mine.pages, "offline-meta", "someone-elses"], "v2")).toEqual(["offline-shell-v1", "offline-pages-v1"]);
  });

  test("the offline page in the language last read, else the first one", () => {
    expect(offlinePagePath("fr", ["en", "fr"])).toBe("/offline?lang=fr");
    expect(offlinePagePath("de", ["en", "fr"])).toBe("/offline?lang=en");
    expect(offlinePagePath(null, ["en", "fr"])).toBe("/offline?lang=en");
  });

  test("a notification opens a page of this site only", () => {
    const origin = "https://offline.example";
    expect(ownUrl("/bookings/1", origin)).toBe("https://offline.example/bookings/1");
    for (const url of ["https://evil.example/x", "//evil.example/x", "javascript:alert(1)", 42, null]) expect(ownUrl(url, origin)).toBe("https://offline.example/");
  });

  test("a push message shows the server's title, text and tag, with the app's icon", () => {
    expect(notificationFromPush({ title: "New booking request", body: "Gabe would like…", url: "/bookings/1", tag: "booking:1" }, "https://o.example")).toEqual({
      title: "New booking request",
      options: { body: "Gabe would like…", icon: "/static/icon-192.png", badge: "/static/badge-96.png", tag: "booking:1", data: { url: "https://o.example/bookings/1" } },
    });
    expect(notificationFromPush(null, "https://o.example")).toEqual({
      title: "Offline",
      options: { body: "", icon: "/static/icon-192.png", badge: "/static/badge-96.png", data: { url: "https://o.example/" } },
    });
  });
});

describe("what the server gives the worker", () => {
  test("/sw.js is the built worker, never cached without asking, and everything it stores on install exists", async () => {
    const res = await t.client().get("/sw.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const code = await res.text();
    const precache = JSON.parse(/\["\/assets\/[^\]]*\]/.exec(code)![0]) as string[];
    expect(precache).toEqual(expect.arrayContaining([t.deps.assets.css, t.deps.assets.loader, t.deps.assets.htmx, "/static/icon-192.png", "/offline?lang=en", "/offline?lang=fr"]));
    for (const url of precache) {
      const file = await t.client().get(url);
      expect({ url, status: file.status }).toEqual({ url, status: 200 });
    }
  });

  test("every page says whose it is and in which language", async () => {
    const page = await member.get("/bookings");
    expect(page.headers.get("x-offline-user")).toBe(memberId);
    expect(page.headers.get("content-language")).toBe("en");
    const visitor = await t.client().get("/", { "accept-language": "fr" });
    expect(visitor.headers.get("x-offline-user")).toBe("-");
    expect(visitor.headers.get("content-language")).toBe("fr");
  });

  test("the offline page holds nobody's data, in the language asked for", async () => {
    for (const [lang, title] of [["en", "You're offline"], ["fr", "Vous êtes hors ligne"]] as const) {
      const res = await member.get(`/offline?lang=${lang}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-offline-user")).toBeNull();
      const html = await res.text();
      expect(html).toContain(`<html lang="${lang}">`);
      expect(html).toContain(title.replace("'", "&#x27;"));
      expect(html).toContain('<meta name="csrf-token" content=""');
      expect(html).not.toContain(memberId);
    }
  });
});
