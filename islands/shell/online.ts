/** The offline banner follows the connection. */
export function watchOnline() {
  const banner = document.getElementById("offline-banner");
  if (!banner) return;
  const update = () => (banner.hidden = navigator.onLine);
  window.addEventListener("online", update);
  window.addEventListener("offline", update);
  update();
}
