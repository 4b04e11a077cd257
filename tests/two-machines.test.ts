/**
 * Several machines (docs/decisions/0038): two app servers, each with its own data folder, share
 * one PostgreSQL, one Redis and one S3-compatible bucket, as the README's "Several machines"
 * sets them up. What one machine does, the other sees and continues; the durable jobs run once;
 * killing one in the middle of its requests loses no answered write.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_GUEST_EMAIL, DEMO_HOST_EMAIL, DEMO_PASSWORD } from "../src/demo/demo-data";
import type { Deps } from "../src/deps";
import { startFakeS3 } from "./fakes/s3";
import { Client, ORIGIN, outboxEmails, requestWithTestCard, until } from "./helpers";
import { LiveClient } from "./live-client";
import { startPostgres, type Postgres } from "./postgres";
import { startRedis } from "./redis";
import { startServerProcess, type ServerProcess } from "./server-process";

const DAY = 24 * 60 * 60 * 1000;
let postgres: Postgres;
let redis: Awaited<ReturnType<typeof startRedis>>;
const s3 = startFakeS3("photos");
const folders = [mkdtempSync(join(tmpdir(), "offline-machine-a-")), mkdtempSync(join(tmpdir(), "offline-machine-b-"))];
let a: ServerProcess;
let b: ServerProcess;
const sockets: LiveClient[] = [];

/** A person's browser talking to one machine (the load balancer sent it there). */
const browserOn = (server: ServerProcess) =>
  new Client(
    {
      handle: (request: Request) => {
        const url = new URL(request.url);
        return fetch(`${server.url}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body: request.body, redirect: "manual" });
      },
    },
    undefined as unknown as Deps,
  );

async function signedIn(server: ServerProcess, email: string) {
  const browser = browserOn(server);
  const res = await browser.postJson("/api/login", { email, password: DEMO_PASSWORD });
  expect(res.status).toBe(200);
  return { browser, user: (await res.json()) as { id: string } };
}

/** A booking's status as the person's list shows it. */
const statusOn = async (browser: Client, id: string) => ((await (await browser.get("/api/bookings")).json()) as { id: string; status: string }[]).find((x) => x.id === id)?.status;

const cookieOf = (browser: Client) => [...browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ");

beforeAll(async () => {
  postgres = await startPostgres();
  redis = await startRedis();
  const shared = {
    DATABASE_URL: await postgres.createDatabase("offline"),
    REDIS_URL: redis.url,
    S3_BUCKET: "photos",
    S3_ENDPOINT: s3.endpoint,
    S3_REGION: "us-east-1",
    S3_ACCESS_KEY_ID: "key",
    S3_SECRET_ACCESS_KEY: "secret",
    PUBLIC_URL: ORIGIN,
  };
  // The first machine makes the database (migrations, demo data) and the secrets; the second
  // gets the same secrets file, as the README says, and finds the database made.
  a = await startServerProcess({ env: { ...shared, DATA_DIR: folders[0]!, DEMO_DATA: "true" } });
  copyFileSync(join(folders[0]!, "secrets.json"), join(folders[1]!, "secrets.json"));
  b = await startServerProcess({ env: { ...shared, DATA_DIR: folders[1]!, DEMO_DATA: "true" } });
});

afterAll(async () => {
  for (const s of sockets) s.close();
  for (const server of [a, b]) server?.proc.kill("SIGKILL");
  await Promise.all([a?.proc.exited, b?.proc.exited]);
  redis?.proc.kill();
  await postgres?.stop();
  void s3.stop();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe("two machines, one PostgreSQL, Redis and bucket", () => {
  let bookingId: string;

  test("a booking requested through A is accepted through B, and its chat crosses between them", async () => {
    const guest = await signedIn(a, DEMO_GUEST_EMAIL);
    const host = await signedIn(b, DEMO_HOST_EMAIL);
    const listed = (await (await guest.browser.get("/api/activities?city=New%20York")).json()) as { id: string; hostId: string; hourlyRate: string; duration: string; format: string }[];
    const activity = listed.find((x) => x.hostId === host.user.id && x.format === "private")!;
    const hours = Number(activity.duration);
    const total = (Number(activity.hourlyRate) * hours * 1.1).toFixed(2);
    const date = new Date(Date.now() + 20 * DAY).toISOString().slice(0, 10);
    const { res } = await requestWithTestCard(guest.browser, { activityId: activity.id, date, hours, total });
    expect(res.status).toBe(201);
    bookingId = ((await res.json()) as { id: string }).id;

    // The request made through A is in B's lists at once, and B accepts it.
    expect(await statusOn(host.browser, bookingId)).toBe("pending");
    const accepted = await host.browser.postJson(`/api/bookings/${bookingId}/accept`, {});
    expect(accepted.status).toBe(200);
    expect(await statusOn(guest.browser, bookingId)).toBe("accepted");

    // The guest reads the chat on A, the host writes on B: Redis carries it across.
    const onA = await LiveClient.open(a.url, { cookie: cookieOf(guest.browser), origin: ORIGIN });
    sockets.push(onA);
    expect(await onA.subscribe(bookingId)).toEqual({ type: "subscribed", bookingId });
    const sent = await host.browser.postJson("/api/messages", { bookingId, content: "See you at the courts" });
    expect(sent.status).toBe(201);
    expect((await onA.next((f) => f.type === "new_message" && f.message.content === "See you at the courts", 5_000)).message.senderId).toBe(host.user.id);

    // Each email of the accept went out once, from whichever machine ran its job.
    const confirmations = async () => (await Promise.all(folders.map((f) => outboxEmails(f, DEMO_GUEST_EMAIL)))).flat().filter((e) => e.subject.startsWith("Booking confirmed"));
    await until("the confirmation email", async () => (await confirmations()).length > 0);
    await Bun.sleep(500);
    const acceptedEmails = await confirmations();
    expect(acceptedEmails).toHaveLength(1);
  });

  test("a change made through A is on B's next page", async () => {
    const host = await signedIn(a, DEMO_HOST_EMAIL);
    const guestOnB = await signedIn(b, DEMO_GUEST_EMAIL);
    const listed = (await (await guestOnB.browser.get("/api/activities?city=New%20York")).json()) as { id: string; hostId: string; title: string; format: string }[];
    const activity = listed.find((x) => x.hostId === host.user.id && x.format === "private")!;
    // B keeps the activity page (and browse) until the database changes: it is kept now.
    expect(await (await guestOnB.browser.get(`/activity/${activity.id}`)).text()).toContain(activity.title);
    const title = `Evening rally ${crypto.randomUUID().slice(0, 6)}`;
    const edited = await host.browser.request(`/api/activities/${activity.id}`, { method: "PATCH", json: { title } });
    expect(edited.status).toBe(200);
    expect(await (await guestOnB.browser.get(`/activity/${activity.id}`)).text()).toContain(title);
    expect(((await (await guestOnB.browser.get("/api/activities?city=New%20York")).json()) as { title: string }[]).map((x) => x.title)).toContain(title);
  });

  test("one machine runs the durable jobs; the other only waits for the lease", async () => {
    const holders = [a, b].filter((s) => /This process \(\d+\) runs the durable jobs/.test(s.output()));
    expect(holders).toHaveLength(1);
  });

  test("killing A in the middle of its requests loses no write it answered; B goes on", async () => {
    const guest = await signedIn(a, DEMO_GUEST_EMAIL);
    const written: string[] = [];
    let killed = false;
    // Four at a time, as a busy conversation would, until the machine is gone.
    const lanes = Array.from({ length: 4 }, async (_, lane) => {
      for (let i = lane; i < 24 && !killed; i += 4) {
        const content = `Message ${i}`;
        try {
          const res = await guest.browser.postJson("/api/messages", { bookingId, content });
          if (res.status === 201) written.push(content);
        } catch {
          // Cut off with the machine: no answer, so nothing was promised.
        }
      }
    });
    await until("messages answered by A", () => written.length >= 8, 10_000);
    a.proc.kill("SIGKILL");
    killed = true;
    await Promise.all(lanes);
    await a.proc.exited;
    expect(written.length).toBeGreaterThanOrEqual(8);

    const guestOnB = await signedIn(b, DEMO_GUEST_EMAIL);
    const messages = (await (await guestOnB.browser.get(`/api/messages?bookingId=${bookingId}`)).json()) as { content: string }[];
    const contents = messages.map((m) => m.content);
    for (const content of written) expect(contents.filter((c) => c === content)).toHaveLength(1);
    expect(new Set(contents).size).toBe(contents.length);
    const after = await guestOnB.browser.postJson("/api/messages", { bookingId, content: "Still here, through B" });
    expect(after.status).toBe(201);
  });
});
