import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count } from "drizzle-orm";
import { one } from "../db/client";
import { activities } from "../db/schema";
import { DEFAULT_ACCESS, type Access } from "../src/context";
import { Client, makeTestApp, UPGRADE_HEADERS } from "./helpers";

/**
 * Every route the app registers answers as its declared access level says, for a visitor and
 * for a signed-in person whose profile is unfinished. The list comes from the app itself, so a
 * route added later is checked without anyone editing this file; one that declares nothing is
 * held to the default (closed) level.
 */
let t: Awaited<ReturnType<typeof makeTestApp>>;
beforeAll(async () => {
  t = await makeTestApp();
});
afterAll(() => t.cleanup());

type RouteInfo = { method: string; path: string; hooks?: { detail?: Record<string, unknown> } };

const SAMPLE_PARAMS: Record<string, string> = {
  id: "00000000-0000-4000-8000-000000000000",
  username: "nobody",
  provider: "github",
  screen: "name",
  file: "missing.js",
  "*": "missing/page",
};

/** The registered routes, with a concrete path to call and their declared level. */
function routes(): { method: string; path: string; access: Access }[] {
  return (t.app.routes as unknown as RouteInfo[])
    .map((r) => ({
      method: r.method === "ALL" ? "GET" : r.method,
      path: r.path.replace(/:(\w+)|\*/g, (m, name: string | undefined) => SAMPLE_PARAMS[name ?? "*"] ?? "x"),
      access: (r.hooks?.detail?.["x-access"] as Access | undefined) ?? DEFAULT_ACCESS,
    }))
    // Signing out ends the caller's session: it goes last.
    .sort((a, b) => Number(a.path === "/api/auth/logout") - Number(b.path === "/api/auth/logout"));
}

async function call(c: Client, method: string, path: string) {
  if (method === "WS") return c.request(path, { headers: { ...UPGRADE_HEADERS, origin: "http://localhost" } });
  if (method === "GET" || method === "HEAD") return c.request(path, { method });
  return c.request(path, { method, json: {} });
}

const isApiCall = (method: string, path: string) => method !== "GET" || path.startsWith("/api/") || path.startsWith("/fragments/");
const LANDING = "Find amazing activities in your city";

describe("declared access", () => {
  test("every route declares a known level, and the app has routes of each", () => {
    const list = routes();
    expect(list.length).toBeGreaterThan(40);
    for (const level of ["public", "signedIn", "onboarded"] as const) expect(list.some((r) => r.access === level)).toBe(true);
  });

  test("a visitor reaches public routes only: 401 from calls, the landing page from pages", async () => {
    const c = t.client();
    for (const r of routes()) {
      const res = await call(c, r.method, r.path);
      const where = `${r.method} ${r.path} (${r.access})`;
      expect({ where, serverError: res.status >= 500 }).toEqual({ where, serverError: false });
      if (r.access === "public") {
        expect({ where, status: res.status }).not.toEqual({ where, status: 401 });
        continue;
      }
      if (isApiCall(r.method, r.path)) {
        expect({ where, status: res.status }).toEqual({ where, status: 401 });
        expect(((await res.json()) as { message: string }).message).toBe("Please sign in to continue.");
      } else {
        expect({ where, status: res.status }).toEqual({ where, status: 200 });
        const html = await res.text();
        expect(html).toContain(LANDING);
        // The landing page brings the visitor back to what they asked for.
        expect(html).toContain(`name="next" value="${r.path}"`);
      }
    }
  });

  test("an unfinished profile reaches public and signed-in routes; onboarded ones send it to onboarding", async () => {
    const c = t.client();
    await c.signUp();
    for (const r of routes()) {
      const res = await call(c, r.method, r.path);
      const where = `${r.method} ${r.path} (${r.access})`;
      expect({ where, serverError: res.status >= 500 }).toEqual({ where, serverError: false });
      expect({ where, status: res.status }).not.toEqual({ where, status: 401 });
      if (r.access !== "onboarded") {
        if (res.status === 403) expect(((await res.json()) as { message: string }).message).not.toBe("Complete your profile first.");
        continue;
      }
      if (isApiCall(r.method, r.path) && (r.method === "GET" || r.method === "WS")) {
        expect({ where, status: res.status }).toEqual({ where, status: 403 });
        expect(((await res.json()) as { message: string }).message).toBe("Complete your profile first.");
      } else if (r.method === "GET") {
        expect({ where, status: res.status, location: res.headers.get("location") }).toEqual({ where, status: 303, location: "/onboarding" });
      } else {
        // Writes never happen: JSON calls get 403, forms are sent to onboarding.
        expect({ where, refused: res.status === 403 || (res.status === 303 && res.headers.get("location") === "/onboarding") }).toEqual({ where, refused: true });
      }
    }
  });

  test("an unfinished profile cannot publish an activity, by the API or by the form", async () => {
    const c = t.client();
    await c.signUp();
    const api = await c.postJson("/api/activities", { title: "Tennis", description: "A lesson", category: "sports", hourlyRate: "20" });
    expect(api.status).toBe(403);
    const form = await c.postForm("/create-activity", { title: "Tennis", description: "A lesson", category: "sports", hourlyRate: "20" });
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toBe("/onboarding");
    expect(await one(t.db.select({ n: count() }).from(activities))).toEqual({ n: 0 });
  });
});
