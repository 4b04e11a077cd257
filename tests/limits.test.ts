import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { bodyParser, bodyRefusal } from "../lib/body";
import { routeOptions } from "../src/security/checks";
import { Client, makeTestApp, ORIGIN } from "./helpers";
import { BODY_LIMIT, MAX_FIELDS } from "../shared/limits";

let t: Awaited<ReturnType<typeof makeTestApp>>;
let member: Client;
beforeAll(async () => {
  t = await makeTestApp();
  member = t.client();
  await member.signUp("member@example.com");
});
afterAll(() => t.cleanup());

const TOO_LARGE = "This request is too large.";
const CHUNK = 16 * 1024;

/** A body of unknown length (no Content-Length), made as it is read; counts what was read. */
function endlessBody() {
  const counter = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      counter.pulled += CHUNK;
      controller.enqueue(new Uint8Array(CHUNK).fill(0x61));
    },
  });
  return { stream, counter };
}

/** Every route the app registers that takes a body, with a concrete path to call and its limit. */
function routesWithBodies() {
  const declared = routeOptions(() => t.app.routes);
  return t.app.routes
    // A WebSocket upgrade has no body; its frames have their own limit (tests/live.test.ts).
    .filter((r) => r.method !== "GET" && r.method !== "HEAD" && r.method !== "OPTIONS" && r.method !== "WS")
    .map((r) => ({
      key: `${r.method} ${r.path}`,
      method: r.method === "ALL" ? "POST" : r.method,
      path: r.path.replace(/:[^/]+/g, "x").replace(/\*/g, "anything"),
      // A route that reads its raw body declares it with its limit (`rawBody`).
      raw: declared.rawBodyLimit(r.method, r.path) !== undefined,
      limit: declared.rawBodyLimit(r.method, r.path) ?? BODY_LIMIT,
    }));
}

/** A signed upload URL, for routes that read their raw body after checking it. */
async function signedUploadPath(c: Client) {
  const res = await c.postJson("/api/objects/upload", {});
  const url = new URL(((await res.json()) as { uploadURL: string }).uploadURL, ORIGIN);
  return url.pathname + url.search;
}

describe("every route refuses an oversized body before its handler runs", () => {
  test("the app registers routes with bodies, the raw upload among them", () => {
    const keys = routesWithBodies().map((r) => r.key);
    expect(keys).toContain("POST /api/login");
    expect(keys).toContain("PUT /api/uploads/:id");
    expect(keys.length).toBeGreaterThan(15);
    // The routes that read their own raw body say so on the route, with their limit.
    expect(routesWithBodies().filter((r) => r.raw).map((r) => r.key).sort()).toEqual(["POST /api/webhooks/stripe", "PUT /api/uploads/:id"]);
  });

  test("a declared Content-Length over the route's limit: 413, nothing read", async () => {
    for (const route of routesWithBodies()) {
      for (const c of [t.client(), member]) {
        let pulled = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            pulled += CHUNK;
            controller.enqueue(new Uint8Array(CHUNK));
          },
        });
        const res = await c.request(route.path, {
          method: route.method,
          body,
          headers: { "content-type": "application/json", "content-length": String(route.limit + 1) },
        });
        expect({ route: route.key, status: res.status }).toEqual({ route: route.key, status: 413 });
        expect(((await res.json()) as { message: string }).message).toBe(TOO_LARGE);
        // The stream may be started, never read through.
        expect(pulled).toBeLessThanOrEqual(2 * CHUNK);
      }
    }
  });

  test("a body of unknown length (chunked) is read only up to the limit: 413", async () => {
    for (const route of routesWithBodies()) {
      // The photo upload reads its raw body after checking its signed URL: give it a valid one.
      const upload = route.key === "PUT /api/uploads/:id";
      const path = upload ? await signedUploadPath(member) : route.path;
      for (const type of ["application/json", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain"]) {
        const { stream, counter } = endlessBody();
        const res = await member.request(path, { method: route.method, body: stream, headers: { "content-type": type } });
        expect({ route: route.key, type, status: res.status }).toEqual({ route: route.key, type, status: 413 });
        const { message } = (await res.json()) as { message: string };
        expect(message).toBe(upload ? "This image is too large: 10 MB at most." : TOO_LARGE);
        expect(counter.pulled).toBeLessThanOrEqual(route.limit + 3 * CHUNK);
        if (route.raw) break; // the upload URL is used once; its type does not matter (tests/uploads.test.ts)
      }
    }
  });

  test("the parse step stops the request: no hook after it and no handler runs", async () => {
    let ran = 0;
    const app = new Elysia()
      .onParse({ as: "global" }, bodyParser())
      .onError(({ error }) => (bodyRefusal(error) ? new Response("refused", { status: 413 }) : undefined))
      .onBeforeHandle({ as: "global" }, () => {
        ran++;
      })
      .post("/spy", () => {
        ran++;
        return "ran";
      });
    const big = await app.handle(new Request(`${ORIGIN}/spy`, { method: "POST", body: endlessBody().stream, headers: { "content-type": "application/json" } }));
    expect(big.status).toBe(413);
    const declared = await app.handle(
      new Request(`${ORIGIN}/spy`, { method: "POST", body: "{}", headers: { "content-type": "application/json", "content-length": String(BODY_LIMIT + 1) } }),
    );
    expect(declared.status).toBe(413);
    expect(ran).toBe(0);
    const small = await app.handle(new Request(`${ORIGIN}/spy`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } }));
    expect(await small.text()).toBe("ran");
  });

  test("oversized sign-up attempts create nobody", async () => {
    const c = t.client();
    const padding = "x".repeat(BODY_LIMIT);
    const res = await c.request("/api/register", { method: "POST", json: { email: "padded@example.com", password: "secret123", padding } });
    expect(res.status).toBe(413);
    const login = await c.postJson("/api/login", { email: "padded@example.com", password: "secret123" });
    expect(login.status).toBe(401);
  });
});

describe("form fields are counted", () => {
  const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, "1"]));

  test(`an urlencoded body with more than ${MAX_FIELDS} fields is refused, ${MAX_FIELDS} are read`, async () => {
    const c = t.client();
    const over = await c.request("/api/login", { method: "POST", form: fields(MAX_FIELDS + 1) });
    expect(over.status).toBe(413);
    expect(((await over.json()) as { message: string }).message).toBe("This form has too many fields.");
    const fr = await c.request("/api/login", { method: "POST", form: fields(MAX_FIELDS + 1), headers: { "accept-language": "fr" } });
    expect(((await fr.json()) as { message: string }).message).toBe("Ce formulaire a trop de champs.");
    const at = await c.request("/api/login", { method: "POST", form: { ...fields(MAX_FIELDS - 2), email: "nobody@example.com", password: "nope" }, headers: { accept: "application/json" } });
    expect(at.status).toBe(401);
  });

  test(`a multipart body with more than ${MAX_FIELDS} fields is refused`, async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields(MAX_FIELDS + 1))) form.append(k, v);
    const res = await t.client().request("/api/login", { method: "POST", body: form });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { message: string }).message).toBe("This form has too many fields.");
  });

  test("repeated names count as fields too", async () => {
    const body = Array.from({ length: MAX_FIELDS + 1 }, () => "interests=a").join("&");
    const res = await t.client().request("/api/login", { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(413);
  });
});

describe("ordinary bodies read as before", () => {
  test("JSON, urlencoded and multipart sign-ins", async () => {
    const c = t.client();
    const { email, password } = await c.signUp("reader@example.com");
    const asJson = await t.client().postJson("/api/login", { email, password });
    expect(asJson.status).toBe(200);
    const asForm = await t.client().request("/api/login", { method: "POST", form: { email, password, next: "/browse" } });
    expect(asForm.status).toBe(303);
    expect(asForm.headers.get("location")).toBe("/browse");
    const multipart = new FormData();
    multipart.append("email", email);
    multipart.append("password", password);
    const asMultipart = await t.client().request("/api/login", { method: "POST", body: multipart, headers: { accept: "application/json" } });
    expect(asMultipart.status).toBe(200);
  });

  test("a JSON body just under the limit is read; a broken one is a 400", async () => {
    const c = t.client();
    const padding = "x".repeat(BODY_LIMIT - 200);
    const res = await c.request("/api/login", { method: "POST", json: { email: "nobody@example.com", password: "nope", padding } });
    expect(res.status).toBe(401);
    const broken = await c.request("/api/login", { method: "POST", body: "{", headers: { "content-type": "application/json" } });
    expect(broken.status).toBe(400);
  });

  test("a form field holding a JSON list reaches the handler as before", async () => {
    const c = t.client();
    await c.signUpComplete({ username: "lister" });
    const res = await c.request("/api/user/profile", { method: "PUT", form: { interests: "Tennis,Chess" }, headers: { accept: "application/json" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { interests: string[] }).interests).toEqual(["Tennis", "Chess"]);
  });
});
