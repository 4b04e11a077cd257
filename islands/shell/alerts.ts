/**
 * A form alert marked to take the focus (views/components/Fields.tsx `FormAlert focus`: a refused
 * card) is brought to the middle of the screen and focused when the page loads. `autofocus`
 * already focuses it without script, but only scrolls it to the nearest edge, and not every
 * browser honours it on a non-form element; this makes both sure.
 */
export function focusAlert() {
  const alert = document.querySelector<HTMLElement>("[data-focus-alert]");
  if (!alert) return;
  if (document.activeElement !== alert) alert.focus({ preventScroll: true });
  alert.scrollIntoView({ block: "center" });
}
