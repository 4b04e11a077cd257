import { one } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { sessions, users } from "../db/schema";
import { RateLimiter, SlowDown } from "../lib/rate-limit";
import { Client, makeTestApp } from "./helpers";
import { scenarios, shown, type Scenario } from "./scenario";

let t: Awaited<ReturnType<typeof makeTestApp>>;
beforeAll(async () => {
  t = await makeTestApp();
});
afterAll(() => t.cleanup());

describe("sign-up", () => {
  test("a form sign-up creates the user, signs them in and returns to the page they asked for", async () => {
    const c = t.client();
    const res = await c.postForm("/api/register", { email: "  Ana@Example.com ", password: "secret1", next: "/bookings" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/bookings");
    const cookie = res.headers.getSetCookie().find((l) => l.startsWith("sid="))!;
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).not.toContain("Secure"); // local http
    const me = await c.get("/api/auth/user");
    expect(me.status).toBe(200);
    const user = (await me.json()) as Record<string, unknown>;
    expect(user.email).toBe("ana@example.com");
    expect(user).not.toHaveProperty("passwordHash");
    const row = await one(t.db.select().from(users).where(eq(users.email, "ana@example.com")));
    expect(row!.passwordHash).toStartWith("$argon2");
  });

  test("a JSON sign-up answers 201 with the user and a CSRF token", async () => {
    const c = t.client();
    const res = await c.postJson("/api/register", { email: "json@example.com", password: "secret1" });
    expect(res.status).toBe(201);
    expect(res.headers.get("x-csrf-token")).toBeTruthy();
    expect(((await res.json()) as { email: string }).email).toBe("json@example.com");
  });

  const refusals: [Record<string, unknown>, string, string][] = [
    [{ email: "not-an-email", password: "secret1" }, "email", "Please enter a valid email address"],
    [{ email: "", password: "secret1" }, "email", "Please enter a valid email address"],
    [{ email: "a@b.co", password: "" }, "password", "Password is required"],
    [{ email: "a@b.co", password: "12345" }, "password", "Password must be at least 6 characters"],
    [{ email: "a@b.co", password: "x".repeat(201) }, "password", "Password must be at most 200 characters"],
    [{ email: 42, password: ["x"] }, "email", "Please enter a valid email address"],
  ];
  scenarios(
    () => t,
    refusals.map(([body, field, message]): Scenario => ({
      name: `refuses ${shown(body)} with a clear message and writes nothing`,
      method: "POST",
      url: "/api/register",
      body,
      status: 400,
      json: { fields: { [field]: message } },
      unchanged: async () => (await t.db.select().from(users)).length,
    })),
  );

  test("an email already in use is refused with 409", async () => {
    await t.client().signUp("taken@example.com");
    const res = await t.client().postJson("/api/register", { email: "TAKEN@example.com", password: "another1" });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { message: string }).message).toContain("already exists");
  });

  test("a form error re-renders the page with the message and the email kept", async () => {
    const res = await t.client().postForm("/api/register", { email: "bad", password: "secret1" });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain("Please enter a valid email address");
    expect(html).toContain('value="bad"');
  });

  test("messages follow the browser's language", async () => {
    const res = await t.client().postJson("/api/register", { email: "x", password: "secret1" }, { "accept-language": "fr-FR,fr;q=0.9" });
    expect(((await res.json()) as { message: string }).message).toBe("Veuillez saisir une adresse e-mail valide");
  });
});

describe("sign-in", () => {
  test("right credentials sign in; wrong ones get 401 and a clear message", async () => {
    const { email, password } = await t.client().signUp();
    const wrong = await t.client().postJson("/api/login", { email, password: "wrong-password" });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { message: string }).message).toBe("Incorrect email or password.");
    const unknown = await t.client().postJson("/api/login", { email: "nobody@example.com", password });
    expect(unknown.status).toBe(401);

    const c = t.client();
    const ok = await c.postJson("/api/login", { email: email.toUpperCase(), password });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { email: string }).email).toBe(email);
    expect((await c.get("/api/user")).status).toBe(200);
  });

  test("the form sign-in shows the error on the page", async () => {
    const res = await t.client().postForm("/api/login", { email: "nobody@example.com", password: "whatever" });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain("Incorrect email or password.");
  });

  test("next never leads to another site", async () => {
    const { email, password } = await t.client().signUp();
    for (const next of ["//evil.example", "https://evil.example", "/\\evil.example", "javascript:alert(1)"]) {
      const res = await t.client().postForm("/api/login", { email, password, next });
      expect(res.headers.get("location")).toBe("/");
    }
  });

  test("repeated failures are rate-limited, even with the right password", async () => {
    const { email, password } = await t.client().signUp();
    for (let i = 0; i < 5; i++) expect((await t.client().postJson("/api/login", { email, password: "nope-nope" })).status).toBe(401);
    const blocked = await t.client().postJson("/api/login", { email, password });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await blocked.json()) as { message: string }).message).toContain("Too many attempts");
  });

  test("signing in again rotates the session: the old id stops working", async () => {
    const { email, password } = await t.client().signUp();
    const c = t.client();
    await c.postJson("/api/login", { email, password });
    const first = c.cookies.get("sid")!;
    await c.postJson("/api/login", { email, password });
    const second = c.cookies.get("sid")!;
    expect(second).not.toBe(first);
    const old = new Client(t.app, t.deps);
    old.cookies.set("sid", first);
    expect((await old.get("/api/auth/user")).status).toBe(401);
    expect((await c.get("/api/auth/user")).status).toBe(200);
  });

  test("the database keeps only a hash of the session id", async () => {
    const { email, password } = await t.client().signUp();
    const c = t.client();
    await c.postJson("/api/login", { email, password });
    const token = c.cookies.get("sid")!;
    const rows = await t.db.select().from(sessions);
    expect(rows.some((r) => r.sid === token)).toBe(false);
  });
});

describe("failed sign-ins lock a pair of email and address, not the email", () => {
  let now = Date.now();
  let p: Awaited<ReturnType<typeof makeTestApp>>;
  let slept: number[];
  beforeAll(async () => {
    // A real wait schedule, each attempt counted, but waits are recorded rather than slept so the
    // suite stays fast.
    const slow = new SlowDown(10, 15 * 60 * 1000, 500, 5000);
    slept = [];
    slow.wait = async (key, at) => {
      const ms = await slow.take(key, at);
      slept.push(ms);
      return ms;
    };
    p = await makeTestApp({ env: { TRUST_PROXY: "true" }, now: () => now, limits: { loginByEmail: slow } });
  });
  afterAll(() => p.cleanup());
  const from = (ip: string) => ({ "x-forwarded-for": ip });

  test("five failures lock that address for that email; the right password from another address still works", async () => {
    const { email, password } = await p.client().signUp();
    for (let i = 0; i < 5; i++) expect((await p.client().postJson("/api/login", { email, password: "nope-nope" }, from("203.0.113.1"))).status).toBe(401);
    const blocked = await p.client().postJson("/api/login", { email, password }, from("203.0.113.1"));
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);

    const owner = p.client();
    const ok = await owner.postJson("/api/login", { email, password }, from("198.51.100.7"));
    expect(ok.status).toBe(200);
    expect((await owner.get("/api/auth/user")).status).toBe(200);

    // The locked pair opens again when the window has passed.
    now += 15 * 60 * 1000 + 1;
    expect((await p.client().postJson("/api/login", { email, password }, from("203.0.113.1"))).status).toBe(200);
  });

  test("hammered from many addresses, an email is slowed down, never locked", async () => {
    const { email, password } = await p.client().signUp();
    slept.length = 0;
    for (let ip = 1; ip <= 4; ip++) {
      for (let i = 0; i < 5; i++) await p.client().postJson("/api/login", { email, password: "nope-nope" }, from(`192.0.2.${ip}`));
    }
    // 20 failures: the first 10 were free, then 0.5 s doubling up to 5 s.
    expect(slept.slice(0, 10).every((ms) => ms === 0)).toBe(true);
    expect(slept.slice(10, 15)).toEqual([500, 1000, 2000, 4000, 5000]);
    expect(Math.max(...slept)).toBe(5000);

    slept.length = 0;
    const owner = p.client();
    const ok = await owner.postJson("/api/login", { email, password }, from("198.51.100.8"));
    expect(ok.status).toBe(200);
    expect(slept).toEqual([5000]);
  });

  test("an address that fails on many emails is still limited", async () => {
    for (let i = 0; i < 30; i++) await p.client().postJson("/api/login", { email: `nobody${i}@example.com`, password: "nope-nope" }, from("203.0.113.99"));
    const { email, password } = await p.client().signUp();
    expect((await p.client().postJson("/api/login", { email, password }, from("203.0.113.99"))).status).toBe(429);
    expect((await p.client().postJson("/api/login", { email, password }, from("203.0.113.100"))).status).toBe(200);
  });
});

test("a slow-down waits longer with each failure, within its bounds, and forgets after its window", async () => {
  const slow = new SlowDown(2, 1000, 100, 350);
  const at = 1_000_000;
  expect(await slow.delay("k", at)).toBe(0);
  expect(await slow.take("k", at)).toBe(0);
  expect(await slow.take("k", at)).toBe(0);
  expect(await slow.delay("k", at)).toBe(100);
  expect(await slow.take("k", at)).toBe(100);
  expect(await slow.delay("k", at)).toBe(200);
  expect(await slow.take("k", at)).toBe(200);
  expect(await slow.delay("k", at)).toBe(350);
  for (let i = 0; i < 2000; i++) await slow.take("k", at);
  expect(await slow.delay("k", at)).toBe(350);
  expect(await slow.delay("other", at)).toBe(0);
  expect(await slow.delay("k", at + 1000)).toBe(0);
  // Attempts arriving together each get their own place, so their waits grow as one by one.
  const unbounded = new SlowDown(2, 1000, 100, 10_000);
  const together = await Promise.all(Array.from({ length: 5 }, () => unbounded.take("burst", at)));
  expect(together.sort((a, b) => a - b)).toEqual([0, 0, 100, 200, 400]);
  expect(await unbounded.delay("burst", at)).toBe(800);
  // An attempt given back (the right password) does not count.
  await unbounded.refund("burst", at);
  expect(await unbounded.delay("burst", at)).toBe(400);
  const started = performance.now();
  expect(await new SlowDown(0, 1000, 30, 30).wait("x", at)).toBe(30);
  expect(performance.now() - started).toBeGreaterThanOrEqual(25);
});

test("sign-ups from one address are rate-limited", async () => {
  const limited = await makeTestApp({ limits: { signupByIp: new RateLimiter(2, 60 * 60 * 1000) } });
  await limited.client().signUp();
  await limited.client().signUp();
  const res = await limited.client().postJson("/api/register", { email: "third@example.com", password: "secret1" });
  expect(res.status).toBe(429);
  limited.cleanup();
});

test("a session used after half its life is extended, and its cookie sent again", async () => {
  let now = Date.now();
  const clocked = await makeTestApp({ now: () => now });
  const c = clocked.client();
  await c.signUp();
  const early = await c.get("/api/auth/user");
  expect(early.headers.getSetCookie().some((l) => l.startsWith("sid="))).toBe(false);
  now += 20 * 24 * 60 * 60 * 1000; // day 20 of 30
  const later = await c.get("/api/auth/user");
  expect(later.status).toBe(200);
  expect(later.headers.getSetCookie().find((l) => l.startsWith("sid="))).toContain("Max-Age=2592000");
  now += 25 * 24 * 60 * 60 * 1000; // day 45: still signed in thanks to the extension
  expect((await c.get("/api/auth/user")).status).toBe(200);
  now += 31 * 24 * 60 * 60 * 1000; // a month unused: signed out
  expect((await c.get("/api/auth/user")).status).toBe(401);
  clocked.cleanup();
});

describe("sign-out and the current user", () => {
  test("GET /api/auth/user is 401 when signed out", async () => {
    const res = await t.client().get("/api/auth/user");
    expect(res.status).toBe(401);
    expect((await t.client().get("/api/user")).status).toBe(401);
  });

  test("logout ends the session on the server and clears the cookie", async () => {
    const c = t.client();
    await c.signUp();
    const token = c.cookies.get("sid")!;
    const res = await c.postForm("/api/auth/logout", {});
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    expect(c.cookies.has("sid")).toBe(false);
    const replay = new Client(t.app, t.deps);
    replay.cookies.set("sid", token);
    expect((await replay.get("/api/auth/user")).status).toBe(401);
  });
});

describe("CSRF", () => {
  test("a signed-in POST without the token is refused and changes nothing", async () => {
    const c = t.client();
    await c.signUp();
    const res = await c.request("/api/auth/logout", { method: "POST", form: {}, csrf: false });
    expect(res.status).toBe(403);
    expect((await c.get("/api/auth/user")).status).toBe(200);
  });

  test("a form that answers its own refusals still gets the plain 403 without the token", async () => {
    const c = t.client();
    await c.signUpComplete();
    // The report form goes back to its page with a toast when the report is refused; a missing
    // token is the request's refusal, not the form's.
    for (const path of ["/api/reports", "/review"]) {
      const res = await c.request(path, { method: "POST", form: { reason: "spam", next: "/" }, csrf: false });
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
      expect(await res.text()).toContain("Your session has expired");
    }
  });

  test("a wrong token is refused", async () => {
    const c = t.client();
    await c.signUp();
    const res = await c.request("/api/auth/logout", { method: "POST", headers: { "x-csrf-token": "forged" } });
    expect(res.status).toBe(403);
  });

  test("a wrong token of the right length is refused, in the header or the form field, and changes nothing", async () => {
    const c = t.client();
    await c.signUp();
    const real = c.csrf;
    // The real token with its first character changed; and another person's real token.
    const oneOff = (real[0] === "A" ? "B" : "A") + real.slice(1);
    const other = t.client();
    await other.signUp();
    for (const wrong of [oneOff, other.csrf]) {
      expect(wrong).toHaveLength(real.length);
      expect(wrong).not.toBe(real);
      const header = await c.request("/api/auth/logout", { method: "POST", json: {}, headers: { "x-csrf-token": wrong } });
      expect(header.status).toBe(403);
      expect(((await header.json()) as { message: string }).message).toBe("Your session has expired or the request came from another site. Reload the page and try again.");
      const form = await c.request("/api/auth/logout", { method: "POST", form: { _csrf: wrong }, csrf: false });
      expect(form.status).toBe(403);
      expect((await c.get("/api/auth/user")).status).toBe(200);
    }
    // The real one still passes.
    expect((await c.postJson("/api/auth/logout", {})).status).toBe(200);
    expect((await c.get("/api/auth/user")).status).toBe(401);
  });

  test("cross-site requests are refused, signed in or not", async () => {
    const c = t.client();
    const { email, password } = await c.signUp();
    const fromElsewhere = await c.postForm("/api/auth/logout", {}, { origin: "https://evil.example" });
    expect(fromElsewhere.status).toBe(403);
    const fetchMeta = await t.client().postJson("/api/login", { email, password }, { "sec-fetch-site": "cross-site" });
    expect(fetchMeta.status).toBe(403);
    const loginCsrf = await t.client().postForm("/api/login", { email, password }, { origin: "https://evil.example" });
    expect(loginCsrf.status).toBe(403);
  });

  test("the token in the form field or the header both pass", async () => {
    const a = t.client();
    await a.signUp();
    expect((await a.postForm("/api/auth/logout", {})).status).toBe(303);
    const b = t.client();
    await b.signUp();
    expect((await b.postJson("/api/auth/logout", {})).status).toBe(200);
  });
});

describe("bad input never crashes", () => {
  test("malformed JSON gets 400", async () => {
    const res = await t.client().request("/api/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(res.status).toBe(400);
  });

  test("an absurd session cookie is just signed out", async () => {
    const c = new Client(t.app, t.deps);
    c.cookies.set("sid", "x".repeat(5000));
    expect((await c.get("/api/auth/user")).status).toBe(401);
  });
});

describe("secure deployments", () => {
  test("over https the session cookie is Secure and __Host- prefixed", async () => {
    const secure = await makeTestApp({ env: { PUBLIC_URL: "https://offline.example" } });
    const res = await secure.app.handle(
      new Request("https://offline.example/api/register", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://offline.example" },
        body: JSON.stringify({ email: "s@example.com", password: "secret1" }),
      }),
    );
    expect(res.status).toBe(201);
    const cookie = res.headers.getSetCookie().find((l) => l.startsWith("__Host-sid="))!;
    expect(cookie).toContain("Secure");
    secure.cleanup();
  });
});
