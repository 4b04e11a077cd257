/**
 * `bun run lighthouse`: a bench with a budget. Builds the browser files, starts the server with
 * demo data on a free port and an empty data directory (and a local map tile server and geocoder,
 * tests/fakes/maps.ts, so the activity page's map really loads), signs in the demo guest and the
 * demo host, and runs Lighthouse (mobile defaults: slow 4G, 4x CPU slowdown; Debian's Chromium)
 * on the main screens and on every screen with a React island, each `--runs` times (default 3).
 * It prints the median of each number per screen: performance and accessibility scores, total
 * blocking time, Largest Contentful Paint and the script transferred, with PASS or FAIL against
 * the budget (performance at least 95, total blocking time under 200 ms), and exits 1 on a FAIL.
 *
 *   bun run lighthouse                          # every screen below, 3 runs each
 *   bun run lighthouse -- --runs 5              # 5 runs each
 *   bun run lighthouse -- wizard /activity      # only those screens, by name or path
 *   bun run lighthouse -- --save /tmp/lh        # also keep each run's JSON report there
 *
 * A screen is named by its name below (activity, date-time, chat, wizard, …) or by its path
 * ("/activity": the activity page, whichever activity browse shows first). Set CHROME_PATH for
 * another Chromium than /usr/bin/chromium. Performance numbers depend on the machine and what
 * else runs on it; compare runs made on the same one.
 *
 * The payment screen has an island (StripePayment) only when Stripe is configured; with the
 * test provider it is a plain form, measured here as such.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startFakeMaps } from "../tests/fakes/maps";

const root = join(import.meta.dir, "..");
const chrome = process.env.CHROME_PATH ?? process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const BUDGET = { performance: 95, tbtMs: 200 };

const args = parseArgs({
  args: process.argv.slice(2),
  options: { runs: { type: "string", default: "3" }, save: { type: "string" } },
  allowPositionals: true,
});
const runs = Number(args.values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs takes a whole number of at least 1");
const saveDir = args.values.save;
if (saveDir) mkdirSync(saveDir, { recursive: true });
const only = args.positionals;

async function run(cmd: string[], env: Record<string, string> = {}, { exitCodes = [0] } = {}) {
  const proc = Bun.spawn(cmd, { cwd: root, stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (!exitCodes.includes(code)) throw new Error(`${cmd.join(" ")} exited ${code}\n${err.slice(-2000)}`);
  return out;
}

await run([process.execPath, "scripts/build.ts"]);

const maps = await startFakeMaps();
const probe = Bun.serve({ port: 0, fetch: () => new Response() });
const port = probe.port!;
void probe.stop(true);
const url = `http://127.0.0.1:${port}`;
const dataDir = mkdtempSync(join(tmpdir(), "offline-lighthouse-"));
const server = Bun.spawn([process.execPath, "src/server.ts"], {
  cwd: root,
  env: { ...process.env, ...maps.env, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: url, DEMO_DATA: "true" },
  stdout: "ignore",
  stderr: "inherit",
});

interface Report {
  finalDisplayedUrl: string;
  runtimeError?: { message: string };
  categories: Record<string, { score: number | null; auditRefs: { id: string; weight: number }[] }>;
  audits: Record<string, { score: number | null; numericValue?: number; details?: { items?: { resourceType?: string; transferSize?: number }[] } }>;
}

interface Row {
  screen: string;
  path: string;
  perf: number;
  a11y: number;
  "TBT ms": number;
  "LCP s": number;
  "script KB": number;
  result: "PASS" | "FAIL";
  failing: string;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** One Lighthouse run on `path`, its JSON report as text; throws on a run that recorded nothing. */
async function lighthouse(path: string, cookie: string | null) {
  const out = await run(
    [
      join(root, "node_modules/.bin/lighthouse"),
      `${url}${path}`,
      "--only-categories=accessibility,performance",
      "--output=json",
      "--output-path=stdout",
      "--quiet",
      "--chrome-flags=--headless --no-sandbox --disable-gpu",
      ...(cookie ? [`--extra-headers=${JSON.stringify({ cookie })}`] : []),
    ],
    { CHROME_PATH: chrome },
    // A run with a runtime error still writes its report (and exits 1): its error says more.
    { exitCodes: [0, 1] },
  );
  let report: Report;
  try {
    report = JSON.parse(out) as Report;
  } catch {
    throw new Error(`${path}: Lighthouse wrote no whole report`);
  }
  if (report.runtimeError) {
    // What the server answers now, to tell a flaky browser from a page that fails.
    const answer = await fetch(`${url}${path}`, { headers: cookie ? { cookie } : {}, redirect: "manual" }).then(
      (res) => `${res.status}${res.headers.get("location") ? ` to ${res.headers.get("location")}` : ""}`,
      (err: unknown) => String(err),
    );
    throw new Error(`${path}: ${report.runtimeError.message} (the server answers ${answer}${server.exitCode !== null ? `; it exited ${server.exitCode}` : ""})`);
  }
  return out;
}

async function retry<T>(attempt: () => Promise<T>, tries = 3): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (i >= tries) throw err;
      console.warn(`(a Lighthouse run failed, trying again: ${err instanceof Error ? err.message.split("\n").at(-1) : err})`);
    }
  }
}

async function signIn(email: string) {
  const login = await fetch(`${url}/api/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "offline-demo" }),
    redirect: "manual",
  });
  if (!login.ok) throw new Error(`signing in ${email} failed: ${login.status}`);
  return login.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

/** The first link on `path` (as `who` sees it) matching `pattern`'s first group. */
async function firstLink(path: string, cookie: string, pattern: RegExp, what: string) {
  const html = await (await fetch(`${url}${path}`, { headers: { cookie } })).text();
  const found = pattern.exec(html)?.[1];
  if (!found) throw new Error(`no ${what} on ${path}`);
  return found;
}

let failed = false;
try {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {}
    if (Date.now() > deadline || server.exitCode !== null) throw new Error("the server did not start");
    await Bun.sleep(100);
  }

  const guest = await signIn("guest@offline.test");
  const host = await signIn("host@offline.test");
  const activity = await firstLink("/browse?city=New%20York", guest, /href="(\/activity\/[^"/?#]+)"/, "activity link");
  const activityId = activity.slice("/activity/".length);
  const conversation = await firstLink("/bookings", guest, /href="(\/bookings\/[0-9a-f-]{36})"/, "conversation link");
  const ownActivity = await firstLink("/host/activities", host, /href="\/activity\/([^"/?#]+)"/, "activity of the host");

  // island: the React island the screen shows (the budget is meant for these above all).
  const screens: { name: string; path: string; cookie: string | null; island?: string }[] = [
    { name: "home", path: "/", cookie: null },
    { name: "browse", path: "/browse?city=New%20York", cookie: guest },
    { name: "activity", path: activity, cookie: guest, island: "ActivityMap" },
    { name: "date-time", path: `/booking/${activityId}/date-time`, cookie: guest, island: "DateTimePicker" },
    { name: "payment", path: `/booking/${activityId}/payment`, cookie: guest },
    { name: "chat", path: conversation, cookie: guest, island: "Chat" },
    { name: "edit-profile", path: "/edit-profile", cookie: guest, island: "PhotoGrid" },
    { name: "profile", path: "/profile", cookie: guest },
    { name: "host", path: "/host", cookie: guest },
    { name: "settings", path: "/settings", cookie: guest },
    { name: "wizard", path: "/create-activity-flow", cookie: host, island: "ActivityWizard" },
    { name: "wizard-edit", path: `/edit-activity/${ownActivity}`, cookie: host, island: "ActivityWizard" },
    { name: "create-form", path: "/create-activity", cookie: host, island: "PhotoGrid, AddressInput" },
  ];
  const names = (p: string, s: (typeof screens)[number]) => p === s.name || p === s.path || (p === "/activity" && s.path.startsWith("/activity/"));
  const unknown = only.filter((p) => !screens.some((s) => names(p, s)));
  if (unknown.length) throw new Error(`no screen named ${unknown.join(", ")}; the screens: ${screens.map((s) => s.name).join(", ")}`);
  const chosen = screens.filter((s) => !only.length || only.some((p) => names(p, s)));

  // The page to run the payment screen on needs a chosen date and time.
  if (chosen.some((s) => s.name === "payment")) {
    const dateTime = await (await fetch(`${url}/booking/${activityId}/date-time`, { headers: { cookie: guest } })).text();
    const props = /data-island="DateTimePicker" data-props="([^"]+)"/.exec(dateTime)?.[1];
    if (!props) throw new Error("no date-time picker on the date-time screen");
    const entities: Record<string, string> = { quot: '"', "#34": '"', "#39": "'", apos: "'", lt: "<", gt: ">", amp: "&" };
    const data = JSON.parse(props.replace(/&(quot|#34|#39|apos|lt|gt|amp);/g, (_, name: string) => entities[name]!)) as {
      csrf: string;
      dates: string[];
      firstHour: number;
      minMinutes: number;
    };
    let saved = false;
    for (const date of data.dates.slice(1)) {
      for (let hour = data.firstHour + 2; hour < data.firstHour + 8 && !saved; hour++) {
        const res = await fetch(`${url}/booking/${activityId}/date-time`, {
          method: "POST",
          headers: { cookie: guest, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ _csrf: data.csrf, date, time: `${String(hour).padStart(2, "0")}:00`, duration: String(Math.max(60, data.minMinutes) / 60) }),
          redirect: "manual",
        });
        saved = res.status === 303 || res.status === 302;
      }
      if (saved) break;
    }
    if (!saved) throw new Error("no date and time could be chosen for the payment screen");
  }

  const rows: Row[] = [];
  for (const screen of chosen) {
    const reports: Report[] = [];
    for (let i = 0; i < runs; i++) {
      // Lighthouse now and then fails to record a trace (NO_NAVSTART, NO_FCP): such a run is tried again.
      const out = await retry(() => lighthouse(screen.path, screen.cookie));
      const report = JSON.parse(out) as Report;
      if (new URL(report.finalDisplayedUrl).pathname !== new URL(`${url}${screen.path}`).pathname) {
        throw new Error(`${screen.path} ended on ${report.finalDisplayedUrl}: was the right person signed in?`);
      }
      if (saveDir) writeFileSync(join(saveDir, `${screen.name}-${i + 1}.json`), out);
      reports.push(report);
    }
    const score = (r: Report, c: string) => Math.round((r.categories[c]?.score ?? 0) * 100);
    const numeric = (r: Report, id: string) => r.audits[id]?.numericValue ?? Number.NaN;
    const scriptBytes = (r: Report) => r.audits["resource-summary"]?.details?.items?.find((item) => item.resourceType === "script")?.transferSize ?? 0;
    const failing = new Set<string>();
    for (const r of reports) {
      for (const ref of r.categories.accessibility!.auditRefs) {
        const audit = r.audits[ref.id];
        if (ref.weight > 0 && audit?.score !== null && audit!.score! < 1) failing.add(ref.id);
      }
    }
    const perf = median(reports.map((r) => score(r, "performance")));
    const tbt = Math.round(median(reports.map((r) => numeric(r, "total-blocking-time"))));
    const row: Row = {
      screen: screen.island ? `${screen.name} (${screen.island})` : screen.name,
      path: screen.path.length > 32 ? `${screen.path.slice(0, 31)}…` : screen.path,
      perf,
      a11y: median(reports.map((r) => score(r, "accessibility"))),
      "TBT ms": tbt,
      "LCP s": Math.round(median(reports.map((r) => numeric(r, "largest-contentful-paint"))) / 100) / 10,
      "script KB": Math.round(median(reports.map(scriptBytes)) / 102.4) / 10,
      result: perf >= BUDGET.performance && tbt < BUDGET.tbtMs ? "PASS" : "FAIL",
      failing: [...failing].join(", "),
    };
    if (row.result === "FAIL") failed = true;
    console.log(
      `${row.screen}: performance ${row.perf} (runs: ${reports.map((r) => score(r, "performance")).join(" ")}), accessibility ${row.a11y}, TBT ${row["TBT ms"]} ms, LCP ${row["LCP s"]} s, script ${row["script KB"]} KB: ${row.result}${row.failing ? ` (accessibility failing: ${row.failing})` : ""}`,
    );
    rows.push(row);
  }
  console.log(`\nMedian of ${runs} run${runs === 1 ? "" : "s"} per screen; budget: performance ≥ ${BUDGET.performance}, total blocking time < ${BUDGET.tbtMs} ms.`);
  console.table(rows);
} finally {
  server.kill();
  await server.exited;
  await maps.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
if (failed) process.exit(1);
