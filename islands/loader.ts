/**
 * The page script: the island loader plus the shell's small behaviours (./shell). It never
 * imports React itself: an island's module (and React with it) is fetched only when an element
 * with data-island is on the page, including elements that arrive in an htmx swap.
 */
import { startShell } from "./shell";

type Mount = (element: HTMLElement, props: never) => void;

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

export async function mountIslands(root: ParentNode = document) {
  const selector = "[data-island]:not([data-mounted])";
  const elements = [...root.querySelectorAll<HTMLElement>(selector)];
  // htmx:load fires on the swapped-in element itself, which may be the island.
  if (root instanceof HTMLElement && root.matches(selector)) elements.unshift(root);
  for (const element of elements) {
    const name = element.dataset.island ?? "";
    const load = registry[name];
    if (!load) {
      console.error(`Unknown island: ${name}`);
      continue;
    }
    element.dataset.mounted = "true";
    try {
      const props = JSON.parse(element.dataset.props ?? "{}") as never;
      const { mount } = await load();
      mount(element, props);
    } catch (err) {
      delete element.dataset.mounted;
      console.error(`Island ${name} failed to mount`, err);
    }
  }
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
