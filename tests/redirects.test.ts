import { one } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { users } from "../db/schema";
import { ownReturnPath, safeNext } from "../lib/http";
import { type Client, makeTestApp, ORIGIN } from "./helpers";

let t: Awaited<ReturnType<typeof makeTestApp>>;
let account: { email: string; password: string };
beforeAll(async () => {
  t = await makeTestApp();
  account = await t.client().signUp();
});
afterAll(() => t.cleanup());

/** Values known to turn a "same-site path" check into a trip to another site. */
const BYPASSES = [
  "//evil.example",
  "///evil.example",
  "////evil.example",
  "/\\evil.example",
  "\\/evil.example",
  "\\\\evil.example",
  "/\t/evil.example/x",
  "/%09/evil.example/x",
  "\t//evil.example",
  "/\n/evil.example",
  "/\r\n/evil.example",
  "/\\\tevil.example",
  "/%2F/evil.example",
  "%2F%2Fevil.example",
  "/%5Cevil.example",
  "/.//evil.example",
  "/./\\evil.example",
  "/a/..//evil.example",
  "/%2e%2e//evil.example",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "http://evil.example",
  "https://evil.example",
  "https:evil.example",
  "http:/evil.example",
  "http:\\\\evil.example",
  "  /evil.example",
  " //evil.example",
  "/\u0000/evil.example",
  "/%00",
  "/\u00a0/evil.example",
  "/\u3000/evil.example",
  "/😀",
  "/caf\u00e9?q=\u00e9t\u00e9#\u00e0",
  "/\u2028/evil.example",
  "/\ufeff/evil.example",
  "/x" + "a".repeat(5000),
  "@evil.example",
  "/@evil.example",
  "evil.example",
  "",
  "/api/login?next=//evil.example",
  "/api/register",
];

/** What every answer must hold: a header a browser sends back to this same site. */
function expectSameSite(location: string | null) {
  expect(location).not.toBeNull();
  // A header value is ASCII (Latin-1 at most); ours is percent-encoded ASCII.
  expect(location!).toMatch(/^[\x21-\x7e]*$/);
  expect(location!.startsWith("/")).toBe(true);
  expect(location!.startsWith("//")).toBe(false);
  expect(location!.startsWith("/\\")).toBe(false);
  expect(new URL(location!, ORIGIN).origin).toBe(ORIGIN);
  expect(new URL(location!, "https://offline.example").origin).toBe("https://offline.example");
}

describe("safeNext", () => {
  test.each(BYPASSES.map((v) => [v]))("%j stays on our site", (value) => {
    const out = safeNext(value);
    expectSameSite(out);
    // Either our fallback, or what was asked for, with only its encoding changed.
    if (out !== "/") expect(new URL(out, ORIGIN).href).toBe(new URL(value, ORIGIN).href);
  });

  test("plain paths of the site come back as they were", () => {
    for (const path of ["/", "/bookings", "/activity/abc?date=2025-05-01&time=10%3A00", "/profile/ana#reviews", "/browse?city=New+York"]) {
      expect(safeNext(path)).toBe(path);
    }
  });

  test("text outside ASCII is percent-encoded, not dropped", () => {
    expect(safeNext("/😀")).toBe("/%F0%9F%98%80");
    expect(safeNext("/caf\u00e9?q=\u00e9#\u00e0")).toBe("/caf%C3%A9?q=%C3%A9#%C3%A0");
  });

  test("anything that is not a string is the fallback", () => {
    for (const value of [undefined, null, 42, ["/x"], { a: 1 }]) expect(safeNext(value, "/home")).toBe("/home");
  });
});

describe("every redirect built from a visitor's path stays on our site", () => {
  const signedIn = async () => {
    const c = t.client();
    const res = await c.postJson("/api/login", account);
    expect(res.status).toBe(200);
    return c;
  };
  let c: Client;
  beforeAll(async () => {
    c = await signedIn();
  });

  /** A NUL never reaches a route: the request is refused at the door (400, decision 0047) and leads nowhere. */
  const refusedAtTheDoor = (res: Response) => {
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(res.headers.get("hx-redirect")).toBeNull();
  };

  test.each(BYPASSES.map((v) => [v]))("GET /api/login?next=%j when signed in", async (next) => {
    const res = await c.get(`/api/login?next=${encodeURIComponent(next)}`);
    if (next.includes("\u0000")) return refusedAtTheDoor(res);
    expect(res.status).toBe(303);
    expectSameSite(res.headers.get("location"));
  });

  test.each(BYPASSES.map((v) => [v]))("POST /api/login with next=%j, as a form and from htmx", async (next) => {
    const form = await t.client().postForm("/api/login", { ...account, next });
    const htmx = await t.client().postForm("/api/login", { ...account, next }, { "hx-request": "true" });
    if (next.includes("\u0000")) {
      refusedAtTheDoor(form);
      return refusedAtTheDoor(htmx);
    }
    expect(form.status).toBe(303);
    expectSameSite(form.headers.get("location"));
    expect(htmx.status).toBe(200);
    expectSameSite(htmx.headers.get("hx-redirect"));
  });

  test.each(BYPASSES.map((v) => [v]))("POST /api/locale with next=%j", async (next) => {
    const res = await c.postForm("/api/locale", { locale: "en", next });
    if (next.includes("\u0000")) return refusedAtTheDoor(res);
    expect(res.status).toBe(303);
    expectSameSite(res.headers.get("location"));
  });

  test("a tab inside next no longer leads to another host", async () => {
    const res = await c.get("/api/login?next=/%09/evil.example/x");
    expect(res.headers.get("location")).toBe("/");
  });

  test("a NUL in next is refused with 400, not a 500", async () => {
    refusedAtTheDoor(await c.get("/api/login?next=/%00"));
  });
});

describe("a next outside Latin-1", () => {
  test("a form sign-up with next=/😀 redirects to the encoded path and makes exactly one account", async () => {
    const email = "emoji-next@example.com";
    const c = t.client();
    const res = await c.postForm("/api/register", { email, password: "secret1", next: "/😀" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/%F0%9F%98%80");
    expect((await t.db.select().from(users).where(eq(users.email, email))).length).toBe(1);
    expect((await c.get("/api/auth/user")).status).toBe(200);
    // Trying again is a clear "already taken", still one account.
    const again = await t.client().postForm("/api/register", { email, password: "secret1", next: "/😀" });
    expect(again.status).toBe(409);
    expect((await t.db.select().from(users).where(eq(users.email, email))).length).toBe(1);
  });

  test("signing in again with next=/😀 keeps the browser signed in", async () => {
    const c = t.client();
    await c.postJson("/api/login", account);
    const before = c.cookies.get("sid");
    const res = await c.postForm("/api/login", { ...account, next: "/😀" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/%F0%9F%98%80");
    expect(c.cookies.get("sid")).not.toBe(before);
    expect((await c.get("/api/auth/user")).status).toBe(200);
  });

  test("the locale switch with next=/😀 answers a redirect and saves the choice", async () => {
    const c = t.client();
    await c.postJson("/api/login", account);
    const res = await c.postForm("/api/locale", { locale: "fr", next: "/😀?q=\u00e9" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/%F0%9F%98%80?q=%C3%A9");
    const row = await one(t.db.select().from(users).where(eq(users.email, account.email)));
    expect(row!.locale).toBe("fr");
    await c.postForm("/api/locale", { locale: "en" });
  });
});

describe("return addresses handed to a provider's page", () => {
  const request = new Request("http://127.0.0.1:3000/payments/test/onboarding/x");
  test.each([
    ["http://127.0.0.1:3000/stripe-connect-setup?return=1", "/stripe-connect-setup?return=1"],
    ["/checkout/abc/return", "/checkout/abc/return"],
    ["http://evil.example/stripe-connect-setup", "/host"],
    ["//evil.example/x", "/host"],
    ["javascript:alert(1)", "/host"],
    ["http://127.0.0.1:3000//evil.example", "/host"],
  ])("%s → %s", (value, expected) => {
    expect(ownReturnPath(value, request, "/host")).toBe(expected);
  });
});
