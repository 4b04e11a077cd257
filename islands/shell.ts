/**
 * The shell's behaviours that HTML alone cannot do: toasts (one at a time, 5 s, swipe right
 * to dismiss, F8 to focus), the theme toggle, the offline banner, the install card, image
 * fallbacks and the CSRF header on every htmx request.
 */

const TOAST_MS = 5000;
const SWIPE_PX = 50;
const INSTALL_DISMISSED_KEY = "install-dismissed";

interface ToastData {
  title: string;
  body?: string;
  variant?: "success" | "error";
}

function toastRegion() {
  return document.getElementById("toasts");
}

function dismiss(toast: HTMLElement) {
  toast.style.opacity = "0";
  setTimeout(() => toast.remove(), 200);
}

/** Auto-dismiss after 5 s (paused while hovered or focused), close button, swipe right. */
function arm(toast: HTMLElement) {
  if (toast.dataset.armed) return;
  toast.dataset.armed = "true";
  let timer = window.setTimeout(() => dismiss(toast), TOAST_MS);
  const pause = () => window.clearTimeout(timer);
  const resume = () => {
    window.clearTimeout(timer);
    timer = window.setTimeout(() => dismiss(toast), TOAST_MS);
  };
  toast.addEventListener("mouseenter", pause);
  toast.addEventListener("mouseleave", resume);
  toast.addEventListener("focusin", pause);
  toast.addEventListener("focusout", resume);
  toast.querySelector("[data-toast-close]")?.addEventListener("click", () => dismiss(toast));

  let startX: number | null = null;
  toast.addEventListener("pointerdown", (e) => {
    startX = e.clientX;
    toast.setPointerCapture?.(e.pointerId);
  });
  toast.addEventListener("pointermove", (e) => {
    if (startX === null) return;
    const dx = Math.max(0, e.clientX - startX);
    toast.style.transform = `translateX(${dx}px)`;
  });
  const end = (e: PointerEvent) => {
    if (startX === null) return;
    const dx = e.clientX - startX;
    startX = null;
    if (dx >= SWIPE_PX) {
      toast.style.transform = "translateX(120%)";
      dismiss(toast);
    } else toast.style.transform = "";
  };
  toast.addEventListener("pointerup", end);
  toast.addEventListener("pointercancel", end);
}

export function showToast(data: ToastData) {
  const region = toastRegion();
  if (!region) return;
  region.replaceChildren(); // one toast at a time
  const toast = document.createElement("div");
  toast.className = `toast toast-${data.variant === "error" ? "error" : "success"}`;
  toast.setAttribute("role", data.variant === "error" ? "alert" : "status");
  const text = document.createElement("div");
  text.className = "flex-1 min-w-0";
  const title = document.createElement("p");
  title.className = "font-semibold";
  title.textContent = data.title;
  text.append(title);
  if (data.body) {
    const body = document.createElement("p");
    body.className = "text-sm opacity-90";
    body.textContent = data.body;
    text.append(body);
  }
  const close = document.createElement("button");
  close.type = "button";
  close.className = "toast-close";
  close.dataset.toastClose = "";
  close.setAttribute("aria-label", region.dataset.dismissLabel ?? "Dismiss");
  close.textContent = "×";
  toast.append(text, close);
  region.append(toast);
  arm(toast);
}

function setTheme(theme: "light" | "dark") {
  document.documentElement.classList.toggle("dark", theme === "dark");
  try {
    localStorage.setItem("theme", theme);
  } catch {}
  for (const button of document.querySelectorAll<HTMLElement>("[data-theme-toggle]")) {
    button.setAttribute("aria-pressed", String(theme === "dark"));
  }
}

function watchOnline() {
  const banner = document.getElementById("offline-banner");
  if (!banner) return;
  const update = () => (banner.hidden = navigator.onLine);
  window.addEventListener("online", update);
  window.addEventListener("offline", update);
  update();
}

interface InstallEvent extends Event {
  prompt(): Promise<void>;
  userChoice: Promise<{ outcome: "accepted" | "dismissed" }>;
}

function watchInstall(mountIslands: (root?: ParentNode) => Promise<void>) {
  let deferred: InstallEvent | null = null;
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
    const slot = document.getElementById("install-slot");
    if (!slot || dismissed() || window.matchMedia?.("(display-mode: standalone)").matches) return;
    if (slot.querySelector("[data-island]")) return;
    const island = document.createElement("div");
    island.dataset.island = "InstallPrompt";
    island.dataset.props = slot.dataset.texts ?? "{}";
    slot.append(island);
    void mountIslands(slot);
  });
  document.addEventListener("install:accept", async () => {
    if (!deferred) return;
    await deferred.prompt?.();
    deferred = null;
  });
  document.addEventListener("install:dismiss", () => {
    try {
      localStorage.setItem(INSTALL_DISMISSED_KEY, "true");
    } catch {}
  });
  window.addEventListener("appinstalled", () => document.getElementById("install-slot")?.replaceChildren());
}

/** Images inside .img-frame show the spec's 'Failed to load image' when they cannot load. */
function watchImages() {
  document.addEventListener(
    "error",
    (event) => {
      const img = event.target;
      if (img instanceof HTMLImageElement) img.closest(".img-frame")?.classList.add("is-failed");
    },
    true,
  );
}

export function startShell(mountIslands: (root?: ParentNode) => Promise<void>) {
  for (const toast of document.querySelectorAll<HTMLElement>("#toasts .toast")) arm(toast);

  document.addEventListener("keydown", (event) => {
    if (event.key === "F8") {
      event.preventDefault();
      toastRegion()?.focus();
    }
  });

  document.addEventListener("click", (event) => {
    const toggle = (event.target as Element | null)?.closest?.("[data-theme-toggle]");
    if (!toggle) return;
    setTheme(document.documentElement.classList.contains("dark") ? "light" : "dark");
  });
  setTheme(document.documentElement.classList.contains("dark") ? "dark" : "light");

  // htmx responses can raise a toast with `HX-Trigger: {"toast": {...}}`.
  document.body.addEventListener("toast", (event) => {
    const detail = (event as CustomEvent).detail as ToastData & { value?: ToastData };
    showToast(detail.value ?? detail);
  });
  // Keep the CSRF token current for htmx requests even after a swap replaced <body> attributes.
  document.body.addEventListener("htmx:configRequest", (event) => {
    const token = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content;
    const detail = (event as CustomEvent).detail as { headers: Record<string, string> };
    if (token) detail.headers["X-CSRF-Token"] = token;
  });

  watchOnline();
  watchInstall(mountIslands);
  watchImages();

  if ("serviceWorker" in navigator && location.protocol !== "file:") {
    navigator.serviceWorker.register("/sw.js").catch(() => {});
  }
}
