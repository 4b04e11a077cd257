import { mkdtempSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "bun:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { freePort, startServerProcess } from "../server-process";

const root = join(import.meta.dir, "../..");

/** Chromium keeps its shared memory in /dev/shm; where that is small (some containers), in /tmp instead. */
const smallShm = (() => {
  try {
    const shm = statfsSync("/dev/shm");
    return shm.bsize * shm.blocks < 1024 ** 3;
  } catch {
    return true;
  }
})();

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
      ...(smallShm ? ["--disable-dev-shm-usage"] : []),
    ],
  });
}

let shared: Promise<Browser> | undefined;

/**
 * The test process's one Chromium: launched by the first browser test file that asks and kept
 * for the files after it in the same process (a launch costs about two seconds of CPU). Each
 * file works in contexts of its own (`newContext`, `newPage`) and closes them as it ends
 * (`closeContexts`); the browser is closed after the process's last file (tests/preload.ts).
 */
export function sharedBrowser(): Promise<Browser> {
  shared ??= launchBrowser().then((browser) => {
    browser.on("disconnected", () => (shared = undefined));
    // Closed once the process's last test file has run (tests/preload.ts).
    globalThis.closeSharedBrowser = () => browser.close();
    return browser;
  });
  return shared;
}

/** Closes every context (and so every page) a test file left open in the shared browser. */
export async function closeContexts(browser: Browser | undefined) {
  await Promise.all((browser?.contexts() ?? []).map((context) => context.close()));
}

/**
 * The real server (or the built binary) on a free port with an empty data directory.
 * Builds the browser files first when they are missing (tests/built.ts). The browser opens it at
 * 127.0.0.1; `publicHost` names another host for PUBLIC_URL.
 */
export async function startServer(opts: { command?: string[]; cwd?: string; env?: Record<string, string>; publicHost?: string } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "offline-e2e-"));
  const port = freePort();
  const { proc, url } = await startServerProcess({
    port,
    command: opts.command,
    cwd: opts.cwd ?? root,
    env: { DATA_DIR: dataDir, PUBLIC_URL: `http://${opts.publicHost ?? "127.0.0.1"}:${port}`, DEMO_DATA: "true", ...opts.env },
  });
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
 * One server and the shared browser for a test file: `const env = serverAndBrowser()` at the
 * top, then `env.server.url` and `env.browser` inside the tests.
 */
export function serverAndBrowser(opts: Parameters<typeof startServer>[0] & { before?: () => void | Promise<void> } = {}) {
  const env = {} as { server: Awaited<ReturnType<typeof startServer>>; browser: Browser };
  beforeAll(async () => {
    await opts.before?.();
    env.server = await startServer(opts);
    env.browser = await sharedBrowser();
  });
  afterAll(async () => {
    await closeContexts(env.browser);
    await env.server?.stop();
  });
  return env;
}

/**
 * Waits until the page has loaded and every island on it has mounted and rendered (islands/loader.ts
 * marks each `data-mounted` once its first render is on the page): the page as a person sees it, for checks of layout and
 * accessibility. Unlike waiting for the network to fall idle, this costs no fixed half second.
 * An island mounts once it nears the viewport, so each one is scrolled to, as a person would,
 * and the page is scrolled back to its top. A hidden island (the create form's address while
 * "later" is chosen) mounts when it is shown: it is not waited for.
 */
export async function islandsRendered(page: Page) {
  await page.waitForLoadState("load");
  const islands = await page.locator("[data-island]").elementHandles();
  for (const island of islands) {
    if (!(await island.evaluate((e) => (e as HTMLElement).getClientRects().length > 0))) continue;
    await island.evaluate((e) => (e as HTMLElement).scrollIntoView({ block: "center" }));
    await page.waitForFunction((e) => (e as HTMLElement).dataset.mounted === "true" && (e as HTMLElement).childElementCount > 0, island);
  }
  if (islands.length) await page.evaluate(() => window.scrollTo(0, 0));
}

const axeScript = join(root, "node_modules/axe-core/axe.min.js");
let axeSource: string | undefined;

/** The rule sets every screen is checked against: WCAG 2.0, 2.1 and 2.2 A and AA, and best practices. */
const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];

/**
 * The rules a theme can change: the dark theme recolours the same markup, so a screen already
 * checked whole in the light theme needs only these again in the dark one.
 */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
  summary?: string;
}

/**
 * Runs axe-core (from node_modules, never a CDN) on the page as it is now and returns every
 * violation. Our Content-Security-Policy refuses inline scripts, so `page.addScriptTag` cannot
 * add it; the script is evaluated through the DevTools protocol instead, which the policy does
 * not govern, and the page itself is left as it is served.
 */
export async function axeFindings(page: Page, only: "everything" | "colours" = "everything"): Promise<AxeFinding[]> {
  axeSource ??= await Bun.file(axeScript).text();
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource);
  const runOnly = only === "colours" ? { type: "rule", values: COLOUR_RULES } : { type: "tag", values: AXE_TAGS };
  return page.evaluate(async (runOnly) => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[]; failureSummary?: string }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly, resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.map(String).join(" ")),
      summary: v.nodes[0]?.failureSummary,
    }));
  }, runOnly);
}

/**
 * Fails with a readable list when axe finds a serious or critical violation on the page, or when a
 * tap target is smaller than 44×44 px with its spacing (`smallTapTargets`).
 */
export async function expectAccessible(page: Page, label: string) {
  const serious = (await axeFindings(page)).filter((f) => f.impact === "serious" || f.impact === "critical");
  if (serious.length) {
    const lines = serious.map((f) => `  ${f.impact} ${f.id}: ${f.help}\n    ${f.targets.join("\n    ")}${f.summary ? `\n    ${f.summary.replace(/\n/g, "\n    ")}` : ""}`);
    throw new Error(`accessibility violations on ${label} (${page.url()}):\n${lines.join("\n")}`);
  }
  await expectTapTargets(page, label);
}

/** The smallest target a finger can be sure of (WCAG 2.5.5, Target Size (Enhanced)), in CSS pixels. */
export const TAP_TARGET_PX = 44;

export interface SmallTarget {
  selector: string;
  width: number;
  height: number;
  /** The other target inside the 44 px square around a small one, when that is why it fails. */
  crowdedBy?: string;
}

/**
 * Every visible tap target on the page smaller than 44×44 px once its spacing is counted, as the
 * rule below reads it:
 *
 * - Targets: links, buttons, inputs (but hidden ones), selects, textareas, summaries, and elements
 *   with a widget role (button, link, switch, tab, checkbox, radio, menuitem, option). A control
 *   wrapped in a label is measured as its label (the whole label takes the tap); a control that is
 *   visually hidden (the star rating's radios, drawn by their labels) is measured through the label
 *   that names it.
 * - A target at least 44 px wide and 44 px tall passes.
 * - A smaller one passes when the 44×44 px square centred on it overlaps no other target (its
 *   spacing makes up the size), ignoring targets it contains or is contained by, and targets on
 *   another layer (the fixed navigation bar over content that scrolls under it).
 * - Exempt: links inline in a sentence or a block of text (WCAG's inline exception: a link whose
 *   parent also holds text of its own), targets that are not shown (no box, hidden, inert, or
 *   clipped to a pixel like .sr-only), and targets wholly off screen sideways (the skip link until
 *   it has the focus).
 *
 * Each failure is named by a CSS selector short enough to find it in the views.
 */
export async function smallTapTargets(page: Page): Promise<SmallTarget[]> {
  return page.evaluate((min) => {
    const selectorOf = (e: Element): string => {
      if (e.id) return `#${CSS.escape(e.id)}`;
      const tag = e.tagName.toLowerCase();
      const attrs = ["name", "href", "type", "for", "role", "aria-label"]
        .filter((a) => e.hasAttribute(a))
        .map((a) => `[${a}="${(e.getAttribute(a) ?? "").slice(0, 40)}"]`)
        .join("");
      const text = (e.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 30);
      const parent = e.parentElement;
      const where = parent && parent !== document.body ? `${selectorOf(parent).split(" ").slice(-2).join(" ")} > ` : "";
      return `${where}${tag}${attrs}${text ? ` ("${text}")` : ""}`;
    };
    const shown = (e: Element) => {
      // checkVisibility also answers for the closed parts of a details element, which keep their boxes.
      if (!(e as HTMLElement).getClientRects().length || e.closest("[inert]") || !e.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true })) return false;
      const style = getComputedStyle(e);
      if (style.visibility === "hidden" || style.display === "none") return false;
      const r = e.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) return false;
      if (r.right <= 0 || r.left >= document.documentElement.scrollWidth) return false;
      return true;
    };
    const inlineInText = (e: Element) => {
      if (e.tagName !== "A" || !getComputedStyle(e).display.startsWith("inline")) return false;
      const parent = e.parentElement;
      if (!parent) return false;
      return Array.from(parent.childNodes).some((n) => n !== e && n.nodeType === Node.TEXT_NODE && (n.textContent ?? "").trim() !== "");
    };
    // The fixed element a target rides on (the navigation bar, a toast), or null for the page itself.
    const layerOf = (e: Element) => {
      for (let n: Element | null = e; n; n = n.parentElement) if (getComputedStyle(n).position === "fixed") return n;
      return null;
    };
    const candidates = document.querySelectorAll(
      'a[href], button, input:not([type="hidden"]), select, textarea, summary, [role="button"], [role="link"], [role="switch"], [role="tab"], [role="checkbox"], [role="radio"], [role="menuitem"], [role="option"]',
    );
    const targets = new Map<Element, DOMRect>();
    for (const e of candidates) {
      let target: Element = e;
      if (e instanceof HTMLInputElement || e instanceof HTMLSelectElement || e instanceof HTMLTextAreaElement) {
        const wrapping = e.closest("label");
        const naming = e.labels?.[0];
        if (wrapping) target = wrapping;
        else if (!shown(e) && naming) target = naming;
      }
      if (!shown(target) || inlineInText(target)) continue;
      targets.set(target, target.getBoundingClientRect());
    }
    const small: { selector: string; width: number; height: number; crowdedBy?: string }[] = [];
    const all = Array.from(targets);
    for (const [e, r] of all) {
      if (r.width >= min - 0.5 && r.height >= min - 0.5) continue;
      const cx = r.left + r.width / 2;
      const cy = r.top + r.height / 2;
      const square = { left: cx - min / 2, right: cx + min / 2, top: cy - min / 2, bottom: cy + min / 2 };
      const crowd = all.find(
        ([o, q]) =>
          o !== e && !o.contains(e) && !e.contains(o) && layerOf(o) === layerOf(e) && q.left < square.right - 0.5 && q.right > square.left + 0.5 && q.top < square.bottom - 0.5 && q.bottom > square.top + 0.5,
      );
      const tooSmallAlone = r.width < min - 0.5 || r.height < min - 0.5;
      if (tooSmallAlone && crowd) small.push({ selector: selectorOf(e), width: Math.round(r.width), height: Math.round(r.height), crowdedBy: selectorOf(crowd[0]) });
    }
    return small;
  }, TAP_TARGET_PX);
}

/** Fails with the list of targets smaller than 44×44 px, spacing counted (see `smallTapTargets`). */
export async function expectTapTargets(page: Page, label: string) {
  const small = await smallTapTargets(page);
  if (small.length) {
    const lines = small.map((s) => `  ${s.selector}: ${s.width}×${s.height} px${s.crowdedBy ? `, too near ${s.crowdedBy}` : ""}`);
    throw new Error(`tap targets under ${TAP_TARGET_PX}×${TAP_TARGET_PX} px on ${label} (${page.url()}):\n${lines.join("\n")}`);
  }
}
