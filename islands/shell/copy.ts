import { showToast } from "./toasts";

/** Buttons that copy a link (the profile's share button). */
export function watchCopyButtons() {
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
