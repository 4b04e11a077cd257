/**
 * Images inside .img-frame show the spec's 'Failed to load image' when they cannot load. The
 * `error` listener catches failures from now on; an image that failed before this script ran
 * (the page script is a deferred module, and inline `onerror` handlers are refused by our
 * Content-Security-Policy) is found by its state: loaded (`complete`) but with no pixels.
 */
function markFailed(img: HTMLImageElement) {
  const frame = img.closest<HTMLElement>(".img-frame");
  if (!frame) return;
  // A list of cards holds the text once for all of them (browse); the frame shows it.
  const text = frame.closest<HTMLElement>("[data-failed-text]")?.dataset.failedText;
  if (text !== undefined) frame.dataset.failedText = text;
  frame.classList.add("is-failed");
}

function markAlreadyFailed(root: ParentNode) {
  for (const img of root.querySelectorAll<HTMLImageElement>(".img-frame img")) {
    // A lazy image not fetched yet is not `complete`; one with an address that failed is, at width 0.
    if (img.complete && img.naturalWidth === 0 && img.getAttribute("src")) markFailed(img);
  }
}

export function watchImages() {
  document.addEventListener(
    "error",
    (event) => {
      const img = event.target;
      if (img instanceof HTMLImageElement) markFailed(img);
    },
    true,
  );
  markAlreadyFailed(document);
  document.addEventListener("htmx:load", (event) => markAlreadyFailed((event.target as ParentNode) ?? document));
}
