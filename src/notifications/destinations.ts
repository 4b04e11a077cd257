import { lookup } from "node:dns/promises";
import http from "node:http";
import { refuseInsideWriteTransaction } from "../../db/client";
import https from "node:https";
import { isIP } from "node:net";
import { DomainError, isDomainError } from "../../lib/domain-error";

/**
 * Where the server may post push messages (docs/decisions/0032). A push subscription's endpoint
 * is chosen by whoever subscribes, so before the server connects to it, at subscribe time and
 * again before every message:
 * - the address is read as a URL (https; no credentials; a host name on the internet, not an IP
 *   address, `localhost`, a single label or a special-use domain);
 * - the name is resolved, and every address it resolves to must be on the internet: one
 *   loopback, private, shared (CGNAT), link-local, unique-local, multicast, unspecified,
 *   documentation or otherwise reserved address (IPv4-mapped and NAT64 forms included) refuses it;
 * - the message is then sent to the addresses that were checked, never to a second resolution
 *   of the name (DNS rebinding); TLS still names and verifies the original host name.
 *
 * A development machine (PUBLIC_URL `http://localhost…` or `http://127.0.0.1…`) may also use a
 * push service on the machine itself (tests/fakes/push-service.ts): `http` or `https` to
 * `localhost` or a loopback address. Only loopback: private networks stay refused there too, and
 * an https PUBLIC_URL, or a plain-http one on another name, never allows it.
 */

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to its addresses, as `dns.lookup(name, { all: true })` does. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The system's resolver (hosts file, then DNS), as the operating system answers `getaddrinfo`. */
export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** A name that has not resolved by then is treated as unreachable. */
export const RESOLVE_TIMEOUT_MS = 5_000;

/** A push service address after its checks: where to post, and the only addresses to connect to. */
export interface PushDestination {
  url: URL;
  /** The host as a socket names it: a host name, or an IP address without brackets. */
  host: string;
  /** Every address the host resolved to, each checked; connections go to these only. */
  addresses: readonly ResolvedAddress[];
}

/**
 * An address refused, and why (for the log only: `details.log`). The address itself is a 400
 * (`notifications.error.endpoint`); a name that did not resolve, or not in time, is a 503
 * (`notifications.error.unreachable`): worth trying again later when sending. The functions
 * below throw nothing else as a `DomainError`; their callers answer with their own words.
 */
function refused(reason: string, temporary = false): DomainError {
  return temporary
    ? new DomainError("notifications.error.unreachable", 503, { log: reason })
    : new DomainError("notifications.error.endpoint", 400, { log: reason });
}

// ---------------------------------------------------------------------------------------------
// Addresses

type V4Range = [network: string, bits: number, kind: string];

/** IPv4 ranges that are not the internet (IANA special-purpose registry, RFC 6890 and others). */
const V4_RANGES: V4Range[] = [
  ["0.0.0.0", 8, "unspecified (this network)"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared (CGNAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "6to4 relay anycast"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["255.255.255.255", 32, "broadcast"],
  ["240.0.0.0", 4, "reserved"],
];

function v4Number(address: string): number | null {
  const parts = address.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

const V4_PARSED = V4_RANGES.map(([network, bits, kind]) => ({ start: v4Number(network)!, size: 2 ** (32 - bits), kind }));

function v4Kind(n: number): string | null {
  return V4_PARSED.find((r) => n >= r.start && n < r.start + r.size)?.kind ?? null;
}

/** An IPv6 address as a 128-bit number, or null. Accepts `::`, a trailing dotted IPv4 part, and no zone. */
function v6Number(address: string): bigint | null {
  let text = address.toLowerCase();
  if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1);
  if (text.includes("%")) return null;
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4Number(dotted[2]!);
    if (n === null) return null;
    text = `${dotted[1]}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string) => (half === "" ? [] : half.split(":"));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return all.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

const inV6 = (n: bigint, network: string, bits: number) => n >> BigInt(128 - bits) === v6Number(network)! >> BigInt(128 - bits);

/** IPv6 ranges, most specific first; outside them, only global unicast (2000::/3) is the internet. */
const V6_RANGES: [network: string, bits: number, kind: string][] = [
  ["64:ff9b:1::", 48, "NAT64 local-use"],
  ["100::", 64, "discard-only"],
  ["2001:db8::", 32, "documentation"],
  ["2001::", 23, "IETF protocol assignments (Teredo, benchmarking, ORCHID)"],
  ["2002::", 16, "6to4"],
  ["3fff::", 20, "documentation"],
  ["fc00::", 7, "unique-local"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "site-local"],
  ["ff00::", 8, "multicast"],
];

function v6Kind(n: bigint): string | null {
  if (n === 0n) return "unspecified";
  if (n === 1n) return "loopback";
  const low32 = Number(n & 0xffffffffn);
  // ::ffff:a.b.c.d is the IPv4 address a.b.c.d; 64:ff9b::a.b.c.d reaches it through a NAT64.
  if (inV6(n, "::ffff:0:0", 96)) {
    const kind = v4Kind(low32);
    return kind && `IPv4-mapped ${kind}`;
  }
  if (inV6(n, "64:ff9b::", 96)) {
    const kind = v4Kind(low32);
    return kind && `NAT64 of ${kind}`;
  }
  if (inV6(n, "::", 96)) return "IPv4-compatible (deprecated)";
  for (const [network, bits, kind] of V6_RANGES) if (inV6(n, network, bits)) return kind;
  return inV6(n, "2000::", 3) ? null : "reserved";
}

/**
 * What kind of address this is when it is not on the internet ("loopback", "private", …), null
 * when it is. Anything that is not an IP address is "not an IP address".
 */
export function addressKind(address: string): string | null {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 4) return v4Kind(v4Number(bare)!);
  if (family === 6) {
    const n = v6Number(bare);
    return n === null ? "not an IP address" : v6Kind(n);
  }
  return "not an IP address";
}

/** A loopback address (127.0.0.0/8, ::1, or ::ffff:127.x.x.x): this machine. */
export const isLoopbackAddress = (address: string) => /^(IPv4-mapped )?loopback$/.test(addressKind(address) ?? "");

// ---------------------------------------------------------------------------------------------
// Names

/** Top-level domains that are never on the internet (RFC 6761, RFC 6762, RFC 8375, RFC 9476) or commonly internal. */
const LOCAL_TLDS = new Set(["localhost", "local", "localdomain", "internal", "intranet", "lan", "home", "corp", "private", "arpa", "invalid", "test", "example", "onion", "alt"]);

/** `localhost` or a name under it, which resolvers may answer with this machine whatever DNS says. */
export const isLocalhostName = (hostname: string) => /(^|\.)localhost\.?$/i.test(hostname);

/** The URL's host as a socket names it (no brackets around an IPv6 address). */
const bareHost = (url: URL) => (url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname);

/**
 * The checks that need no resolving: a URL, https (http only for a local push service on a
 * development machine), no credentials, and a host name that can be on the internet. Throws a
 * refusal (`refused`); hands back the parsed URL.
 */
export function checkAddressText(value: string, allowLoopback: boolean): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refused("not a URL");
  }
  if (url.username || url.password) throw refused("credentials in the URL");
  if (url.protocol !== "https:" && url.protocol !== "http:") throw refused(`${url.protocol} is not https`);
  const host = bareHost(url);
  const literal = isIP(host) !== 0;
  const local = literal ? isLoopbackAddress(host) : isLocalhostName(host);
  if (allowLoopback) {
    // A development machine: a public https host name, or this machine itself.
    if (literal && !local) throw refused(`an IP address (${addressKind(host) ?? "public"})`);
    if (url.protocol === "http:" && !local) throw refused("http outside this machine");
    return url;
  }
  if (url.protocol !== "https:") throw refused("http");
  if (literal) throw refused(`an IP address (${addressKind(host) ?? "public"})`);
  if (local) throw refused("localhost");
  if (host.endsWith(".")) throw refused("a name ending in a dot");
  const labels = host.split(".");
  if (labels.length < 2) throw refused("a single-label name");
  if (LOCAL_TLDS.has(labels.at(-1)!.toLowerCase())) throw refused(`a .${labels.at(-1)} name`);
  return url;
}

/** `resolve`, refused as temporary when it fails or takes longer than `timeoutMs`. */
async function resolveInTime(resolve: Resolver, hostname: string, timeoutMs: number): Promise<readonly ResolvedAddress[]> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(refused("the name did not resolve in time", true)), Math.max(0, timeoutMs));
  });
  try {
    return await Promise.race([resolve(hostname), late]);
  } catch (err) {
    if (isDomainError(err)) throw err;
    const code = (err as { code?: string })?.code;
    throw refused(`the name did not resolve${code ? ` (${code})` : ""}`, true);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves the URL's host (an IP address stands for itself) and checks every address it resolves
 * to: all must be on the internet, or, on a development machine, this machine (loopback). An
 * `http` push service must be on this machine only. Throws a refusal (`refused`).
 */
export async function resolveDestination(url: URL, allowLoopback: boolean, resolve: Resolver = systemResolver, timeoutMs = RESOLVE_TIMEOUT_MS): Promise<PushDestination> {
  const host = bareHost(url);
  const family = isIP(host);
  const found = family ? [{ address: host, family }] : await resolveInTime(resolve, host, timeoutMs);
  const addresses = found.filter((a) => a && typeof a.address === "string").map((a) => ({ address: a.address, family: isIP(a.address) || a.family }));
  if (!addresses.length) throw refused("the name resolved to no address", true);
  for (const { address } of addresses) {
    const kind = addressKind(address);
    if (kind === null) {
      if (url.protocol === "http:") throw refused(`http to ${address}, outside this machine`);
      continue;
    }
    if (allowLoopback && isLoopbackAddress(address)) continue;
    throw refused(`${host} resolves to ${address} (${kind})`);
  }
  return { url, host, addresses };
}

/** Both checks: the address as text, then what its name resolves to. */
export async function checkDestination(value: string, allowLoopback: boolean, resolve: Resolver = systemResolver, timeoutMs = RESOLVE_TIMEOUT_MS): Promise<PushDestination> {
  return resolveDestination(checkAddressText(value, allowLoopback), allowLoopback, resolve, timeoutMs);
}

/**
 * Whether this deployment is a development machine that may use a push service on itself: its
 * PUBLIC_URL is plain http on `localhost` (or a name under it) or a loopback address. An https
 * PUBLIC_URL never is, nor plain http on any other name or address.
 */
export function allowsLoopbackPushServices(publicUrl: string): boolean {
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    return false;
  }
  if (url.protocol !== "http:") return false;
  const host = bareHost(url);
  return isIP(host) ? isLoopbackAddress(host) : isLocalhostName(host);
}

/**
 * The `lookup` a connection to this destination uses: it answers with the checked addresses and
 * nothing else, so no second resolution can lead the connection elsewhere.
 */
export function pinnedLookup(destination: PushDestination) {
  return (hostname: string, options: unknown, callback?: unknown) => {
    const cb = (typeof options === "function" ? options : callback) as (err: Error | null, address?: string | ResolvedAddress[], family?: number) => void;
    const opts = (typeof options === "object" && options !== null ? options : typeof options === "number" ? { family: options } : {}) as { all?: boolean; family?: number | string };
    const wanted = opts.family === 4 || opts.family === "IPv4" ? 4 : opts.family === 6 || opts.family === "IPv6" ? 6 : 0;
    const addresses = destination.addresses.filter((a) => !wanted || a.family === wanted);
    if (hostname.toLowerCase() !== destination.host.toLowerCase() || !addresses.length) {
      const err = Object.assign(new Error(`no checked address for ${hostname}`), { code: "ENOTFOUND" });
      return queueMicrotask(() => cb(err));
    }
    queueMicrotask(() => (opts.all ? cb(null, addresses.map((a) => ({ ...a }))) : cb(null, addresses[0]!.address, addresses[0]!.family)));
  };
}

/**
 * A request to the checked addresses only (`pinnedLookup`): `https.request` names the original
 * host for TLS (SNI) and verifies its certificate against it, while the connection goes where the
 * check looked. A connection of its own each time (no agent), made to the addresses just checked.
 */
export function pinnedRequest(destination: PushDestination, method: "GET" | "POST", headers: Record<string, string>): http.ClientRequest {
  refuseInsideWriteTransaction("an outbound request");
  const { url } = destination;
  const send = url.protocol === "https:" ? https.request : http.request;
  return send({
    protocol: url.protocol,
    host: destination.host,
    port: url.port || (url.protocol === "https:" ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    method,
    headers,
    lookup: pinnedLookup(destination) as never,
    agent: false,
  });
}
