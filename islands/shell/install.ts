/** The install card (server-rendered, hidden) and the browser's install prompt. */
const INSTALL_DISMISSED_KEY = "install-dismissed";

interface InstallEvent extends Event {
  prompt(): Promise<void>;
  userChoice: Promise<{ outcome: "accepted" | "dismissed" }>;
}

/**
 * The install card, rendered hidden by the server: shown when the browser says the app can be
 * installed (unless dismissed before or already running installed); "Install" asks the browser's
 * own prompt, "Not now" is remembered.
 */
export function watchInstall() {
  let deferred: InstallEvent | null = null;
  const card = () => document.getElementById("install-card");
  const dismissed = () => {
    try {
      return localStorage.getItem(INSTALL_DISMISSED_KEY) === "true";
    } catch {
      return false;
    }
  };
  window.addEventListener("beforeinstallprompt", (event) => {
    event.preventDefault();
    deferred = event as InstallEvent;
    const el = card();
    if (!el || dismissed() || window.matchMedia?.("(display-mode: standalone)").matches) return;
    el.hidden = false;
  });
  document.addEventListener("click", (event) => {
    const button = (event.target as Element | null)?.closest?.<HTMLElement>("#install-card [data-install]");
    if (!button) return;
    const el = card();
    if (el) el.hidden = true;
    if (button.dataset.install === "accept") {
      void deferred?.prompt?.();
      deferred = null;
    } else {
      try {
        localStorage.setItem(INSTALL_DISMISSED_KEY, "true");
      } catch {}
    }
  });
  window.addEventListener("appinstalled", () => {
    const el = card();
    if (el) el.hidden = true;
  });
}
