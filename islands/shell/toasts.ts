/** Toasts: one at a time, 5 s (paused while hovered or focused), close button, swipe right, F8 to focus. */
const TOAST_MS = 5000;
const SWIPE_PX = 50;

export interface ToastData {
  title: string;
  body?: string;
  variant?: "success" | "error";
}

export function toastRegion() {
  return document.getElementById("toasts");
}

function dismiss(toast: HTMLElement) {
  toast.style.opacity = "0";
  setTimeout(() => toast.remove(), 200);
}

/** Auto-dismiss after 5 s (paused while hovered or focused), close button, swipe right. */
export function arm(toast: HTMLElement) {
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
    // Capturing the pointer would send the click to the toast, not to its close button.
    if ((e.target as Element).closest("[data-toast-close]")) return;
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
