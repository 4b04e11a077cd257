import { one, writeTransaction } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { readFileSync } from "node:fs";
import net from "node:net";
import { pushSubscriptions } from "../db/schema";
import {
  addressKind,
  allowsLoopbackPushServices,
  checkDestination,
  pinnedLookup,
  resolveDestination,
  systemResolver,
  type ResolvedAddress,
  type Resolver,
} from "../src/notifications/destinations";
import { DomainError } from "../lib/domain-error";
import { TEST_DEADLINE_MS } from "../src/notifications/notices";
import { deliver } from "../src/notifications/push";
import { checkEndpoint, subscribe } from "../src/notifications/service";
import { FakePushService } from "./fakes/push-service";
import { makeTestApp } from "./helpers";

/**
 * Push services are addresses chosen by whoever subscribes, and the server connects to them
 * (docs/decisions/0032). Each attack a security probe used to turn "Send test notification" into
 * a port scanner of the server's own machine and network is reproduced here and must be refused
 * before any connection is made; a name that changes its answer between the check and the
 * connection (DNS rebinding) must not lead the connection elsewhere; and the answer of the test
 * notification must not tell an open port from a closed one.
 */

const body = async (res: Response) => (await res.json()) as Record<string, any>;

/** A TCP listener that counts connections and keeps what they sent; without `onData` it never answers (a silent port). */
async function listener(host: string, port = 0, onData?: (socket: net.Socket, data: Buffer) => void) {
  const seen: Buffer[] = [];
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on("error", () => {});
    socket.on("close", () => sockets.delete(socket));
    socket.on("data", (data: Buffer) => {
      seen.push(data);
      onData?.(socket, data);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    get connections() {
      return connections;
    },
    received: () => Buffer.concat(seen),
    stop: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** A port on 127.0.0.1 nothing listens on (bound, then closed). */
async function closedPort() {
  const l = await listener("127.0.0.1");
  l.stop();
  return l.port;
}

/** A resolver answering from a script, one answer per call (the last one repeats), counting calls. */
function scripted(...answers: (readonly ResolvedAddress[] | Error)[]) {
  const calls: string[] = [];
  const resolve: Resolver = async (hostname) => {
    calls.push(hostname);
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { resolve, calls };
}
const v4 = (address: string) => ({ address, family: 4 });
const v6 = (address: string) => ({ address, family: 6 });

/** The names /etc/hosts gives to this machine (loopback addresses). */
function loopbackNamesInHostsFile(): string[] {
  let text = "";
  try {
    text = readFileSync("/etc/hosts", "utf8");
  } catch {
    return [];
  }
  const names = new Set<string>();
  for (const line of text.split("\n")) {
    const [address, ...aliases] = line.replace(/#.*/, "").trim().split(/\s+/);
    if (address && (address.startsWith("127.") || address === "::1")) for (const name of aliases) names.add(name.toLowerCase());
  }
  return [...names];
}

describe("addresses that are not the internet", () => {
  const refused: [string, RegExp][] = [
    ["127.0.0.1", /^loopback$/],
    ["127.255.255.254", /^loopback$/],
    ["0.0.0.0", /unspecified/],
    ["0.1.2.3", /unspecified/],
    ["10.0.0.1", /^private$/],
    ["172.16.0.1", /^private$/],
    ["172.31.255.255", /^private$/],
    ["192.168.1.1", /^private$/],
    ["100.64.0.1", /CGNAT/],
    ["100.127.255.255", /CGNAT/],
    ["169.254.169.254", /link-local/],
    ["192.0.0.8", /IETF/],
    ["192.0.2.1", /documentation/],
    ["198.51.100.7", /documentation/],
    ["203.0.113.9", /documentation/],
    ["198.18.0.1", /benchmarking/],
    ["192.88.99.1", /6to4/],
    ["224.0.0.1", /multicast/],
    ["239.255.255.250", /multicast/],
    ["240.0.0.1", /reserved/],
    ["255.255.255.255", /broadcast/],
    ["::", /unspecified/],
    ["::1", /^loopback$/],
    ["0:0:0:0:0:0:0:1", /^loopback$/],
    ["::ffff:127.0.0.1", /IPv4-mapped loopback/],
    ["::ffff:7f00:1", /IPv4-mapped loopback/],
    ["::ffff:10.0.0.1", /IPv4-mapped private/],
    ["::ffff:a9fe:a9fe", /IPv4-mapped link-local/],
    ["::127.0.0.1", /IPv4-compatible/],
    ["::7f00:1", /IPv4-compatible/],
    ["64:ff9b::7f00:1", /NAT64 of loopback/],
    ["64:ff9b::10.1.2.3", /NAT64 of private/],
    ["64:ff9b:1::1", /NAT64 local-use/],
    ["fd00::1", /unique-local/],
    ["fc00::1", /unique-local/],
    ["fe80::1", /link-local/],
    ["fec0::1", /site-local/],
    ["ff02::1", /multicast/],
    ["2001:db8::1", /documentation/],
    ["3fff::1", /documentation/],
    ["2001::1", /IETF/],
    ["2002:7f00:1::1", /6to4/],
    ["100::1", /discard/],
    ["4000::1", /reserved/],
    ["fe80::1%eth0", /not an IP address/],
    ["push.example.com", /not an IP address/],
  ];
  test.each(refused)("%s is refused (%p)", (address, kind) => {
    expect(addressKind(address)).toMatch(kind);
  });

  test("addresses on the internet are taken, IPv4-mapped and NAT64 forms of them too", () => {
    for (const address of ["8.8.8.8", "1.1.1.1", "142.250.74.110", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "2a00:1450:4007:80e::200a", "::ffff:8.8.8.8", "64:ff9b::808:808"]) {
      expect([address, addressKind(address)]).toEqual([address, null]);
    }
  });
});

describe("when a push service on this machine is allowed", () => {
  test("only on a plain-http PUBLIC_URL on localhost or a loopback address; never with https", () => {
    const cases: [string, boolean][] = [
      ["http://localhost", true],
      ["http://localhost:3000", true],
      ["http://127.0.0.1:3000", true],
      ["http://[::1]:3000", true],
      ["http://dev.localhost:3000", true],
      ["https://localhost", false],
      ["https://127.0.0.1:3000", false],
      ["https://offline.example", false],
      ["http://offline.example", false],
      ["http://192.168.1.5:3000", false],
      ["http://10.0.0.1", false],
      ["http://localhost.offline.example", false],
    ];
    for (const [publicUrl, allowed] of cases) expect([publicUrl, allowsLoopbackPushServices(publicUrl)]).toEqual([publicUrl, allowed]);
  });
});

describe("the address as written", () => {
  test("IP addresses in any notation, localhost in any form, single labels and special-use names are refused on an https server", () => {
    for (const endpoint of [
      "https://localhost.:8443/x",
      "https://probe.localhost:8443/x",
      "https://LOCALHOST/x",
      "https://127.0.0.1:8443/x",
      "https://[::1]:8443/x",
      "https://[::ffff:127.0.0.1]:8443/x",
      "https://10.0.0.1/x",
      "https://169.254.169.254/x",
      "https://[fd00::1]/x",
      "https://2130706433/x",
      "https://0x7f.1/x",
      "https://0177.0.0.1/x",
      "https://127.1/x",
      "https://8.8.8.8/x",
      "https://vm/x",
      "https://push.example.com./x",
      "https://metadata.google.internal/x",
      "https://printer.local/x",
      "https://router.home.arpa/x",
      "http://push.example.com/x",
    ]) {
      expect(() => checkEndpoint(endpoint, false), endpoint).toThrow();
    }
    expect(checkEndpoint("https://fcm.googleapis.com/fcm/send/abc", false)).toBe("https://fcm.googleapis.com/fcm/send/abc");
  });
});

describe("what a name resolves to", () => {
  test("a name resolving to any address off the internet is refused, whatever its other addresses", async () => {
    for (const answer of [
      [v4("127.0.0.1")],
      [v4("8.8.8.8"), v4("10.0.0.1")],
      [v6("2606:4700:4700::1111"), v6("::1")],
      [v6("::ffff:127.0.0.1")],
      [v6("::ffff:169.254.169.254")],
      [v4("100.64.1.1")],
      [v6("fd12:3456::1")],
      [v4("0.0.0.0")],
      [],
    ]) {
      const { resolve } = scripted(answer);
      const refused = await checkDestination("https://push.attacker.example.com/x", false, resolve).catch((e) => e);
      expect([answer, refused instanceof DomainError]).toEqual([answer, true]);
    }
    const { resolve } = scripted([v4("8.8.8.8"), v6("2606:4700:4700::1111")]);
    const ok = await checkDestination("https://push.attacker.example.com/x", false, resolve);
    expect(ok.addresses.map((a) => a.address)).toEqual(["8.8.8.8", "2606:4700:4700::1111"]);
  });

  test("a name that does not resolve, or not in time, is refused (as worth trying later)", async () => {
    const failing = scripted(Object.assign(new Error("nope"), { code: "ENOTFOUND" }));
    expect(await checkDestination("https://push.gone.example.com/x", false, failing.resolve).catch((e) => e)).toMatchObject({ status: 503, key: "notifications.error.unreachable" });
    const slow: Resolver = () => new Promise(() => {});
    const started = Date.now();
    expect(await checkDestination("https://push.slow.example.com/x", false, slow, 200).catch((e) => e)).toMatchObject({ status: 503, key: "notifications.error.unreachable" });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  test("the system resolver reads the hosts file: its names for this machine resolve to loopback and are refused", async () => {
    const names = loopbackNamesInHostsFile();
    expect(names).toContain("localhost");
    for (const name of names) {
      const refused = await resolveDestination(new URL(`https://${name}/x`), false, systemResolver).catch((e) => e);
      expect([name, refused instanceof DomainError]).toEqual([name, true]);
    }
    const localhost = await resolveDestination(new URL("https://localhost/x"), false, systemResolver).catch((e) => e);
    expect(localhost.message).toMatch(/loopback/);
  });

  test("the connection's lookup answers only with the addresses that were checked", async () => {
    const destination = await checkDestination("https://push.example.com/x", false, scripted([v4("8.8.8.8"), v6("2606:4700:4700::1111")]).resolve);
    const lookup = pinnedLookup(destination);
    const ask = (host: string, options: object) =>
      new Promise<unknown>((resolve) => lookup(host, options, (err: Error | null, address?: unknown, family?: number) => resolve(err ? err.message : [address, family])));
    expect(await ask("push.example.com", { all: true })).toEqual([
      [
        { address: "8.8.8.8", family: 4 },
        { address: "2606:4700:4700::1111", family: 6 },
      ],
      undefined,
    ]);
    expect(await ask("push.example.com", {})).toEqual(["8.8.8.8", 4]);
    expect(await ask("push.example.com", { family: 6 })).toEqual(["2606:4700:4700::1111", 6]);
    expect(await ask("elsewhere.example.com", {})).toMatch(/no checked address/);
  });
});

describe("an https server (production)", () => {
  let t: Awaited<ReturnType<typeof makeTestApp>>;
  let push: FakePushService;
  /** Something listening on this machine: the probe's target. Nothing may ever connect to it. */
  let target: Awaited<ReturnType<typeof listener>>;
  let targetV6: Awaited<ReturnType<typeof listener>>;

  beforeAll(async () => {
    push = FakePushService.start();
    t = await makeTestApp({ env: { PUBLIC_URL: "https://offline.example" } });
    target = await listener("127.0.0.1");
    targetV6 = await listener("::1", target.port).catch(() => listener("::1"));
  });
  afterAll(() => {
    target.stop();
    targetV6.stop();
    push.stop();
    t.cleanup();
  });

  const attacks = () => {
    const port = target.port;
    return [
      `https://localhost.:${port}/x`,
      `https://probe.localhost:${port}/x`,
      `https://localhost:${port}/x`,
      `https://127.0.0.1:${port}/x`,
      `https://[::1]:${targetV6.port}/x`,
      `https://[::ffff:127.0.0.1]:${port}/x`,
      `https://[::ffff:7f00:1]:${port}/x`,
      "https://10.0.0.1/x",
      "https://169.254.169.254/x",
      "https://[fd00::1]/x",
      "https://100.64.0.1/x",
      "https://[fe80::1]/x",
      "https://0.0.0.0/x",
      "https://255.255.255.255/x",
      `https://2130706433:${port}/x`,
      `https://0x7f.1:${port}/x`,
      `https://0177.0.0.1:${port}/x`,
      `https://0x7f000001:${port}/x`,
      `https://127.1:${port}/x`,
      // The local push service, as a development machine would use it.
      push.subscribe().endpoint,
      ...loopbackNamesInHostsFile().map((name) => `https://${name}:${port}/x`),
    ];
  };

  test("every form of this machine or a private network is refused at subscribe with a clear 400, storing nothing, connecting nowhere", async () => {
    const c = t.client();
    const { user } = await c.signUpComplete();
    const keys = push.subscribe().keys;
    for (const endpoint of attacks()) {
      const res = await c.postJson("/api/notifications/subscribe", { endpoint, keys });
      expect([endpoint, res.status, (await body(res)).message]).toEqual([endpoint, 400, "The push service address must be an https address on the internet."]);
    }
    expect(await t.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, user.id))).toEqual([]);
    expect(target.connections + targetV6.connections).toBe(0);
    expect(push.deliveries.length + push.rejections.length).toBe(0);
  });

  test("a name whose DNS answers with this machine is refused at subscribe (the resolver is the only stand-in)", async () => {
    const c = t.client();
    const { user } = await c.signUpComplete();
    const keys = push.subscribe().keys;
    for (const answer of [[v4("127.0.0.1")], [v4("8.8.8.8"), v4("192.168.0.10")], [v6("::ffff:127.0.0.1")]]) {
      const { resolve } = scripted(answer);
      const refused = await subscribe(t.deps, user.id, { endpoint: `https://push.attacker.example.com:${target.port}/x`, keys }, { userAgent: null, locale: "en" }, resolve).catch((e) => e);
      expect(refused).toMatchObject({ key: "notifications.error.endpoint", status: 400 });
    }
    expect(await t.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, user.id))).toEqual([]);
    expect(target.connections).toBe(0);
  });

  test("DNS rebinding: the connection goes to the address that was checked, never to a second answer", async () => {
    const c = t.client();
    const { user } = await c.signUpComplete();
    const endpoint = `https://push.rebind.example.com:${target.port}/x`;
    // Public when subscribing…
    const keys = push.subscribe().keys;
    expect(await subscribe(t.deps, user.id, { endpoint, keys }, { userAgent: null, locale: "en" }, scripted([v4("1.1.1.1")]).resolve)).toBe("created");
    const subscription = (await one(t.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, user.id))))!;
    // …public when checked before sending, this machine a moment later.
    const rebinding = scripted([v4("1.1.1.1")], [v4("127.0.0.1")]);
    const outcome = await deliver(t.deps, subscription, { title: "t", body: "b", url: "/", tag: "t" }, 60, { resolve: rebinding.resolve, deadline: Date.now() + 1_500 });
    // 1.1.1.1 is not a push service (nor reachable here): no delivery; what matters is where it went.
    expect(outcome).toBe("retry");
    expect(rebinding.calls).toEqual(["push.rebind.example.com"]);
    expect(target.connections).toBe(0);
  }, 15_000);

  test("a subscription whose name now resolves to this machine or a private network is refused without connecting", async () => {
    const c = t.client();
    const { user } = await c.signUpComplete();
    const endpoint = `https://push.moved.example.com:${target.port}/x`;
    const keys = push.subscribe().keys;
    await subscribe(t.deps, user.id, { endpoint, keys }, { userAgent: null, locale: "en" }, scripted([v4("8.8.4.4")]).resolve);
    const subscription = (await one(t.db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, user.id))))!;
    for (const answer of [[v4("127.0.0.1")], [v4("10.0.0.7")], [v6("::1")], [v4("8.8.8.8"), v4("169.254.169.254")]]) {
      const moved = scripted(answer);
      expect(await deliver(t.deps, subscription, { title: "t", body: "b", url: "/", tag: "t" }, 60, { resolve: moved.resolve })).toBe("refused");
      expect(moved.calls.length).toBe(1);
    }
    expect(target.connections + targetV6.connections).toBe(0);
  });

  test("a subscription to this machine kept from before (or from a plain-http past) is not sent to: the test notification says it failed", async () => {
    const c = t.client();
    const { user } = await c.signUpComplete();
    const now = Date.now();
    const browser = push.subscribe(t.deps.secrets.vapidPublicKey);
    for (const endpoint of [browser.endpoint, `https://localhost.:${target.port}/x`, `https://127.0.0.1:${target.port}/x`]) {
      await writeTransaction(t.db, (tx) => tx
        .insert(pushSubscriptions)
        .values({ id: crypto.randomUUID(), userId: user.id, endpoint, p256dhKey: browser.keys.p256dh, authKey: browser.keys.auth, userAgent: null, locale: "en", createdAt: now, updatedAt: now }));
    }
    const res = await c.postJson("/api/notifications/test", {});
    expect(res.status).toBe(502);
    expect(await body(res)).toEqual({ message: "Failed to send test notification." });
    expect(target.connections).toBe(0);
    expect(push.deliveries.length + push.rejections.length).toBe(0);
  }, 15_000);
});

describe("a development server (plain http on localhost)", () => {
  let t: Awaited<ReturnType<typeof makeTestApp>>;
  let push: FakePushService;

  beforeAll(async () => {
    push = FakePushService.start();
    t = await makeTestApp();
  });
  afterAll(() => {
    push.stop();
    t.cleanup();
  });

  test("takes the local push service but still refuses private networks and http off this machine", async () => {
    const c = t.client();
    await c.signUpComplete();
    const browser = push.subscribe(t.deps.secrets.vapidPublicKey);
    expect((await c.postJson("/api/notifications/subscribe", { endpoint: browser.endpoint, keys: browser.keys })).status).toBe(201);
    for (const endpoint of ["http://10.0.0.5/push/1", "https://10.0.0.5/push/1", "https://169.254.169.254/x", "https://[fd00::1]/x", "http://push.example.com/x"]) {
      const res = await c.postJson("/api/notifications/subscribe", { endpoint, keys: browser.keys });
      expect([endpoint, res.status]).toEqual([endpoint, 400]);
    }
    const { resolve } = scripted([v4("10.0.0.5")]);
    const refused = await checkDestination("https://push.example.com/x", true, resolve).catch((e) => e);
    expect(refused).toBeInstanceOf(DomainError);
  });

  test("DNS rebinding: a plain-http message goes to the checked address, not to a second answer", async () => {
    const received: string[] = [];
    const service = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => {
        received.push(`${request.headers.get("host")} ${new URL(request.url).pathname}`);
        return new Response(null, { status: 201 });
      },
    });
    const trap = await listener("127.0.0.2", service.port);
    try {
      const subscription = {
        ...push.subscribe(),
        id: crypto.randomUUID(),
        userId: "nobody",
        endpoint: `http://push.rebind.localhost:${service.port}/push/1`,
      };
      const row = { id: subscription.id, userId: subscription.userId, endpoint: subscription.endpoint, p256dhKey: subscription.keys.p256dh, authKey: subscription.keys.auth, userAgent: null, locale: "en", isActive: true, createdAt: 0, updatedAt: 0 };
      const rebinding = scripted([v4("127.0.0.1")], [v4("127.0.0.2")]);
      expect(await deliver(t.deps, row, { title: "t", body: "b", url: "/", tag: "t" }, 60, { resolve: rebinding.resolve })).toBe("sent");
      expect(rebinding.calls).toEqual(["push.rebind.localhost"]);
      expect(received).toEqual([`push.rebind.localhost:${service.port} /push/1`]);
      expect(trap.connections).toBe(0);
    } finally {
      trap.stop();
      await service.stop(true);
    }
  });

  test("DNS rebinding over TLS: the checked address is dialled, and TLS names the original host (SNI)", async () => {
    const service = await listener("127.0.0.1", 0, (socket) => socket.destroy());
    const trap = await listener("127.0.0.2", service.port);
    try {
      const keys = push.subscribe().keys;
      const row = { id: crypto.randomUUID(), userId: "nobody", endpoint: `https://push.rebind.localhost:${service.port}/push/1`, p256dhKey: keys.p256dh, authKey: keys.auth, userAgent: null, locale: "en", isActive: true, createdAt: 0, updatedAt: 0 };
      const rebinding = scripted([v4("127.0.0.1")], [v4("127.0.0.2")]);
      // No TLS server there (and no certificate for the name): not delivered, which is fine.
      expect(await deliver(t.deps, row, { title: "t", body: "b", url: "/", tag: "t" }, 60, { resolve: rebinding.resolve, deadline: Date.now() + 2_000 })).toBe("retry");
      expect(rebinding.calls).toEqual(["push.rebind.localhost"]);
      expect(service.connections).toBe(1);
      // The ClientHello carries the host name in clear (server_name extension).
      expect(service.received().includes(Buffer.from("push.rebind.localhost"))).toBe(true);
      expect(trap.connections).toBe(0);
    } finally {
      trap.stop();
      service.stop();
    }
  });

  test("the test notification answers the same, at the same time, for a closed port, a silent one, one that hangs up and one that refuses", async () => {
    const silent = await listener("127.0.0.1");
    const hangsUp = await listener("127.0.0.1", 0, (socket) => socket.destroy());
    const refuses = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("no", { status: 400 }) });
    const closed = await closedPort();
    try {
      const targets = [
        `http://127.0.0.1:${closed}/push/x`,
        `http://127.0.0.1:${silent.port}/push/x`,
        `http://127.0.0.1:${hangsUp.port}/push/x`,
        `http://127.0.0.1:${refuses.port}/push/x`,
        `https://127.0.0.1:${closed}/push/x`,
        `https://127.0.0.1:${silent.port}/push/x`,
        `https://127.0.0.1:${hangsUp.port}/push/x`,
      ];
      const people = await Promise.all(
        targets.map(async (endpoint) => {
          const c = t.client();
          await c.signUpComplete();
          const res = await c.postJson("/api/notifications/subscribe", { endpoint, keys: push.subscribe().keys });
          expect([endpoint, res.status]).toEqual([endpoint, 201]);
          return c;
        }),
      );
      const answers = await Promise.all(
        people.map(async (c) => {
          const started = Date.now();
          const res = await c.postJson("/api/notifications/test", {});
          return { status: res.status, body: await res.text(), ms: Date.now() - started };
        }),
      );
      // The silent ports were reached, and given up on at the deadline.
      expect(silent.connections).toBe(2);
      for (const a of answers) expect({ status: a.status, body: a.body }).toEqual({ status: 502, body: JSON.stringify({ message: "Failed to send test notification." }) });
      const times = answers.map((a) => a.ms);
      expect(Math.min(...times)).toBeGreaterThanOrEqual(TEST_DEADLINE_MS - 50);
      expect(Math.max(...times)).toBeLessThan(TEST_DEADLINE_MS + 1_500);
      expect(Math.max(...times) - Math.min(...times)).toBeLessThan(600);
    } finally {
      silent.stop();
      hangsUp.stop();
      await refuses.stop(true);
    }
  }, 30_000);
});
