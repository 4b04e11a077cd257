/**
 * The page script: the island loader plus the shell's small behaviours (./shell). It never
 * imports React itself: an island's module (and React with it) is fetched only when an element
 * with data-island is on the page, including elements that arrive in an htmx swap.
 *
 * An island mounts when it is needed (decision 0039): once it is within a screen's height of
 * the viewport, after the page has painted and the browser is idle; at once when someone
 * focuses or touches its fallback before that. A map at the foot of the page so costs nothing
 * until the person scrolls towards it, and no island's mount lands in the same task as the
 * page's own start-up.
 */
import { startShell } from "./shell";

type Mount = (element: HTMLElement, props: never) => void | Promise<void>;

const registry: Record<string, () => Promise<{ mount: Mount }>> = {
  PhotoGrid: () => import("./PhotoGrid"),
  ActivityMap: () => import("./ActivityMap"),
  AddressInput: () => import("./AddressInput"),
  ActivityWizard: () => import("./ActivityWizard"),
  DateTimePicker: () => import("./DateTimePicker"),
  // Stripe's card form: its chunk (and Stripe.js with it) loads only on the payment pages.
  StripePayment: () => import("./StripePayment"),
  // The conversation's chat panel (live through /ws).
  Chat: () => import("./Chat"),
};

/** How far beyond the viewport an island starts loading: one screen's height above and below. */
const AHEAD = "100% 0px";
const SELECTOR = "[data-island]:not([data-mounted])";

/** Resolves when the browser has nothing more urgent to do (or after at most half a second). */
const idle = () =>
  new Promise<void>((resolve) => {
    if ("requestIdleCallback" in window) requestIdleCallback(() => resolve(), { timeout: 500 });
    else setTimeout(resolve, 50);
  });

let observer: IntersectionObserver | null = null;
/** The islands waiting to come into view, each with what stops its waiting. */
const waiting = new WeakMap<HTMLElement, () => void>();
/** The islands mounting or mounted (`data-mounted` is set once the island has rendered). */
const claimed = new WeakSet<HTMLElement>();

/** Starts watching an island: it mounts when it nears the viewport, or at once when used. */
function watch(element: HTMLElement) {
  if (waiting.has(element) || claimed.has(element)) return;
  if (typeof IntersectionObserver === "undefined") return void mountIsland(element, true);
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const entry of entries) if (entry.isIntersecting) void mountIsland(entry.target as HTMLElement, false);
    },
    { rootMargin: AHEAD },
  );
  const used = () => void mountIsland(element, true);
  element.addEventListener("focusin", used, { capture: true });
  element.addEventListener("pointerdown", used, { capture: true });
  waiting.set(element, () => {
    observer!.unobserve(element);
    element.removeEventListener("focusin", used, { capture: true });
    element.removeEventListener("pointerdown", used, { capture: true });
  });
  observer.observe(element);
}

/**
 * Mounts one island. `now`: someone is using it, so no waiting for an idle moment. If the
 * fallback had the focus and the island's first render took it away with the fallback, the
 * focus goes to the island's matching control (same id, else same name), else its first one.
 */
async function mountIsland(element: HTMLElement, now: boolean) {
  waiting.get(element)?.();
  waiting.delete(element);
  if (claimed.has(element) || element.dataset.mounted) return;
  const name = element.dataset.island ?? "";
  const load = registry[name];
  if (!load) {
    console.error(`Unknown island: ${name}`);
    return;
  }
  claimed.add(element);
  let focused: Element | null = element.contains(document.activeElement) ? document.activeElement : null;
  const remember = (event: FocusEvent) => {
    focused = event.target as Element;
  };
  element.addEventListener("focusin", remember);
  try {
    const props = JSON.parse(element.dataset.props ?? "{}") as never;
    const loading = load();
    if (!now) await idle();
    const { mount } = await loading;
    await mount(element, props);
    element.dataset.mounted = "true";
    if (focused && !focused.isConnected && (!document.activeElement || document.activeElement === document.body)) focusLike(element, focused);
  } catch (err) {
    claimed.delete(element);
    console.error(`Island ${name} failed to mount`, err);
  } finally {
    element.removeEventListener("focusin", remember);
  }
}

function focusLike(island: HTMLElement, old: Element) {
  const controls = [...island.querySelectorAll<HTMLElement>("input:not([type=hidden]), select, textarea, button, a[href], [tabindex]:not([tabindex='-1'])")];
  const name = old.getAttribute("name");
  const match =
    (old.id && controls.find((c) => c.id === old.id)) ||
    (name && controls.find((c) => c.getAttribute("name") === name && (c.getAttribute("type") !== "radio" || c.getAttribute("value") === old.getAttribute("value")))) ||
    controls[0];
  match?.focus();
}

/**
 * Finds the islands in `root` (the whole page, or what an htmx swap brought) that are not yet
 * mounted and has each mount when it is needed.
 */
export async function mountIslands(root: ParentNode = document) {
  const elements = [...root.querySelectorAll<HTMLElement>(SELECTOR)];
  // htmx:load fires on the swapped-in element itself, which may be the island.
  if (root instanceof HTMLElement && root.matches(SELECTOR)) elements.unshift(root);
  for (const element of elements) watch(element);
}

declare global {
  interface Window {
    offline?: { mountIslands: typeof mountIslands };
  }
}

window.offline = { mountIslands };
document.addEventListener("htmx:load", (event) => void mountIslands(event.target as ParentNode));
startShell();
void mountIslands();
