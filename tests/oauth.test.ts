import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { writeTransaction } from "../db/client";
import { oauthAccounts, users } from "../db/schema";
import { startFakeOidc } from "./fakes/oidc";
import { makeTestApp, type Client } from "./helpers";

const fake = startFakeOidc({ clientId: "offline-test", clientSecret: "s3cret" });
let t: Awaited<ReturnType<typeof makeTestApp>>;

beforeAll(async () => {
  t = await makeTestApp({
    env: {
      OIDC_ISSUER: fake.issuer,
      OIDC_CLIENT_ID: "offline-test",
      OIDC_CLIENT_SECRET: "s3cret",
      OIDC_NAME: "Acme ID",
      GOOGLE_CLIENT_ID: "google-id",
      GOOGLE_CLIENT_SECRET: "google-secret",
      GITHUB_CLIENT_ID: "github-id",
      GITHUB_CLIENT_SECRET: "github-secret",
    },
  });
});
afterAll(async () => {
  t.cleanup();
  await fake.stop();
});

/** Runs the browser's part of the dance: our redirect, the provider's, back to our callback. */
async function signInWithProvider(c: Client, next?: string) {
  const start = await c.get(`/api/login/oidc${next ? `?next=${encodeURIComponent(next)}` : ""}`);
  expect(start.status).toBe(302);
  const atProvider = await fetch(start.headers.get("location")!, { redirect: "manual" });
  const callback = new URL(atProvider.headers.get("location")!);
  expect(callback.pathname).toBe("/api/callback/oidc");
  return c.get(callback.pathname + callback.search);
}

describe("OpenID Connect sign-in", () => {
  test("the sign-in page has a button per configured provider", async () => {
    const html = await (await t.client().get("/api/login")).text();
    expect(html).toContain("Continue with Acme ID");
    expect(html).toContain("Continue with Google");
    expect(html).toContain("Continue with GitHub");
  });

  test("a new person signs in, gets an account and lands on the page they asked for", async () => {
    fake.setUser({ sub: "alice-1", email: "alice@example.com", email_verified: true, given_name: "Alice", family_name: "Martin" });
    const c = t.client();
    const done = await signInWithProvider(c, "/host");
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/host");
    const me = (await (await c.get("/api/auth/user")).json()) as { email: string; firstName: string; emailVerified: boolean };
    expect(me).toMatchObject({ email: "alice@example.com", firstName: "Alice", emailVerified: true });
    // PKCE: the verifier was sent to the token endpoint.
    expect(fake.tokenRequests.at(-1)!.get("code_verifier")).toBeTruthy();
  });

  test("a provider's names are cleaned like typed ones, and a name with refused characters is asked for in onboarding", async () => {
    fake.setUser({ sub: "names-1", email: "names@example.com", email_verified: true, given_name: "\u200bDave\u2060", family_name: "Ev\u202eil" });
    const c = t.client();
    await signInWithProvider(c);
    const me = (await (await c.get("/api/auth/user")).json()) as { firstName: string | null; lastName: string | null };
    expect(me).toMatchObject({ firstName: "Dave", lastName: null });
  });

  test("signing in again finds the same account", async () => {
    fake.setUser({ sub: "bob-1", email: "bob@example.com", email_verified: true });
    await signInWithProvider(t.client());
    await signInWithProvider(t.client());
    const links = await t.db.select().from(oauthAccounts).where(eq(oauthAccounts.subject, "bob-1"));
    expect(links.length).toBe(1);
    expect((await t.db.select().from(users).where(eq(users.email, "bob@example.com"))).length).toBe(1);
  });

  test("an existing account is never signed into: a screen explains how to prove it is yours", async () => {
    const owner = t.client();
    const { user, password } = await owner.signUpComplete({ email: "dave@example.com" });
    fake.setUser({ sub: "dave-oidc", email: "dave@example.com", email_verified: true });
    const c = t.client();
    const res = await signInWithProvider(c);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("An account with dave@example.com already exists. To use Acme ID with it, prove it&#x27;s yours");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect((await c.get("/api/auth/user")).status).toBe(401);
    expect(await t.db.select().from(oauthAccounts).where(eq(oauthAccounts.subject, "dave-oidc"))).toHaveLength(0);
    // The password proves it: the provider's account is joined and the person signed in.
    const linked = await c.postForm("/link-account", { password });
    expect(linked.status).toBe(303);
    const me = (await (await c.get("/api/auth/user")).json()) as { id: string };
    expect(me.id).toBe(user.id);
    // From now on the provider signs in straight away.
    const again = t.client();
    expect((await signInWithProvider(again)).status).toBe(303);
    expect(((await (await again.get("/api/auth/user")).json()) as { id: string }).id).toBe(user.id);
  });

  test("an unverified email does not take over an existing password account either", async () => {
    const owner = t.client();
    const { user } = await owner.signUpComplete({ email: "carol@example.com" });
    fake.setUser({ sub: "mallory", email: "carol@example.com", email_verified: false });
    const c = t.client();
    const res = await signInWithProvider(c);
    expect(res.status).toBe(200);
    expect((await c.get("/api/auth/user")).status).toBe(401);
    expect((await c.postForm("/link-account", { password: "a-guess" })).status).toBe(401);
    expect(await t.db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, user.id))).toHaveLength(0);
  });

  test("a callback with a wrong state is refused and signs no one in", async () => {
    const c = t.client();
    const start = await c.get("/api/login/oidc");
    const atProvider = await fetch(start.headers.get("location")!, { redirect: "manual" });
    const callback = new URL(atProvider.headers.get("location")!);
    callback.searchParams.set("state", "tampered");
    const res = await c.get(callback.pathname + callback.search);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("Sign-in with Acme ID did not complete");
    expect((await c.get("/api/auth/user")).status).toBe(401);
  });

  test("a callback without the sign-in cookie is refused", async () => {
    const res = await t.client().get("/api/callback/oidc?code=abc&state=def");
    expect(res.status).toBe(400);
  });

  test("Google and GitHub start at their own authorization pages with our callback", async () => {
    const google = new URL((await t.client().get("/api/login/google")).headers.get("location")!);
    expect(google.host).toBe("accounts.google.com");
    expect(google.searchParams.get("redirect_uri")).toBe("http://localhost/api/callback/google");
    expect(google.searchParams.get("code_challenge_method")).toBe("S256");
    const github = new URL((await t.client().get("/api/login/github")).headers.get("location")!);
    expect(github.host).toBe("github.com");
    expect(github.searchParams.get("scope")).toContain("user:email");
  });

  test("the page to return to stays on our site, however it is written", async () => {
    fake.setUser({ sub: "erin-1", email: "erin@example.com", email_verified: true });
    for (const [next, expected] of [
      ["/\t/evil.example/x", "/"],
      ["//evil.example", "/"],
      ["/😀", "/%F0%9F%98%80"],
    ] as const) {
      const done = await signInWithProvider(t.client(), next);
      expect(done.status).toBe(303);
      expect(done.headers.get("location")).toBe(expected);
    }
  });

  test("a hand-edited sign-in cookie cannot send anyone to another site", async () => {
    fake.setUser({ sub: "frank-1", email: "frank@example.com", email_verified: true });
    const c = t.client();
    const start = await c.get("/api/login/oidc");
    const saved = JSON.parse(Buffer.from(c.cookies.get("oauth")!, "base64url").toString("utf8"));
    c.cookies.set("oauth", Buffer.from(JSON.stringify({ ...saved, n: "/\t/evil.example/x" })).toString("base64url"));
    const atProvider = await fetch(start.headers.get("location")!, { redirect: "manual" });
    const callback = new URL(atProvider.headers.get("location")!);
    const done = await c.get(callback.pathname + callback.search);
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/");
  });

  test("a suspended person cannot sign in through a provider either", async () => {
    fake.setUser({ sub: "gina-1", email: "gina@example.com", email_verified: true });
    await signInWithProvider(t.client());
    await writeTransaction(t.db, (tx) => tx.update(users).set({ suspendedAt: Date.now() }).where(eq(users.email, "gina@example.com")));
    const c = t.client();
    const done = await signInWithProvider(c);
    expect(done.status).toBe(400);
    expect(await done.text()).toContain("This account has been suspended.");
    expect((await c.get("/api/auth/user")).status).toBe(401);
  });

  test("an unknown provider is 404", async () => {
    expect((await t.client().get("/api/login/myspace")).status).toBe(404);
  });
});
