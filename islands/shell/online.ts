/**
 * The offline banner follows the connection. On the offline page (shown by the service worker
 * for a page it has not kept), "Try again" and the connection coming back load the page asked for.
 */
export function watchOnline() {
  const banner = document.getElementById("offline-banner");
  if (banner) {
    const update = () => (banner.hidden = navigator.onLine);
    window.addEventListener("online", update);
    window.addEventListener("offline", update);
    update();
  }
  if (document.querySelector("[data-offline-page]")) {
    // Not while the person is already on their way elsewhere (a link they followed).
    let leaving = false;
    window.addEventListener("beforeunload", () => (leaving = true));
    window.addEventListener("online", () => {
      if (navigator.onLine && !leaving) location.reload();
    });
  }
  document.addEventListener("click", (event) => {
    if ((event.target as Element | null)?.closest?.("[data-reload]")) location.reload();
  });
}
