import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { RedisClient } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDb, engineOf, migrate, type Db } from "../db/client";
import { engine } from "../db/engine";
import { activityRow, bookingRow, insert, userRow } from "../src/demo/factories";
import { leases } from "../db/schema";
import { createSession } from "../src/auth/service";
import { RateLimiter, RedisCounts } from "../lib/rate-limit";
import { redisLive } from "../src/live/redis";
import { LiveClient } from "./live-client";
import { startRedis } from "./redis";
import { openDatabaseOf, postgresDatabaseUrl, until as waitUntil } from "./helpers";
import { freePort } from "./server-process";

/**
 * Several processes: two real servers (`bun src/server.ts`) sharing one database file and a real
 * `redis-server` (Debian's package). Live updates cross from one process's clients to the
 * other's, ended sessions close sockets in every process, presence is shared, only one process
 * runs the durable jobs, clients catch up after a Redis outage, and with REUSE_PORT two
 * processes listen on one port.
 */
const root = join(import.meta.dir, "..");
const PUBLIC_URL = "http://localhost";

/** Processes and Redis take longer to come and go than one app in this process. */
const until = (what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 15_000) => waitUntil(what, ok, timeoutMs, 50);



/** A `redis-server` of its own on a free port, nothing saved. */
/** One server process; `output` collects what it prints. */
interface Server {
  base: string;
  proc: Subprocess<"ignore", "pipe", "inherit">;
  output: string;
}

async function startServer(dataDir: string, env: Record<string, string>, port = freePort()): Promise<Server> {
  const database = engine === "postgres" ? { DATABASE_URL: await postgresDatabaseUrl(dataDir), ONE_MACHINE: "true" } : {};
  const proc = Bun.spawn([process.execPath, "src/server.ts"], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL, DEMO_DATA: "false", ...database, ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  const server: Server = { base: `http://127.0.0.1:${port}`, proc, output: "" };
  void (async () => {
    const decoder = new TextDecoder();
    const reader = proc.stdout.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      server.output += decoder.decode(value, { stream: true });
    }
  })();
  await until(`the server on ${port}`, async () => {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}: ${server.output}`);
    try {
      return (await fetch(`${server.base}/health`)).ok;
    } catch {
      return false;
    }
  });
  return server;
}

const RUNS_JOBS = /This process \(\d+\) runs the durable jobs/;

let dataDir: string;
let db: Db;
let redis: Awaited<ReturnType<typeof startRedis>>;
let a: Server;
let b: Server;
const sockets: LiveClient[] = [];
const people = {} as Record<"guest" | "host" | "stranger", { id: string; cookie: string; csrf: string }>;
let bookingId: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "offline-live-redis-"));
  // The servers' database: the data directory's SQLite file, or its PostgreSQL database when the suites run there.
  db = await openDatabaseOf(dataDir);
  if (engineOf(db) === "sqlite") await migrate(db);
  const rows = insert(db);
  const now = Date.now();
  for (const [who, firstName] of [["guest", "Sam"], ["host", "Maya"], ["stranger", "Eve"]] as const) {
    const user = await rows.user(userRow({ firstName }));
    const session = await createSession(db, user.id, now);
    people[who] = { id: user.id, cookie: `sid=${session.token}`, csrf: session.csrf };
  }
  const activity = await rows.activity(activityRow({ id: people.host.id }));
  bookingId = (await rows.booking(bookingRow(activity, { guestId: people.guest.id, startsAt: now + 3 * 24 * 3600 * 1000, status: "accepted" }))).id;

  redis = await startRedis();
  [a, b] = await Promise.all([startServer(dataDir, { REDIS_URL: redis.url }), startServer(dataDir, { REDIS_URL: redis.url })]);
});

afterAll(async () => {
  for (const s of sockets) s.close();
  for (const p of [a?.proc, b?.proc, redis?.proc]) p?.kill();
  await Promise.all([a?.proc.exited, b?.proc.exited, redis?.proc.exited]);
  if (db) await closeDb(db);
  rmSync(dataDir, { recursive: true, force: true });
});

async function socket(server: Server, who: keyof typeof people) {
  const s = await LiveClient.open(server.base, { cookie: people[who].cookie, origin: PUBLIC_URL });
  sockets.push(s);
  return s;
}

function post(server: Server, who: keyof typeof people, path: string, json: unknown) {
  return fetch(`${server.base}${path}`, {
    method: "POST",
    headers: { cookie: people[who].cookie, "x-csrf-token": people[who].csrf, origin: PUBLIC_URL, "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(json),
  });
}

describe("two processes, one database, one Redis", () => {
  test("a message sent through process A reaches the clients of process B, and the other way round", async () => {
    const guestOnB = await socket(b, "guest");
    const hostOnA = await socket(a, "host");
    const strangerOnB = await socket(b, "stranger");
    expect(await guestOnB.subscribe(bookingId)).toEqual({ type: "subscribed", bookingId });
    expect(await hostOnA.subscribe(bookingId)).toEqual({ type: "subscribed", bookingId });
    expect((await strangerOnB.subscribe(bookingId)).type).toBe("error");

    const res = await post(a, "host", "/api/messages", { bookingId, content: "Sent through A" });
    expect(res.status).toBe(201);
    const sent = (await res.json()) as { id: string };
    for (const s of [guestOnB, hostOnA]) expect((await s.next((f) => f.type === "new_message")).message).toMatchObject({ id: sent.id, content: "Sent through A", senderId: people.host.id });

    expect((await post(b, "guest", "/api/messages", { bookingId, content: "Answered through B" })).status).toBe(201);
    expect((await hostOnA.next((f) => f.type === "new_message" && f.message.content === "Answered through B")).message.senderId).toBe(people.guest.id);

    expect((await post(b, "guest", `/api/messages/${bookingId}/mark-read`, {})).status).toBe(200);
    expect((await hostOnA.next((f) => f.type === "messages_read")).readerId).toBe(people.guest.id);

    await Bun.sleep(100);
    expect(strangerOnB.of("new_message")).toEqual([]);
  });

  test("signing out through one process closes that session's sockets in the other", async () => {
    const session = await createSession(db, people.guest.id, Date.now());
    const onB = await LiveClient.open(b.base, { cookie: `sid=${session.token}`, origin: PUBLIC_URL });
    sockets.push(onB);
    expect(onB.isOpen).toBe(true);
    const res = await fetch(`${a.base}/api/auth/logout`, {
      method: "POST",
      headers: { cookie: `sid=${session.token}`, "x-csrf-token": session.csrf, origin: PUBLIC_URL, accept: "application/json" },
    });
    expect(res.status).toBe(200);
    expect(await onB.closed).toBe(4401);
  });

  test("only one process runs the durable jobs; the other takes over when it stops", async () => {
    await until("a job runner", () => RUNS_JOBS.test(a.output) || RUNS_JOBS.test(b.output));
    await Bun.sleep(200);
    const runners = [a, b].filter((s) => RUNS_JOBS.test(s.output));
    expect(runners).toHaveLength(1);
    const [holder, other] = runners[0] === a ? [a, b] : [b, a];
    expect(await db.select().from(leases)).toHaveLength(1);

    // The holder stops (and hands the lease over): the other process takes the jobs on.
    holder.proc.kill("SIGTERM");
    await holder.proc.exited;
    await until("the other process to run the jobs", () => RUNS_JOBS.test(other.output));
    // The stopped process is started again for the tests that follow.
    const restarted = await startServer(dataDir, { REDIS_URL: redis.url });
    if (holder === a) a = restarted;
    else b = restarted;
    await Bun.sleep(200);
    expect(RUNS_JOBS.test(restarted.output)).toBe(false);
    // The other process looks for the lease on its next pass, up to one job interval (5 s) later.
  }, 30_000);

  test("the limits count in Redis: failed sign-ins through both processes lock the pair on either", async () => {
    const attempt = (server: Server) =>
      fetch(`${server.base}/api/login`, {
        method: "POST",
        headers: { origin: PUBLIC_URL, "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ email: "nobody@offline.test", password: "not-the-password" }),
      });
    // The limit is five failures per email and address: counted apart, each process would allow five.
    for (const server of [a, b, a, b, a]) expect((await attempt(server)).status).toBe(401);
    expect((await attempt(b)).status).toBe(429);
    expect((await attempt(a)).status).toBe(429);
    // Redis holds only hashes of the keys, never the email or the address.
    const keys = (await new RedisClient(redis.url).send("KEYS", ["offline:limit:*"])) as string[];
    expect(keys.length).toBeGreaterThanOrEqual(3);
    expect(keys.join(" ")).not.toContain("nobody");
    expect(keys.join(" ")).not.toContain("127.0.0.1");
  });

  test("a Redis that stops answering holds no request up: the limits count in memory meanwhile", async () => {
    const commands = new RedisClient(redis.url, { enableOfflineQueue: false });
    await commands.connect();
    const limiter = new RateLimiter(1, 60_000, new RedisCounts(commands, "stalled", "secret"));
    redis.proc.kill("SIGSTOP");
    try {
      const started = performance.now();
      expect(await limiter.take("k")).toBe(0);
      // Counted in this process's memory: the limit still holds.
      expect(await limiter.take("k")).toBeGreaterThan(0);
      expect(await limiter.retryAfter("k")).toBeGreaterThan(0);
      // Three calls, each given up after a quarter of a second.
      expect(performance.now() - started).toBeLessThan(2_000);
    } finally {
      redis.proc.kill("SIGCONT");
      commands.close();
    }
  });

  test("after a Redis outage, clients are told to reconnect and catch up, and frames flow again", async () => {
    const guestOnB = await socket(b, "guest");
    await guestOnB.subscribe(bookingId);
    redis.proc.kill();
    await redis.proc.exited;
    redis = await startRedis(redis.port);
    // Frames sent while Redis was away are lost: the process closes its sockets so they fetch them.
    expect(await guestOnB.closed).toBe(1012);

    const again = await socket(b, "guest");
    await again.subscribe(bookingId);
    await until("process A to publish again", async () => (await post(a, "host", "/api/messages", { bookingId, content: "After the outage" })).status === 201);
    expect((await again.next((f) => f.type === "new_message" && f.message.content === "After the outage", 10_000)).message.senderId).toBe(people.host.id);
    // Process A resumes too, in its own time, closing its sockets as it does: the tests that
    // follow open theirs only once a socket of A hears a message sent through B.
    await until("process A to hear again", async () => {
      const onA = await socket(a, "host");
      try {
        await onA.subscribe(bookingId);
        const content = `Through B, after the outage ${crypto.randomUUID()}`;
        if ((await post(b, "guest", "/api/messages", { bookingId, content })).status !== 201) return false;
        await onA.next((f) => f.type === "new_message" && f.message.content === content, 1_000);
        return true;
      } catch {
        return false;
      } finally {
        onA.close();
      }
    }, 20_000);
  });
});

describe("presence across processes", () => {
  test("a conversation viewed through one process is known to the other; the view ends when it is left", async () => {
    const one = redisLive(redis.url);
    const two = redisLive(redis.url);
    try {
      await Promise.all([one.broadcaster.ready(), two.broadcaster.ready()]);
      one.presence.enter("u1", "b1");
      one.presence.enter("u1", "b1");
      await until("the view to be shared", () => two.presence.isViewing("u1", "b1"));
      expect(await two.presence.isViewing("u1", "b2")).toBe(false);
      one.presence.leave("u1", "b1");
      expect(await two.presence.isViewing("u1", "b1")).toBe(true);
      one.presence.leave("u1", "b1");
      await until("the view to end", async () => !(await two.presence.isViewing("u1", "b1")));
    } finally {
      one.broadcaster.close();
      two.broadcaster.close();
    }
  });
});

describe("REUSE_PORT", () => {
  test("two processes listen on one port with it; without it the second refuses to start", async () => {
    const dir = mkdtempSync(join(tmpdir(), "offline-reuse-"));
    const port = freePort();
    const started: Server[] = [];
    try {
      started.push(await startServer(dir, { REUSE_PORT: "true" }, port));
      started.push(await startServer(dir, { REUSE_PORT: "true" }, port));
      expect(started.every((s) => s.proc.exitCode === null)).toBe(true);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).ok).toBe(true);

      const refused = Bun.spawn([process.execPath, "src/server.ts"], {
        cwd: root,
        env: { ...process.env, DATA_DIR: dir, PORT: String(port), HOST: "127.0.0.1", DEMO_DATA: "false", REUSE_PORT: "false" },
        stdout: "ignore",
        stderr: "pipe",
      });
      expect(await refused.exited).not.toBe(0);
    } finally {
      for (const s of started) s.proc.kill();
      await Promise.all(started.map((s) => s.proc.exited));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("rate limits when Redis is away", () => {
  test("a process counts in its own memory, so the limit still holds there and nobody is shut out", async () => {
    const away = new RedisClient(`redis://127.0.0.1:${freePort()}`, { enableOfflineQueue: false, autoReconnect: false, connectionTimeout: 200 });
    const limiter = new RateLimiter(2, 60_000, new RedisCounts(away, "test", "secret"));
    const now = Date.now();
    expect(await limiter.take("k", now)).toBe(0);
    expect(await limiter.take("k", now)).toBe(0);
    expect(await limiter.count("k", now)).toBe(2);
    expect(await limiter.take("k", now)).toBe(60_000);
    expect(await limiter.retryAfter("k", now)).toBe(60_000);
    await limiter.refund("k", now);
    expect(await limiter.count("k", now)).toBe(1);
    await limiter.reset("k");
    expect(await limiter.retryAfter("k", now)).toBe(0);
    away.close();
  });
});
