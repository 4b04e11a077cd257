/**
 * `bun run lighthouse`: a bench, not a test. Builds the browser files, starts the server with
 * demo data on a free port and an empty data directory, signs in the demo guest, and runs
 * Lighthouse (mobile defaults, Debian's Chromium) on the main screens, printing the
 * accessibility and performance scores and the Largest Contentful Paint of each.
 *
 *   bun run lighthouse                  # every screen below
 *   bun run lighthouse -- /settings     # only the paths given ("/activity": the activity page)
 *
 * Set CHROME_PATH for another Chromium than /usr/bin/chromium. Performance numbers depend on
 * the machine and what else runs on it; compare runs made on the same one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const chrome = process.env.CHROME_PATH ?? process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

async function run(cmd: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn(cmd, { cwd: root, stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited ${code}\n${err.slice(-2000)}`);
  return out;
}

await run([process.execPath, "scripts/build.ts"]);

const probe = Bun.serve({ port: 0, fetch: () => new Response() });
const port = probe.port!;
void probe.stop(true);
const url = `http://127.0.0.1:${port}`;
const dataDir = mkdtempSync(join(tmpdir(), "offline-lighthouse-"));
const server = Bun.spawn([process.execPath, "src/server.ts"], {
  cwd: root,
  env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: url, DEMO_DATA: "true" },
  stdout: "ignore",
  stderr: "inherit",
});

interface Row {
  path: string;
  accessibility: string;
  performance: string;
  lcp: string;
  failing: string;
}

try {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {}
    if (Date.now() > deadline || server.exitCode !== null) throw new Error("the server did not start");
    await Bun.sleep(100);
  }

  const login = await fetch(`${url}/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "guest@offline.test", password: "offline-demo" }),
    redirect: "manual",
  });
  if (!login.ok) throw new Error(`signing in the demo guest failed: ${login.status}`);
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const browse = await (await fetch(url, { headers: { cookie } })).text();
  const activity = /href="(\/activity\/[^"]+)"/.exec(browse)?.[1];
  if (!activity) throw new Error("no activity link on the browse screen");

  const screens: { path: string; signedIn: boolean }[] = [
    { path: "/", signedIn: false },
    { path: "/browse?city=New%20York", signedIn: true },
    { path: activity, signedIn: true },
    { path: "/profile", signedIn: true },
    { path: "/host", signedIn: true },
    { path: "/settings", signedIn: true },
  ];
  const only = process.argv.slice(2);
  const rows: Row[] = [];
  // "/activity" names the activity page, whichever activity the browse screen shows first.
  const wanted = (path: string) => !only.length || only.some((p) => p === path || (p === "/activity" && path.startsWith("/activity/")));
  for (const screen of screens.filter((s) => wanted(s.path))) {
    const out = await run(
      [
        join(root, "node_modules/.bin/lighthouse"),
        `${url}${screen.path}`,
        "--only-categories=accessibility,performance",
        "--output=json",
        "--output-path=stdout",
        "--quiet",
        "--chrome-flags=--headless --no-sandbox --disable-gpu",
        ...(screen.signedIn ? [`--extra-headers=${JSON.stringify({ cookie })}`] : []),
      ],
      { CHROME_PATH: chrome },
    );
    const report = JSON.parse(out) as {
      finalDisplayedUrl: string;
      runtimeError?: { message: string };
      categories: Record<string, { score: number | null; auditRefs: { id: string; weight: number }[] }>;
      audits: Record<string, { score: number | null; displayValue?: string }>;
    };
    if (report.runtimeError) throw new Error(`${screen.path}: ${report.runtimeError.message}`);
    if (new URL(report.finalDisplayedUrl).pathname !== new URL(`${url}${screen.path}`).pathname) {
      throw new Error(`${screen.path} ended on ${report.finalDisplayedUrl}: was the guest signed in?`);
    }
    const score = (c: string) => String(Math.round((report.categories[c]?.score ?? 0) * 100));
    const failing = report.categories.accessibility!.auditRefs
      .filter((ref) => ref.weight > 0 && report.audits[ref.id]?.score !== null && report.audits[ref.id]!.score! < 1)
      .map((ref) => ref.id);
    const row: Row = {
      path: screen.path,
      accessibility: score("accessibility"),
      performance: score("performance"),
      lcp: report.audits["largest-contentful-paint"]?.displayValue ?? "?",
      failing: failing.join(", "),
    };
    console.log(`${row.path}: accessibility ${row.accessibility}, performance ${row.performance}, LCP ${row.lcp}${row.failing ? ` (failing: ${row.failing})` : ""}`);
    rows.push(row);
  }
  console.log();
  console.table(rows);
} finally {
  server.kill();
  await server.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
