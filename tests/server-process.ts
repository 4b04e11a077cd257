/**
 * The real server as a process of its own (`bun src/server.ts`, or the built binary), for the
 * tests that need what only a process has: signals, a crash, a restart, Bun's own serving.
 */
import type { Subprocess } from "bun";
import { join } from "node:path";

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
}

/**
 * Starts the server on a free port of 127.0.0.1 with `env` on top of this process's environment
 * (a key set to undefined is removed), and waits until `/health` answers.
 */
export async function startServerProcess(opts: { env: Record<string, string | undefined>; port?: number; command?: string[]; cwd?: string; stderr?: "pipe" | "inherit"; timeoutMs?: number }): Promise<ServerProcess> {
  const port = opts.port ?? freePort();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, PORT: String(port), HOST: "127.0.0.1", ...opts.env })) if (v !== undefined) env[k] = v;
  const proc = Bun.spawn(opts.command ?? [process.execPath, "src/server.ts"], { cwd: opts.cwd ?? root, env, stdout: "pipe", stderr: opts.stderr ?? "inherit" });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {}
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`server did not start (exit ${proc.exitCode})`);
    await Bun.sleep(100);
  }
  return { proc, url, port };
}
