import { afterAll, beforeAll, expect, test } from "bun:test";
import { seedDemo } from "../db/seed";
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

test("odd bodies on every write never answer 500 and change nothing", async () => {
  const before = await c.get("/api/user").then((r) => r.json());
  const writes: [string, string][] = [
    ["POST", "/api/activities"], ["PUT", "/api/user/profile"], ["PUT", "/api/user/username"], ["PUT", "/api/user/email"], ["PUT", "/api/user/password"],
    ["PUT", "/api/profile-images"], ["PUT", "/api/activity-images"], ["POST", "/api/login"], ["POST", "/api/register"], ["POST", "/api/locale"],
    ["POST", "/onboarding"], ["POST", "/edit-profile"], ["POST", "/settings/name"], ["POST", "/settings/location"], ["POST", "/create-activity"],
  ];
  for (const [method, path] of writes) {
    for (const json of bodies) {
      const res = await c.request(path, { method, json });
      expect({ method, path, json, status: res.status }).not.toMatchObject({ status: 500 });
    }
  }
  expect(await c.get("/api/user").then((r) => r.json())).toEqual(before);
});
