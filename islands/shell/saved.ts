/**
 * Hearts pressed without a connection (docs/decisions/0055). The service worker queues the change
 * and answers htmx with 204 and `X-Offline-Queued`: nothing to swap, so the heart is flipped here,
 * with the labels its form carries. When the connection comes back (or a page opens online), the
 * worker is asked to send what it queued.
 */
export function watchSaved() {
  document.body.addEventListener("htmx:afterRequest", (event) => {
    const detail = (event as CustomEvent).detail as { xhr?: XMLHttpRequest; elt?: Element };
    const form = detail.elt?.closest?.<HTMLFormElement>("form[data-heart]");
    if (!form || detail.xhr?.getResponseHeader("X-Offline-Queued") !== "1") return;
    flip(form);
  });
  const flushQueued = () => navigator.serviceWorker?.controller?.postMessage({ type: "flush-saved" });
  window.addEventListener("online", flushQueued);
  if (navigator.onLine) flushQueued();
}

/** The heart as the server would draw it after the change: pressed or not, named to match, the next change ready. */
function flip(form: HTMLFormElement) {
  const button = form.querySelector<HTMLButtonElement>("button.heart");
  const next = form.querySelector<HTMLInputElement>('input[name="save"]');
  if (!button || !next) return;
  const saved = next.value === "1";
  button.setAttribute("aria-pressed", saved ? "true" : "false");
  button.setAttribute("aria-label", (saved ? form.dataset.savedLabel : form.dataset.saveLabel) ?? "");
  next.value = saved ? "0" : "1";
}
