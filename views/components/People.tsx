import { formatMonthYear } from "../../lib/time";
import { nameAndAge } from "../../lib/labels";
import type { ActivityCard } from "../../src/activities/queries";
import { priceParts } from "../activities/Price";
import type { ReviewView } from "../../src/reviews/service";
import { photoUrl } from "../../src/uploads/service";
import type { View } from "../../src/shell/view";
import { Icon } from "./icons";


/**
 * The name a person is shown under: theirs, or "Deleted user" once their account is deleted (its
 * row keeps no name, docs/decisions/0057). Only for people on the other side of a booking, a
 * message or a review, who always have a name while their account exists.
 */
export const shownName = (view: Pick<View, "t">, name: string | null | undefined) => name || view.t("people.deletedUser");

/** A deleted account, as the other side's history reads it: no name, no username (so no profile link). */
export const isDeletedPerson = (p: { firstName?: string | null; name?: string | null; username?: string | null }) => !p.username && !(p.firstName ?? p.name);

/**
 * A titled list of chips (a person's interests, their languages), or nothing when the list is
 * empty. `level` is the title's heading level in the page it sits in.
 */
export function ChipSection({ title, items, level = 2 }: { title: string; items: string[]; level?: 2 | 3 }) {
  if (!items.length) return "";
  const Heading = level === 2 ? "h2" : "h3";
  return (
    <section class={level === 2 ? "mt-6" : "mt-5"}>
      <Heading class={level === 2 ? "mb-2 text-lg font-semibold" : "mb-2 font-semibold"} safe>
        {title}
      </Heading>
      <ul class="flex flex-wrap gap-2">
        {items.map((item) => (
          <li class="rounded-full bg-sunken px-3 py-1 text-sm" safe>
            {item}
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * A round photo, or the person's initial when there is none. `size: "css"`: the stylesheet sizes
 * it (the browse cards, twenty to a page, public/base.css), so the page does not repeat it.
 */
export function Avatar({ photo, name, size = 40 }: { photo?: string | null; name?: string | null; size?: number | "css" }) {
  const px = size === "css" ? undefined : String(size);
  const style = px && `width:${px}px;height:${px}px`;
  // A deleted person has neither photo nor name: a plain silhouette, never a letter.
  if (!photo && !name) {
    return (
      <span class="flex shrink-0 items-center justify-center rounded-full bg-sunken text-muted" style={style} aria-hidden="true" data-deleted-avatar>
        <Icon name="user" class="w-1/2 h-1/2" />
      </span>
    );
  }
  return photo ? (
    <img src={photoUrl(photo, "thumb")!} alt="" width={px} height={px} class="avatar" />
  ) : (
    <span class="flex shrink-0 items-center justify-center rounded-full bg-brand-100 font-semibold text-brand-700" style={style} aria-hidden="true" safe>
      {(name ?? "?").slice(0, 1).toUpperCase()}
    </span>
  );
}

export function Stars({ value, label }: { value: number; label: string }) {
  const full = Math.round(value);
  return (
    // amber-700 on white is 5.0:1 and amber-400 on the dark surface 11:1 (amber-500 was 2.15:1 on white).
    <span class="text-amber-700 dark:text-amber-400" role="img" aria-label={label}>
      {("★".repeat(full) + "☆".repeat(Math.max(0, 5 - full))) as "safe"}
    </span>
  );
}

/**
 * A swipeable photo strip with wrap-around buttons, dots and an "n / total" counter. The strip
 * takes keyboard focus so arrow keys scroll it; each slide is a labelled group, and each dot a
 * 24 px button naming the photo it shows, the shown one marked aria-current.
 */
export function Carousel({ view, photos, label }: { view: Pick<View, "t">; photos: string[]; label: string }) {
  if (!photos.length) return "";
  const photoOf = (i: number) => view.t("common.photoOf", { n: i + 1, total: photos.length });
  return (
    <section class="relative overflow-hidden rounded-2xl bg-sunken" data-carousel aria-roledescription="carousel" aria-label={label}>
      <div
        class="flex snap-x snap-mandatory overflow-x-auto scroll-smooth motion-reduce:scroll-auto [scrollbar-width:none] focus-visible:outline-offset-[-4px]"
        data-carousel-track
        tabindex={photos.length > 1 ? "0" : undefined}
      >
        {photos.map((p, i) => (
          <div class="aspect-[4/5] w-full shrink-0 snap-center" role="group" aria-roledescription="slide" aria-label={photoOf(i)}>
            <img src={photoUrl(p, "large")!} alt="" class="h-full w-full object-cover" loading={i === 0 ? "eager" : "lazy"} />
          </div>
        ))}
      </div>
      <span class="absolute right-3 top-3 rounded-full bg-black/60 px-2.5 py-0.5 text-xs font-medium text-white" data-carousel-counter aria-live="polite">
        {`1 / ${photos.length}` as "safe"}
      </span>
      {photos.length > 1 ? (
        <>
          <button type="button" class="absolute left-2 top-1/2 h-9 w-9 -translate-y-1/2 rounded-full bg-black/50 text-xl text-white" data-carousel-prev aria-label={view.t("common.previousPhoto")}>
            ‹
          </button>
          <button type="button" class="absolute right-2 top-1/2 h-9 w-9 -translate-y-1/2 rounded-full bg-black/50 text-xl text-white" data-carousel-next aria-label={view.t("common.nextPhoto")}>
            ›
          </button>
          <div class="absolute inset-x-0 bottom-0 flex justify-center">
            {photos.map((_, i) => (
              <button type="button" class="carousel-dot" data-carousel-dot aria-current={i === 0 ? "true" : "false"} aria-label={photoOf(i)} />
            ))}
          </div>
        </>
      ) : (
        ""
      )}
    </section>
  );
}

export function ReviewList({ view, reviews, empty }: { view: Pick<View, "t" | "locale">; reviews: ReviewView[]; empty: string }) {
  const { t } = view;
  if (!reviews.length) {
    return (
      <p class="card p-4 text-sm text-muted" safe>
        {empty}
      </p>
    );
  }
  return (
    <ul class="flex flex-col gap-3">
      {reviews.map((r) => (
        <li class="card p-4">
          <div class="flex items-center gap-3">
            <Avatar photo={r.reviewer.photo} name={r.reviewer.name} size={36} />
            <div class="min-w-0 flex-1">
              <p class="truncate font-medium" safe>
                {r.reviewer.name ? nameAndAge(r.reviewer.name, r.reviewer.age) : view.t("people.deletedUser")}
              </p>
              <p class="text-xs text-muted" safe>
                {formatMonthYear(r.createdAt, view.locale)}
              </p>
            </div>
            <Stars value={r.stars} label={t("reviews.starsLabel", { stars: r.stars })} />
          </div>
          {r.text ? (
            <p class="mt-2 text-sm" safe>
              {r.text}
            </p>
          ) : (
            ""
          )}
        </li>
      ))}
    </ul>
  );
}

export function ActivityMiniList({ view, cards, empty }: { view: View; cards: ActivityCard[]; empty: string }) {
  const { t } = view;
  if (!cards.length) {
    return (
      <p class="card p-4 text-sm text-muted" safe>
        {empty}
      </p>
    );
  }
  return (
    <ul class="grid grid-cols-2 gap-3">
      {cards.map((card) => (
        <li class="min-w-0">
          <a href={`/activity/${card.id}`} class="card block overflow-hidden">
            <div class="img-frame aspect-[4/3]" data-failed-text={t("browse.imageFailed")}>
              <img src={photoUrl(card.cover, "thumb")!} alt="" loading="lazy" class="h-full w-full object-cover" />
            </div>
            <div class="p-2.5">
              <p class="truncate text-sm font-semibold" safe>
                {card.title}
              </p>
              <p class="text-xs text-muted">
                <span safe>{priceParts(view, card).amount}</span>
                <span safe>{priceParts(view, card).unit}</span>
              </p>
            </div>
          </a>
        </li>
      ))}
    </ul>
  );
}
