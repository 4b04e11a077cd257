/**
 * Hearts pressed without a connection (docs/decisions/0055). The service worker queues the change
 * and answers htmx with 204 and `X-Offline-Queued`: nothing to swap, so the heart is flipped here,
 * as the server would have drawn it. When the connection comes back (or a page opens online), the
 * worker is asked to send what it queued.
 */
export function watchSaved() {
  document.body.addEventListener("htmx:afterRequest", (event) => {
    const detail = (event as CustomEvent).detail as { xhr?: XMLHttpRequest; pathInfo?: { requestPath?: string } };
    if (detail.xhr?.getResponseHeader("X-Offline-Queued") !== "1") return;
    const path = detail.pathInfo?.requestPath ?? "";
    const heart = document.querySelector<HTMLButtonElement>(`button[form="hearts"][formaction="${CSS.escape(path)}"]`);
    if (heart) flip(heart);
  });
  const flushQueued = () => navigator.serviceWorker?.controller?.postMessage({ type: "flush-saved" });
  window.addEventListener("online", flushQueued);
  if (navigator.onLine) flushQueued();
}

/** Pressed or not, named to match ("Saved", or "Save {title}" kept while pressed), the next change ready. */
function flip(heart: HTMLButtonElement) {
  const saved = heart.value === "1";
  const savedLabel = document.querySelector<HTMLFormElement>("form#hearts")?.dataset.savedLabel ?? "";
  if (saved) {
    heart.dataset.saveLabel = heart.getAttribute("aria-label") ?? "";
    heart.setAttribute("aria-label", savedLabel);
  } else {
    heart.setAttribute("aria-label", heart.dataset.saveLabel ?? "");
    delete heart.dataset.saveLabel;
  }
  heart.setAttribute("aria-pressed", saved ? "true" : "false");
  heart.value = saved ? "0" : "1";
}
