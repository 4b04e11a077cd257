import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count } from "drizzle-orm";
import { one } from "../db/client";
import { activities } from "../db/schema";
import { DEFAULT_ACCESS, type Access } from "../src/context";
import { makeTestApp, UPGRADE_HEADERS } from "./helpers";
import { scenario, type Scenario } from "./scenario";

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

/** How a route is called: a WebSocket route by a GET asking to upgrade, a write with `{}` as JSON. */
function call(r: { method: string; path: string; access: Access }): Scenario {
  return {
    name: `${r.method} ${r.path} (${r.access})`,
    method: r.method === "WS" ? "GET" : r.method,
    url: r.path,
    ...(r.method === "WS" ? { headers: { ...UPGRADE_HEADERS, origin: "http://localhost" } } : {}),
    status: (status) => status < 500,
  };
}
const notServerError = (status: number) => status < 500;

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
      await scenario(t, {
        ...call(r),
        as: c,
        ...(r.access === "public"
          ? { status: (status) => notServerError(status) && status !== 401 }
          : isApiCall(r.method, r.path)
            ? { status: 401, json: { message: "Please sign in to continue." } }
            : // The landing page brings the visitor back to what they asked for.
              { status: 200, contains: [LANDING, `name="next" value="${r.path}"`] }),
      });
    }
  });

  test("an unfinished profile reaches public and signed-in routes; onboarded ones send it to onboarding", async () => {
    const c = t.client();
    await c.signUp();
    const toOnboarding = (where: string, res: Response) => expect({ where, location: res.headers.get("location") }).toEqual({ where, location: "/onboarding" });
    for (const r of routes()) {
      const where = `${r.method} ${r.path} (${r.access})`;
      await scenario(t, {
        ...call(r),
        as: c,
        ...(r.access !== "onboarded"
          ? {
              status: (status) => notServerError(status) && status !== 401,
              after: (a) => a.status === 403 && expect(a.json().message).not.toBe("Complete your profile first."),
            }
          : isApiCall(r.method, r.path) && (r.method === "GET" || r.method === "WS")
            ? { status: 403, json: { message: "Complete your profile first." } }
            : r.method === "GET"
              ? { status: 303, after: (a) => toOnboarding(where, a.res) }
              : // Writes never happen: JSON calls get 403, forms are sent to onboarding.
                { status: [403, 303], after: (a) => a.status === 303 && toOnboarding(where, a.res) }),
      });
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
