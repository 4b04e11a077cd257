/**
 * Carousels: a scroll-snap strip (swipeable without script) with previous/next buttons that
 * wrap around, dots and an "n / total" counter kept in step with the visible slide.
 */
export function watchCarousels(root: ParentNode = document) {
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
