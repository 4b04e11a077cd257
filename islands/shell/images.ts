/** Images inside .img-frame show the spec's 'Failed to load image' when they cannot load. */
export function watchImages() {
  document.addEventListener(
    "error",
    (event) => {
      const img = event.target;
      if (img instanceof HTMLImageElement) img.closest(".img-frame")?.classList.add("is-failed");
    },
    true,
  );
}
