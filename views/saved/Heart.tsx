import { escapeHtml } from "@kitajs/html";
import type { Translate } from "../../lib/i18n";

/**
 * The heart (docs/decisions/0055): saves an activity, or takes it out of Saved. A toggle button
 * (`aria-pressed`), named "Save {title}" or "Saved", 44 px square, drawn by the stylesheet.
 *
 * A browse page has twenty of them, so each is one button and nothing more: it submits the page's
 * one hearts form (`HeartsForm`, which holds the CSRF token) to its own address (`formaction`),
 * saying the state it asks for (`save` 1 or 0). Without JavaScript that is a plain POST that comes
 * back to the page it was sent from; with htmx the answer is the new heart, swapped for this one
 * alone (the server retargets it, src/web/saved/routes.tsx).
 *
 * Whether it is pressed is the viewer's own: it is never drawn inside a kept part (pages kept for
 * everyone leave a hole for it, lib/html/fragments.ts `rememberAround`). The page script
 * (islands/shell/saved.ts) flips it in place when the service worker answers that the change was
 * queued offline: a pressed heart keeps the other name for that in `data-save-label`, the form
 * keeps "Saved".
 */
export const HEARTS_FORM_ID = "hearts";

/** The address a heart posts to, and that finds it again in the page. */
export const heartAction = (activityId: string) => `/saved/${encodeURIComponent(activityId)}`;

export function Heart({ t, activityId, title, saved }: { t: Translate; activityId: string; title: string; saved: boolean }): string {
  const save = escapeHtml(t("saved.save", { title }));
  // Written out rather than through JSX: a browse page draws twenty for each viewer, and the JSX
  // runtime's generic attribute walk was most of their cost. Every value is escaped as the
  // runtime would (the address is an encoded id; the names are escaped here).
  return saved
    ? `<button type="submit" form="${HEARTS_FORM_ID}" formaction="${heartAction(activityId)}" name="save" value="0" aria-pressed="true" aria-label="${escapeHtml(t("saved.saved"))}" data-save-label="${save}"></button>`
    : `<button type="submit" form="${HEARTS_FORM_ID}" formaction="${heartAction(activityId)}" name="save" value="1" aria-pressed="false" aria-label="${save}"></button>`;
}

/**
 * The page's one form the hearts submit (`form="hearts"`): the viewer's CSRF token for a post
 * without JavaScript (htmx sends it as a header), the page to come back to, and the pressed
 * heart's name. It answers nothing
 * itself (`hx-swap="none"`): the server's answer says which heart it replaces.
 */
export function HeartsForm({ view, back }: { view: { t: Translate; csrf: string }; back: string }): string {
  return String(
    <form id={HEARTS_FORM_ID} method="post" action="/saved" hx-post="/saved" hx-swap="none" data-saved-label={view.t("saved.saved")}>
      <input type="hidden" name="_csrf" value={view.csrf} />
      <input type="hidden" name="back" value={back} />
    </form>,
  );
}

/** Which of a page's cards the viewer saved, and the page (with its filters) a post without JavaScript comes back to. */
export interface CardHearts {
  saved: ReadonlySet<string>;
  back: string;
}

/** Each card's heart, in the cards' order, as text to put in the holes a kept list leaves for them. */
export function cardHearts(view: { t: Translate }, cards: readonly { id: string; title: string }[], hearts: CardHearts | undefined): string[] {
  if (!hearts) return cards.map(() => "");
  return cards.map((card) => Heart({ t: view.t, activityId: card.id, title: card.title, saved: hearts.saved.has(card.id) }));
}
