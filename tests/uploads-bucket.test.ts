import { one } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, isNotNull } from "drizzle-orm";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { uploads } from "../db/schema";
import { RateLimiter } from "../lib/rate-limit";
import { MAX_UPLOAD_BYTES } from "../shared/limits";
import { signPostPolicy } from "../src/uploads/storage";
import { startFakeS3 } from "./fakes/s3";
import { Client, makeTestApp, ORIGIN } from "./helpers";
import { makeJpeg } from "./images";

/**
 * Attacks on uploads, reproduced: sizes are limited at the bucket (a POST policy) and checked
 * before reading (HEAD, then a capped ranged GET), and an upload makes one photo at most.
 * 30 MB stands for the probe's 300 MB, to keep the tests fast.
 */
const HOUR = 60 * 60 * 1000;
const BIG = 30 * 1024 * 1024;
type Started = { method: "POST"; uploadURL: string; fields: Record<string, string>; imageURL: string; maxBytes: number; tooLargeMessage: string };

let s3: ReturnType<typeof startFakeS3>;
beforeAll(() => {
  s3 = startFakeS3("photos");
});
afterAll(() => s3.stop());

async function bucketApp(opts: Parameters<typeof makeTestApp>[0] = {}) {
  return makeTestApp({
    ...opts,
    env: { S3_BUCKET: "photos", S3_ENDPOINT: s3.endpoint, S3_REGION: "us-east-1", S3_ACCESS_KEY_ID: "key", S3_SECRET_ACCESS_KEY: "secret", ...opts.env },
  });
}

async function start(c: Client): Promise<Started> {
  const res = await c.postJson("/api/objects/upload", {});
  expect(res.status).toBe(200);
  return (await res.json()) as Started;
}

function post(started: Pick<Started, "uploadURL" | "fields">, file: Blob, extra: Record<string, string> = {}) {
  const form = new FormData();
  for (const [name, value] of Object.entries({ ...started.fields, ...extra })) form.append(name, value);
  form.append("file", file);
  return fetch(started.uploadURL, { method: "POST", body: form });
}

const idOf = (started: Started) => started.imageURL.split("/").pop()!;
const requestsFor = (key: string) => s3.requests.filter((r) => r.key === key);
const code = async (res: Response) => /<Code>(\w+)<\/Code>/.exec(await res.text())?.[1];
const photoKeys = () => [...s3.objects.keys()].filter((k) => k.startsWith("photos/"));

describe("the bucket limits what the browser may send (presigned POST policy)", () => {
  test("a file over 10 MB is refused by the bucket itself, and nothing is stored", async () => {
    const app = await bucketApp();
    const c = app.client();
    await c.signUp();
    const started = await start(c);
    expect(started.maxBytes).toBe(MAX_UPLOAD_BYTES);
    expect(started.tooLargeMessage).toContain("10 MB");
    const policy = JSON.parse(Buffer.from(started.fields.policy!, "base64").toString()) as { conditions: unknown[] };
    expect(policy.conditions).toContainEqual(["content-length-range", 1, MAX_UPLOAD_BYTES]);
    expect(policy.conditions).toContainEqual(["eq", "$key", `tmp/${idOf(started)}`]);

    const refused = await post(started, new Blob([new Uint8Array(BIG)]));
    expect(refused.status).toBe(400);
    expect(await code(refused)).toBe("EntityTooLarge");
    const oneOver = await post(started, new Blob([new Uint8Array(MAX_UPLOAD_BYTES + 1)]));
    expect(await code(oneOver)).toBe("EntityTooLarge");
    expect(s3.objects.has(`tmp/${idOf(started)}`)).toBe(false);
    // Exactly at the limit is fine.
    expect((await post(started, new Blob([new Uint8Array(MAX_UPLOAD_BYTES)]))).status).toBe(204);
    expect(s3.objects.get(`tmp/${idOf(started)}`)!.data.length).toBe(MAX_UPLOAD_BYTES);
    app.cleanup();
  });

  test("the form cannot be bent: another key, an altered policy, extra fields, an expired form", async () => {
    const app = await bucketApp();
    const c = app.client();
    await c.signUp();
    const started = await start(c);
    const jpeg = new Blob([await makeJpeg()]);
    expect(await code(await post(started, jpeg, { key: `tmp/${crypto.randomUUID()}` }))).toBe("AccessDenied");
    expect(await code(await post(started, jpeg, { acl: "public-read" }))).toBe("AccessDenied");
    const policy = JSON.parse(Buffer.from(started.fields.policy!, "base64").toString()) as { conditions: unknown[] };
    policy.conditions = policy.conditions.map((cond) => (Array.isArray(cond) && cond[0] === "content-length-range" ? ["content-length-range", 1, 1e9] : cond));
    const altered = await post(started, new Blob([new Uint8Array(BIG)]), { policy: Buffer.from(JSON.stringify(policy)).toString("base64") });
    expect(altered.status).toBe(403);
    expect(await code(altered)).toBe("SignatureDoesNotMatch");
    const key = `tmp/${crypto.randomUUID()}`;
    const forged = signPostPolicy({ url: started.uploadURL, bucket: "photos", key, region: "us-east-1", accessKeyId: "key", secretAccessKey: "not-the-secret", expiresInSeconds: 600, minBytes: 1, maxBytes: 1e9, now: Date.now() });
    expect(await code(await post({ uploadURL: forged.url, fields: forged.fields }, jpeg))).toBe("SignatureDoesNotMatch");
    const expired = signPostPolicy({ url: started.uploadURL, bucket: "photos", key, region: "us-east-1", accessKeyId: "key", secretAccessKey: "secret", expiresInSeconds: 600, minBytes: 1, maxBytes: MAX_UPLOAD_BYTES, now: Date.now() - 11 * 60 * 1000 });
    expect(await code(await post({ uploadURL: expired.url, fields: expired.fields }, jpeg))).toBe("AccessDenied");
    expect(s3.objects.has(key)).toBe(false);
    app.cleanup();
  });
});

describe("processing checks the size before reading, and reads with a cap", () => {
  test("an object planted over the limit is refused after a HEAD, never downloaded, and deleted", async () => {
    const app = await bucketApp();
    const c = app.client();
    const { user } = await c.signUp();
    const started = await start(c);
    const key = `tmp/${idOf(started)}`;
    s3.objects.set(key, { data: new Uint8Array(BIG), type: "image/jpeg" }); // past the policy, straight into the bucket
    const res = await c.putJson("/api/profile-images", { imageURL: started.imageURL });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { message: string }).message).toContain("10 MB");
    expect(requestsFor(key).map((r) => r.method)).toEqual(["HEAD", "DELETE"]);
    expect(s3.objects.has(key)).toBe(false);
    expect((await one(app.db.select().from(uploads).where(eq(uploads.id, idOf(started)))))!.status).toBe("failed" as never);
    // Refused for good: the same upload cannot be tried again.
    s3.objects.set(key, { data: await makeJpeg(), type: "image/jpeg" });
    expect((await c.putJson("/api/profile-images", { imageURL: started.imageURL })).status).toBe(409);
    expect(await app.deps.limits.uploadBytesByUser.count(user.id, app.deps.now())).toBe(0);
    app.cleanup();
  });

  test("an object swapped for a bigger one after its HEAD: the ranged GET stops one byte past the limit", async () => {
    const app = await bucketApp();
    const c = app.client();
    await c.signUp();
    const started = await start(c);
    const key = `tmp/${idOf(started)}`;
    s3.objects.set(key, { data: new Uint8Array(BIG), type: "image/jpeg" });
    const size = app.deps.storage.size;
    app.deps.storage.size = async () => 1000; // as if the HEAD had seen a small object
    const res = await c.putJson("/api/profile-images", { imageURL: started.imageURL });
    app.deps.storage.size = size;
    expect(res.status).toBe(413);
    const gets = requestsFor(key).filter((r) => r.method === "GET");
    expect(gets).toHaveLength(1);
    expect(gets[0]!.range).toBe(`bytes=0-${MAX_UPLOAD_BYTES}`);
    expect(gets[0]!.bytesSent).toBe(MAX_UPLOAD_BYTES + 1);
    expect(s3.objects.has(key)).toBe(false);
    // The storage's reader on its own: never more than the limit, whatever the object's size.
    const other = `tmp/${crypto.randomUUID()}`;
    s3.objects.set(other, { data: new Uint8Array(BIG), type: "application/octet-stream" });
    await expect(app.deps.storage.read(other, 1024)).rejects.toMatchObject({ key: "upload.tooLarge", status: 413 });
    expect(await app.deps.storage.size(other)).toBe(BIG);
    expect(await app.deps.storage.size(`tmp/${crypto.randomUUID()}`)).toBeNull();
    app.cleanup();
  });

  test("the bytes of a bucket upload count toward the hourly allowance; once spent, 429 and the object is deleted", async () => {
    let now = Date.now();
    const jpeg = await makeJpeg();
    const app = await bucketApp({ now: () => now, limits: { uploadBytesByUser: new RateLimiter(jpeg.length * 2 + 100, HOUR) } });
    const c = app.client();
    const { user } = await c.signUp();
    for (let i = 1; i <= 2; i++) {
      const started = await start(c);
      expect((await post(started, new Blob([jpeg]))).status).toBe(204);
      expect((await c.putJson("/api/profile-images", { imageURL: started.imageURL })).status).toBe(200);
      expect(await app.deps.limits.uploadBytesByUser.count(user.id, now)).toBe(jpeg.length * i);
    }
    // A third upload is still handed out (there is room for a byte) but does not fit once processed.
    const third = await start(c);
    expect((await post(third, new Blob([jpeg]))).status).toBe(204);
    const refused = await c.putJson("/api/profile-images", { imageURL: third.imageURL });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(s3.objects.has(`tmp/${idOf(third)}`)).toBe(false);
    expect(requestsFor(`tmp/${idOf(third)}`).some((r) => r.method === "GET")).toBe(false);
    // With the allowance spent, no new upload form is handed out.
    expect(await app.deps.limits.uploadBytesByUser.take(user.id, now, 100)).toBe(0);
    expect((await c.postJson("/api/objects/upload", {})).status).toBe(429);
    now += HOUR + 1;
    expect((await c.postJson("/api/objects/upload", {})).status).toBe(200);
    app.cleanup();
  });
});

describe("one upload makes one photo", () => {
  test("8 concurrent PUT /api/profile-images with one bucket upload make exactly one photo", async () => {
    const app = await bucketApp();
    const c = app.client();
    const { user } = await c.signUp();
    const started = await start(c);
    const jpeg = await makeJpeg({ width: 2000, height: 1500 });
    expect((await post(started, new Blob([jpeg]))).status).toBe(204);
    const before = photoKeys().length;
    const answers = await Promise.all(Array.from({ length: 8 }, () => c.putJson("/api/profile-images", { imageURL: started.imageURL })));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(7);
    const messages = await Promise.all(answers.filter((r) => r.status === 409).map(async (r) => ((await r.json()) as { message: string }).message));
    expect(new Set(messages)).toEqual(new Set(["This photo is already being processed."]));
    expect(photoKeys().length - before).toBe(2); // one photo, in its two sizes
    expect(await app.db.$count(uploads, isNotNull(uploads.objectId))).toBe(1);
    expect(requestsFor(`tmp/${idOf(started)}`).filter((r) => r.method === "GET")).toHaveLength(1);
    expect(await app.deps.limits.uploadBytesByUser.count(user.id, app.deps.now())).toBe(jpeg.length);
    // Asked again once done (a retry whose answer was lost): the same photo, nothing read again.
    const { objectPath } = (await answers.find((r) => r.status === 200)!.json()) as { objectPath: string };
    const again = await c.putJson("/api/profile-images", { imageURL: started.imageURL });
    expect(again.status === 200 ? ((await again.json()) as { objectPath: string }).objectPath : again.status).toBe(objectPath);
    expect(photoKeys().length - before).toBe(2);
    app.cleanup();
  });

  test("the same with local storage, across both endpoints", async () => {
    const app = await makeTestApp();
    const c = app.client();
    await c.signUpComplete({ city: "Paris", country: "France" });
    const { uploadURL } = (await (await c.postJson("/api/objects/upload", {})).json()) as { uploadURL: string };
    const url = new URL(uploadURL, ORIGIN);
    expect((await c.request(url.pathname + url.search, { method: "PUT", body: await makeJpeg({ width: 2000, height: 1500 }) })).status).toBe(200);
    const photos = () => readdirSync(join(app.dataDir, "uploads/photos")).length;
    const before = photos();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => c.putJson(i % 2 ? "/api/activity-images" : "/api/profile-images", { imageURL: uploadURL })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    expect(photos() - before).toBe(1);
    // The raw upload is gone, and its URL cannot take new bytes.
    expect(existsSync(join(app.dataDir, "uploads/tmp", url.pathname.split("/").pop()!))).toBe(false);
    expect((await c.request(url.pathname + url.search, { method: "PUT", body: await makeJpeg() })).status).toBe(403);
    app.cleanup();
  });

  test("an upload that failed processing cannot be used again: 409, nothing read", async () => {
    const app = await bucketApp();
    const c = app.client();
    await c.signUp();
    const started = await start(c);
    const key = `tmp/${idOf(started)}`;
    expect((await post(started, new Blob([new TextEncoder().encode("not an image at all")]))).status).toBe(204);
    expect((await c.putJson("/api/profile-images", { imageURL: started.imageURL })).status).toBe(415);
    expect(s3.objects.has(key)).toBe(false);
    // Even with a real image sent again with the same form (it is valid for 10 minutes).
    expect((await post(started, new Blob([await makeJpeg()]))).status).toBe(204);
    const gets = requestsFor(key).filter((r) => r.method === "GET").length;
    const again = await c.putJson("/api/profile-images", { imageURL: started.imageURL });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { message: string }).message).toContain("already used");
    expect(requestsFor(key).filter((r) => r.method === "GET")).toHaveLength(gets);
    // What that late POST left is deleted once the form has expired (a job).
    expect(s3.objects.has(key)).toBe(true);
    const job = (await app.db.query.jobs.findFirst({ where: (j, { eq }) => eq(j.key, `uploads.leftover:${idOf(started)}`) }))!;
    expect(job.runAt).toBeGreaterThan(Date.now() + 9 * 60 * 1000);
    const { leftoverUploadCleanup } = await import("../src/uploads/service");
    await leftoverUploadCleanup.run({ id: idOf(started) }, { deps: app.deps, job });
    expect(s3.objects.has(key)).toBe(false);
    app.cleanup();
  });
});

describe("the browser's upload code (islands/api.ts) uses the bucket's form", () => {
  test("a photo goes to the bucket by POST; a file over the limit gets the app's message, not the bucket's XML", async () => {
    const app = await bucketApp();
    const c = app.client();
    await c.signUp();
    const realFetch = globalThis.fetch;
    const realDocument = (globalThis as { document?: unknown }).document;
    const browserCalls: string[] = [];
    // Our own paths go to the app with the session; anything else (the bucket) over the network.
    globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = String(input);
      browserCalls.push(`${init?.method ?? "GET"} ${url.startsWith("/") ? url : new URL(url).origin === s3.endpoint ? "bucket" : url}`);
      if (url.startsWith("/")) return c.request(url, init as RequestInit);
      return realFetch(input, init);
    }) as typeof fetch;
    (globalThis as { document?: unknown }).document = { querySelector: () => ({ content: c.csrf }) };
    try {
      const { uploadPhoto } = await import("../islands/api");
      const path = await uploadPhoto(new File([await makeJpeg()], "me.jpg", { type: "image/jpeg" }), "/api/profile-images");
      expect(path).toMatch(/^\/objects\/[0-9a-f-]{36}$/);
      expect(browserCalls).toEqual(["POST /api/objects/upload", "POST bucket", "PUT /api/profile-images"]);
      expect(s3.objects.has(`photos/${path.split("/").pop()}/thumb.webp`)).toBe(true);

      browserCalls.length = 0;
      const big = new File([new Uint8Array(MAX_UPLOAD_BYTES + 1)], "big.jpg", { type: "image/jpeg" });
      await expect(uploadPhoto(big, "/api/profile-images")).rejects.toThrow("This image is too large: 10 MB at most.");
      await Bun.sleep(50);
      expect(browserCalls).toEqual(["POST /api/objects/upload"]); // refused before sending
    } finally {
      globalThis.fetch = realFetch;
      (globalThis as { document?: unknown }).document = realDocument;
    }
    app.cleanup();
  });
});
