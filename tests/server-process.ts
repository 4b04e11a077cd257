/**
 * The real server as a process of its own (`bun src/server.ts`, or the built binary), for the
 * tests that need what only a process has: signals, a crash, a restart, Bun's own serving.
 */
import type { Subprocess } from "bun";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { engine } from "../db/engine";
import { ensureBuilt } from "./built";

const root = join(import.meta.dir, "..");

/** A port nothing listens on right now. */
export function freePort(): number {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = probe.port!;
  void probe.stop(true);
  return port;
}

export interface ServerProcess {
  proc: Subprocess<"ignore", "pipe", "pipe" | "inherit">;
  url: string;
  port: number;
  /** What the server has printed so far. */
  output(): string;
}

/**
 * Starts the server on a free port of 127.0.0.1 with `env` on top of this process's environment
 * (a key set to undefined is removed), and waits until `/health` answers.
 */
export async function startServerProcess(opts: { env: Record<string, string | undefined>; port?: number; command?: string[]; cwd?: string; stderr?: "pipe" | "inherit"; timeoutMs?: number }): Promise<ServerProcess> {
  // The server serves build/ (a binary carries its own copy, built by its test).
  if (!opts.command) await ensureBuilt();
  const port = opts.port ?? freePort();
  const env: Record<string, string> = {};
  // With the suites on PostgreSQL, a server runs there too: on its data directory's database.
  const onPostgres = engine === "postgres" && !("DATABASE_URL" in opts.env) && opts.env.DATA_DIR;
  const database = onPostgres ? { DATABASE_URL: await (await import("./helpers")).postgresDatabaseUrl(opts.env.DATA_DIR!), ONE_MACHINE: "true" } : {};
  for (const [k, v] of Object.entries({ ...process.env, PORT: String(port), HOST: "127.0.0.1", ...database, ...opts.env })) if (v !== undefined) env[k] = v;
  const proc = Bun.spawn(opts.command ?? [process.execPath, "src/server.ts"], { cwd: opts.cwd ?? root, env, stdout: "pipe", stderr: opts.stderr ?? "inherit" });
  const url = `http://127.0.0.1:${port}`;
  // What the server prints, kept for the tests that read it (`output`); read as it comes, so the pipe never fills.
  let printed = "";
  const printing = (async () => {
    const decoder = new TextDecoder();
    const reader = proc.stdout.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) printed += decoder.decode(read.value, { stream: true });
  })();
  void printing.catch(() => undefined);
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {}
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`server did not start (exit ${proc.exitCode})`);
    await Bun.sleep(100);
  }
  return { proc, url, port, output: () => printed };
}

/** `count` keep-alive connections to a server, each left idle after one answered /health. */
export function idleConnections(port: number, count: number): Socket[] {
  return Array.from({ length: count }, () => {
    const socket = connect(port, "127.0.0.1");
    socket.on("connect", () => socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
    socket.on("data", () => {});
    socket.on("error", () => {});
    return socket;
  });
}
