import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { closeDb, one } from "../db/client";
import { DEMO_GUEST_EMAIL, DEMO_HOST_EMAIL, DEMO_PASSWORD } from "../src/demo/demo-data";
import { bookingRow, insert } from "../src/demo/factories";
import { activities, bookings, users } from "../db/schema";
import { LIVE_LIMITS } from "../src/web/live/routes";
import { makeJpeg } from "./images";
import { startFakeS3 } from "./fakes/s3";
import { LiveClient } from "./live-client";
import { startServerProcess, type ServerProcess } from "./server-process";
import { openDatabaseOf } from "./helpers";

/**
 * The third probe's attacks (docs/decisions/0030, 0032, 0033) tried again against the real
 * server process, as an attacker would: over HTTP and WebSockets, with the server's own settings
 * (an https PUBLIC_URL), not through the test app.
 */
const root = new URL("..", import.meta.url).pathname;
const HOUR = 60 * 60 * 1000;
const dataDir = mkdtempSync(join(tmpdir(), "offline-attacks-"));
let proc: ServerProcess["proc"];
let base: string;

beforeAll(async () => {
  ({ proc, url: base } = await startServerProcess({ env: { DATA_DIR: dataDir, DEMO_DATA: "true", PUBLIC_URL: "https://offline.example" } }));
});
afterAll(async () => {
  proc.kill("SIGTERM");
  await proc.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

/** A person's session over HTTP: cookies and the CSRF token, as a script would keep them. */
async function signIn(email: string) {
  const res = await fetch(`${base}/api/login`, { method: "POST", headers: { "content-type": "application/json", origin: base }, body: JSON.stringify({ email, password: DEMO_PASSWORD }) });
  expect(res.status).toBe(200);
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const csrf = res.headers.get("x-csrf-token")!;
  const call = (path: string, init: { method?: string; json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {}) =>
    fetch(`${base}${path}`, {
      method: init.method ?? (init.json !== undefined ? "POST" : "GET"),
      headers: { cookie, "x-csrf-token": csrf, origin: base, ...(init.json !== undefined ? { "content-type": "application/json" } : {}), ...init.headers },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
      redirect: "manual",
    });
  return { cookie, call };
}

const db = () => openDatabaseOf(dataDir);
async function demo() {
  const d = await db();
  const host = (await one(d.select().from(users).where(eq(users.email, DEMO_HOST_EMAIL))))!;
  const guest = (await one(d.select().from(users).where(eq(users.email, DEMO_GUEST_EMAIL))))!;
  const activity = (await one(d.select().from(activities).where(and(eq(activities.hostId, host.id), eq(activities.city, "New York"), eq(activities.format, "private")))))!;
  return { d, host, guest, activity };
}
const dateIn = (days: number) => new Date(Date.now() + days * 24 * HOUR).toISOString().slice(0, 10);

describe("against the running server", () => {
  test("push subscriptions to this machine or a private network are refused", async () => {
    const guest = await signIn(DEMO_GUEST_EMAIL);
    const keys = { p256dh: "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM", auth: "tBHItJI5svbpez7KI4CCXg" };
    for (const endpoint of [`https://localhost.:${new URL(base).port}/push`, "https://probe.localhost/push", "https://127.0.0.1/push", "https://[::ffff:127.0.0.1]/push", "https://10.0.0.1/push", "https://169.254.169.254/latest"]) {
      const res = await guest.call("/api/notifications/subscribe", { json: { endpoint, keys } });
      expect(res.status).toBe(400);
    }
  });

  test("calendar squatting: a second unpaid hold is refused", async () => {
    const { d, activity } = await demo();
    await closeDb(d);
    const guest = await signIn(DEMO_GUEST_EMAIL);
    const hold = (days: number) => guest.call("/api/create-payment-intent", { json: { activityId: activity.id, hours: 1, amount: ((activity.hourlyRateCents * 1.1) / 100).toFixed(2), proposedDate: dateIn(days), proposedTime: "10:00", message: "Hello" } });
    const first = await hold(20);
    expect(first.status).toBe(200);
    const second = await hold(21);
    expect(second.status).toBe(409);
    expect((await guest.call(`/api/bookings/${((await first.json()) as { bookingId: string }).bookingId}/cancel`, { json: {} })).status).toBe(200);
  });

  test("a request's message with control or text-direction characters is refused", async () => {
    const { d, activity } = await demo();
    await closeDb(d);
    const guest = await signIn(DEMO_GUEST_EMAIL);
    const res = await guest.call("/api/create-payment-intent", { json: { activityId: activity.id, hours: 1, amount: ((activity.hourlyRateCents * 1.1) / 100).toFixed(2), proposedDate: dateIn(22), proposedTime: "10:00", message: "Pay me \u202Eelsewhere\u001b[0m" } });
    expect(res.status).toBe(400);
  });

  test("one upload, many photos: eight at once make one", async () => {
    const guest = await signIn(DEMO_GUEST_EMAIL);
    const { uploadURL } = (await (await guest.call("/api/objects/upload", { json: {} })).json()) as { uploadURL: string };
    const url = new URL(uploadURL, base);
    expect((await guest.call(url.pathname + url.search, { method: "PUT", body: await makeJpeg(), headers: { "content-type": "image/jpeg" } })).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 8 }, () => guest.call("/api/profile-images", { method: "PUT", json: { imageURL: uploadURL } })));
    const paths = new Set<string>();
    for (const a of answers) if (a.status === 200) paths.add(((await a.json()) as { objectPath: string }).objectPath);
    expect(paths.size).toBe(1);
    expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
  });

  test("a host cannot cancel after the start, nor accept a request for a deleted activity", async () => {
    const { d, guest, activity } = await demo();
    const started = await insert(d).booking({ ...bookingRow(activity, { guestId: guest.id, startsAt: Math.floor((Date.now() - HOUR) / HOUR) * HOUR, status: "accepted" }), paymentIntentId: null });
    await closeDb(d);
    const host = await signIn(DEMO_HOST_EMAIL);
    const cancel = await host.call(`/api/bookings/${started.id}/cancel`, { json: {} });
    expect(cancel.status).toBe(409);
    expect(((await cancel.json()) as { message: string }).message).toBe("The activity has started: it can no longer be cancelled. Mark it complete, or report a problem.");
    const d2 = await db();
    expect((await one(d2.select().from(bookings).where(eq(bookings.id, started.id))))!.status).toBe("accepted");
    // A request for an activity the host then deletes.
    const created = await host.call("/api/activities", { json: { title: "Padel", description: "An hour of padel.", category: "sports", hourlyRate: "40", duration: "1", maxDuration: "4" } });
    const padel = ((await created.json()) as { id: string }).id;
    const request = await insert(d2).booking({ ...bookingRow({ ...activity, id: padel }, { guestId: guest.id, startsAt: Math.floor((Date.now() + 72 * HOUR) / HOUR) * HOUR, status: "pending" }), paymentIntentId: null });
    await closeDb(d2);
    expect((await host.call(`/api/activities/${padel}`, { method: "DELETE" })).status).toBeLessThan(300);
    expect((await host.call(`/api/bookings/${request.id}/accept`, { json: {} })).status).toBe(409);
  });

  test("private pages are never stored, sign-out clears the site, and the headers hold", async () => {
    const guest = await signIn(DEMO_GUEST_EMAIL);
    const settings = await guest.call("/settings");
    expect(settings.status).toBe(200);
    expect(settings.headers.get("cache-control")).toBe("no-store");
    expect(settings.headers.get("cross-origin-opener-policy")).toBe("same-origin");
    expect(settings.headers.get("permissions-policy")).toContain("camera=()");
    const out = await guest.call("/api/auth/logout", { json: {} });
    expect(out.headers.get("clear-site-data")).toContain('"cache"');
    // A route that fails answers with the app's own error, never a stack or a path of the server.
    const missing = await fetch(`${base}/objects/${"0".repeat(8)}-0000-0000-0000-${"0".repeat(12)}/thumb.webp`);
    expect(await missing.text()).not.toContain(root);
  });

  test(`one session holds at most ${LIVE_LIMITS.socketsPerSession} sockets`, async () => {
    const guest = await signIn(DEMO_GUEST_EMAIL);
    const open: LiveClient[] = [];
    for (let i = 0; i < LIVE_LIMITS.socketsPerSession; i++) open.push(await LiveClient.open(base, { cookie: guest.cookie, origin: base }));
    const extra = await LiveClient.open(base, { cookie: guest.cookie, origin: base });
    expect(await extra.closed).toBe(1008);
    expect(open.every((s) => s.isOpen)).toBe(true);
    for (const s of open) s.close();
  });
});

describe("against a running server that keeps photos in a bucket", () => {
  const s3 = startFakeS3("photos");
  const bucketDir = mkdtempSync(join(tmpdir(), "offline-attacks-bucket-"));
  let bucketServer: ServerProcess["proc"];
  let url: string;
  beforeAll(async () => {
    ({ proc: bucketServer, url } = await startServerProcess({
      env: { DATA_DIR: bucketDir, DEMO_DATA: "true", S3_BUCKET: "photos", S3_ENDPOINT: s3.endpoint, S3_REGION: "us-east-1", S3_ACCESS_KEY_ID: "key", S3_SECRET_ACCESS_KEY: "secret" },
    }));
  });
  afterAll(async () => {
    bucketServer.kill("SIGTERM");
    await bucketServer.exited;
    void s3.stop();
    rmSync(bucketDir, { recursive: true, force: true });
  });

  test("an upload over 10 MB is refused by the bucket itself, and one planted there is never read whole", async () => {
    const login = await fetch(`${url}/api/login`, { method: "POST", headers: { "content-type": "application/json", origin: url }, body: JSON.stringify({ email: DEMO_GUEST_EMAIL, password: DEMO_PASSWORD }) });
    const cookie = login.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const headers = { cookie, "x-csrf-token": login.headers.get("x-csrf-token")!, origin: url, "content-type": "application/json" };
    const started = (await (await fetch(`${url}/api/objects/upload`, { method: "POST", headers, body: "{}" })).json()) as { method: string; uploadURL: string; fields: Record<string, string>; imageURL: string; maxBytes: number };
    expect(started.method).toBe("POST");
    const form = new FormData();
    for (const [name, value] of Object.entries(started.fields)) form.append(name, value);
    form.append("file", new Blob([new Uint8Array(started.maxBytes + 1)], { type: "image/jpeg" }));
    const refused = await fetch(started.uploadURL, { method: "POST", body: form });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("EntityTooLarge");
    // Planted past the form (straight into the bucket), 30 MB: refused from its size alone.
    const key = started.fields.key!;
    s3.objects.set(key, { data: new Uint8Array(30 * 1024 * 1024), type: "image/jpeg" });
    const before = s3.requests.length;
    const made = await fetch(`${url}/api/profile-images`, { method: "PUT", headers, body: JSON.stringify({ imageURL: started.imageURL }) });
    expect(made.status).toBe(413);
    const seen = s3.requests.slice(before).map((r) => r.method);
    expect(seen).not.toContain("GET");
    expect(s3.objects.has(key)).toBe(false);
  });
});
