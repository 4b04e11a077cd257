import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_GUEST_EMAIL, DEMO_PASSWORD } from "../src/demo/demo-data";
import { LiveClient } from "./live-client";
import { startPostgres, type Postgres } from "./postgres";
import { idleConnections, startServerProcess, type ServerProcess } from "./server-process";

/**
 * The real server on a real PostgreSQL cluster that is restarted, kept down, or stops answering
 * while requests run (docs/decisions/0047). Every answer is the app's: the page or JSON asked for,
 * or 503 with Retry-After while the database cannot be reached; never a 500. A server told to
 * stop while the database hangs still exits, by its deadline. Starts its own cluster, so it runs
 * once whatever TEST_DATABASE says.
 */
let pg: Postgres;
let url: string;
const dataDir = mkdtempSync(join(tmpdir(), "offline-pg-faults-"));
beforeAll(async () => {
  pg = await startPostgres();
  url = await pg.createDatabase("offline_faults");
});
afterAll(async () => {
  pg.thaw();
  await pg.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const start = () => startServerProcess({ env: { DATA_DIR: dataDir, DATABASE_URL: url, ONE_MACHINE: "true", DEMO_DATA: "true" }, timeoutMs: 60_000 });

async function signIn(server: ServerProcess) {
  const res = await fetch(`${server.url}/api/login`, { method: "POST", headers: { "content-type": "application/json", origin: server.url }, body: JSON.stringify({ email: DEMO_GUEST_EMAIL, password: DEMO_PASSWORD }) });
  expect(res.status).toBe(200);
  return { cookie: res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; "), csrf: res.headers.get("x-csrf-token")! };
}

interface Seen {
  what: string;
  status: number;
  retryAfter: string | null;
  type: string;
  body: string;
}

describe("PostgreSQL restarted or kept down while requests run", () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    server.proc.kill("SIGTERM");
    await server.proc.exited;
  });

  test("every answer is 200, or 503 with Retry-After as the app's page or JSON; afterwards all is served and written", async () => {
    const guest = await signIn(server);
    let written = 0;
    const asks: [string, () => Promise<Response>][] = [
      ["page: GET /browse (a visitor)", () => fetch(`${server.url}/browse`, { headers: { accept: "text/html" } })],
      ["JSON: GET /api/activities (signed in)", () => fetch(`${server.url}/api/activities`, { headers: { cookie: guest.cookie } })],
      ["JSON: GET /api/user (signed in)", () => fetch(`${server.url}/api/user`, { headers: { cookie: guest.cookie } })],
      ["page: GET /bookings (signed in)", () => fetch(`${server.url}/bookings`, { headers: { cookie: guest.cookie, accept: "text/html" } })],
      [
        "write: PUT /api/user/profile (signed in)",
        () =>
          fetch(`${server.url}/api/user/profile`, {
            method: "PUT",
            headers: { cookie: guest.cookie, "x-csrf-token": guest.csrf, origin: server.url, "content-type": "application/json" },
            body: JSON.stringify({ bio: `Written ${++written} times.` }),
          }),
      ],
    ];
    const seen: Seen[] = [];
    let running = true;
    const loop = async (offset: number) => {
      for (let i = offset; running; i++) {
        const [what, ask] = asks[i % asks.length]!;
        try {
          const res = await ask();
          seen.push({ what, status: res.status, retryAfter: res.headers.get("retry-after"), type: res.headers.get("content-type") ?? "", body: await res.text() });
        } catch (err) {
          seen.push({ what, status: 0, retryAfter: null, type: "", body: String(err) });
        }
      }
    };
    const loops = [0, 1, 2, 3, 4].map(loop);
    try {
      await Bun.sleep(1_000);
      // Restarted at once, then down for two seconds: waited out.
      for (const downMs of [0, 2_000]) {
        await pg.restart(downMs);
        await Bun.sleep(2_500);
      }
      // Down longer than any request waits: a page and a call asked meanwhile are told so.
      const restarting = pg.restart(9_000);
      try {
        await Bun.sleep(500);
        const [page, call] = await Promise.all([asks[3]![1](), asks[2]![1]()]);
        for (const [what, res] of [[asks[3]![0], page], [asks[2]![0], call]] as const) {
          seen.push({ what, status: res.status, retryAfter: res.headers.get("retry-after"), type: res.headers.get("content-type") ?? "", body: await res.text() });
          expect({ what, status: res.status }).toEqual({ what, status: 503 });
        }
      } finally {
        await restarting;
      }
      await Bun.sleep(2_500);
    } finally {
      running = false;
      await Promise.all(loops);
    }

    const byStatus = Object.groupBy(seen, (s) => String(s.status));
    const counts = Object.fromEntries(Object.entries(byStatus).map(([status, list]) => [status, list!.length]));
    const byAsk = Object.groupBy(seen, (s) => `${s.status} ${s.what}`);
    console.log("answers while PostgreSQL restarted:", Object.fromEntries(Object.entries(byAsk).map(([key, list]) => [key, list!.length])));
    expect(Object.keys(counts).filter((s) => s !== "200" && s !== "503")).toEqual([]);
    // The long outage is answered as one.
    const unavailable = byStatus["503"] ?? [];
    expect(unavailable.length).toBeGreaterThan(0);
    for (const s of unavailable) {
      expect({ what: s.what, retryAfter: Number(s.retryAfter) > 0 }).toEqual({ what: s.what, retryAfter: true });
      if (s.what.startsWith("page:")) {
        expect(s.type).toStartWith("text/html");
        expect(s.body).toContain("<html");
        expect(s.body).toContain("Temporarily unavailable");
      } else {
        expect(s.type).toStartWith("application/json");
        expect(JSON.parse(s.body)).toEqual({ message: "The service is briefly unavailable. Please try again in a moment." });
      }
    }
    expect(seen.filter((s) => s.status === 200).length).toBeGreaterThan(unavailable.length);

    // Once it is back, everything answers and writes again.
    for (const [what, ask] of asks) expect({ what, status: (await ask()).status }).toEqual({ what, status: 200 });
    const user = (await (await fetch(`${server.url}/api/user`, { headers: { cookie: guest.cookie } })).json()) as { bio: string };
    expect(user.bio).toBe(`Written ${written} times.`);
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
  }, 120_000);
});

test("told to stop while PostgreSQL hangs, with keep-alive connections, a live socket and a request under way: exits by its deadline", async () => {
  const server = await start();
  const guest = await signIn(server);
  const live = await LiveClient.open(server.url, { cookie: guest.cookie });
  expect(live.isOpen).toBe(true);
  // Idle keep-alive connections, each after one answered request.
  const idle = idleConnections(server.port, 5);
  pg.freeze();
  try {
    // A request that needs the database, which no longer answers.
    const hanging = fetch(`${server.url}/api/user`, { headers: { cookie: guest.cookie } }).catch(() => null);
    await Bun.sleep(300);
    const asked = performance.now();
    server.proc.kill("SIGTERM");
    const exited = await Promise.race([server.proc.exited, Bun.sleep(15_000).then(() => "still running" as const)]);
    const tookMs = performance.now() - asked;
    if (exited === "still running") server.proc.kill("SIGKILL");
    expect(exited).not.toBe("still running");
    // Docker and most process managers kill at 10 s: the server is gone by then on its own.
    expect(tookMs).toBeLessThan(10_500);
    expect(server.output()).toContain("exiting now");
    await hanging;
    expect(await live.closed).toBeGreaterThan(0);
  } finally {
    pg.thaw();
    for (const socket of idle) socket.destroy();
    server.proc.kill("SIGKILL");
    await server.proc.exited;
  }
}, 60_000);
