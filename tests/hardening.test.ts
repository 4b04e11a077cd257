/**
 * Browser hardening (docs/decisions/0031-browser-hardening.md), each part as the probe that found
 * it: an error page that showed the server's files and source, a shared phone's Back button that
 * showed the previous person's pages after sign-out, and missing isolation headers and the
 * OpenID `iss` check.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { permissionsPolicy } from "../src/security/headers";
import { startFakeOidc, type IssParameter } from "./fakes/oidc";
import { makeTestApp, type Client } from "./helpers";
import { startServerProcess } from "./server-process";

const root = join(import.meta.dir, "..");
const PHOTO_ID = "0b7f3c1e-4a59-4d0e-9d8a-2f6c1e9b7a10";

/** What a leaked development error page or stack trace looks like. */
function expectNothingOfTheServer(body: string) {
  expect(body).not.toContain(root);
  expect(body).not.toContain("/work/");
  expect(body).not.toMatch(/\bat (?:async )?\S+ \(/); // "at body (/…/storage.ts:78:23)"
  expect(body).not.toMatch(/^\s+at /m);
  expect(body).not.toContain(".ts:");
  expect(body).not.toContain("__bunfallback");
  expect(body).not.toContain("source_lines");
  expect(body).not.toContain("BunError");
  expect(body).not.toContain("storage");
}

let t: Awaited<ReturnType<typeof makeTestApp>>;
let member: Client;
let memberEmail: string;

beforeAll(async () => {
  t = await makeTestApp();
  member = t.client();
  const account = await member.signUpComplete();
  memberEmail = account.user.email;
});
afterAll(() => t.cleanup());

describe("(5) a failure answers with the app's own page or JSON, never Bun's development page", () => {
  /** Photos whose storage fails the way an unreachable bucket does, with a path in the message. */
  async function withFailingStorage<T>(run: () => Promise<T>): Promise<T> {
    const body = t.deps.storage.body;
    const error = console.error;
    t.deps.storage.body = async () => {
      const err = new Error(`connect ECONNREFUSED reading ${join(root, "src/uploads/storage.ts")}`);
      Object.assign(err, { code: "ConnectionRefused" });
      throw err;
    };
    const logged: unknown[][] = [];
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      const result = await run();
      // The stack is for the server's log (written as text: db/faults.ts, `loggable`).
      expect(logged.some((args) => args.some((a) => String(a instanceof Error ? a.stack : a).includes("\n    at ")))).toBe(true);
      return result;
    } finally {
      t.deps.storage.body = body;
      console.error = error;
    }
  }

  test("the serve options turn Bun's development mode off whatever NODE_ENV says", () => {
    const serve = t.app.config.serve as { development?: boolean; error?: unknown };
    expect(serve.development).toBe(false);
    expect(typeof serve.error).toBe("function");
  });

  test("a route that throws: the error page for a browser, JSON for the API and htmx, with every header", async () => {
    await withFailingStorage(async () => {
      // Both photo routes: the second is one whose failure Elysia itself does not catch.
      for (const path of [`/objects/${PHOTO_ID}`, `/objects/${PHOTO_ID}/thumb.webp`, `/objects/${PHOTO_ID}/large.webp`]) {
        const page = await t.client().get(path, { accept: "text/html" });
        expect({ path, status: page.status }).toEqual({ path, status: 500 });
        expect(page.headers.get("content-type")).toContain("text/html");
        expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
        expect(page.headers.get("cross-origin-opener-policy")).toBe("same-origin");
        const html = await page.text();
        expect(html).toContain("Something went wrong");
        expect(html).toContain("Please try again in a moment.");
        expectNothingOfTheServer(html);

        const api = await t.client().get(path, { accept: "application/json" });
        expect(api.status).toBe(500);
        expect(await api.json()).toEqual({ message: "Something went wrong" });

        const htmx = await member.get(path, { "hx-request": "true" });
        expect(htmx.status).toBe(500);
        expect(htmx.headers.get("content-type")).toContain("application/json");
        expect(JSON.parse(htmx.headers.get("hx-trigger")!).toast).toMatchObject({ title: "Something went wrong", variant: "error" });
        expectNothingOfTheServer(await htmx.text());

        // Photos are answered without reading the session: the error page is nobody's.
        const signedIn = await member.get(path, { accept: "text/html", "accept-encoding": "gzip" });
        expect(signedIn.status).toBe(500);
        expect(signedIn.headers.get("content-encoding")).toBe("gzip");
        const unzipped = Bun.gunzipSync(new Uint8Array(await signedIn.arrayBuffer()));
        const text = new TextDecoder().decode(unzipped);
        expect(text).not.toContain(memberEmail);
        expectNothingOfTheServer(text);
      }
    });
  });

  test("the real server started as `npm start` does (Bun, NODE_ENV unset) with its bucket unreachable", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "offline-hardening-"));
    // `bun test` sets NODE_ENV=test; `npm start` leaves it unset, which is what made Bun show its page.
    const { proc, url } = await startServerProcess({
      stderr: "pipe",
      env: {
        NODE_ENV: undefined,
        ENV: undefined,
        DATA_DIR: dataDir,
        DEMO_DATA: "false",
        S3_BUCKET: "photos",
        S3_ENDPOINT: "http://127.0.0.1:9", // nothing listens there: every call fails
        S3_REGION: "us-east-1",
        S3_ACCESS_KEY_ID: "key",
        S3_SECRET_ACCESS_KEY: "secret",
      },
    });
    try {
      for (const path of [`/objects/${PHOTO_ID}/thumb.webp`, `/objects/${PHOTO_ID}`]) {
        const page = await fetch(url + path, { headers: { accept: "text/html,application/xhtml+xml" } });
        expect({ path, status: page.status }).toEqual({ path, status: 500 });
        const html = await page.text();
        expect(html).toContain("Something went wrong");
        expectNothingOfTheServer(html);
        const api = await fetch(url + path, { headers: { accept: "application/json" } });
        expect(api.status).toBe(500);
        expect(await api.json()).toEqual({ message: "Something went wrong" });
      }
    } finally {
      proc.kill();
      await proc.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
    // The server's log has what happened, with the stack.
    const log = await new Response(proc.stderr).text();
    expect(log).toContain(`GET /objects/${PHOTO_ID}/thumb.webp failed:`);
    expect(log).toMatch(/\bat (?:async )?\S+ \(/);
  }, 60_000);
});

describe("(6) nothing of a signed-in person is stored by the browser; sign-out clears the site", () => {
  test("every answer to a signed-in person is no-store: pages, fragments, JSON, redirects", async () => {
    for (const path of ["/", "/browse", "/settings", "/settings/email", "/bookings", "/profile", "/no/such/page", "/fragments/username-status?username=abc", "/api/auth/user", "/offline"]) {
      const res = await member.get(path);
      expect({ path, cacheControl: res.headers.get("cache-control") }).toEqual({ path, cacheControl: "no-store" });
    }
    const settings = await (await member.get("/settings")).text();
    expect(settings).toContain(memberEmail);
  });

  test("public answers keep their caching: visitors' pages, shipped files, photos", async () => {
    const visitor = t.client();
    expect((await visitor.get("/")).headers.get("cache-control")).toBe("private, no-cache");
    expect((await visitor.get("/browse")).headers.get("cache-control")).toBe("private, no-cache");
    expect((await visitor.get("/static/photos/sports-1.svg")).headers.get("cache-control")).toBe("public, max-age=604800");
    expect((await member.get("/static/photos/sports-1.svg")).headers.get("cache-control")).toBe("public, max-age=604800");
    if (t.deps.assets.css) expect((await member.get(t.deps.assets.css)).headers.get("cache-control")).toContain("immutable");
    expect((await member.get("/sw.js")).headers.get("cache-control")).toBe("no-cache");
  });

  test("the sign-in page showing a typed email back, and the answers that start a session, are not stored", async () => {
    const c = t.client();
    const failed = await c.postForm("/api/login", { email: "someone@example.com", password: "wrong-password" });
    expect(failed.status).toBe(401);
    expect(failed.headers.get("cache-control")).toBe("no-store");
    expect(await failed.text()).toContain("someone@example.com");

    const form = await c.postForm("/api/login", { email: memberEmail, password: "secret123" });
    expect(form.status).toBe(303);
    expect(form.headers.get("cache-control")).toBe("no-store");
    const api = await t.client().postJson("/api/login", { email: memberEmail, password: "secret123" });
    expect(api.status).toBe(200);
    expect(api.headers.get("cache-control")).toBe("no-store");
  });

  test("sign-out answers Clear-Site-Data for the cache and storage, and Back reaches nothing of the person", async () => {
    const c = t.client();
    await c.postJson("/api/login", { email: memberEmail, password: "secret123" });
    const kept = new Map(c.cookies);
    expect(await (await c.get("/settings")).text()).toContain(memberEmail);

    const out = await c.postForm("/api/auth/logout", {});
    expect(out.status).toBe(303);
    expect(out.headers.get("clear-site-data")).toBe('"cache", "storage"');
    expect(out.headers.get("cache-control")).toBe("no-store");
    // The "signed out" toast is a cookie, which Clear-Site-Data leaves alone.
    expect(out.headers.getSetCookie().some((cookie) => cookie.startsWith("flash="))).toBe(true);

    // The page asked for again (no-store: Back has to ask) is the landing page, with no email.
    const back = await c.get("/settings");
    expect(back.status).toBe(200);
    expect(back.headers.get("x-offline-user")).toBe("-");
    expect(await back.text()).not.toContain(memberEmail);
    // Even with the old session cookie replayed.
    const replay = t.client();
    replay.cookies = kept;
    expect(await (await replay.get("/settings")).text()).not.toContain(memberEmail);

    const jsonCaller = t.client();
    await jsonCaller.postJson("/api/login", { email: memberEmail, password: "secret123" });
    const jsonOut = await jsonCaller.postJson("/api/auth/logout", {});
    expect(jsonOut.status).toBe(200);
    expect(jsonOut.headers.get("clear-site-data")).toBe('"cache", "storage"');
  });
});

describe("(9) isolation headers", () => {
  test("pages: Cross-Origin-Opener-Policy same-origin and a Permissions-Policy that turns off what is not used", async () => {
    for (const res of [await t.client().get("/"), await member.get("/settings"), await t.client().get("/api/login")]) {
      expect(res.headers.get("cross-origin-opener-policy")).toBe("same-origin");
      const policy = res.headers.get("permissions-policy")!;
      for (const off of ["camera=()", "microphone=()", "geolocation=()", "payment=()", "usb=()"]) expect(policy).toContain(off);
      // Used: the copy and share buttons.
      expect(policy).toContain("clipboard-write=(self)");
      expect(policy).toContain("web-share=(self)");
    }
  });

  test("with Stripe, only Stripe.js's frames may use the Payment Request API", () => {
    expect(permissionsPolicy(true)).toContain('payment=("https://js.stripe.com" "https://hooks.stripe.com")');
    expect(permissionsPolicy(false)).toContain("payment=()");
  });

  test("photos are for our own origin only (Cross-Origin-Resource-Policy), and still load there", async () => {
    await t.deps.storage.write(`photos/${PHOTO_ID}/thumb.webp`, new Uint8Array([82, 73, 70, 70]), "image/webp");
    await t.deps.storage.write(`photos/${PHOTO_ID}/large.webp`, new Uint8Array([82, 73, 70, 70]), "image/webp");
    for (const path of [`/objects/${PHOTO_ID}`, `/objects/${PHOTO_ID}/thumb.webp`]) {
      const res = await t.client().get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get("cross-origin-resource-policy")).toBe("same-origin");
      expect(res.headers.get("cache-control")).toContain("immutable");
    }
    expect((await t.client().get("/")).headers.get("cross-origin-resource-policy")).toBeNull();
  });
});

describe("(9) OpenID Connect: the callback's `iss` (RFC 9207) must be the configured issuer", () => {
  const providers: { fake: ReturnType<typeof startFakeOidc>; app: Awaited<ReturnType<typeof makeTestApp>> }[] = [];
  async function provider(advertiseIss: boolean, iss: IssParameter) {
    const fake = startFakeOidc({ clientId: "offline-test", clientSecret: "s3cret", advertiseIss, iss });
    const app = await makeTestApp({ env: { OIDC_ISSUER: fake.issuer, OIDC_CLIENT_ID: "offline-test", OIDC_CLIENT_SECRET: "s3cret", OIDC_NAME: "Acme ID" } });
    providers.push({ fake, app });
    return { fake, app };
  }
  afterAll(() => {
    for (const p of providers) {
      void p.fake.stop();
      p.app.cleanup();
    }
  });

  /** The browser's part of the dance; `edit` changes the callback address on its way back. */
  async function signIn(app: Awaited<ReturnType<typeof makeTestApp>>, edit: (callback: URL) => void = () => {}) {
    const c = app.client();
    const start = await c.get("/api/login/oidc");
    expect(start.status).toBe(302);
    const atProvider = await fetch(start.headers.get("location")!, { redirect: "manual" });
    const callback = new URL(atProvider.headers.get("location")!);
    edit(callback);
    const done = await c.get(callback.pathname + callback.search);
    const signedIn = (await c.get("/api/auth/user")).status === 200;
    return { done, signedIn };
  }

  async function expectRefused(p: { fake: ReturnType<typeof startFakeOidc>; app: Awaited<ReturnType<typeof makeTestApp>> }, edit?: (callback: URL) => void) {
    const exchanged = p.fake.tokenRequests.length;
    const error = console.error;
    console.error = () => {};
    try {
      const { done, signedIn } = await signIn(p.app, edit);
      expect(done.status).toBe(400);
      expect(await done.text()).toContain("Sign-in with Acme ID did not complete");
      expect(signedIn).toBe(false);
      // Refused before the code was ever exchanged.
      expect(p.fake.tokenRequests.length).toBe(exchanged);
    } finally {
      console.error = error;
    }
  }

  test("a provider that says it sends `iss`: its own signs in; another one, or none, is refused", async () => {
    const p = await provider(true, "own");
    p.fake.setUser({ sub: "iss-1", email: "iss1@example.com", email_verified: true });
    const ok = await signIn(p.app);
    expect(ok.done.status).toBe(303);
    expect(ok.signedIn).toBe(true);

    p.fake.setIss({ value: "https://attacker.example" });
    await expectRefused(p);
    p.fake.setIss({ value: `${p.fake.issuer}/` });
    await expectRefused(p);
    p.fake.setIss("none");
    await expectRefused(p);
    // Two values, one of them right, in either order.
    p.fake.setIss("own");
    await expectRefused(p, (callback) => callback.searchParams.append("iss", "https://attacker.example"));
    await expectRefused(p, (callback) => {
      const own = callback.searchParams.get("iss")!;
      callback.searchParams.set("iss", "https://attacker.example");
      callback.searchParams.append("iss", own);
    });
  });

  test("a provider that does not say so: no `iss` signs in, its own signs in, another one is refused", async () => {
    const p = await provider(false, "none");
    p.fake.setUser({ sub: "iss-2", email: "iss2@example.com", email_verified: true });
    expect((await signIn(p.app)).signedIn).toBe(true);
    p.fake.setIss("own");
    expect((await signIn(p.app)).signedIn).toBe(true);
    p.fake.setIss({ value: "https://attacker.example" });
    await expectRefused(p);
  });
});
