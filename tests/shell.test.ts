import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import sharp from "sharp";
import { catalogues, COUNTED, messagesByFeature, translator, type MessageKey } from "../src/texts";
import { makeTestApp, type Client } from "./helpers";
import { expandText } from "../lib/html/fragments";
import { AppLayout } from "../views/layouts/AppLayout";
import { Document } from "../views/layouts/Document";

let t: Awaited<ReturnType<typeof makeTestApp>>;
let member: Client;
beforeAll(async () => {
  t = await makeTestApp();
  member = t.client();
  await member.signUpComplete();
});
afterAll(() => t.cleanup());

describe("signed-out visitors", () => {
  test.each(["/welcome", "/", "/bookings", "/host", "/profile/someone", "/anything/at/all"])(
    "%s shows the landing page",
    async (path) => {
      const res = await t.client().get(path);
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain("Find amazing activities in your city");
      expect(html).toContain("Local experiences");
      expect(html).toContain("Meet new people");
      expect(html).toContain("Easy booking");
      expect(html).toContain("Built-in messaging and simple payment");
      expect(html).toContain(">Sign In</a>");
      expect(html).toContain(">Get Started</a>");
    },
  );

  test("the landing buttons lead to /api/login and carry the page asked for", async () => {
    const html = await (await t.client().get("/bookings?sort=oldest")).text();
    expect(html).toContain('href="/api/login?next=%2Fbookings%3Fsort%3Doldest"');
    const home = await (await t.client().get("/")).text();
    expect(home).toContain('href="/api/login"');
    expect(home).toContain('href="/api/login?mode=signup"');
  });

  test("the sign-in page offers both forms", async () => {
    const signIn = await (await t.client().get("/api/login")).text();
    expect(signIn).toContain('action="/api/login"');
    const signUp = await (await t.client().get("/api/login?mode=signup")).text();
    expect(signUp).toContain('action="/api/register"');
    expect(signUp).toContain("18 or older");
  });
});

describe("signed-in users", () => {
  test("see the app with the bottom navigation, the current tab marked", async () => {
    const html = await (await member.get("/")).text();
    for (const tab of ["Browse", "Bookings", "Host", "Profile"]) expect(html).toContain(`<span>${tab}</span>`);
    expect(html).toMatch(/href="\/" class="nav-tab nav-tab-current" aria-current="page"/);
    expect(html).toContain("Activities in New York");
  });

  test("an unknown path is the 404 page", async () => {
    const res = await member.get("/no/such/page");
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("Page Not Found");
  });

  test("/welcome and /api/login send a signed-in user into the app", async () => {
    expect((await member.get("/welcome")).headers.get("location")).toBe("/");
    expect((await member.get("/api/login?next=/host")).headers.get("location")).toBe("/host");
  });

  test("a flash toast shows once after a redirect", async () => {
    const c = t.client();
    const { email, password } = await c.signUpComplete();
    await c.postJson("/api/auth/logout", {});
    await c.postForm("/api/login", { email, password });
    const first = await (await c.get("/")).text();
    expect(first).toContain("Signed in");
    const second = await (await c.get("/")).text();
    expect(second).not.toContain(">Signed in<");
  });

  test("a part of a page asked for by htmx, or a page the service worker reads, leaves the flash toast to the page the browser goes to", async () => {
    const c = t.client();
    const { email, password } = await c.signUpComplete();
    await c.postJson("/api/auth/logout", {});
    await c.postForm("/api/login", { email, password });
    // The page being left asks for a part of itself (a live refresh) before the navigation lands.
    const part = await c.get("/", { "HX-Request": "true" });
    expect(await part.text()).not.toContain(">Signed in<");
    expect(part.headers.getSetCookie().some((cookie) => cookie.startsWith("flash="))).toBe(false);
    // The service worker reading a page to keep it offline does not spend it either.
    const kept = await c.get("/saved", { "Sec-Fetch-Dest": "empty", "Sec-Fetch-Mode": "same-origin" });
    expect(kept.headers.getSetCookie().some((cookie) => cookie.startsWith("flash="))).toBe(false);
    expect(await (await c.get("/", { "Sec-Fetch-Dest": "document", "Sec-Fetch-Mode": "navigate" })).text()).toContain(">Signed in<");
    expect(await (await c.get("/")).text()).not.toContain(">Signed in<");
  });

  test("a forged flash cookie cannot inject text", async () => {
    const c = t.client();
    await c.signUpComplete();
    c.cookies.set("flash", Buffer.from(JSON.stringify({ title: "<script>alert(1)</script>" })).toString("base64url"));
    const html = await (await c.get("/")).text();
    expect(html).not.toContain("<script>alert(1)</script>");
  });
});

describe("unknown API paths and methods", () => {
  test("answer 404 JSON", async () => {
    const res = await member.get("/api/nothing-here");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/json");
  });
});

describe("files", () => {
  test("built files are cached forever, pages are not", async () => {
    const page = await member.get("/");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    const css = t.deps.assets.css;
    if (css) {
      const res = await member.get(css);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toContain("immutable");
    }
  });

  test("signed-in pages and fragments are never stored (Back after sign-out shows nothing of them)", async () => {
    for (const path of ["/", "/browse", "/profile", "/settings", "/settings/email", "/host-dashboard", "/create-activity", "/no/such/page", "/fragments/username-status?username=abc"]) {
      const res = await member.get(path);
      expect(res.headers.get("content-type")).toContain("text/html");
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
    // Static files keep their public caching.
    expect((await member.get("/static/photos/sports-1.svg")).headers.get("cache-control")).toBe("public, max-age=604800");
    expect((await member.get("/favicon.ico")).headers.get("cache-control")).toBe("public, max-age=604800");
  });

  test("shipped images are served, paths outside public/ are not", async () => {
    const photo = await t.client().get("/static/photos/sports-1.svg");
    expect(photo.status).toBe(200);
    expect(photo.headers.get("content-type")).toContain("image/svg+xml");
    for (const path of ["/static/../package.json", "/static/%2e%2e/package.json", "/static/photos/..%2f..%2fpackage.json"]) {
      const res = await t.client().get(path);
      expect(await res.text()).not.toContain('"devDependencies"');
    }
  });

  test("a folder under /static/ is a 404, like any missing file", async () => {
    for (const path of ["/static/photos", "/static/photos/", "/static/avatars", "/static/."]) {
      const res = await t.client().get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(((await res.json()) as { message: string }).message).toBe("Not found");
    }
  });

  test("the web app manifest makes the app installable: PNG icons of 192 and 512 px, a maskable one, all shipped", async () => {
    const res = await t.client().get("/manifest.webmanifest");
    const manifest = (await res.json()) as { id: string; name: string; short_name: string; start_url: string; display: string; icons: { src: string; sizes: string; type: string; purpose: string }[] };
    expect(manifest).toMatchObject({ id: "/", name: "Offline", short_name: "Offline", start_url: "/", display: "standalone" });
    const png = (size: number, purpose: string) => manifest.icons.find((i) => i.type === "image/png" && i.sizes === `${size}x${size}` && i.purpose === purpose);
    expect(png(192, "any")).toBeDefined();
    expect(png(512, "any")).toBeDefined();
    expect(png(512, "maskable")).toBeDefined();
    for (const icon of manifest.icons) {
      const file = await t.client().get(icon.src);
      expect({ src: icon.src, status: file.status, type: file.headers.get("content-type") }).toEqual({ src: icon.src, status: 200, type: icon.type });
      if (icon.type === "image/png") {
        const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
        expect(`${meta.width}x${meta.height}`).toBe(icon.sizes);
      }
    }
  });
});

describe("transport security", () => {
  test("an https deployment tells browsers to use https only", async () => {
    const secure = await makeTestApp({ env: { PUBLIC_URL: "https://offline.example" } });
    for (const path of ["/", "/api/login", "/health", "/static/photos/sports-1.svg", "/nothing"]) {
      const res = await secure.app.handle(new Request(`https://offline.example${path}`));
      expect(res.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    }
    secure.cleanup();
  });

  test("a plain http deployment sends no HSTS", async () => {
    for (const path of ["/", "/api/login", "/health"]) {
      expect((await t.client().get(path)).headers.get("strict-transport-security")).toBeNull();
    }
    expect((await member.get("/")).headers.get("strict-transport-security")).toBeNull();
  });
});

describe("the message catalogue", () => {
  test("English and French have the same keys, none empty, with the same placeholders", () => {
    const en = catalogues.en as Record<string, string>;
    const fr = catalogues.fr as Record<string, string>;
    expect(Object.keys(fr).sort()).toEqual(Object.keys(en).sort());
    const placeholders = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort();
    for (const key of Object.keys(en)) {
      expect(en[key]!.trim().length).toBeGreaterThan(0);
      expect(fr[key]!.trim().length).toBeGreaterThan(0);
      expect(placeholders(fr[key]!)).toEqual(placeholders(en[key]!));
    }
  });

  test("each key is defined by one feature only, in both languages", () => {
    for (const locale of ["en", "fr"] as const) {
      const owner = new Map<string, string>();
      const shared: string[] = [];
      for (const [feature, messages] of Object.entries(messagesByFeature)) {
        for (const key of Object.keys(messages[locale])) {
          if (owner.has(key)) shared.push(`${key} (${owner.get(key)} and ${feature})`);
          else owner.set(key, feature);
        }
      }
      expect(shared).toEqual([]);
      expect(Object.keys(catalogues[locale]).length).toBe(owner.size);
    }
  });

  /** Texts whose numbers are not a count of something named after them, and why. */
  const NOT_COUNTED: Record<string, string> = {
    "common.photoOf": "a position among others (photo 2 of 5)",
    "onboarding.progress": "a position among others (step 2 of 5)",
    "wizard.progress": "a position among others (step 2 of 5)",
    "activity.hours": "a unit's symbol (1 h, 1,5 h), the same for any number",
    "activity.minutes": "a unit's symbol (45 min), the same for any number",
    "activity.durationRange": "two durations already written out",
    "browse.found.capped": "always more than the cap, so always plural",
    "inbox.unreadCountCapped": "always more than the badge's cap, so always plural",
    "payments.admin.attempts": "a label and its value (Attempts: 3)",
    "common.characterCount": "the typed count stands before the slash; the limit after it carries the plural (12/1,000 characters)",
  };
  const COUNTS = /^(count|n|minutes|hours|days|stars|pending|total|max)$/;

  test("every text that counts has plural forms, by the language's plural rules", () => {
    const missing: string[] = [];
    for (const locale of ["en", "fr"] as const) {
      for (const [key, text] of Object.entries(catalogues[locale] as Record<string, string>)) {
        if (key in NOT_COUNTED) continue;
        // A count written bare ({count}) rather than as {count, plural, …}.
        const bare = [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).filter((name) => COUNTS.test(name));
        if (bare.length) missing.push(`${locale} ${key}: ${text}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test("every counted text reads right for 0, 1, 1.5, 2 and 1,000, in both languages", () => {
    for (const locale of ["en", "fr"] as const) {
      const tr = translator(locale);
      for (const [key, text] of Object.entries(catalogues[locale] as Record<string, string>)) {
        if (!COUNTED.test(text)) continue;
        const names = new Set([...text.matchAll(/\{\s*(\w+)\s*[,}]/g)].map((m) => m[1]!));
        for (const value of [0, 1, 1.5, 2, 1000]) {
          const params = Object.fromEntries([...names].map((name) => [name, value]));
          const out = tr(key as MessageKey, params);
          expect(out).not.toContain("{");
          expect(out).not.toContain("#");
        }
      }
    }
  });

  test("one review, one minute, and French decimals", () => {
    const en = translator("en");
    const fr = translator("fr");
    expect(en("profile.reviewCount", { count: 1 })).toBe("1 review");
    expect(en("profile.reviewCount", { count: 2 })).toBe("2 reviews");
    expect(en("error.tooMany", { minutes: 1 })).toBe("Too many attempts. Please wait 1 minute and try again.");
    expect(fr("error.tooMany", { minutes: 15 })).toBe("Trop de tentatives. Patientez 15 minutes puis réessayez.");
    expect(en("booking.hoursCount", { n: 1.5 })).toBe("1.5 hours");
    expect(en("booking.hoursCount", { n: 1 })).toBe("1 hour");
    // French counts 0 to under 2 in the singular, and writes a decimal comma.
    expect(fr("booking.hoursCount", { n: 1.5 })).toBe("1,5 heure");
    expect(fr("booking.hoursCount", { n: 2 })).toBe("2 heures");
    expect(fr("activity.hours", { n: 1.5 })).toBe("1,5 h");
    expect(fr("inbox.unreadCount", { count: 1 })).toBe("1 non lue");
  });

  test("French visitors get French screens", async () => {
    const html = await (await t.client().get("/", { "accept-language": "fr" })).text();
    expect(html).toContain('lang="fr"');
    expect(html).toContain("Trouvez des activités incroyables dans votre ville");
  });
});

describe("the language switch", () => {
  test("a visitor's choice is kept in a cookie and wins over the browser's language", async () => {
    const c = t.client();
    const res = await c.postForm("/api/locale", { locale: "fr", next: "/welcome" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/welcome");
    const html = await (await c.get("/welcome", { "accept-language": "en" })).text();
    expect(html).toContain("Trouvez des activités incroyables dans votre ville");
  });

  test("a signed-in user's choice is saved on their account", async () => {
    const c = t.client();
    await c.signUpComplete();
    await c.postJson("/api/locale", { locale: "fr" });
    c.cookies.delete("lang");
    expect(await (await c.get("/")).text()).toContain("Activités à New York");
  });

  test("an unknown language is refused", async () => {
    expect((await t.client().postForm("/api/locale", { locale: "xx" })).status).toBe(400);
  });
});

describe("the page shell", () => {
  test("escapes what changes per page the way the views' JSX does, and waits for a screen that renders later", async () => {
    const view = { t: translator("en"), locale: "en" as const, user: null, csrf: `tok"<&>'`, path: "/browse", assets: t.deps.assets, toast: { title: "Saved <b>", body: "It's & done", variant: "success" as const }, unreadConversations: () => 0 };
    const hostile = `R&D <script>"x'`;
    const html = expandText(String(await Document({ view, title: hostile, description: hostile, bodyClass: `x" onload="y`, children: "<p>the screen</p>" })));
    expect(html).toStartWith('<!doctype html><html lang="en"><head><meta charset="utf-8"/>');
    expect(html).toContain("<title>R&amp;D &lt;script&gt;&quot;x&#x27; · Offline</title>");
    expect(html).toContain('<meta name="description" content="R&amp;D &lt;script&gt;&quot;x&#x27;"/>');
    expect(html).toContain('<meta name="csrf-token" content="tok&quot;&lt;&amp;&gt;&#x27;"/>');
    expect(html).toContain('class="min-h-screen bg-surface text-ink antialiased x&quot; onload=&quot;y"');
    expect(html).toContain('hx-headers="{&quot;X-CSRF-Token&quot;:&quot;tok\\&quot;&lt;&amp;&gt;&#x27;&quot;}"');
    expect(html).toContain("<p>the screen</p>");
    expect(html).toContain("Saved &lt;b&gt;");
    expect(html).not.toContain("<script>\"x");
    expect(html).toEndWith("</body></html>");
    const later = expandText(String(await AppLayout({ view, title: "Browse", children: Promise.resolve("<p>later</p>") as unknown as JSX.Element })));
    expect(later).toContain('<main id="main" class="mx-auto max-w-screen-md px-4 pt-4 pb-24"><p>later</p></main><nav');
  });
});
