import { expect, test } from "bun:test";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { eq } from "drizzle-orm";
import { one, writeTransaction } from "../../db/client";
import { insert, userRow } from "../../src/demo/factories";
import { users } from "../../db/schema";
import { busyCalendarJob, busyJobKey } from "../../src/availability/busy-calendar";
import { createSession } from "../../src/auth/service";
import { scheduleJob } from "../../src/jobs";
import { buildWithBinary } from "../built";
import { openDatabaseOf, until } from "../helpers";
import { signUpAndOnboard } from "./flows";
import { serverAndBrowser } from "./harness";

const root = join(import.meta.dir, "../..");
// Run from another folder so nothing can be read from the checkout by accident.
const env = serverAndBrowser({
  command: [join(root, "dist/offline")],
  cwd: "/",
  before() {
    // `npm test` built it just before (scripts/test.ts): building again would rebuild build/
    // under the servers of the browser tests running beside this file.
    // Alone, it builds the binary from the checkout as it is, waiting for any other build.
    if (process.env.OFFLINE_BINARY_BUILT === "1") return;
    return buildWithBinary();
  },
});

test("the single binary alone, on an empty data directory, serves the app and a new user signs up", async () => {
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  const failed: string[] = [];
  page.on("requestfailed", (r) => failed.push(`${r.failure()?.errorText} ${r.method()} ${r.url()}`));
  page.on("response", (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`));
  // Onboarding includes a photo upload, so the binary's own image processing runs too.
  await signUpAndOnboard(page, env.server.url, { email: "binary@example.com", username: "binary.user" });
  await page.getByRole("heading", { name: "Activities in Lyon" }).waitFor();
  // Styles, scripts and images all come out of the binary.
  expect(await page.evaluate(() => getComputedStyle(document.querySelector(".btn, nav a")!).display)).not.toBe("inline");
  // The uploaded photo was processed and is served by the binary; shipped images are too.
  await page.goto(`${env.server.url}/profile`);
  expect(await page.locator("[data-carousel] img").first().evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth))).toBe(1200);
  await page.goto(`${env.server.url}/profile/maya.host`);
  expect(await page.locator("[data-carousel] img").first().evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth))).toBeGreaterThan(0);
  expect(failed).toEqual([] as string[]);
  await page.close();
});

test("the binary answers a folder under /static/ and oversized bodies with clear errors", async () => {
  const folder = await fetch(`${env.server.url}/static/photos`);
  expect(folder.status).toBe(404);
  expect(((await folder.json()) as { message: string }).message).toBe("Not found");
  const big = await fetch(`${env.server.url}/api/login`, { method: "POST", body: "x".repeat(100_000), headers: { "content-type": "application/json" } });
  expect(big.status).toBe(413);
  expect(((await big.json()) as { message: string }).message).toBe("This request is too large.");
  // Over the largest route limit, the server itself refuses the body.
  const huge = await fetch(`${env.server.url}/api/login`, { method: "POST", body: new Uint8Array(12 * 1024 * 1024), headers: { "content-type": "application/json" } });
  expect(huge.status).toBe(413);
});

test("the binary serves its built files compressed at build time", async () => {
  const manifest = (await Bun.file(join(root, "build/manifest.json")).json()) as { css: string; files: Record<string, string> };
  const res = await fetch(`${env.server.url}${manifest.css}`, { headers: { "Accept-Encoding": "br" }, decompress: false });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-encoding")).toBe("br");
  expect(res.headers.get("content-type")).toStartWith("text/css");
  expect(res.headers.get("vary")).toBe("Accept-Encoding");
  const body = new Uint8Array(await res.arrayBuffer());
  expect(Number(res.headers.get("content-length"))).toBe(body.length);
  const original = await Bun.file(join(root, manifest.files[manifest.css]!)).bytes();
  expect(new Uint8Array(brotliDecompressSync(body))).toEqual(original);
  expect(body.length).toBeLessThan(original.length / 2);
});

test("the binary serves the service worker it was built with, and every file it stores on install", async () => {
  const worker = await fetch(`${env.server.url}/sw.js`);
  expect(worker.status).toBe(200);
  const code = await worker.text();
  expect(code).toBe(await Bun.file(join(root, "build/public/sw.js")).text());
  const precache = JSON.parse(/\["\/assets\/[^\]]*\]/.exec(code)![0]) as string[];
  for (const url of precache) {
    const res = await fetch(`${env.server.url}${url}`);
    expect({ url, status: res.status }).toEqual({ url, status: 200 });
  }
});

test("the binary works out an outside calendar on its worker thread, and refuses one that never ends", async () => {
  // From tomorrow, 10:00 to 12:00 UTC.
  const day = new Date(Date.now() + 24 * 60 * 60 * 1000).toISOString().slice(0, 10).replaceAll("-", "");
  const calendar = (rule: string) =>
    ["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VEVENT", "UID:x@test", `DTSTART:${day}T100000Z`, `DTEND:${day}T120000Z`, `RRULE:${rule}`, "END:VEVENT", "END:VCALENDAR", ""].join("\r\n");
  const ics = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => new Response(calendar(new URL(req.url).pathname === "/never.ics" ? "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30" : "FREQ=WEEKLY;COUNT=6"), { headers: { "content-type": "text/calendar" } }),
  });
  const db = await openDatabaseOf(env.server.dataDir);
  try {
    /** A host whose saved calendar is `path`, with its read due now, which the binary's job loop runs. */
    const hostReading = async (path: string) => {
      const host = await insert(db).user(userRow({ locale: "en" }));
      const session = await createSession(db, host.id);
      await writeTransaction(db, async (tx) => {
        await tx.update(users).set({ busyCalendarUrl: `http://127.0.0.1:${ics.port}${path}` }).where(eq(users.id, host.id));
        await scheduleJob(tx, busyCalendarJob, { hostId: host.id }, { at: Date.now(), key: busyJobKey(host.id) });
      });
      return async () => {
        await until("the read", async () => {
          const row = (await one(db.select().from(users).where(eq(users.id, host.id))))!;
          return row.busyCalendarFetchedAt !== null || row.busyCalendarError !== null;
        }, 20_000, 50);
        return (await fetch(`${env.server.url}/host/availability`, { headers: { cookie: `sid=${session.token}` } })).text();
      };
    };
    const [weekly, never] = [await hostReading("/weekly.ics"), await hostReading("/never.ics")];
    expect(await weekly()).toMatch(/Last read [^<]+: 6 busy times ahead\./);
    expect(await never()).toContain("The calendar takes too long to read");
    expect((await fetch(`${env.server.url}/health`)).status).toBe(200);
  } finally {
    await ics.stop(true);
  }
});
