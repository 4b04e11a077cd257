/**
 * The load of `bun run bench`: Debian's `wrk` (one thread, in C, whose own cost per request is a
 * small share of the server's on this machine's cores), with a Lua script (bench-load.lua) that
 * draws each request's path and signed-in person. Nothing of wrk is patched, so the figures do not
 * hang on one library version's internals (decision 0053). The bench installs wrk when it is
 * missing, as `npm test` installs Chromium (`apt-get install wrk`, through sudo when not root).
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What one target asks: a path (or a path drawn per request) with a cookie (or one drawn per request). */
export interface Target {
  /** http://host:port: every path is asked of it. */
  base: string;
  paths: string[];
  cookies: string[];
  /** How a path is drawn: `uniform` over all, `zipf` (s = 1, the first path the most popular). */
  draw?: "uniform" | "zipf";
}

export interface Result {
  rps: number;
  /** Milliseconds. */
  p50: number;
  p99: number;
  /** Bytes received per response (headers and body). */
  wire: number;
  /** Answers of 400 and above (wrk counts those); the bench checks before the load that every path answers 200. */
  non2xx: number;
  errors: number;
}

const WRK = process.env.WRK_PATH ?? "/usr/bin/wrk";
const SCRIPT = join(import.meta.dir, "bench-load.lua");

/** Installs Debian's wrk when it is missing (`apt-get install wrk`, through sudo when not root). */
export function ensureWrk() {
  if (Bun.file(WRK).size > 0) return;
  console.log("▶ installing Debian's wrk for the bench's load");
  const sudo = process.getuid?.() === 0 ? [] : ["sudo"];
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const cmd of [[...sudo, "apt-get", "update", "-qq"], [...sudo, "apt-get", "install", "-y", "-qq", "wrk"]]) {
    const run = Bun.spawnSync(cmd, { stdout: "inherit", stderr: "inherit", env });
    if (run.exitCode !== 0) throw new Error(`could not install wrk (${cmd.join(" ")} exited ${run.exitCode}): install it, or set WRK_PATH`);
  }
}

/** `connections` connections asking `target` for `seconds` seconds. */
export async function load(target: Target, seconds: number, connections: number, encodings: string): Promise<Result> {
  const lines = [`mode ${target.draw ?? "uniform"}`, `accept ${encodings}`, ...target.cookies.map((c) => `cookie ${c}`), ...target.paths.map((p) => `path ${p}`)];
  const file = join(tmpdir(), `offline-bench-load-${process.pid}-${crypto.randomUUID()}.txt`);
  await Bun.write(file, `${lines.join("\n")}\n`);
  try {
    const child = Bun.spawn([WRK, "-t1", `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", SCRIPT, `${target.base}/`, "--", file], { stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
    const code = await child.exited;
    const line = out.split("\n").find((l) => l.startsWith("RESULT "));
    if (code !== 0 || !line) throw new Error(`wrk failed on ${target.base}${target.paths[0]} (exit ${code}): ${err.trim() || out.trim()}`);
    const r = JSON.parse(line.slice("RESULT ".length)) as Record<"requests" | "duration" | "bytes" | "connect" | "read" | "write" | "status" | "timeout" | "p50" | "p99", number>;
    const ms = (us: number) => Math.round(us / 10) / 100;
    return {
      rps: r.requests / (r.duration / 1e6),
      p50: ms(r.p50),
      p99: ms(r.p99),
      wire: r.bytes / Math.max(r.requests, 1),
      non2xx: r.status,
      errors: r.connect + r.read + r.write + r.timeout,
    };
  } finally {
    rmSync(file, { force: true });
  }
}

/** A short warm-up, then rounds that take every target in turn; each figure is the median of the rounds. */
export async function rounds(targets: Record<string, Target>, count: number, seconds: number, connections: number, encodings: string): Promise<Record<string, Result>> {
  for (const t of Object.values(targets)) await load(t, 1, connections, encodings);
  const runs: Record<string, Result[]> = {};
  for (let round = 1; round <= count; round++) {
    const line: string[] = [];
    for (const [name, t] of Object.entries(targets)) {
      const r = await load(t, seconds, connections, encodings);
      (runs[name] ??= []).push(r);
      line.push(`${name} ${Math.round(r.rps)}/s p99 ${r.p99} ms`);
    }
    console.log(`  round ${round}: ${line.join(" | ")}`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return Object.fromEntries(
    Object.entries(runs).map(([name, rs]) => [
      name,
      {
        rps: median(rs.map((r) => r.rps)),
        p50: median(rs.map((r) => r.p50)),
        p99: median(rs.map((r) => r.p99)),
        wire: median(rs.map((r) => r.wire)),
        non2xx: rs.reduce((n, r) => n + r.non2xx, 0),
        errors: rs.reduce((n, r) => n + r.errors, 0),
      } satisfies Result,
    ]),
  );
}
