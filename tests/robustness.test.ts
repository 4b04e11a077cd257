import { afterAll, beforeAll, expect, test } from "bun:test";
import { seedDemo } from "../src/demo/seed";
import { makeTestApp, type Client } from "./helpers";

let t: Awaited<ReturnType<typeof makeTestApp>>;
let c: Client;
beforeAll(async () => {
  t = await makeTestApp();
  await seedDemo(t.db);
  c = t.client();
  await c.signUpComplete();
});
afterAll(() => t.cleanup());

const paths = [
  "/profile/%ZZ", "/profile/" + "a".repeat(500), "/activity/%00", "/activity/../../etc/passwd", "/browse?city[]=x&category[]=y", "/browse?cursor=%FF%FE",
  "/edit-activity/xyz", "/settings/%2e%2e", "/onboarding?step=-1", "/onboarding?step=99", "/api/activities?limit=-5&cursor=!!!", "/api/activities/%E0%A4%A",
  "/api/users/by-username/%F0%9F%98%80", "/api/check-username?username[]=a", "/objects/../../secrets.json", "/static/%00", "/fragments/location?country[]=1",
];
const bodies: unknown[] = [null, [], "string", 42, { title: { nested: true } }, { photos: { a: 1 } }, { hourlyRate: [1, 2] }, { about: 5, aboutVisibility: [] }];

test("odd paths and queries never answer 500", async () => {
  for (const path of paths) {
    const res = await c.get(path);
    expect({ path, status: res.status }).not.toMatchObject({ status: 500 });
  }
});

/** Every write route the app registers, so routes added later are fuzzed too. */
function writeRoutes(): [string, string][] {
  const sample: Record<string, string> = { id: "00000000-0000-4000-8000-000000000000", username: "nobody", provider: "github", screen: "name", "*": "x" };
  return (t.app.routes as unknown as { method: string; path: string }[])
    // A WebSocket upgrade has no body; its frames are fuzzed in tests/live.test.ts.
    .filter((r) => !["GET", "HEAD", "OPTIONS", "WS"].includes(r.method))
    // Signing out would end the caller's session; it takes no body anyway.
    .filter((r) => r.path !== "/api/auth/logout")
    .map((r) => [r.method === "ALL" ? "POST" : r.method, r.path.replace(/:(\w+)|\*/g, (_, name: string | undefined) => sample[name ?? "*"] ?? "x")]);
}

test("odd bodies on every write never answer 500 and change nothing", async () => {
  // Actions that take no body (starting payout setup) still happen and touch `updatedAt`; what a
  // body could change must stay as it was.
  const profile = async () => {
    const { updatedAt: _, ...rest } = (await c.get("/api/user").then((r) => r.json())) as Record<string, unknown>;
    return rest;
  };
  const before = await profile();
  const writes = writeRoutes();
  expect(writes.length).toBeGreaterThan(15);
  for (const [method, path] of writes) {
    for (const json of bodies) {
      const res = await c.request(path, { method, json });
      expect({ method, path, json, status: res.status }).not.toMatchObject({ status: 500 });
    }
  }
  expect(await profile()).toEqual(before);
});
