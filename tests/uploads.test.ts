import { one } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { uploads } from "../db/schema";
import { RateLimiter } from "../lib/rate-limit";
import { deleteStaleUploads } from "../src/uploads/service";
import { loadSharp } from "../src/uploads/sharp";
import { startFakeS3 } from "./fakes/s3";
import { Client, makeTestApp, ORIGIN } from "./helpers";
import { makeJpeg, makePng } from "./images";

let t: Awaited<ReturnType<typeof makeTestApp>>;
let alice: Client;
beforeAll(async () => {
  t = await makeTestApp();
  alice = t.client();
  await alice.signUp("alice@example.com");
});
afterAll(() => t.cleanup());

/** The browser's three steps: get a URL, PUT the bytes there, turn it into a photo. */
async function upload(c: Client, bytes: Uint8Array<ArrayBuffer>, type = "image/jpeg", endpoint = "/api/profile-images") {
  const start = await c.postJson("/api/objects/upload", {});
  expect(start.status).toBe(200);
  const { uploadURL } = (await start.json()) as { uploadURL: string };
  const url = new URL(uploadURL, ORIGIN);
  const put = await c.request(url.pathname + url.search, { method: "PUT", body: bytes, headers: { "content-type": type } });
  if (put.status !== 200) return { put, uploadURL };
  const done = await c.request(endpoint, { method: "PUT", json: { imageURL: uploadURL } });
  return { put, done, uploadURL };
}

describe("photo uploads to the data directory", () => {
  test("a JPEG becomes a stored photo in two sizes, without its location metadata", async () => {
    const original = await makeJpeg({ width: 3000, height: 2000, gps: true });
    const sharp = await loadSharp();
    expect((await sharp(original).metadata()).exif?.toString("latin1")).toContain("TestCam"); // EXIF with a GPS block
    const { done } = await upload(alice, original);
    expect(done!.status).toBe(200);
    const { objectPath } = (await done!.json()) as { objectPath: string };
    expect(objectPath).toMatch(/^\/objects\/[0-9a-f-]{36}$/);
    const thumb = await t.client().get(`${objectPath}/thumb.webp`);
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get("content-type")).toBe("image/webp");
    expect(thumb.headers.get("cache-control")).toContain("immutable");
    const thumbMeta = await sharp(new Uint8Array(await thumb.arrayBuffer())).metadata();
    expect(thumbMeta.format).toBe("webp");
    expect(Math.max(thumbMeta.width!, thumbMeta.height!)).toBe(480);
    const large = await sharp(new Uint8Array(await (await t.client().get(objectPath)).arrayBuffer())).metadata();
    expect(large.width).toBe(1600);
    expect(large.exif).toBeUndefined();
  });

  test("the photo is turned upright from its orientation tag", async () => {
    const { done } = await upload(alice, await makeJpeg({ width: 400, height: 200, orientation: 6 }));
    const { objectPath } = (await done!.json()) as { objectPath: string };
    const sharp = await loadSharp();
    const meta = await sharp(new Uint8Array(await (await t.client().get(`${objectPath}/large.webp`)).arrayBuffer())).metadata();
    expect([meta.width, meta.height]).toEqual([200, 400]);
  });

  test("a PNG is accepted too", async () => {
    const { done } = await upload(alice, await makePng(), "image/png");
    expect(done!.status).toBe(200);
  });

  test("a text file claiming to be an image is refused with the spec's kind of message", async () => {
    const { done } = await upload(alice, new TextEncoder().encode("<svg onload=alert(1)>not really</svg>"), "image/jpeg");
    expect(done!.status).toBe(415);
    expect(((await done!.json()) as { message: string }).message).toContain("not a supported image");
  });

  test("an SVG is refused: it could carry script", async () => {
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
    const { done } = await upload(alice, svg, "image/svg+xml");
    expect(done!.status).toBe(415);
  });

  test("an oversized file is refused before it is stored", async () => {
    const big = new Uint8Array(10 * 1024 * 1024 + 1);
    const { put } = await upload(alice, big);
    expect(put.status).toBe(413);
    expect(((await put.json()) as { message: string }).message).toContain("10 MB");
  });

  test("an image with too many pixels is refused", async () => {
    const sharp = await loadSharp();
    // 9000 × 5000 = 45 megapixels, tiny as a file.
    const huge = new Uint8Array(await sharp({ create: { width: 9000, height: 5000, channels: 3, background: "#fff" } }).png({ compressionLevel: 9 }).toBuffer()) as Uint8Array<ArrayBuffer>;
    const { done } = await upload(alice, huge, "image/png");
    expect(done!.status).toBe(413);
    expect(((await done!.json()) as { message: string }).message).toContain("megapixels");
  });

  test("a forged or altered upload URL is refused", async () => {
    const { uploadURL } = (await (await alice.postJson("/api/objects/upload", {})).json()) as { uploadURL: string };
    const url = new URL(uploadURL, ORIGIN);
    url.searchParams.set("sig", "forged");
    const put = await alice.request(url.pathname + url.search, { method: "PUT", body: await makeJpeg(), headers: { "content-type": "image/jpeg" } });
    expect(put.status).toBe(403);
    const later = new URL(uploadURL, ORIGIN);
    later.searchParams.set("expires", String(Number(later.searchParams.get("expires")) + 3600_000));
    expect((await alice.request(later.pathname + later.search, { method: "PUT", body: await makeJpeg() })).status).toBe(403);
  });

  describe("the upload PUT takes the bytes whatever type they are declared as", () => {
    const types: [string, string | null][] = [
      ["text/plain", "text/plain"],
      ["urlencoded", "application/x-www-form-urlencoded"],
      ["json", "application/json"],
      ["multipart", "multipart/form-data; boundary=x"],
      ["octet-stream", "application/octet-stream"],
      ["no content type", null],
    ];
    for (const [name, type] of types) {
      test(`${name}: a bad signature is refused before the body is read; a good one stores the photo`, async () => {
        const jpeg = await makeJpeg();
        const headers: Record<string, string> = type ? { "content-type": type } : {};
        const { uploadURL } = (await (await alice.postJson("/api/objects/upload", {})).json()) as { uploadURL: string };
        const forged = new URL(uploadURL, ORIGIN);
        forged.searchParams.set("sig", "forged");
        let pulled = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            pulled++;
            controller.enqueue(jpeg);
          },
        });
        const refused = await t.client().request(forged.pathname + forged.search, { method: "PUT", body, headers });
        expect(refused.status).toBe(403);
        expect(((await refused.json()) as { message: string }).message).toBe("This upload link is not valid. Please try again.");
        expect(pulled).toBeLessThanOrEqual(1);
        const unknown = await t.client().request(`/api/uploads/${crypto.randomUUID()}?expires=1&sig=x`, { method: "PUT", body: jpeg, headers });
        expect(unknown.status).toBe(403);

        const url = new URL(uploadURL, ORIGIN);
        const put = await t.client().request(url.pathname + url.search, { method: "PUT", body: jpeg, headers });
        expect(put.status).toBe(200);
        const done = await alice.request("/api/profile-images", { method: "PUT", json: { imageURL: uploadURL } });
        expect(done.status).toBe(200);
      });
    }
  });

  test("an expired upload URL is refused", async () => {
    let now = Date.now();
    const clocked = await makeTestApp({ now: () => now });
    const c = clocked.client();
    await c.signUp();
    const { uploadURL } = (await (await c.postJson("/api/objects/upload", {})).json()) as { uploadURL: string };
    now += 11 * 60 * 1000;
    const url = new URL(uploadURL, ORIGIN);
    const put = await c.request(url.pathname + url.search, { method: "PUT", body: await makeJpeg(), headers: { "content-type": "image/jpeg" } });
    expect(put.status).toBe(403);
    expect(((await put.json()) as { message: string }).message).toContain("expired");
    clocked.cleanup();
  });

  test("one person cannot turn another person's upload into their photo", async () => {
    const { uploadURL } = (await (await alice.postJson("/api/objects/upload", {})).json()) as { uploadURL: string };
    const url = new URL(uploadURL, ORIGIN);
    await alice.request(url.pathname + url.search, { method: "PUT", body: await makeJpeg(), headers: { "content-type": "image/jpeg" } });
    const bob = t.client();
    await bob.signUp();
    const res = await bob.request("/api/profile-images", { method: "PUT", json: { imageURL: uploadURL } });
    expect(res.status).toBe(404);
  });

  test("uploading needs a signed-in user", async () => {
    expect((await t.client().postJson("/api/objects/upload", {})).status).toBe(401);
    expect((await t.client().request("/api/profile-images", { method: "PUT", json: { imageURL: "x" } })).status).toBe(401);
  });

  test("nonsense image URLs get a clear 404, not a crash", async () => {
    for (const imageURL of ["", "https://evil.example/x.jpg", 42, null, "/api/uploads/../../etc/passwd"]) {
      const res = await alice.request("/api/profile-images", { method: "PUT", json: { imageURL } });
      expect(res.status).toBe(404);
    }
  });

  test("the upload URL is relative, and works at whatever address the browser opened the app", async () => {
    const { uploadURL } = (await (await alice.postJson("/api/objects/upload", {})).json()) as { uploadURL: string };
    expect(uploadURL).toMatch(/^\/api\/uploads\/[0-9a-f-]{36}\?expires=\d+&sig=[\w-]+$/);
    // The app opened at a LAN address: every call goes there, and PUBLIC_URL (localhost) is not involved.
    const lan = "http://192.168.1.20:3000";
    const cookie = [...alice.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const put = await t.app.handle(new Request(lan + uploadURL, { method: "PUT", body: await makeJpeg(), headers: { "content-type": "image/jpeg", origin: lan, cookie } }));
    expect(put.status).toBe(200);
    // The absolute form of the same URL, at that address, is accepted back.
    const done = await t.app.handle(
      new Request(`${lan}/api/profile-images`, {
        method: "PUT",
        body: JSON.stringify({ imageURL: lan + uploadURL }),
        headers: { "content-type": "application/json", origin: lan, cookie, "x-csrf-token": alice.csrf },
      }),
    );
    expect(done.status).toBe(200);
    expect(((await done.json()) as { objectPath: string }).objectPath).toMatch(/^\/objects\/[0-9a-f-]{36}$/);
  });

  test("an upload URL on another host is refused, even with a real upload id", async () => {
    const { uploadURL } = (await (await alice.postJson("/api/objects/upload", {})).json()) as { uploadURL: string };
    await alice.request(uploadURL, { method: "PUT", body: await makeJpeg(), headers: { "content-type": "image/jpeg" } });
    for (const imageURL of [`https://evil.example${uploadURL}`, `//evil.example${uploadURL}`, `https://evil.example/tmp/${uploadURL.split("/")[3]!.split("?")[0]}`]) {
      const res = await alice.putJson("/api/profile-images", { imageURL });
      expect(res.status).toBe(404);
    }
    // PUBLIC_URL's own form stays accepted (the address outside parties know).
    const res = await alice.putJson("/api/profile-images", { imageURL: `${ORIGIN}${uploadURL}` });
    expect(res.status).toBe(200);
  });

  test("unknown photos are 404", async () => {
    expect((await t.client().get(`/objects/${crypto.randomUUID()}/thumb.webp`)).status).toBe(404);
    expect((await t.client().get("/objects/not-an-id")).status).toBe(404);
  });
});

const HOUR = 60 * 60 * 1000;
const message = async (res: Response) => ((await res.json()) as { message: string }).message;

describe("upload quotas", () => {
  test("upload URLs per person and hour: then 429 with Retry-After, in the person's language", async () => {
    let now = Date.now();
    const q = await makeTestApp({ now: () => now, limits: { uploadsByUser: new RateLimiter(3, HOUR) } });
    const c = q.client();
    await c.signUp();
    for (let i = 0; i < 3; i++) expect((await c.postJson("/api/objects/upload", {})).status).toBe(200);
    const refused = await c.postJson("/api/objects/upload", {});
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBe(3600);
    expect(await message(refused)).toBe("You have sent many photos in the last hour. Please wait 60 minutes and try again.");
    const fr = await c.postJson("/api/objects/upload", {}, { "accept-language": "fr" });
    expect(await message(fr)).toContain("Patientez 60 minutes");
    expect(await q.db.$count(uploads)).toBe(3);
    // Someone else is not held back; the same person is again an hour later.
    const other = q.client();
    await other.signUp();
    expect((await other.postJson("/api/objects/upload", {})).status).toBe(200);
    now += HOUR + 1;
    expect((await c.postJson("/api/objects/upload", {})).status).toBe(200);
    q.cleanup();
  });

  test("bytes received per person and hour: then 429 and nothing stored", async () => {
    let now = Date.now();
    const jpeg = await makeJpeg();
    const q = await makeTestApp({ now: () => now, limits: { uploadBytesByUser: new RateLimiter(jpeg.length * 2 + 100, HOUR) } });
    const c = q.client();
    await c.signUp();
    const start = async () => new URL(((await (await c.postJson("/api/objects/upload", {})).json()) as { uploadURL: string }).uploadURL, ORIGIN);
    for (let i = 0; i < 2; i++) {
      const url = await start();
      expect((await c.request(url.pathname + url.search, { method: "PUT", body: jpeg, headers: { "content-type": "image/jpeg" } })).status).toBe(200);
    }
    // Without a declared length the bytes are counted as they come.
    const third = await start();
    const refused = await c.request(third.pathname + third.search, { method: "PUT", body: jpeg, headers: { "content-type": "image/jpeg" } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await message(refused)).toContain("Please wait");
    const id = third.pathname.split("/").pop()!;
    expect((await one(q.db.select().from(uploads).where(eq(uploads.id, id))))?.status).toBe("pending");
    expect(existsSync(join(q.dataDir, "uploads/tmp", id))).toBe(false);
    // With a declared length, before a byte is read.
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(jpeg);
      },
    });
    const declared = await c.request(third.pathname + third.search, { method: "PUT", body, headers: { "content-type": "image/jpeg", "content-length": String(jpeg.length) } });
    expect(declared.status).toBe(429);
    expect(pulled).toBeLessThanOrEqual(1);
    now += HOUR + 1;
    const later = await start();
    expect((await c.request(later.pathname + later.search, { method: "PUT", body: jpeg, headers: { "content-type": "image/jpeg" } })).status).toBe(200);
    q.cleanup();
  });
});

describe("cleaning up uploads", () => {
  test("a photo on no profile or activity is deleted a day after its upload; attached and recent ones stay", async () => {
    let now = Date.now();
    const q = await makeTestApp({ now: () => now });
    const host = q.client();
    await host.signUpComplete({ city: "Paris", country: "France" });
    const profilePhoto = ((await (await host.get("/api/auth/user")).json()) as { photos: string[] }).photos[0]!;
    const activityPhoto = await host.uploadPhoto(undefined, "/api/activity-images");
    const created = await host.request("/api/activities", {
      method: "POST",
      json: { title: "Tennis", description: "Forehand and serve.", category: "sports", hourlyRate: "40", photos: [activityPhoto] },
    });
    expect(created.status).toBe(201);
    const loose = await host.uploadPhoto();
    const unfinished = await host.postJson("/api/objects/upload", {});
    expect(unfinished.status).toBe(200);

    now += 25 * HOUR;
    const fresh = await host.uploadPhoto();
    const stored = (path: string) => existsSync(join(q.dataDir, "uploads/photos", path.split("/").pop()!, "thumb.webp"));
    const served = async (path: string) => (await q.client().get(`${path}/thumb.webp`)).status;
    expect(stored(loose)).toBe(true);

    expect(await deleteStaleUploads(q.deps)).toEqual({ unfinished: 1, unattached: 1 });
    expect(await served(loose)).toBe(404);
    expect(stored(loose)).toBe(false);
    expect(existsSync(join(q.dataDir, "uploads/photos", loose.split("/").pop()!, "large.webp"))).toBe(false);
    const left = await q.db.select({ objectId: uploads.objectId }).from(uploads);
    expect(left.map((u) => `/objects/${u.objectId}`).sort()).toEqual([profilePhoto, activityPhoto, fresh].sort());
    for (const kept of [profilePhoto, activityPhoto, fresh]) expect(await served(kept)).toBe(200);

    // Running again changes nothing; a deleted photo cannot be attached any more.
    expect(await deleteStaleUploads(q.deps)).toEqual({ unfinished: 0, unattached: 0 });
    for (const kept of [profilePhoto, activityPhoto, fresh]) expect(await served(kept)).toBe(200);
    const reuse = await host.putJson("/api/user/profile", { photos: [profilePhoto, loose] });
    expect(reuse.status).toBe(400);

    // A photo taken off its profile is unattached from then on.
    expect((await host.putJson("/api/user/profile", { photos: [fresh] })).status).toBe(200);
    expect(await deleteStaleUploads(q.deps)).toEqual({ unfinished: 0, unattached: 1 });
    expect(await served(profilePhoto)).toBe(404);
    expect(await served(fresh)).toBe(200);
    q.cleanup();
  });
});

describe("photo uploads to an S3-compatible bucket", () => {
  test("the browser uploads with a presigned POST form and the photo is stored in the bucket", async () => {
    const s3 = startFakeS3("photos");
    const app = await makeTestApp({
      env: { S3_BUCKET: "photos", S3_ENDPOINT: s3.endpoint, S3_REGION: "us-east-1", S3_ACCESS_KEY_ID: "key", S3_SECRET_ACCESS_KEY: "secret" },
    });
    const c = app.client();
    await c.signUp();
    const started = (await (await c.postJson("/api/objects/upload", {})).json()) as { method: string; uploadURL: string; fields: Record<string, string>; imageURL: string };
    expect(started.method).toBe("POST");
    expect(started.uploadURL).toBe(`${s3.endpoint}/photos`);
    expect(started.imageURL.startsWith(`${s3.endpoint}/photos/tmp/`)).toBe(true);
    expect(started.fields["x-amz-signature"]).toMatch(/^[0-9a-f]{64}$/);
    // The browser's POST goes straight to the bucket.
    const form = new FormData();
    for (const [name, value] of Object.entries(started.fields)) form.append(name, value);
    form.append("file", new Blob([await makeJpeg()], { type: "image/jpeg" }));
    const post = await fetch(started.uploadURL, { method: "POST", body: form });
    expect(post.status).toBe(204);
    const done = await c.request("/api/profile-images", { method: "PUT", json: { imageURL: started.imageURL } });
    expect(done.status).toBe(200);
    const { objectPath } = (await done.json()) as { objectPath: string };
    const id = objectPath.split("/").pop();
    expect(s3.objects.has(`photos/${id}/thumb.webp`)).toBe(true);
    expect(s3.objects.has(`photos/${id}/large.webp`)).toBe(true);
    expect([...s3.objects.keys()].some((k) => k.startsWith("tmp/"))).toBe(false);
    const served = await c.get(`${objectPath}/thumb.webp`);
    expect(served.status).toBe(200);
    expect((await served.arrayBuffer()).byteLength).toBe(s3.objects.get(`photos/${id}/thumb.webp`)!.data.length);
    // Server-side calls were signed; only the browser's POST used the presigned form.
    expect(s3.requests.filter((r) => r.presigned).map((r) => r.method)).toEqual(["POST"]);
    expect((await c.get("/")).headers.get("content-security-policy")).toMatch(new RegExp(`connect-src 'self'[^;]* ${s3.endpoint}`));
    app.cleanup();
    void s3.stop();
  });
});

test("every upload record belongs to its uploader", async () => {
  // An upload of its own, so that the test does not lean on the others having run.
  expect((await upload(alice, await makeJpeg({ width: 64, height: 48 }))).done?.status).toBe(200);
  const rows = await t.db.select().from(uploads);
  expect(rows.length).toBeGreaterThan(0);
});
