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

/**
 * The install card, rendered hidden by the server: shown when the browser says the app can be
 * installed (unless dismissed before or already running installed); "Install" asks the browser's
 * own prompt, "Not now" is remembered.
 */
function watchInstall() {
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

/**
 * Forms marked data-validate keep their submit button disabled until the form is valid: its
 * inputs' own constraints, lists that must not be empty (data-list-required, a JSON array), and
 * no pending or failed check inside it (data-blocking="true", e.g. the username check).
 */
function formReady(form: HTMLFormElement): boolean {
  if (!form.checkValidity()) return false;
  for (const input of form.querySelectorAll<HTMLInputElement>("input[data-list-required]")) {
    try {
      if (!(JSON.parse(input.value || "[]") as unknown[]).length) return false;
    } catch {
      return false;
    }
  }
  if (form.querySelector('[data-blocking="true"]')) return false;
  // Forms that only make sense with a change (the username screen) wait for one.
  if (form.hasAttribute("data-require-change")) {
    const fields = [...form.querySelectorAll<HTMLInputElement>("input[data-initial]")];
    if (fields.every((f) => f.value === f.dataset.initial)) return false;
  }
  return true;
}

function refreshForm(form: HTMLFormElement) {
  const ready = formReady(form);
  for (const button of form.querySelectorAll<HTMLButtonElement>("button[type=submit][data-needs-valid]")) button.disabled = !ready;
}

function watchForms() {
  const refreshAll = (root: ParentNode = document) => {
    for (const form of root.querySelectorAll<HTMLFormElement>("form[data-validate]")) refreshForm(form);
  };
  const onChange = (event: Event) => {
    const target = event.target as HTMLElement | null;
    if (target instanceof HTMLInputElement && target.hasAttribute("data-lowercase")) {
      const { selectionStart, selectionEnd } = target;
      const lower = target.value.toLowerCase();
      if (lower !== target.value) {
        target.value = lower;
        target.setSelectionRange(selectionStart, selectionEnd);
      }
    }
    // Live character counters ("n/500 characters").
    const counterId = target?.dataset?.counter;
    const counter = counterId ? document.getElementById(counterId) : null;
    if (counter && (target instanceof HTMLTextAreaElement || target instanceof HTMLInputElement)) {
      counter.textContent = (counter.dataset.counterTemplate ?? "{count}").replace("{count}", String(target.value.length));
    }
    const form = target?.closest?.("form[data-validate]");
    if (form instanceof HTMLFormElement) refreshForm(form);
  };
  document.addEventListener("input", onChange);
  document.addEventListener("change", onChange);
  // A check in flight blocks the form until its answer arrives (htmx swaps the status in).
  document.addEventListener("htmx:beforeRequest", (event) => {
    const elt = (event as CustomEvent).detail?.elt as HTMLElement | undefined;
    const statusId = elt?.dataset.checkStatus;
    const status = statusId ? document.getElementById(statusId) : null;
    if (status) {
      status.dataset.blocking = "true";
      status.textContent = status.dataset.checkingText ?? "";
      const form = status.closest("form");
      if (form) refreshForm(form);
    }
  });
  document.addEventListener("htmx:afterSettle", (event) => {
    const form = ((event as CustomEvent).detail?.elt as HTMLElement | undefined)?.closest?.("form[data-validate]");
    if (form instanceof HTMLFormElement) refreshForm(form);
  });
  // The busy text ("Creating Profile...") replaces the button's while the form is sent.
  document.addEventListener("submit", (event) => {
    const form = event.target as HTMLFormElement;
    const button = form.querySelector<HTMLButtonElement>("button[type=submit][data-busy-text]");
    if (!button || event.defaultPrevented) return;
    setTimeout(() => {
      button.textContent = button.dataset.busyText ?? button.textContent;
      button.disabled = true;
      button.setAttribute("aria-busy", "true");
    });
  });
  refreshAll();
  document.addEventListener("htmx:load", (event) => refreshAll((event.target as ParentNode) ?? document));
}

/**
 * Carousels: a scroll-snap strip (swipeable without script) with previous/next buttons that
 * wrap around, dots and an "n / total" counter kept in step with the visible slide.
 */
function watchCarousels(root: ParentNode = document) {
  for (const carousel of root.querySelectorAll<HTMLElement>("[data-carousel]:not([data-carousel-ready])")) {
    carousel.dataset.carouselReady = "true";
    const track = carousel.querySelector<HTMLElement>("[data-carousel-track]");
    if (!track) continue;
    const slides = () => [...track.children] as HTMLElement[];
    const current = () => Math.round(track.scrollLeft / Math.max(1, track.clientWidth));
    const go = (index: number) => {
      const n = slides().length;
      const target = ((index % n) + n) % n;
      track.scrollTo({ left: target * track.clientWidth, behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth" });
    };
    const update = () => {
      const i = current();
      const counter = carousel.querySelector("[data-carousel-counter]");
      if (counter) counter.textContent = `${i + 1} / ${slides().length}`;
      carousel.querySelectorAll<HTMLElement>("[data-carousel-dot]").forEach((dot, k) => dot.setAttribute("aria-current", String(k === i)));
    };
    carousel.querySelector("[data-carousel-prev]")?.addEventListener("click", () => go(current() - 1));
    carousel.querySelector("[data-carousel-next]")?.addEventListener("click", () => go(current() + 1));
    carousel.querySelectorAll<HTMLElement>("[data-carousel-dot]").forEach((dot, k) => dot.addEventListener("click", () => go(k)));
    track.addEventListener("scroll", () => requestAnimationFrame(update), { passive: true });
    update();
  }
}

/** Buttons that copy a link (the profile's share button). */
function watchCopyButtons() {
  document.addEventListener("click", async (event) => {
    const button = (event.target as Element | null)?.closest?.<HTMLElement>("[data-copy]");
    if (!button) return;
    const url = new URL(button.dataset.copy ?? "", location.origin).toString();
    try {
      if (navigator.share && button.dataset.share === "true") await navigator.share({ url });
      else await navigator.clipboard.writeText(url);
      showToast({ title: button.dataset.copiedText ?? url, variant: "success" });
    } catch (err) {
      if ((err as Error)?.name === "AbortError") return;
      showToast({ title: button.dataset.copyFailedText ?? "", variant: "error" });
    }
  });
}

export function startShell() {
  for (const toast of document.querySelectorAll<HTMLElement>("#toasts .toast")) arm(toast);
  // A toast an island left before moving to another page (the wizard's "Activity created").
  try {
    const pending = sessionStorage.getItem("toast");
    if (pending) {
      sessionStorage.removeItem("toast");
      showToast(JSON.parse(pending) as ToastData);
    }
  } catch {}

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
  watchForms();
  watchCarousels();
  document.addEventListener("htmx:load", (event) => watchCarousels(event.target as ParentNode));
  // "Back" that returns where the person came from, with the link's own href as the fallback.
  document.addEventListener("click", (event) => {
    const link = (event.target as Element | null)?.closest?.<HTMLAnchorElement>("a[data-history-back]");
    if (link && history.length > 1 && document.referrer.startsWith(location.origin)) {
      event.preventDefault();
      history.back();
    }
  });
  watchCopyButtons();
  watchInstall();
  watchImages();

  if ("serviceWorker" in navigator && location.protocol !== "file:") {
    navigator.serviceWorker.register("/sw.js").catch(() => {});
  }
}
