import { one, writeTransaction } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { emailTokens, jobs, oauthAccounts, sessions, users } from "../db/schema";
import { startFakeOidc } from "./fakes/oidc";
import { startFakeSmtp, type FakeSmtp, type ReceivedEmail } from "./fakes/smtp";
import { makeTestApp, pathOfLink, settled, until, type Client } from "./helpers";
import { scenario } from "./scenario";

/**
 * The account half of email (docs/decisions/0034), through the app with a real SMTP server:
 * verifying addresses, changing the email, password reset, sign-up with a taken address, the
 * rights that wait for a verified address (operators, payouts) and joining a provider's account.
 */

const HOUR = 60 * 60 * 1000;
const OPERATOR = "ops@example.com";
let now = Date.parse("2026-11-23T09:00:00Z");
let smtp: FakeSmtp;
let t: Awaited<ReturnType<typeof makeTestApp>>;
const oidc = startFakeOidc({ clientId: "offline-test", clientSecret: "s3cret" });

beforeAll(async () => {
  smtp = await startFakeSmtp();
  t = await makeTestApp({
    now: () => now,
    env: {
      SMTP_URL: smtp.url,
      ADMIN_EMAILS: OPERATOR,
      TRUST_PROXY: "true",
      OIDC_ISSUER: oidc.issuer,
      OIDC_CLIENT_ID: "offline-test",
      OIDC_CLIENT_SECRET: "s3cret",
      OIDC_NAME: "Acme ID",
    },
  });
});
afterAll(async () => {
  // The last emails are on their way: let them arrive before the server goes.
  await until("the emails sent", async () => (await t.db.select().from(jobs).where(eq(jobs.kind, "email.send"))).length === 0).catch(() => {});
  t.deps.mailer.close();
  await smtp.close();
  t.cleanup();
  await oidc.stop();
});

type Json = Record<string, any>;
const body = async (res: Response) => (await res.json()) as Json;
let n = 0;
const fresh = (name: string) => `${name}-${++n}@example.com`;
/** A different network address for each caller that asks, so the per-address limits stay apart. */
const ip = () => ({ "x-forwarded-for": `198.51.100.${++n % 250}` });

/** The emails to `to` whose subject matches, in the order received. */
const mails = (to: string, subject: RegExp) => smtp.to(to).filter((m) => subject.test(m.subject));
/** Waits for the `count`-th email to `to` whose subject matches. */
async function mail(to: string, subject: RegExp, count = 1): Promise<ReceivedEmail> {
  await until(`email #${count} to ${to} (${subject})`, () => mails(to, subject).length >= count);
  return mails(to, subject)[count - 1]!;
}
const linkTo = (m: ReceivedEmail, path: string) => {
  const link = m.links.find((l) => l.includes(path));
  if (!link) throw new Error(`no ${path} link in "${m.subject}": ${m.links.join(", ")}`);
  return pathOfLink(link);
};
const userRow = async (email: string) => await one(t.db.select().from(users).where(eq(users.email, email)));
const VERIFY = /^Confirm your email address$/;

/** Signs up through the API and follows the verification link, unless asked not to. */
async function account(c: Client, email = fresh("person"), verify = true) {
  const made = await c.signUp(email);
  if (verify) expect((await c.get(linkTo(await mail(email, VERIFY), "/verify-email?token="))).status).toBe(200);
  return made;
}

describe("verifying the address", () => {
  test("sign-up signs in at once and sends a link; following it verifies the address, once", async () => {
    const c = t.client();
    const email = fresh("newcomer");
    const res = await c.postJson("/api/register", { email, password: "secret123" });
    expect(res.status).toBe(201);
    expect(await body(res)).toMatchObject({ email, emailVerified: false });
    const m = await mail(email, VERIFY);
    expect(m.text).toContain(`Confirm that ${email} is your address`);
    expect(m.text).toContain("This link works for 7 days.");
    expect(m.text).toContain("You get this email because it concerns your Offline account.");
    const link = linkTo(m, "/verify-email?token=");
    expect(link).toMatch(/^\/verify-email\?token=[A-Za-z0-9_-]{43}$/);

    const page = await c.get(link);
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(await page.text()).toContain(`${email} is verified. Thank you!`);
    expect(await body(await c.get("/api/user"))).toMatchObject({ emailVerified: true });
    // Only the hash of the token is kept.
    const stored = await t.db.select().from(emailTokens).where(eq(emailTokens.userId, (await userRow(email))!.id));
    expect(stored.map((r) => r.tokenHash)).not.toContain(link.split("=")[1]);

    // Opened again, the used link says the address is verified: there is nothing to resend.
    const again = await c.get(link);
    expect(again.status).toBe(200);
    const html = await again.text();
    expect(html).toContain("Your email is verified");
    expect(html).not.toContain("Resend link");
  });

  test("the email is in the language of the person signing up, and the link works signed out", async () => {
    const email = fresh("francais");
    const res = await t.client().postJson("/api/register", { email, password: "secret123" }, { "accept-language": "fr-FR,fr;q=0.9" });
    expect(res.status).toBe(201);
    const m = await mail(email, /^Confirmez votre adresse e-mail$/);
    expect(m.text).toContain("Ce lien est valable 7 jours.");
    const visitor = t.client();
    const page = await visitor.get(linkTo(m, "/verify-email"));
    expect(page.status).toBe(200);
    expect((await userRow(email))!.emailVerified).toBe(true);
  });

  test("bad or missing tokens get a clear 400 and change nothing", async () => {
    for (const url of ["/verify-email", "/verify-email?token=", "/verify-email?token=abc", `/verify-email?token=${"A".repeat(43)}`, "/verify-email?token=a&token=b"]) {
      await scenario(t, { url, status: 400, contains: "This verification link has expired, was already used" });
    }
    const json = await t.client().request("/verify-email?token=nope", { headers: { accept: "application/json" } });
    expect(json.status).toBe(400);
    expect((await body(json)).message).toContain("expired");
  });

  test("a verification link lasts 7 days", async () => {
    const email = fresh("late");
    await t.client().signUp(email);
    const link = linkTo(await mail(email, VERIFY), "/verify-email");
    now += 7 * 24 * HOUR + 1;
    expect((await t.client().get(link)).status).toBe(400);
    expect((await userRow(email))!.emailVerified).toBe(false);
  });

  test("'Resend link': a new link, three an hour per account, then a clear 429", async () => {
    const c = t.client();
    const { email } = await account(c, fresh("resend"), false);
    for (let i = 0; i < 3; i++) {
      const res = await c.postJson("/api/auth/verify-email/resend", {});
      expect(res.status).toBe(202);
      expect((await body(res)).message).toBe(`We sent a link to ${email}. It works for 7 days.`);
    }
    const refused = await c.postJson("/api/auth/verify-email/resend", {});
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await body(refused)).message).toBe("We already sent you several links. Check your inbox and spam folder, or try again in 60 minutes.");
    const sent = await mail(email, VERIFY, 4);
    // Any of the links works; the newest one here.
    expect((await c.get(linkTo(sent, "/verify-email"))).status).toBe(200);
    now += HOUR;
    const verified = await c.postJson("/api/auth/verify-email/resend", {});
    expect(verified.status).toBe(409);
    expect((await body(verified)).message).toBe("Your email address is already verified.");
  });

  test("Settings shows the status with 'Resend link'; the form comes back with a toast", async () => {
    const c = t.client();
    const { email } = await c.signUpComplete({ email: fresh("settings") }, { verified: false });
    const overview = await (await c.get("/settings/account")).text();
    expect(overview).toContain("Not verified");
    expect(overview).toContain(`We sent a link to ${email}`);
    expect(overview).toContain('action="/api/auth/verify-email/resend"');
    expect(await (await c.get("/settings/email")).text()).toContain("Not verified");
    const res = await c.postForm("/api/auth/verify-email/resend", { next: "/settings/email" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/settings/email");
    expect(await (await c.get("/settings/email")).text()).toContain("Link sent");
    await c.get(linkTo(await mail(email, VERIFY, 2), "/verify-email"));
    const after = await (await c.get("/settings/account")).text();
    expect(after).toContain("Verified");
    expect(after).not.toContain("Resend link");
    expect((await t.client().postJson("/api/auth/verify-email/resend", {})).status).toBe(401);
  });
});

describe("changing the email", () => {
  const CHANGE = /^Confirm your new email address$/;

  test("the new address confirms it first; then it replaces the old one, other sessions end, and the old address is told", async () => {
    const c = t.client();
    const { email, password } = await c.signUpComplete({ email: fresh("mover") });
    const elsewhere = t.client();
    expect((await elsewhere.postJson("/api/login", { email, password })).status).toBe(200);
    const target = fresh("moved");
    const res = await c.putJson("/api/user/email", { email: target, currentPassword: password });
    expect(res.status).toBe(202);
    expect(await body(res)).toMatchObject({ email, emailVerified: true, pendingEmail: target, message: `We sent a link to ${target}. Your email changes when you follow it.` });
    expect(await userRow(email)).toBeDefined();
    expect(await (await c.get("/settings/account")).text()).toContain(`Waiting for confirmation of ${target}`);

    const m = await mail(target, CHANGE);
    expect(m.text).toContain(`change the email of your Offline account to ${target}`);
    const page = await c.get(linkTo(m, "/verify-email"));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`Your account&#x27;s email is now ${target}`);
    expect(await body(await c.get("/api/user"))).toMatchObject({ email: target, emailVerified: true });
    expect((await elsewhere.get("/api/user")).status).toBe(401);
    const told = await mail(email, /^The email of your Offline account was changed$/);
    expect(told.text).toContain(`changed from ${email} to ${target}`);
    expect(await (await c.get("/settings/account")).text()).not.toContain("Waiting for confirmation");
  });

  test("an address taken before the link is followed is not taken over; only the newest change link works", async () => {
    const c = t.client();
    const { password } = await account(c, fresh("racer"));
    const first = fresh("wanted");
    const second = fresh("wanted");
    expect((await c.putJson("/api/user/email", { email: first, currentPassword: password })).status).toBe(202);
    expect((await c.putJson("/api/user/email", { email: second, currentPassword: password })).status).toBe(202);
    expect((await c.get(linkTo(await mail(first, CHANGE), "/verify-email"))).status).toBe(400);
    // Someone signs up with the address in the meantime.
    await t.client().signUp(second);
    const taken = await c.get(linkTo(await mail(second, CHANGE), "/verify-email"));
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain(`${second} now belongs to another account`);
    expect((await body(await c.get("/api/user"))).email).not.toBe(second);
  });

  test("asking for the current address again drops a pending change; an old sign-up link does not bring an old address back", async () => {
    const c = t.client();
    const { email, password } = await account(c, fresh("undo"));
    const target = fresh("undo-target");
    expect((await c.putJson("/api/user/email", { email: target, currentPassword: password })).status).toBe(202);
    expect((await c.putJson("/api/user/email", { email, currentPassword: password })).status).toBe(200);
    expect((await c.get(linkTo(await mail(target, CHANGE), "/verify-email"))).status).toBe(400);

    const d = t.client();
    const other = await d.signUp(fresh("stale"));
    const signupLink = linkTo(await mail(other.email, VERIFY), "/verify-email");
    const moved = fresh("stale-moved");
    expect((await d.putJson("/api/user/email", { email: moved, currentPassword: other.password })).status).toBe(202);
    expect((await d.get(linkTo(await mail(moved, CHANGE), "/verify-email"))).status).toBe(200);
    expect((await d.get(signupLink)).status).toBe(400);
    expect((await body(await d.get("/api/user"))).email).toBe(moved);
  });

  test("the refusals stay: wrong password, taken and reserved addresses, bad input", async () => {
    const c = t.client();
    const { password } = await account(c, fresh("refused"));
    expect((await c.putJson("/api/user/email", { email: fresh("x"), currentPassword: "wrong" })).status).toBe(403);
    const holder = await t.client().signUp(fresh("holder"));
    expect((await c.putJson("/api/user/email", { email: holder.email, currentPassword: password })).status).toBe(409);
    expect((await c.putJson("/api/user/email", { email: OPERATOR, currentPassword: password })).status).toBe(409);
    const bad = await c.putJson("/api/user/email", { email: "not-an-email", currentPassword: password });
    expect(bad.status).toBe(400);
    expect((await body(bad)).message).toBe("Please enter a valid email address");
  });
});

describe("password reset", () => {
  const RESET = /^Reset your Offline password$/;
  const forgot = (c: Client, email: string, headers: Record<string, string> = ip()) => c.postJson("/forgot-password", { email }, headers);

  test("'Forgot password?' is on the sign-in screen and its page is prefilled", async () => {
    const login = await (await t.client().get("/api/login?email=a%40example.com")).text();
    expect(login).toContain('href="/forgot-password?email=a%40example.com"');
    expect(login).toContain("Forgot password?");
    const page = await t.client().get("/forgot-password?email=a%40example.com");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('value="a@example.com"');
  });

  test("the same answer, in about the same time, whether or not the address has an account", async () => {
    const { email } = await account(t.client(), fresh("known"));
    const unknown = fresh("unknown");
    const started = performance.now();
    const a = await forgot(t.client(), email);
    const tookA = performance.now() - started;
    const b = await forgot(t.client(), unknown);
    const tookB = performance.now() - started - tookA;
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect((await body(a)).message).toBe(`If an account exists for ${email}, we sent a link to it. The link works for one hour.`);
    expect((await body(b)).message).toBe(`If an account exists for ${unknown}, we sent a link to it. The link works for one hour.`);
    expect(Math.min(tookA, tookB)).toBeGreaterThanOrEqual(140);
    // The form's pages differ only by the address typed.
    const pageA = await (await t.client().postForm("/forgot-password", { email }, ip())).text();
    const pageB = await (await t.client().postForm("/forgot-password", { email: unknown }, ip())).text();
    const without = (html: string, e: string) => html.replaceAll(e, "X").replaceAll(encodeURIComponent(e), "X");
    expect(without(pageA, email)).toBe(without(pageB, unknown));
    await mail(email, RESET, 2);
    expect(smtp.to(unknown)).toEqual([]);
  });

  test("the link shows the form (a visit uses nothing), works once, ends every session and signs this browser in", async () => {
    const c = t.client();
    const { email, password } = await account(c, fresh("forgetful"));
    const elsewhere = t.client();
    await elsewhere.postJson("/api/login", { email, password });
    expect((await forgot(t.client(), email)).status).toBe(200);
    const m = await mail(email, RESET);
    expect(m.text).toContain("This link works for one hour, and only once.");
    const link = linkTo(m, "/reset-password?token=");
    const browser = t.client();
    for (let i = 0; i < 2; i++) {
      const page = await browser.get(link);
      expect(page.status).toBe(200);
      expect(page.headers.get("cache-control")).toBe("no-store");
      expect(page.headers.get("referrer-policy")).toBe("same-origin");
      const html = await page.text();
      expect(html).toContain("Choose a new password");
      expect(html).toContain(`For the account ${email}`);
    }
    const token = new URL(link, "http://x").searchParams.get("token")!;
    const short = await browser.postForm("/reset-password", { token, password: "12345" });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain("Password must be at least 6 characters");

    const done = await browser.postForm("/reset-password", { token, password: "a-new-secret" });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/");
    expect(await body(await browser.get("/api/user"))).toMatchObject({ email, emailVerified: true });
    expect((await c.get("/api/user")).status).toBe(401);
    expect((await elsewhere.get("/api/user")).status).toBe(401);
    expect(await t.db.select().from(sessions).where(eq(sessions.userId, (await userRow(email))!.id))).toHaveLength(1);
    expect((await t.client().postJson("/api/login", { email, password })).status).toBe(401);
    expect((await t.client().postJson("/api/login", { email, password: "a-new-secret" })).status).toBe(200);

    const twice = await t.client().postForm("/reset-password", { token, password: "another-one" });
    expect(twice.status).toBe(400);
    expect(await twice.text()).toContain("This password reset link has expired or was already used");
    expect((await t.client().get(link)).status).toBe(400);
  });

  test("a link expires after an hour, and a newer link voids the older one", async () => {
    const { email } = await account(t.client(), fresh("slow"));
    await forgot(t.client(), email);
    const old = linkTo(await mail(email, RESET), "/reset-password");
    now += HOUR + 1;
    expect((await t.client().get(old)).status).toBe(400);
    const oldToken = new URL(old, "http://x").searchParams.get("token")!;
    expect((await t.client().postJson("/reset-password", { token: oldToken, password: "whatever1" })).status).toBe(400);

    await forgot(t.client(), email);
    const first = linkTo(await mail(email, RESET, 2), "/reset-password");
    await forgot(t.client(), email);
    const second = linkTo(await mail(email, RESET, 3), "/reset-password");
    expect((await t.client().get(first)).status).toBe(400);
    expect((await t.client().get(second)).status).toBe(200);
  });

  test("per address: three links an hour, then nothing more is sent and the answer does not change", async () => {
    const { email } = await account(t.client(), fresh("flooded"));
    for (let i = 0; i < 5; i++) {
      const res = await forgot(t.client(), email);
      expect(res.status).toBe(200);
      expect((await body(res)).message).toContain(`If an account exists for ${email}`);
    }
    await mail(email, RESET, 3);
    await settled(t.deps);
    expect(mails(email, RESET)).toHaveLength(3);
  });

  test("per network address: ten requests in 15 minutes, then 429 with Retry-After and a clear message", async () => {
    const from = ip();
    for (let i = 0; i < 10; i++) expect((await forgot(t.client(), fresh("anyone"), from)).status).toBe(200);
    const refused = await forgot(t.client(), fresh("anyone"), from);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await body(refused)).message).toBe("Too many reset requests from your network. Please wait 15 minutes and try again.");
    const form = await t.client().postForm("/forgot-password", { email: fresh("anyone") }, from);
    expect(form.status).toBe(429);
    expect(await form.text()).toContain("Too many reset requests from your network.");
    expect((await forgot(t.client(), fresh("anyone"))).status).toBe(200);
  });

  test("bad input gets a clear 400 and sends nothing", async () => {
    const bad = await t.client().postJson("/forgot-password", { email: "not an email" }, ip());
    expect(bad.status).toBe(400);
    expect((await body(bad)).message).toBe("Please enter a valid email address");
    const page = await t.client().postForm("/forgot-password", { email: "x" }, ip());
    expect(page.status).toBe(400);
    const html = await page.text();
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('aria-describedby="forgot-email-error"');
    expect(html).toContain('id="forgot-email-error"');
    expect((await t.client().postJson("/forgot-password", [], ip())).status).toBe(400);
    for (const input of [{}, { token: "x", password: "secret123" }, { token: ["a"], password: "secret123" }]) {
      await scenario(t, { method: "POST", url: "/reset-password", body: input, status: 400, json: { message: expect.stringContaining("expired or was already used") } });
    }
    expect((await t.client().get("/reset-password")).status).toBe(400);
  });

  test("an account that signs in only with a provider can set a password; a suspended one gets no link", async () => {
    oidc.setUser({ sub: "provider-only", email: "provider-only@example.com", email_verified: true });
    await providerSignIn(t.client());
    const row = (await userRow("provider-only@example.com"))!;
    expect(row.passwordHash).toBeNull();
    await forgot(t.client(), row.email!);
    const link = linkTo(await mail(row.email!, RESET), "/reset-password");
    const token = new URL(link, "http://x").searchParams.get("token")!;
    expect((await t.client().postForm("/reset-password", { token, password: "now-i-have-one" })).status).toBe(303);
    expect((await t.client().postJson("/api/login", { email: row.email, password: "now-i-have-one" })).status).toBe(200);

    const { email } = await account(t.client(), fresh("suspended"));
    await writeTransaction(t.db, (tx) => tx.update(users).set({ suspendedAt: now }).where(eq(users.email, email)));
    expect((await forgot(t.client(), email)).status).toBe(200);
    await settled(t.deps);
    expect(mails(email, RESET)).toEqual([]);
  });
});

describe("sign-up with an address that has an account", () => {
  const ATTEMPT = /^Someone tried to create an account with your email$/;

  test("the clear 409 stays, and the holder is emailed, at most once an hour", async () => {
    const { email } = await account(t.client(), fresh("holder"));
    const first = await t.client().postJson("/api/register", { email, password: "another1" });
    expect(first.status).toBe(409);
    expect((await body(first)).message).toBe("An account with this email already exists. Sign in instead.");
    const m = await mail(email, ATTEMPT);
    expect(m.text).toContain(`Someone tried to create an Offline account with ${email}`);
    expect(m.links.some((l) => l.includes("/api/login"))).toBe(true);
    expect(m.links.some((l) => l.includes("/forgot-password?email="))).toBe(true);
    expect((await t.client().postForm("/api/register", { email, password: "another1" })).status).toBe(409);
    expect((await t.client().postJson("/api/register", { email: email.toUpperCase(), password: "another1" })).status).toBe(409);
    now += HOUR;
    expect((await t.client().postJson("/api/register", { email, password: "another1" })).status).toBe(409);
    await mail(email, ATTEMPT, 2);
    // The tries within the hour sent nothing (they would have arrived before the later one).
    expect(mails(email, ATTEMPT)).toHaveLength(2);
  });
});

describe("rights that wait for a verified address", () => {
  test("operators (ADMIN_EMAILS): signing up with a listed address gives nothing until it is verified", async () => {
    const c = t.client();
    await c.signUpComplete({ email: OPERATOR }, { verified: false });
    const page = await c.get("/admin/reports");
    expect(page.status).toBe(403);
    const html = await page.text();
    expect(html).toContain("operator rights come only once it is verified");
    expect(html).toContain("Resend link");
    const api = await c.request("/admin/reports", { headers: { accept: "application/json" } });
    expect(api.status).toBe(403);
    expect((await c.postForm("/admin/reports/00000000-0000-4000-8000-000000000000/dismiss", {})).status).toBe(403);
    // Anyone else still learns nothing.
    const stranger = t.client();
    await stranger.signUpComplete({}, { verified: false });
    expect((await stranger.get("/admin/reports")).status).toBe(404);

    // An operator's link only shows a page (a mail scanner opening it verifies nothing); its button verifies.
    const link = linkTo(await mail(OPERATOR, VERIFY), "/verify-email");
    const confirmPage = await t.client().get(link);
    expect(confirmPage.status).toBe(200);
    expect(await confirmPage.text()).toContain("Confirm my email");
    expect((await c.get("/admin/reports")).status).toBe(403);
    const token = new URL(link, "http://x").searchParams.get("token")!;
    expect((await c.postForm("/verify-email", { token })).status).toBe(200);
    expect((await c.get("/admin/reports")).status).toBe(200);
  });

  test("payouts: refused with a clear message and 'Resend link' until the address is verified", async () => {
    const c = t.client();
    const { email } = await c.signUpComplete({ email: fresh("host") }, { verified: false });
    const screen = await c.get("/stripe-connect-setup");
    expect(screen.status).toBe(200);
    const html = await screen.text();
    expect(html).toContain("Payouts go to the person who owns this account");
    expect(html).toContain("Resend link");
    expect(html).not.toContain("Start Payment Setup");
    const api = await c.request("/api/stripe/connect", { method: "POST" });
    expect(api.status).toBe(403);
    expect((await body(api)).message).toBe("Verify your email address before setting up payouts: follow the link we sent you.");
    const form = await c.postForm("/stripe-connect-setup", {});
    expect(form.status).toBe(403);
    expect(await form.text()).toContain("Verify your email address");
    expect((await userRow(email))!.stripeAccountId).toBeNull();

    await c.get(linkTo(await mail(email, VERIFY), "/verify-email"));
    expect(await (await c.get("/stripe-connect-setup")).text()).toContain("Start Payment Setup");
    expect((await c.request("/api/stripe/connect", { method: "POST" })).status).toBe(200);
  });
});

/** The browser's part of a provider sign-in: our redirect, the provider's, back to our callback. */
async function providerSignIn(c: Client, next?: string) {
  const start = await c.get(`/api/login/oidc${next ? `?next=${encodeURIComponent(next)}` : ""}`);
  const atProvider = await fetch(start.headers.get("location")!, { redirect: "manual" });
  const callback = new URL(atProvider.headers.get("location")!);
  return c.get(callback.pathname + callback.search);
}
const linksOf = async (userId: string) => await t.db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, userId));

describe("a provider's sign-in with the email of an existing account", () => {
  const LINK = /^Link Acme ID to your Offline account$/;

  test("is not signed in, and the provider identity is kept on the server, never in the browser", async () => {
    const { email, user } = await account(t.client(), fresh("existing"));
    oidc.setUser({ sub: "kept-1", email, email_verified: true });
    const c = t.client();
    const res = await providerSignIn(c, "/bookings");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`An account with ${email} already exists. To use Acme ID with it`);
    expect((await c.get("/api/auth/user")).status).toBe(401);
    const cookie = c.cookies.get("link")!;
    expect(cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie).not.toContain("kept-1");
    const row = (await t.db.select().from(emailTokens).where(eq(emailTokens.userId, user.id))).find((r) => r.purpose === "link")!;
    expect(row.data).toMatchObject({ provider: "oidc", subject: "kept-1", next: "/bookings" });
    expect(await linksOf(user.id)).toEqual([]);
  });

  test("the password proves it: joined and signed in; a wrong password is refused, then rate-limited like sign-in", async () => {
    const { email, password, user } = await account(t.client(), fresh("proof"));
    oidc.setUser({ sub: "proof-1", email, email_verified: true });
    const c = t.client();
    const from = ip();
    await providerSignIn(c, "/bookings");
    const wrong = await c.postForm("/link-account", { password: "not-it" }, from);
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain("Incorrect password.");
    const empty = await c.postForm("/link-account", { password: "" }, from);
    expect(empty.status).toBe(400);
    const ok = await c.postForm("/link-account", { password }, from);
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe("/bookings");
    expect(((await body(await c.get("/api/auth/user"))) as { id: string }).id).toBe(user.id);
    expect(await linksOf(user.id)).toHaveLength(1);
    expect(c.cookies.has("link")).toBe(false);

    // Guessing from one network address locks it, the right password too.
    const other = await account(t.client(), fresh("guessed"));
    oidc.setUser({ sub: "guesser", email: other.email, email_verified: true });
    const g = t.client();
    const at = ip();
    await providerSignIn(g);
    for (let i = 0; i < 5; i++) expect((await g.postForm("/link-account", { password: `guess-${i}` }, at)).status).toBe(401);
    const locked = await g.postForm("/link-account", { password: other.password }, at);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await locked.text()).toContain("Too many attempts");
    expect(await linksOf(other.user.id)).toEqual([]);
  });

  test("or an emailed link: its page joins nothing until its button is pressed; the address counts as verified", async () => {
    const { email, user } = await account(t.client(), fresh("mailproof"));
    oidc.setUser({ sub: "mail-1", email, email_verified: true });
    const c = t.client();
    await providerSignIn(c, "/bookings");
    const sent = await c.postForm("/link-account/email", {});
    expect(sent.status).toBe(200);
    expect(await sent.text()).toContain(`We sent a link to ${email}. Follow it to link Acme ID to your account.`);
    const m = await mail(email, LINK);
    expect(m.text).toContain("This link works for one hour.");
    const link = linkTo(m, "/link-account/confirm?token=");
    const token = new URL(link, "http://x").searchParams.get("token")!;
    // Another browser (the address's owner, when someone else asked for the email) joins nothing.
    const elsewhere = t.client();
    const refused = await elsewhere.get(link);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("this link works only in the browser where you signed in with Acme ID");
    expect((await elsewhere.postForm("/link-account/confirm", { token })).status).toBe(403);
    expect(await linksOf(user.id)).toEqual([]);
    // The browser that signed in with the provider: a page, then its button joins.
    const page = await c.get(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Link Acme ID and sign in");
    expect(await linksOf(user.id)).toEqual([]);
    const done = await c.postForm("/link-account/confirm", { token });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/bookings");
    expect(((await body(await c.get("/api/auth/user"))) as { id: string }).id).toBe(user.id);
    expect(await linksOf(user.id)).toHaveLength(1);
    // Used: neither the link nor the pending sign-in works again.
    expect((await t.client().postForm("/link-account/confirm", { token })).status).toBe(400);
    expect((await t.client().postForm("/link-account", { password: "anything" })).status).toBe(400);
    // From now on the provider signs in at once.
    const again = t.client();
    expect((await providerSignIn(again)).status).toBe(303);
  });

  test("an existing account whose address is not verified is refused, with what to do", async () => {
    const { email, user } = await account(t.client(), fresh("unverified"), false);
    oidc.setUser({ sub: "squatter", email, email_verified: true });
    const c = t.client();
    const res = await providerSignIn(c);
    expect(res.status).toBe(403);
    const html = await res.text();
    expect(html).toContain("Verify your account first");
    expect(html).toContain("its address has not been verified");
    expect(html).toContain(`/forgot-password?email=${encodeURIComponent(email)}`);
    expect(c.cookies.has("link")).toBe(false);
    expect((await c.postForm("/link-account", { password: "secret123" })).status).toBe(400);
    expect((await c.get("/api/auth/user")).status).toBe(401);
    expect(await linksOf(user.id)).toEqual([]);
  });

  test("the pending sign-in lasts an hour; 'Email me a link' is limited", async () => {
    const { email, password } = await account(t.client(), fresh("expiring"));
    oidc.setUser({ sub: "expiring-1", email, email_verified: true });
    const c = t.client();
    await providerSignIn(c);
    for (let i = 0; i < 3; i++) expect((await c.postForm("/link-account/email", {})).status).toBe(200);
    const limited = await c.postForm("/link-account/email", {});
    expect(limited.status).toBe(429);
    expect(await limited.text()).toContain("We already sent several links.");
    now += HOUR + 1;
    const expired = await c.postForm("/link-account", { password });
    expect(expired.status).toBe(400);
    expect(await expired.text()).toContain("This sign-in has expired");
    expect((await c.get("/link-account")).status).toBe(400);
    expect((await t.client().get("/link-account/confirm?token=nope")).status).toBe(400);
  });

  test("a new person with a free, verified email is created verified, as before", async () => {
    const email = fresh("brand-new");
    oidc.setUser({ sub: "brand-new-1", email, email_verified: true });
    const c = t.client();
    expect((await providerSignIn(c)).status).toBe(303);
    expect(await body(await c.get("/api/auth/user"))).toMatchObject({ email, emailVerified: true });
  });
});

describe("whoever held an account before its owner took it back keeps nothing", () => {
  const CHANGE = /^Confirm your new email address$/;
  const RESET = /^Reset your Offline password$/;

  test("a pending email change dies with a password reset", async () => {
    // Someone signs up with the owner's address and asks to move the account to their own.
    const squatter = t.client();
    const { email, password } = await squatter.signUp(fresh("owner"));
    const theirs = fresh("squatter");
    expect((await squatter.putJson("/api/user/email", { email: theirs, currentPassword: password })).status).toBe(202);
    const change = linkTo(await mail(theirs, CHANGE), "/verify-email");
    // The address's owner recovers the account.
    expect((await t.client().postJson("/forgot-password", { email }, ip())).status).toBe(200);
    const reset = linkTo(await mail(email, RESET), "/reset-password");
    const token = new URL(reset, "http://x").searchParams.get("token")!;
    const owner = t.client();
    expect((await owner.postForm("/reset-password", { token, password: "owner-secret" })).status).toBe(303);
    // The squatter's saved link no longer moves the account.
    expect((await t.client().get(change)).status).toBe(400);
    expect((await userRow(email))?.emailVerified).toBe(true);
    expect(await userRow(theirs)).toBeUndefined();
  });

  test("a provider's unverified address is not put on a new account", async () => {
    const address = fresh("unvouched");
    oidc.setUser({ sub: `unvouched-${n}`, email: address, email_verified: false });
    const c = t.client();
    expect((await providerSignIn(c)).status).toBe(303);
    const me = await body(await c.get("/api/auth/user"));
    expect(me.email).toBeNull();
    expect(await userRow(address)).toBeUndefined();
  });

  test("email changes are limited like 'Resend link', so no inbox can be flooded from here", async () => {
    const c = t.client();
    const { password } = await c.signUp(fresh("flooder"));
    const target = fresh("target");
    for (let i = 0; i < 3; i++) expect((await c.putJson("/api/user/email", { email: target, currentPassword: password })).status).toBe(202);
    const refused = await c.putJson("/api/user/email", { email: target, currentPassword: password });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await body(refused)).message).toContain("We already sent you several links");
  });
});
