/**
 * The live chat under load, a section of `bun run bench` (`--only live` runs it alone).
 *
 * One server process (`src/server.ts`) on a database of `pairs` accepted bookings, each between
 * its own guest and host; every one of them opens `/ws` and subscribes to their conversation
 * (1,000 clients in 500 conversations by default). Then, at a steady rate, a participant sends
 * a message the way the chat island does (`POST /api/messages`: saved, then published) and the
 * bench times its delivery to the other participant's socket, from the moment the post left.
 * It checks that every message arrives, the p99 of that delay (the median of a few rounds), and
 * the server's memory per connection (its resident memory with every client subscribed, less
 * before they connected).
 */
import type { Subprocess } from "bun";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDb, writeTransaction } from "../db/client";
import { activityRow, bookingRow, userRow } from "../src/demo/factories";
import { activities, bookings, users } from "../db/schema";
import { createSession } from "../src/auth/service";
import { openBenchDb, serverDatabase } from "./bench-db";

export interface LiveBenchOptions {
  /** Two-person conversations: twice as many clients. */
  pairs: number;
  /** Messages sent per second, over all conversations. */
  rate: number;
  /** Seconds of measured sending per round (after a warm-up of a tenth of it, at least a second). */
  seconds: number;
  /** Rounds of sending; the median round's figures are checked. */
  rounds: number;
  children: Subprocess[];
  check: (name: string, ok: boolean, detail: string) => void;
}

const P99_BUDGET_MS = 50;
/** Bun's socket and our per-socket state are a few KB; a budget well above catches a leak per connection. */
const MEMORY_BUDGET_BYTES = 64 * 1024;
/** The whole server's resident memory with every client connected and the messages flowing. */
const RESIDENT_BUDGET_BYTES = 150 * 1024 * 1024;

interface Participant {
  id: string;
  cookie: string;
  csrf: string;
  socket?: WebSocket;
}

export async function benchLive(opts: LiveBenchOptions) {
  const { pairs, rate, seconds, rounds, check } = opts;
  const port = freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "offline-bench-live-"));
  const base = `http://127.0.0.1:${port}`;
  try {
    console.log(`\nLive chat: ${pairs * 2} WebSocket clients in ${pairs} conversations, ${rate} messages/s, ${rounds} rounds of ${seconds} s`);
    const conversations = await seed(dataDir, pairs);
    const server = Bun.spawn([process.execPath, "src/server.ts"], {
      cwd: join(import.meta.dir, ".."),
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: base, DEMO_DATA: "false", NODE_ENV: "production", ...serverDatabase(dataDir) },
      stdout: "ignore",
      stderr: "inherit",
    });
    opts.children.push(server);
    await waitFor(`${base}/health`);
    // A few requests first, so the memory before counts a warmed-up server.
    for (let i = 0; i < 20; i++) await fetch(`${base}/health`);
    await Bun.sleep(500);
    const rssBefore = residentBytes(server.pid);

    // Every participant connects and subscribes to their conversation.
    const connectStarted = performance.now();
    const delivered = new Map<string, number>();
    await Promise.all(
      conversations.flatMap(({ bookingId, people }) =>
        people.map(async (person) => {
          const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { cookie: person.cookie, origin: base } } as unknown as string[]);
          person.socket = socket;
          await new Promise<void>((resolve, reject) => {
            socket.onopen = () => socket.send(JSON.stringify({ type: "subscribe_booking", bookingId }));
            socket.onerror = () => reject(new Error("a client could not connect"));
            socket.onmessage = (event) => {
              const frame = JSON.parse(String(event.data)) as { type: string; message?: { content: string; senderId: string } };
              if (frame.type === "subscribed") resolve();
              // The other participant's message: when it arrived.
              else if (frame.type === "new_message" && frame.message!.senderId !== person.id) delivered.set(frame.message!.content, performance.now());
            };
          });
        }),
      ),
    );
    console.log(`  ${pairs * 2} clients connected and subscribed in ${((performance.now() - connectStarted) / 1000).toFixed(1)} s`);
    await Bun.sleep(1000);
    const rssConnected = residentBytes(server.pid);

    /**
     * One round of sending at a steady rate: message k goes out at start + k / rate, the two
     * participants of each conversation taking turns; the first `warmUp` seconds are not measured.
     */
    const warmUp = Math.max(1, seconds / 10);
    async function round(name: string) {
      const sent = new Map<string, number>();
      const failures: number[] = [];
      const total = Math.round(rate * (warmUp + seconds));
      const measuredFrom = Math.round(rate * warmUp);
      const start = performance.now();
      const posts: Promise<void>[] = [];
      for (let k = 0; k < total; k++) {
        const due = start + (k * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 1) await Bun.sleep(wait);
        const conversation = conversations[k % pairs]!;
        const sender = conversation.people[Math.floor(k / pairs) % 2]!;
        const content = `${name} message ${k}`;
        sent.set(content, performance.now());
        posts.push(
          fetch(`${base}/api/messages`, {
            method: "POST",
            headers: { cookie: sender.cookie, "x-csrf-token": sender.csrf, origin: base, "content-type": "application/json", accept: "application/json" },
            body: JSON.stringify({ bookingId: conversation.bookingId, content }),
          }).then(async (res) => {
            await res.arrayBuffer();
            if (res.status !== 201) failures.push(res.status);
          }),
        );
      }
      const achieved = total / ((performance.now() - start) / 1000);
      await Promise.all(posts);
      // Stragglers: wait until every message arrived, or two seconds.
      const arrivedAll = () => [...sent.keys()].every((c) => delivered.has(c));
      for (let i = 0; i < 40 && !arrivedAll(); i++) await Bun.sleep(50);

      const latencies: number[] = [];
      let lost = 0;
      for (let k = measuredFrom; k < total; k++) {
        const content = `${name} message ${k}`;
        const arrived = delivered.get(content);
        if (arrived === undefined) lost++;
        else latencies.push(arrived - sent.get(content)!);
      }
      latencies.sort((a, b) => a - b);
      const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
      const result = { achieved, lost, failures, measured: latencies.length + lost, p50: pct(50), p90: pct(90), p99: pct(99), max: latencies.at(-1) ?? NaN };
      console.log(
        `  ${name}: ${total} messages at ${achieved.toFixed(0)}/s, ${result.measured} measured after a ${warmUp} s warm-up: delivery p50 ${result.p50.toFixed(1)} ms, p90 ${result.p90.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, max ${result.max.toFixed(1)} ms${lost ? `, ${lost} lost` : ""}`,
      );
      return result;
    }

    // Rounds, as the page measurements do: this machine may be shared, and the median round is
    // the figure, each round printed.
    const results = [];
    for (let r = 1; r <= rounds; r++) results.push(await round(`round ${r}`));
    const median = <T,>(xs: T[], by: (x: T) => number) => [...xs].sort((a, b) => by(a) - by(b))[Math.floor(xs.length / 2)]!;
    const typical = median(results, (r) => r.p99);
    const lost = results.reduce((n, r) => n + r.lost, 0);
    const failures = results.flatMap((r) => r.failures);
    const measured = results.reduce((n, r) => n + r.measured, 0);
    const slowest = Math.min(...results.map((r) => r.achieved));
    const perConnection = (rssConnected - rssBefore) / (pairs * 2);
    const rssAfter = residentBytes(server.pid);
    console.log(`  server memory: ${mb(rssBefore)} before the clients, ${mb(rssConnected)} with ${pairs * 2} subscribed, ${mb(rssAfter)} after the sending`);

    check("live: every message delivered", lost === 0 && failures.length === 0, `${measured} measured, ${lost} lost, ${failures.length} posts refused${failures.length ? ` (${[...new Set(failures)].join(", ")})` : ""}`);
    check("live: steady send rate held", slowest >= rate * 0.95, `${slowest.toFixed(0)} messages/s of ${rate} asked in the slowest round`);
    check(
      `live: delivery to the other participant p99 < ${P99_BUDGET_MS} ms`,
      typical.p99 < P99_BUDGET_MS,
      `median round: p50 ${typical.p50.toFixed(1)} ms, p99 ${typical.p99.toFixed(1)} ms at ${rate} messages/s with ${pairs * 2} clients (rounds' p99: ${results.map((r) => r.p99.toFixed(1)).join(", ")} ms)`,
    );
    check(`live: server memory per connection ≤ ${kb(MEMORY_BUDGET_BYTES)}`, perConnection <= MEMORY_BUDGET_BYTES, `${kb(perConnection)} per subscribed client (resident memory, ${pairs * 2} clients)`);
    const rssMost = Math.max(rssConnected, rssAfter);
    check(`live: server memory with ${pairs * 2} clients < ${mb(RESIDENT_BUDGET_BYTES)}`, rssMost < RESIDENT_BUDGET_BYTES, `${mb(rssMost)} resident at most (${mb(rssConnected)} connected, ${mb(rssAfter)} after the sending)`);

    for (const { people } of conversations) for (const p of people) p.socket?.close();
    server.kill();
    await server.exited;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** `pairs` accepted bookings, each between its own guest and host, with a session for each person. */
async function seed(dataDir: string, pairs: number) {
  const db = await openBenchDb(dataDir);
  const now = Date.now();
  const conversations: { bookingId: string; people: [Participant, Participant] }[] = [];
  const rows = { users: [] as ReturnType<typeof userRow>[], activities: [] as ReturnType<typeof activityRow>[], bookings: [] as ReturnType<typeof bookingRow>[] };
  for (let i = 0; i < pairs; i++) {
    const host = userRow({ firstName: "Host" });
    const guest = userRow({ firstName: "Guest" });
    const activity = activityRow(host, {}, now);
    const booking = bookingRow({ ...activity, minDurationMinutes: 60 }, { guestId: guest.id, startsAt: now + 7 * 24 * 3600 * 1000, status: "accepted" });
    rows.users.push(host, guest);
    rows.activities.push(activity);
    rows.bookings.push(booking);
  }
  await writeTransaction(db, async (tx) => {
    for (let i = 0; i < rows.users.length; i += 200) await tx.insert(users).values(rows.users.slice(i, i + 200));
    for (let i = 0; i < pairs; i += 200) await tx.insert(activities).values(rows.activities.slice(i, i + 200));
    for (let i = 0; i < pairs; i += 200) await tx.insert(bookings).values(rows.bookings.slice(i, i + 200));
  });
  for (const booking of rows.bookings) {
    const people = [] as unknown as [Participant, Participant];
    for (const id of [booking.guestId, booking.hostId]) {
      const session = await createSession(db, id, now);
      people.push({ id, cookie: `sid=${session.token}`, csrf: session.csrf });
    }
    conversations.push({ bookingId: booking.id, people });
  }
  await closeDb(db);
  return conversations;
}

function freePort(): number {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = probe.port!;
  void probe.stop(true);
  return port;
}

/** A process's resident memory (Linux). */
function residentBytes(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** Resolves once `url` answers 200 (a server just started), or fails after 10 s. */
/** Waits until `url` answers 200, asking every `everyMs` (fine enough to time a start), for at most 10 s. */
export async function waitFor(url: string, everyMs = 50) {
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await Bun.sleep(everyMs);
  }
  throw new Error(`${url} did not answer`);
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
