import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "bun:test";
import { chromium, type Browser } from "playwright-core";

const root = join(import.meta.dir, "../..");

/** Debian's Chromium, started the way this machine's closed network needs. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

function freePort(): number {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/**
 * The real server (or the built binary) on a free port with an empty data directory.
 * Expects the browser files to be built (npm test builds them first). The browser opens it at
 * 127.0.0.1; `publicHost` names another host for PUBLIC_URL.
 */
export async function startServer(opts: { command?: string[]; cwd?: string; env?: Record<string, string>; publicHost?: string } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "offline-e2e-"));
  const port = freePort();
  const proc = Bun.spawn(opts.command ?? [process.execPath, "src/server.ts"], {
    cwd: opts.cwd ?? root,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: `http://${opts.publicHost ?? "127.0.0.1"}:${port}`, DEMO_DATA: "true", ...opts.env },
    stdout: "pipe",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {}
    if (Date.now() > deadline || proc.exitCode !== null) throw new Error(`server did not start (exit ${proc.exitCode})`);
    await Bun.sleep(100);
  }
  return {
    url,
    dataDir,
    async stop() {
      proc.kill();
      await proc.exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One server and one browser for a test file: `const env = serverAndBrowser()` at the top,
 * then `env.server.url` and `env.browser` inside the tests.
 */
export function serverAndBrowser(opts: Parameters<typeof startServer>[0] & { before?: () => void } = {}) {
  const env = {} as { server: Awaited<ReturnType<typeof startServer>>; browser: Browser };
  beforeAll(async () => {
    opts.before?.();
    env.server = await startServer(opts);
    env.browser = await launchBrowser();
  });
  afterAll(async () => {
    await env.browser?.close();
    await env.server?.stop();
  });
  return env;
}
