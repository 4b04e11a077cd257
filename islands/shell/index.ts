/**
 * The shell's behaviours that HTML alone cannot do, one small module each: toasts, the theme
 * toggle, the offline banner, the install card, image fallbacks, form readiness, the focused
 * alert of a refused form, carousels, copy buttons, the CSRF header on every htmx request, hearts
 * pressed offline, and the service worker. No React: every page
 * loads only this (and the push notifications card its own small module).
 */
import { focusAlert } from "./alerts";
import { watchCarousels } from "./carousels";
import { watchCopyButtons } from "./copy";
import { watchForms } from "./forms";
import { watchImages } from "./images";
import { watchInstall } from "./install";
import { watchOnline } from "./online";
import { watchSaved } from "./saved";
import { setTheme } from "./theme";
import { arm, showToast, toastRegion, type ToastData } from "./toasts";

export { showToast };

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
  watchSaved();
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
  focusAlert();

  if ("serviceWorker" in navigator && location.protocol !== "file:") {
    navigator.serviceWorker.register("/sw.js").catch(() => {});
  }
  // The push notifications card (Settings) brings its own script, so no other page loads it.
  const pushCard = document.getElementById("push-card");
  if (pushCard) void import("./push").then(({ watchPush }) => watchPush(pushCard));
}
