import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { eq } from "drizzle-orm";
import { jobs } from "../db/schema";
import { makeTestApp, outboxEmails, settled, until, type Client } from "./helpers";
import { startRedis } from "./redis";

/**
 * Requests sent all at once (docs/decisions/0044): a limit counts each attempt before the work it
 * limits, in one step, so a burst gets no more through than the same requests one by one. Run
 * with the limits in one process's memory, and in a real `redis-server` shared by two apps on one
 * database, the burst split between them as between two processes.
 */

const BURST = 40;
/** Emails an hour to one address, from every flow that emails an address someone typed. */
const EMAILS_PER_ADDRESS = 5;

type App = Awaited<ReturnType<typeof makeTestApp>>;

for (const counting of ["memory", "redis"] as const) {
  describe(`a burst of requests, limits counted in ${counting}`, () => {
    let redis: Awaited<ReturnType<typeof startRedis>> | undefined;
    let apps: App[] = [];
    let n = 0;

    beforeAll(async () => {
      const env: Record<string, string> = { TRUST_PROXY: "true" };
      if (counting === "redis") {
        redis = await startRedis();
        env.REDIS_URL = redis.url;
      }
      const first = await makeTestApp({ env });
      // With Redis, a second app on the same database and the same Redis: another process.
      apps = counting === "redis" ? [first, await makeTestApp({ env, dataDir: first.dataDir })] : [first];
      await Promise.all(apps.map((a) => a.deps.live.ready()));
    });
    afterAll(async () => {
      await Promise.all(apps.map(emailsSent));
      for (const a of apps) {
        a.deps.live.close();
        a.cleanup();
      }
      redis?.proc.kill();
      await redis?.proc.exited;
    });

    const fresh = (name: string) => `${name}-${++n}-${counting}@example.com`;
    /** Request `i` of a burst goes to one app or the other (with Redis), as a new browser. */
    const caller = (i: number): Client => apps[i % apps.length]!.client();
    const from = (ip: string) => ({ "x-forwarded-for": ip });
    const nextIp = () => `198.51.${Math.floor(++n / 250) % 250}.${n % 250}`;

    /** Waits until every email the apps queued has been written to the outbox. */
    async function emailsSent(a: App) {
      await settled(a.deps);
      await until("the queued emails to be sent", async () => (await a.db.select({ id: jobs.id }).from(jobs).where(eq(jobs.kind, "email.send"))).length === 0);
    }
    async function emailsTo(address: string, kind?: string) {
      await Promise.all(apps.map(emailsSent));
      return (await outboxEmails(apps[0]!.dataDir, address, kind)).length;
    }
    const statuses = (answers: Response[]) => {
      const count: Record<number, number> = {};
      for (const a of answers) count[a.status] = (count[a.status] ?? 0) + 1;
      return count;
    };

    test(`"forgot password" ${BURST} times at once for one account: three emails, the same answer to all`, async () => {
      const { email } = await caller(0).signUp(fresh("forgetful"));
      const answers = await Promise.all(
        Array.from({ length: BURST }, (_, i) => caller(i).postJson("/forgot-password", { email }, from(nextIp()))),
      );
      expect(statuses(answers)).toEqual({ 200: BURST });
      const messages = new Set(await Promise.all(answers.map(async (a) => ((await a.json()) as { message: string }).message)));
      expect(messages.size).toBe(1);
      expect(await emailsTo(email, "password-reset")).toBe(3);
    });

    test(`${BURST} wrong passwords at once for one account from one address: five are checked, the rest get 429`, async () => {
      const { email, password } = await caller(0).signUp(fresh("guessed"));
      const ip = nextIp();
      // Each password checked is a hash computed: counted as the apps check them (the apps share
      // the suites' hasher; its check is put back afterwards).
      let checks = 0;
      const passwords = apps[0]!.deps.passwords;
      const verify = passwords.verify;
      passwords.verify = (given, hash) => (checks++, verify(given, hash));
      try {
        const answers = await Promise.all(
          Array.from({ length: BURST }, (_, i) => caller(i).postJson("/api/login", { email, password: `wrong-${i}` }, from(ip))),
        );
        expect(statuses(answers)).toEqual({ 401: 5, 429: BURST - 5 });
        expect(checks).toBe(5);
        const refused = answers.find((a) => a.status === 429)!;
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
        // Locked for that address only: the owner signs in from another one.
        expect((await caller(0).postJson("/api/login", { email, password }, from(nextIp()))).status).toBe(200);
      } finally {
        passwords.verify = verify;
      }
    });

    test("25 sign-ups at once from 25 addresses naming one stranger's address: a few emails reach it", async () => {
      const victim = fresh("stranger");
      const answers = await Promise.all(
        Array.from({ length: 25 }, (_, i) => caller(i).postJson("/api/register", { email: victim, password: `secret-${i}-123` }, from(nextIp()))),
      );
      // One account is made; the other sign-ups are told the address is taken, or, while the
      // address's emails are all spoken for by sign-ups under way, that it was sent enough.
      const count = statuses(answers);
      expect(count[201]).toBe(1);
      expect(count[201]! + (count[409] ?? 0) + (count[429] ?? 0)).toBe(25);
      const refused = answers.find((a) => a.status === 429);
      if (refused) expect(((await refused.json()) as { message: string }).message).toContain("We already sent several emails to this address.");
      const received = await emailsTo(victim);
      expect(received).toBeLessThanOrEqual(EMAILS_PER_ADDRESS);
      expect(await emailsTo(victim, "verify")).toBe(1);
      // "Someone tried to sign up with your address": once an hour.
      expect(await emailsTo(victim, "signup-attempt")).toBe(1);
    });

    test(`four accounts moving to one stranger's address, ${BURST} changes at once: ${EMAILS_PER_ADDRESS} emails reach it`, async () => {
      const stranger = fresh("inbox");
      const movers = await Promise.all(
        [0, 1, 2, 3].map(async (i) => {
          const c = caller(i);
          const { password } = await c.signUp(fresh("mover"));
          return { c, password };
        }),
      );
      const answers = await Promise.all(
        Array.from({ length: BURST }, (_, i) => {
          const { c, password } = movers[i % movers.length]!;
          return c.putJson("/api/user/email", { email: stranger, currentPassword: password });
        }),
      );
      const count = statuses(answers);
      expect(count[202]).toBe(EMAILS_PER_ADDRESS);
      expect(count[202]! + count[429]!).toBe(BURST);
      expect(await emailsTo(stranger, "email-change")).toBe(EMAILS_PER_ADDRESS);
    });

    test(`one address, every flow: ${EMAILS_PER_ADDRESS} emails an hour whoever asks, then a clear refusal that changes nothing`, async () => {
      const stranger = fresh("popular");
      const a = caller(0);
      const b = caller(1);
      const { password: aPassword } = await a.signUp(fresh("first-mover"));
      const { password: bPassword } = await b.signUp(fresh("second-mover"));
      for (let i = 0; i < 3; i++) expect((await a.putJson("/api/user/email", { email: stranger, currentPassword: aPassword })).status).toBe(202);
      for (let i = 0; i < 2; i++) expect((await b.putJson("/api/user/email", { email: stranger, currentPassword: bPassword })).status).toBe(202);
      const TOO_MANY = "We already sent several emails to this address.";

      const change = await b.putJson("/api/user/email", { email: stranger, currentPassword: bPassword });
      expect(change.status).toBe(429);
      expect(Number(change.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(((await change.json()) as { message: string }).message).toContain(TOO_MANY);
      const resend = await b.postJson("/api/auth/verify-email/resend", {});
      expect(resend.status).toBe(429);
      expect(((await resend.json()) as { message: string }).message).toContain(TOO_MANY);

      // A sign-up with the address is refused and makes nothing.
      const signUp = await caller(2).postJson("/api/register", { email: stranger, password: "secret123" }, from(nextIp()));
      expect(signUp.status).toBe(429);
      expect(((await signUp.json()) as { message: string }).message).toContain(TOO_MANY);
      expect((await caller(2).postJson("/api/login", { email: stranger, password: "secret123" }, from(nextIp()))).status).toBe(401);

      // "Forgot password" answers as ever, and sends nothing more.
      const forgot = await caller(3).postJson("/forgot-password", { email: stranger }, from(nextIp()));
      expect(forgot.status).toBe(200);
      expect(((await forgot.json()) as { message: string }).message).toContain(`If an account exists for ${stranger}`);
      expect(await emailsTo(stranger)).toBe(EMAILS_PER_ADDRESS);
    });

    test("a right password is no failure: it gives its check back and clears the pair's failures", async () => {
      const { email, password } = await caller(0).signUp(fresh("forgetful-typist"));
      const ip = nextIp();
      const signIn = (i: number, pw: string, at = ip) => caller(i).postJson("/api/login", { email, password: pw }, from(at));
      for (let i = 0; i < 4; i++) expect((await signIn(i, "not-it")).status).toBe(401);
      expect((await signIn(0, password)).status).toBe(200);
      // The four failures are forgotten: five more are allowed from this address, then the lock.
      for (let i = 0; i < 5; i++) expect((await signIn(i, "not-it")).status).toBe(401);
      expect((await signIn(1, password)).status).toBe(429);

      // An address's limit (30 failures, whatever the email) counts failures only.
      const office = nextIp();
      for (let i = 0; i < 29; i++) expect((await caller(i).postJson("/api/login", { email: fresh("nobody"), password: "not-it" }, from(office))).status).toBe(401);
      for (let i = 0; i < 5; i++) expect((await signIn(i, password, office)).status).toBe(200);
      expect((await signIn(0, "not-it", office)).status).toBe(401);
      expect((await signIn(1, password, office)).status).toBe(429);
    });

    if (counting === "redis") {
      test("the counts are in Redis, under hashes of the keys", async () => {
        const client = new RedisClient(redis!.url);
        try {
          const keys = (await client.send("KEYS", ["offline:limit:*"])) as string[];
          expect(keys.length).toBeGreaterThan(0);
          expect(keys.join(" ")).not.toContain("example.com");
        } finally {
          client.close();
        }
      });
    }
  });
}
