import type { Translate } from "../../lib/i18n";

/**
 * The heart: saves an activity or takes it out of Saved (docs/decisions/0055). A plain POST form
 * that comes back to `back` without JavaScript; with htmx it swaps just itself for the answer's
 * heart. It is a toggle button (`aria-pressed`), named "Save {title}" or "Saved", 44 px square.
 *
 * Whether it is pressed is the viewer's own: it is never drawn inside a kept part (pages kept
 * for everyone leave a hole for it, lib/html/fragments.ts `rememberAround`), and it carries the
 * viewer's CSRF token itself. The page script (islands/shell/saved.ts) flips it in place when the
 * service worker answers that the change was queued offline: both labels are on the form for that.
 */
export interface HeartProps {
  view: { t: Translate; csrf: string };
  activityId: string;
  title: string;
  saved: boolean;
  /** The page to come back to after a plain post: the page the heart is on. */
  back: string;
  /** On a card's photo (over it) or beside a title. */
  place?: "card" | "page" | "list";
}

export function Heart({ view, activityId, title, saved, back, place = "page" }: HeartProps) {
  const { t } = view;
  const action = `/saved/${encodeURIComponent(activityId)}`;
  const save = t("saved.save", { title });
  const savedLabel = t("saved.saved");
  return (
    <form
      method="post"
      action={action}
      hx-post={action}
      hx-target="this"
      hx-swap="outerHTML"
      class={`heart-form heart-${place}`}
      data-heart
      data-save-label={save}
      data-saved-label={savedLabel}
    >
      <input type="hidden" name="_csrf" value={view.csrf} />
      <input type="hidden" name="save" value={saved ? "0" : "1"} />
      <input type="hidden" name="back" value={back} />
      <input type="hidden" name="place" value={place} />
      <button type="submit" class="heart" aria-pressed={saved ? "true" : "false"} aria-label={saved ? savedLabel : save}>
        <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
          <path d="M12 20.7 4.6 13.5a4.8 4.8 0 0 1 0-6.9 5 5 0 0 1 7 0l.4.4.4-.4a5 5 0 0 1 7 0 4.8 4.8 0 0 1 0 6.9Z" />
        </svg>
      </button>
    </form>
  );
}

/** The hearts of a page of cards: which of them the viewer saved, and the page to come back to. */
export interface CardHearts {
  saved: ReadonlySet<string>;
  back: string;
}

/** Each card's heart, in the cards' order, as text to put in the holes a kept list leaves for them. */
export function cardHearts(view: { t: Translate; csrf: string }, cards: readonly { id: string; title: string }[], hearts: CardHearts | undefined): string[] {
  if (!hearts) return cards.map(() => "");
  return cards.map((card) => String(<Heart view={view} activityId={card.id} title={card.title} saved={hearts.saved.has(card.id)} back={hearts.back} place="card" />));
}

/** Kept text and the viewer's own parts between: `kept` has one more entry than `own`. */
export function between(kept: readonly string[], own: readonly string[]): string {
  let out = kept[0] ?? "";
  for (let i = 0; i < own.length; i++) out += own[i]! + (kept[i + 1] ?? "");
  return out;
}
