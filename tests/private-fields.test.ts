import { one, writeTransaction } from "../db/client";
/**
 * The guard of docs/decisions/0007: with the demo loaded and private data on every demo person,
 * a brand-new stranger walks every route the app registers (read from `app.routes`, so routes
 * added later are walked without editing this file) and no answer, JSON or HTML, may show
 * another person's private data.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, ne } from "drizzle-orm";
import { activities, bookings, users, type User } from "../db/schema";
import { DEMO_GUEST_EMAIL, DEMO_HOST_EMAIL } from "../src/demo/demo-data";
import { parseAbout, parseVisibility, aboutFields } from "../src/profiles/about";
import { makeTestApp, ORIGIN, UPGRADE_HEADERS, type Client } from "./helpers";

let t: Awaited<ReturnType<typeof makeTestApp>>;

/** A value only the hidden about field of the demo host holds. */
const HIDDEN_ABOUT = "Hiddenjobtitle-Qz71";
const VISIBLE_ABOUT = "Visiblestudio-Kp42";

beforeAll(async () => {
  t = await makeTestApp({ demo: true });
  // Every demo person gets private data that is easy to recognise: a phone, Stripe ids and a
  // distinctive last name (the demo sets none of the first two); demo passwords are argon2id.
  await writeTransaction(t.db, async (tx) => {
    const people = await tx.select().from(users);
    for (const [i, person] of people.entries()) {
      const lastName = `Privatelast${i}x`;
      await tx
        .update(users)
        .set({
          phone: `+1-555-01${String(i).padStart(2, "0")}-77`,
          stripeCustomerId: `cus_Demo${i}Customer`,
          stripeAccountId: `acct_Demo${i}Account`,
          lastName,
          name: `${person.firstName} ${lastName}`,
        })
        .where(eq(users.id, person.id));
    }
    for (const [i, b] of (await tx.select({ id: bookings.id }).from(bookings)).entries()) {
      await tx.update(bookings).set({ paymentIntentId: `pi_Demo${i}Intent` }).where(eq(bookings.id, b.id));
    }
    // The demo host hides one about field and shows another.
    await tx
      .update(users)
      .set({ about: JSON.stringify({ work: VISIBLE_ABOUT, jobTitle: HIDDEN_ABOUT }), aboutVisibility: JSON.stringify({ jobtitle: false }) })
      .where(eq(users.email, DEMO_HOST_EMAIL));
  });
});

afterAll(() => t.cleanup());

interface Stranger {
  client: Client;
  email: string;
  password: string;
  id: string;
}

/** What no answer to `self` may contain: other people's private values, in any form. */
async function forbiddenValues(self: Stranger) {
  const others = await t.db.select().from(users).where(ne(users.id, self.id));
  const values: { what: string; value: string }[] = [];
  for (const u of others) {
    if (u.email) values.push({ what: "an email", value: u.email.toLowerCase() });
    if (u.phone) values.push({ what: "a phone", value: u.phone.toLowerCase() });
    if (u.lastName) values.push({ what: "a last name", value: u.lastName.toLowerCase() });
    if (u.dateOfBirth) values.push({ what: "a birth date", value: u.dateOfBirth });
    const about = parseAbout(u.about);
    const visibility = parseVisibility(u.aboutVisibility);
    for (const f of aboutFields) {
      if (visibility[f.visibilityKey] !== false || about[f.key] === undefined) continue;
      for (const v of [about[f.key]].flat()) if (v && v.length >= 4) values.push({ what: `a hidden about field (${f.key})`, value: v.toLowerCase() });
    }
  }
  return values;
}

const HASH_SHAPED = /\$argon2|\$2[aby]\$|\$scrypt/;
const STRIPE_ID_SHAPED = /\b(acct|cus|pi)_[A-Za-z0-9]{4,}/;
const PRIVATE_KEYS = new Set(["dateOfBirth", "lastName", "phone"]);

/** Keys no JSON object may have: the hash and payment ids, whoever it describes. */
function neverKey(key: string) {
  return key === "passwordHash" || /stripe/i.test(key);
}

/**
 * Private keys in JSON: allowed only on the caller's own object, and in a refusal's map of
 * messages about their own input (`fields` beside its `message`; `errors` where it is still so named).
 */
function jsonProblems(value: unknown, selfId: string, path = "$", out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v, i) => jsonProblems(v, selfId, `${path}[${i}]`, out));
  else if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const own = record.id === selfId;
    for (const [key, v] of Object.entries(record)) {
      if (neverKey(key)) out.push(`${path}.${key} is never shown`);
      else if (!own && PRIVATE_KEYS.has(key)) out.push(`${path}.${key} of someone else`);
      const refusedInput = key === "errors" || (key === "fields" && typeof record.message === "string");
      if (!refusedInput) jsonProblems(v, selfId, `${path}.${key}`, out);
    }
  }
  return out;
}

function problemsOf(body: string, contentType: string, self: Stranger, forbidden: { what: string; value: string }[]) {
  const out: string[] = [];
  if (body.includes("passwordHash")) out.push("the word passwordHash");
  if (HASH_SHAPED.test(body)) out.push("a password hash");
  const stripe = STRIPE_ID_SHAPED.exec(body);
  if (stripe) out.push(`a Stripe id (${stripe[0]})`);
  const lower = body.toLowerCase();
  for (const f of forbidden) if (lower.includes(f.value)) out.push(`${f.what} of someone else (${f.value})`);
  if (contentType.includes("json")) {
    try {
      out.push(...jsonProblems(JSON.parse(body), self.id));
    } catch {
      out.push("JSON that does not parse");
    }
  }
  return out;
}

/** Values for path parameters, by name; a name not listed gets the fallback values. */
async function paramValues(self: Stranger, own: { activityId?: string; photoId?: string }) {
  const host = (await one(t.db.select().from(users).where(eq(users.email, DEMO_HOST_EMAIL))))!;
  const guest = (await one(t.db.select().from(users).where(eq(users.email, DEMO_GUEST_EMAIL))))!;
  const demoActivity = (await one(t.db.select().from(activities).where(eq(activities.hostId, host.id))))!;
  const asset = Object.keys(t.deps.assets.files)[0]?.split("/").pop() ?? "app.js";
  const byName: Record<string, string[]> = {
    id: [demoActivity.id, own.activityId, own.photoId].filter((v): v is string => Boolean(v)),
    username: [host.username!, guest.username!],
    provider: ["google", "github", "oidc"],
    screen: ["first-name", "name", "birthday", "username", "email", "password"],
    file: [asset, "thumb.webp"],
    "*": ["avatars/avatar-1.svg", "no-such-page"],
  };
  const fallback = [demoActivity.id, host.username!, "x"];
  return { of: (name: string) => byName[name] ?? fallback, host, self };
}

/** Every concrete path for a route pattern: each parameter takes each of its values. */
function expand(pattern: string, of: (name: string) => string[]): string[] {
  const parts = pattern.split("/");
  let paths = [""];
  for (const part of parts.slice(1)) {
    const values = part.startsWith(":") ? of(part.slice(1)) : part === "*" ? of("*") : [part];
    paths = paths.flatMap((p) => values.map((v) => `${p}/${v}`));
  }
  return paths.length ? paths : ["/"];
}

async function signedIn(s: Stranger) {
  if ((await s.client.get("/api/auth/user")).status === 200) return;
  const res = await s.client.postJson("/api/login", { email: s.email, password: s.password });
  if (res.status !== 200) throw new Error(`sign-in again failed: ${res.status}`);
}

/**
 * Walks every registered route as `s`: GET routes plain, with a query and as htmx; other methods
 * with an empty JSON body and the CSRF token (4xx answers are fine). GET routes come first, so
 * a write (say a deletion) cannot hide a page from the walk; a route that ends the session
 * (sign-out, a password change) is followed by signing in again.
 */
async function walk(s: Stranger, own: { activityId?: string; photoId?: string } = {}) {
  const { of, host } = await paramValues(s, own);
  const forbidden = await forbiddenValues(s);
  const routes = t.app.routes.map((r) => ({ method: r.method.toUpperCase(), path: r.path }));
  const query = `?${new URLSearchParams({ city: host.city!, country: host.country!, username: host.username!, category: "sports", limit: "100", step: "1" })}`;
  const calls: { method: string; path: string; headers?: Record<string, string> }[] = [];
  for (const r of routes) {
    const methods = r.method === "ALL" ? ["GET", "POST"] : [r.method];
    for (const method of methods) {
      for (const path of expand(r.path, of)) {
        if (method === "WS") calls.push({ method: "GET", path, headers: { ...UPGRADE_HEADERS, origin: ORIGIN } });
        else if (method === "GET" || method === "HEAD") {
          calls.push({ method, path }, { method, path: path + query }, { method, path: path + query, headers: { "hx-request": "true", "hx-target": "browse" } });
          calls.push({ method, path, headers: { accept: "application/json" } });
        } else calls.push({ method, path });
      }
    }
  }
  calls.sort((a, b) => Number(a.method !== "GET") - Number(b.method !== "GET"));

  const found: string[] = [];
  const answered = new Map<string, number>();
  for (const call of calls) {
    await signedIn(s);
    const res =
      call.method === "GET" || call.method === "HEAD"
        ? await s.client.request(call.path, { method: call.method, headers: call.headers })
        : await s.client.request(call.path, { method: call.method, json: {} });
    const body = await res.text();
    answered.set(`${call.method} ${call.path}`, res.status);
    for (const p of problemsOf(body, res.headers.get("content-type") ?? "", s, forbidden)) found.push(`${call.method} ${call.path}${call.headers ? ` ${JSON.stringify(call.headers)}` : ""} → ${res.status}: ${p}`);
  }
  return { found, answered, calls: calls.length, routes: routes.length };
}

describe("a stranger never sees anyone's private data", () => {
  test("the private data is really there, and the hidden about field is the owner's to see", async () => {
    const host = (await one(t.db.select().from(users).where(eq(users.email, DEMO_HOST_EMAIL)))) as User;
    expect(host.passwordHash).toMatch(/^\$argon2id\$/);
    expect(host.stripeAccountId).toStartWith("acct_");
    const owner = t.client();
    await owner.postJson("/api/login", { email: DEMO_HOST_EMAIL, password: "offline-demo" });
    const me = (await (await owner.get("/api/user")).json()) as { about: string; email: string };
    expect(me.email).toBe(DEMO_HOST_EMAIL);
    expect(me.about).toContain(HIDDEN_ABOUT);
    expect(await (await owner.get("/profile")).text()).toContain(HIDDEN_ABOUT);
  });

  test("walking every route without a profile", async () => {
    const client = t.client();
    const { email, password, user } = await client.signUp();
    const result = await walk({ client, email, password, id: user.id });
    expect(result.calls).toBeGreaterThanOrEqual(result.routes);
    expect(result.found).toEqual([]);
  });

  test("walking every route with a completed profile, as a host with a guest's request", async () => {
    const client = t.client();
    const { email, password, user } = await client.signUpComplete({ city: "New York" });
    const me = (await (await client.get("/api/user")).json()) as { photo: string };
    // The stranger hosts one activity and has a pending request from the demo guest, so the
    // host's request list (a booking's other side) is walked with someone in it.
    const guest = (await one(t.db.select().from(users).where(eq(users.email, DEMO_GUEST_EMAIL))))!;
    const activityId = crypto.randomUUID();
    const now = Date.now();
    await writeTransaction(t.db, async (tx) => {
      await tx.insert(activities).values({ id: activityId, hostId: user.id, country: "United States", city: "New York", category: "sports", title: "Stranger's tennis", description: "An hour of tennis.", hourlyRateCents: 4000 });
      await tx.insert(bookings).values({
        id: crypto.randomUUID(), guestId: guest.id, hostId: user.id, activityId, status: "pending", startsAtLocal: "2030-01-01T10:00:00", timeZone: "America/New_York",
        startsAt: now + 86_400_000, endsAt: now + 90_000_000, durationMinutes: 60, hourlyRateCents: 4000, subtotalCents: 4000, serviceFeeCents: 400, totalCents: 4400, hostEarningsCents: 3200, platformFeeCents: 1200, paymentIntentId: "pi_StrangerIntent", respondBy: now + 43_200_000,
        createdAt: now, updatedAt: now,
      });
    });
    const result = await walk({ client, email, password, id: user.id }, { activityId, photoId: me.photo.split("/")[2] });
    expect(result.found).toEqual([]);

    // The walk reached the data it guards: profiles, host activities, reviews and requests.
    const host = (await one(t.db.select().from(users).where(eq(users.email, DEMO_HOST_EMAIL))))!;
    for (const path of [`/api/users/by-username/${host.username}`, `/api/users/by-username/${host.username}/activities`, `/api/users/by-username/${host.username}/reviews`, `/profile/${host.username}`, "/api/activities"]) {
      expect(result.answered.get(`GET ${path}`)).toBe(200);
    }
    await signedIn({ client, email, password, id: user.id });
    const profile = await (await client.get(`/api/users/by-username/${host.username}`)).json();
    expect(JSON.stringify(profile)).toContain(VISIBLE_ABOUT);
    const cards = (await (await client.get(`/api/users/by-username/${host.username}/activities`)).json()) as unknown[];
    expect(cards.length).toBeGreaterThan(0);
    const requests = (await (await client.get("/api/host/requests")).json()) as { guestName: string }[];
    expect(requests.map((r) => r.guestName)).toEqual([guest.firstName!]);
  });
});
