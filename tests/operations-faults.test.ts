import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, rmdirSync, writeSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDb, migrate, openDb } from "../db/client";
import { insert, userRow } from "../src/demo/factories";
import { createSession } from "../src/auth/service";
import { until } from "./helpers";
import { makeJpeg } from "./images";
import { LiveClient } from "./live-client";
import { freePort, idleConnections, startServerProcess } from "./server-process";

/**
 * The server process on a disk that fills up, started on a full disk, and stopped with everything
 * still open (docs/decisions/0047). SQLite's own file: the full disk is a real one, a small tmpfs
 * mounted for the test (which needs root, or the right to mount); without it those tests say so
 * and pass.
 */
const root = join(import.meta.dir, "..");
const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const clean of cleanups.reverse()) clean();
});

/** A real disk of `bytes` (tmpfs), unmounted after the file's tests; null where this process may not mount. */
function smallDisk(name: string, bytes: number): string | null {
  const dir = mkdtempSync(join(tmpdir(), `offline-${name}-`));
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${bytes},mode=0755`, "tmpfs", dir], { stdout: "ignore", stderr: "pipe" });
  if (mounted.exitCode !== 0) {
    rmdirSync(dir);
    console.warn(`skipped: a small disk cannot be mounted here (${mounted.stderr.toString().trim()}), so no disk fills up`);
    return null;
  }
  cleanups.push(() => {
    Bun.spawnSync(["umount", "-l", dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Fills the disk holding `dir` with one file, to its last byte; answers a function that frees it again. */
function fill(dir: string): () => void {
  const file = join(dir, "filler");
  const fd = openSync(file, "w");
  for (const size of [1024 * 1024, 64 * 1024, 4096, 512, 1]) {
    const chunk = Buffer.alloc(size, 1);
    try {
      for (;;) writeSync(fd, chunk);
    } catch (err) {
      if ((err as { code?: string }).code !== "ENOSPC") throw err;
    }
  }
  closeSync(fd);
  return () => rmSync(file);
}

async function readAll(stream: ReadableStream<Uint8Array>) {
  return await new Response(stream).text();
}

/** A server process on `dataDir`, whose database holds one person signed in; answers their request headers. */
async function serverWithOnePerson(dataDir: string) {
  const db = openDb(join(dataDir, "offline.db"));
  await migrate(db);
  const user = await insert(db).user(userRow());
  const session = await createSession(db, user.id);
  await closeDb(db);
  const server = await startServerProcess({ env: { DATA_DIR: dataDir, DEMO_DATA: "false" } });
  cleanups.push(() => server.proc.kill("SIGKILL"));
  const headers = { cookie: `sid=${session.token}`, "x-csrf-token": session.csrf, origin: server.url };
  return { user, session, server, headers };
}

describe("a full disk", () => {
  test("a write is answered 503 with Retry-After, as the app's JSON or page; /health says the disk is full until there is room again", async () => {
    const disk = smallDisk("full", 24 * 1024 * 1024);
    if (!disk) return;
    const dataDir = join(disk, "data");
    mkdirSync(dataDir);
    const { user, session, server, headers } = await serverWithOnePerson(dataDir);
    const write = (n: number) =>
      fetch(`${server.url}/api/user/profile`, { method: "PUT", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ bio: `${n} ${"x".repeat(480)}` }) });
    const health = async () => {
      const res = await fetch(`${server.url}/health`);
      return { status: res.status, body: await res.json() };
    };
    expect((await write(0)).status).toBe(200);
    expect(await health()).toEqual({ status: 200, body: { ok: true } });

    const free = fill(disk);
    let refused: Response | undefined;
    for (let n = 1; n <= 200 && !refused; n++) {
      const res = await write(n);
      if (res.status !== 200) refused = res;
      else await res.arrayBuffer();
    }
    expect(refused?.status).toBe(503);
    expect(Number(refused!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused!.json()).toEqual({ message: "Changes cannot be saved right now: the server has run out of storage space. Please try again later." });
    // As a browser's form, the app's error page says the same.
    const page = await fetch(`${server.url}/edit-profile`, {
      method: "POST",
      headers: { cookie: headers.cookie, origin: server.url, accept: "text/html", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ _csrf: session.csrf, photos: JSON.stringify(user.photos), bio: `form ${"y".repeat(480)}`, interests: "" }),
    });
    expect(page.status).toBe(503);
    expect(Number(page.headers.get("retry-after"))).toBeGreaterThan(0);
    const html = await page.text();
    expect(html).toContain("Temporarily unavailable");
    expect(html).toContain("run out of storage space");
    // Reading goes on.
    expect((await fetch(`${server.url}/api/user`, { headers: { cookie: headers.cookie } })).status).toBe(200);
    // The probe says so at once, and for as long as the disk is full.
    expect(await health()).toEqual({ status: 503, body: { ok: false, reason: "the disk is full" } });
    await Bun.sleep(1_000);
    expect(await health()).toEqual({ status: 503, body: { ok: false, reason: "the disk is full" } });

    free();
    expect(await health()).toEqual({ status: 200, body: { ok: true } });
    const again = await write(1000);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { bio: string }).bio).toStartWith("1000 ");
    server.proc.kill("SIGTERM");
    expect(await server.proc.exited).toBe(0);
  }, 60_000);

  test("photos on a disk of their own: when it fills, /health says so until that disk has room again, whatever the database's disk does", async () => {
    const disk = smallDisk("photos", 24 * 1024 * 1024);
    if (!disk) return;
    const dataDir = mkdtempSync(join(tmpdir(), "offline-photos-data-"));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    // uploads/ is the small disk; the database stays on the big one.
    mkdirSync(join(dataDir, "uploads"));
    Bun.spawnSync(["mount", "--bind", disk, join(dataDir, "uploads")]);
    cleanups.push(() => void Bun.spawnSync(["umount", "-l", join(dataDir, "uploads")]));
    const { server, headers } = await serverWithOnePerson(dataDir);
    const photo = await makeJpeg({ width: 1200, height: 900 });
    const upload = async () => {
      const start = await fetch(`${server.url}/api/objects/upload`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: "{}" });
      const { uploadURL } = (await start.json()) as { uploadURL: string };
      return await fetch(new URL(uploadURL, server.url), { method: "PUT", headers: { ...headers, "content-type": "image/jpeg" }, body: photo });
    };
    const health = async () => (await fetch(`${server.url}/health`)).status;
    expect((await upload()).status).toBe(200);

    const free = fill(disk);
    const refused = await upload();
    expect(refused.status).toBe(503);
    expect(await health()).toBe(503);
    // The database's disk has room all along: a profile change is saved, and the probe still says the photos' disk is full.
    const saved = await fetch(`${server.url}/api/user/profile`, { method: "PUT", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ bio: "Still writing" }) });
    expect(saved.status).toBe(200);
    expect(await health()).toBe(503);

    free();
    expect(await health()).toBe(200);
    expect((await upload()).status).toBe(200);
  }, 60_000);

  test("the first start on a full disk stops with one sentence naming DATA_DIR, whatever step runs out of room", async () => {
    // From no room at all to room for some of the migrations: each fails at another step.
    for (const roomKb of [0, 16, 64, 128, 300]) {
      const disk = smallDisk(`first-start-${roomKb}`, 1024 * 1024);
      if (!disk) return;
      const file = join(disk, "filler");
      const fd = openSync(file, "w");
      writeSync(fd, Buffer.alloc(1024 * 1024 - roomKb * 1024, 1));
      closeSync(fd);
      const dataDir = join(disk, "data");
      const proc = Bun.spawn([process.execPath, "src/server.ts"], {
        cwd: root,
        env: { ...process.env, DATA_DIR: dataDir, DEMO_DATA: "false", PORT: "0", HOST: "127.0.0.1" },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [code, stderr] = await Promise.all([proc.exited, readAll(proc.stderr)]);
      // Start-up may warn first that the browser files are not built (a checkout without `npm start`).
      const lines = stderr.trim().split("\n").filter((line) => !line.startsWith("Built CSS/JS not found"));
      expect({ roomKb, code, lines }).toEqual({ roomKb, code: 1, lines: [`The disk holding DATA_DIR (${dataDir}) is full: free some space there and start the server again.`] });
    }
  }, 60_000);
});

describe("a stop", () => {
  test("SIGTERM with idle keep-alive connections, a live socket, a request that never ends and a job under way: the process exits 0 by its deadline", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "offline-stop-"));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const db = openDb(join(dataDir, "offline.db"));
    await migrate(db);
    const user = await insert(db).user(userRow());
    const session = await createSession(db, user.id);
    await closeDb(db);
    // A mail server that takes the connection and never says a word: the email job sent to it waits.
    let mailConnections = 0;
    const silent = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data() {},
        open() {
          mailConnections++;
        },
      },
    });
    cleanups.push(() => silent.stop(true));
    const server = await startServerProcess({ env: { DATA_DIR: dataDir, DEMO_DATA: "false", SMTP_URL: `smtp://127.0.0.1:${silent.port}` } });
    cleanups.push(() => server.proc.kill("SIGKILL"));
    const cookie = `sid=${session.token}`;

    const live = await LiveClient.open(server.url, { cookie });
    expect(live.isOpen).toBe(true);
    const idle = idleConnections(server.port, 5);
    cleanups.push(() => idle.forEach((socket) => socket.destroy()));
    // A body that never arrives in full.
    const endless = connect(server.port, "127.0.0.1");
    endless.on("error", () => {});
    endless.on("connect", () => endless.write(`PUT /api/user/profile HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nCookie: ${cookie}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"bio":"`));
    cleanups.push(() => endless.destroy());
    // An email the job runner starts sending at once, to the silent server.
    const asked = await fetch(`${server.url}/forgot-password`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json", origin: server.url }, body: JSON.stringify({ email: user.email }) });
    expect(asked.status).toBeLessThan(300);
    await until("the email job to reach the mail server", () => mailConnections > 0);

    const started = performance.now();
    server.proc.kill("SIGTERM");
    const exited = await Promise.race([server.proc.exited, Bun.sleep(15_000).then(() => "still running" as const)]);
    expect(exited).toBe(0);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(server.output()).toContain("Stopped");
    expect(await live.closed).toBe(1001);
    // Nothing listens any more.
    expect(await fetch(`${server.url}/health`).then(() => "answered", () => "refused")).toBe("refused");
    expect(freePort()).toBeGreaterThan(0);
  }, 40_000);
});
