import { createDecipheriv, createECDH, createHmac, randomBytes, randomUUID, type ECDH } from "node:crypto";

/**
 * A local push service, as browsers' vendors run them, for tests and local development. It hands
 * out subscriptions for which it holds the browser's side (a P-256 key pair and the auth secret,
 * made here with node:crypto, as a browser makes them), and for every message posted to one:
 * - checks the VAPID signature (RFC 8292): an ES256 JWT whose `aud` is this service's origin,
 *   whose `exp` is in the future and at most 24 hours away, with a `sub`, signed by the key in
 *   `k=`, which must be the application server key the subscription was made with;
 * - checks the TTL header and the aes128gcm content encoding;
 * - decrypts the payload with the subscription's private key (RFC 8291, RFC 8188);
 * then records it and answers 201, or whatever status the test asked for (404 and 410: the
 * subscription is gone). Anything that fails a check is answered 400/401/403 and recorded as a
 * rejection, so a test can assert there were none.
 */

export interface PushDelivery {
  subscriptionId: string;
  /** The decrypted payload, parsed as JSON. */
  payload: Record<string, unknown>;
  ttl: number;
  urgency: string | null;
  claims: { aud: string; exp: number; sub: string };
}

export interface FakeSubscription {
  id: string;
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

interface Browser {
  ecdh: ECDH;
  auth: Buffer;
  applicationServerKey?: string;
  status: number;
}

const b64u = (text: string) => Buffer.from(text, "base64url");
const hmac = (key: Buffer, data: Buffer) => createHmac("sha256", key).update(data).digest();

/** RFC 8291 §3.4 and RFC 8188 §2: the content key and nonce of a message, then its one record. */
function decrypt(browser: Browser, body: Buffer): Buffer {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  const senderKey = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  if (idLength !== 65 || ciphertext.length > recordSize) throw new Error("unexpected aes128gcm header");
  const shared = browser.ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), browser.ecdh.getPublicKey(), senderKey, Buffer.from([1])]);
  const ikm = hmac(hmac(browser.auth, shared), keyInfo);
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from("Content-Encoding: aes128gcm\0\x01", "binary")).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from("Content-Encoding: nonce\0\x01", "binary")).subarray(0, 12);
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 2, then any zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error("missing last-record delimiter");
  return padded.subarray(0, end);
}

/** RFC 8292: the `vapid t=…, k=…` header, its JWT claims checked and its signature verified. */
async function verifyVapid(header: string | null, origin: string, expectedKey: string | undefined) {
  const params = Object.fromEntries(
    (/^vapid (.+)$/.exec(header ?? "")?.[1] ?? "").split(",").map((part) => {
      const i = part.indexOf("=");
      return [part.slice(0, i).trim(), part.slice(i + 1).trim()];
    }),
  ) as { t?: string; k?: string };
  if (!params.t || !params.k) throw new Error("no VAPID authorization");
  if (expectedKey && params.k !== expectedKey) throw new Error("signed with another key than the subscription's application server key");
  const [head, claims, signature] = params.t.split(".");
  if (!head || !claims || !signature) throw new Error("malformed JWT");
  const header_ = JSON.parse(b64u(head).toString()) as { alg?: string };
  if (header_.alg !== "ES256") throw new Error(`JWT alg ${header_.alg}`);
  const key = await crypto.subtle.importKey("raw", b64u(params.k), { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
  const valid = await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, b64u(signature), new TextEncoder().encode(`${head}.${claims}`));
  if (!valid) throw new Error("bad VAPID signature");
  const c = JSON.parse(b64u(claims).toString()) as PushDelivery["claims"];
  const now = Math.floor(Date.now() / 1000);
  if (c.aud !== origin) throw new Error(`JWT aud ${c.aud}, expected ${origin}`);
  if (typeof c.exp !== "number" || c.exp <= now || c.exp > now + 24 * 60 * 60) throw new Error(`JWT exp ${c.exp}`);
  if (typeof c.sub !== "string" || !/^(mailto:|https:)/.test(c.sub)) throw new Error(`JWT sub ${c.sub}`);
  return c;
}

export class FakePushService {
  readonly deliveries: PushDelivery[] = [];
  readonly rejections: string[] = [];
  private browsers = new Map<string, Browser>();
  private waiters: (() => void)[] = [];

  private constructor(private server: ReturnType<typeof Bun.serve>) {}

  get origin() {
    return `http://127.0.0.1:${this.server.port}`;
  }

  static start(): FakePushService {
    let service: FakePushService;
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => service.receive(request) });
    service = new FakePushService(server);
    return service;
  }

  /** A browser's subscription, as `pushManager.subscribe({ applicationServerKey })` would make it. */
  subscribe(applicationServerKey?: string): FakeSubscription {
    const id = randomUUID();
    const ecdh = createECDH("prime256v1");
    ecdh.generateKeys();
    const auth = randomBytes(16);
    this.browsers.set(id, { ecdh, auth, applicationServerKey, status: 201 });
    return { id, endpoint: `${this.origin}/push/${id}`, keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") } };
  }

  /** From now on, messages to this subscription are answered with `status` (404/410: gone, 500: busy). */
  answer(subscriptionId: string, status: number) {
    this.browsers.get(subscriptionId)!.status = status;
  }

  /** Messages received for one subscription. */
  to(subscriptionId: string) {
    return this.deliveries.filter((d) => d.subscriptionId === subscriptionId);
  }

  /** Resolves once `count` messages have been received in all (for browser tests, where delivery is out of process). */
  async waitForDeliveries(count: number, timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs;
    while (this.deliveries.length < count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} push messages, got ${this.deliveries.length}; rejections: ${this.rejections.join("; ")}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  clear() {
    this.deliveries.length = 0;
    this.rejections.length = 0;
  }

  stop() {
    void this.server.stop(true);
  }

  private reject(status: number, reason: string) {
    this.rejections.push(reason);
    return new Response(reason, { status });
  }

  private async receive(request: Request): Promise<Response> {
    const id = /^\/push\/([\w-]+)$/.exec(new URL(request.url).pathname)?.[1];
    const browser = id ? this.browsers.get(id) : undefined;
    if (request.method !== "POST" || !id || !browser) return new Response("no such subscription", { status: 404 });
    let claims: PushDelivery["claims"];
    try {
      claims = await verifyVapid(request.headers.get("authorization"), this.origin, browser.applicationServerKey);
    } catch (err) {
      return this.reject(err instanceof Error && err.message.startsWith("signed with another key") ? 403 : 401, String(err));
    }
    const ttl = Number(request.headers.get("ttl"));
    if (request.headers.get("ttl") === null || !Number.isInteger(ttl) || ttl < 0) return this.reject(400, "missing or bad TTL");
    if (request.headers.get("content-encoding") !== "aes128gcm") return this.reject(400, `content encoding ${request.headers.get("content-encoding")}`);
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(decrypt(browser, Buffer.from(await request.arrayBuffer())).toString("utf8"));
    } catch (err) {
      return this.reject(400, `payload: ${err}`);
    }
    if (browser.status === 201) this.deliveries.push({ subscriptionId: id, payload, ttl, urgency: request.headers.get("urgency"), claims });
    for (const wake of this.waiters.splice(0)) wake();
    return new Response(null, { status: browser.status });
  }
}

/**
 * Run on its own for trying push notifications without a browser or the internet:
 *   bun tests/fakes/push-service.ts [VAPID public key]
 * It prints a subscription to register (POST /api/notifications/subscribe from a signed-in
 * session) and then every message it receives, checked and decrypted. The app sends to it only
 * when served over plain http on this machine (PUBLIC_URL `http://localhost:…` or
 * `http://127.0.0.1:…`, a development machine; docs/decisions/0032): with an https PUBLIC_URL a
 * push service on this machine is refused.
 */
if (import.meta.main) {
  const service = FakePushService.start();
  const subscription = service.subscribe(process.argv[2]);
  console.log(`Local push service at ${service.origin}. Subscribe with this body:\n${JSON.stringify({ endpoint: subscription.endpoint, keys: subscription.keys })}`);
  let seen = 0;
  let refused = 0;
  setInterval(() => {
    for (const d of service.deliveries.slice(seen)) console.log(`push (TTL ${d.ttl}s):`, JSON.stringify(d.payload));
    for (const reason of service.rejections.slice(refused)) console.log(`refused: ${reason}`);
    seen = service.deliveries.length;
    refused = service.rejections.length;
  }, 250);
}
