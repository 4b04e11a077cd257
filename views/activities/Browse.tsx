import { madeOnce } from "../../shared/memo";
import { ratingLabel, nameAndAge } from "../../lib/labels";
import { categories, categoryLabelKey, type Category } from "../../src/activities/categories";
import type { ActivityCard } from "../../src/activities/queries";
import { priceParts, sessionText } from "./Price";
import { formatCount } from "../../lib/money";
import { countries } from "../../lib/places";
import type { KeptView, View } from "../../src/shell/view";
import { photoUrl } from "../../src/uploads/service";
import { Avatar } from "../components/People";
import { AppLayout } from "../layouts/AppLayout";
import { flatten, remember, type KeptParts } from "../../lib/html/fragments";

export interface BrowseState {
  city: string;
  category?: Category;
  /** Keep the category grid open (it was used to get here). */
  filtersOpen?: boolean;
  cards: ActivityCard[];
  /** Matching activities, counted up to a cap. */
  total: number;
  /** More than `total` match: shown as "1,000+ activities found". */
  capped?: boolean;
  nextCursor: string | null;
  /** The shared page these cards come from (`browseActivities`): what is rendered of it is kept with it. */
  shared?: object;
}

/** htmx attributes of the filters: each swaps the whole browse part and updates the address. */
const swap = { "hx-target": "#browse", "hx-swap": "outerHTML", "hx-push-url": "true", "hx-indicator": "#browse" };

export const browseHref = (city: string, category?: string, cursor?: string, filters?: boolean) => {
  const q = new URLSearchParams({ city });
  if (category) q.set("category", category);
  if (cursor) q.set("cursor", cursor);
  if (filters) q.set("filters", "1");
  return `/browse?${q}`;
};

/** '/' and '/browse': the city and category filters over the list. */
export function Browse({ view, state }: { view: View; state: BrowseState }) {
  return (
    <AppLayout view={view} title={view.t("home.title", { city: state.city })}>
      <BrowseBody view={view} state={state} />
    </AppLayout>
  );
}

/**
 * What is rendered of a shared page, per language and filter state. Nothing in the browse body
 * depends on the visitor (its forms are GET forms without a token), so it is kept whole for as
 * long as its page is cached (decision 0018).
 */
const keptBodies = madeOnce((_page: object): KeptParts => new Map());

/** What htmx swaps on a filter change: the page's content, not the shell around it. */
export function BrowseBody({ view, state }: { view: View; state: BrowseState }) {
  if (!state.shared) return <BrowseBodyView view={view} state={state} />;
  return remember(keptBodies(state.shared), `${view.locale}\u0000${state.city}\u0000${state.category ?? ""}\u0000${state.filtersOpen ? 1 : 0}`, view, (kept) => <BrowseBodyView view={kept} state={state} />);
}

function BrowseBodyView({ view, state }: { view: KeptView; state: BrowseState }) {
  const { t } = view;
  return (
      <div id="browse">
        <div class="flex items-start justify-between gap-3">
          <h1 class="text-2xl font-bold" safe>
            {t("home.title", { city: state.city })}
          </h1>
        </div>
        {/* The filters (the form and the category grid) share the swap's htmx attributes. */}
        <div {...swap}>
          {/* A city picked with the mouse or a phone's picker applies at once (change); the visible
              "Show" button is there for everyone else: a keyboard moving through the options, a
              screen reader, a browser without script. */}
          <form method="get" action="/browse" class="mt-3 flex flex-wrap items-stretch gap-2" hx-get="/browse" hx-trigger="change, submit">
            <label class="sr-only" for="browse-city" safe>
              {t("browse.city")}
            </label>
            <select id="browse-city" name="city" class="input w-auto min-w-0 flex-1 py-2">
              {cityOptions(state.city)}
            </select>
            {state.category ? <input type="hidden" name="category" value={state.category} /> : ""}
            <button type="submit" class="btn btn-secondary" safe>
              {t("browse.apply")}
            </button>
          </form>
          {/* The category grid is open only when asked for (?filters=1, its summary): once a category
              is picked it closes again, so on a phone the count and cards are on screen rather than
              below the grid. The summary names the category that applies. */}
          <details class="mt-3" open={state.filtersOpen ? true : undefined}>
            <summary class="btn btn-secondary cursor-pointer list-none" aria-controls="categories" safe>
              {state.category ? `${t("browse.filters")} · ${t(categoryLabelKey(state.category))}` : t("browse.filters")}
            </summary>
            {categoryNav(view, state.city, state.category)}
          </details>
        </div>
        <BrowseResults view={view} state={state} />
        {SKELETONS}
      </div>
  );
}

// The parts of the browse page that are the same for every visitor are rendered once (remember).

/** Every city, grouped by country, with the current one selected. */
const cityOptionsCache: KeptParts = new Map();
const cityOptions = (city: string) =>
  remember(cityOptionsCache, city, () => (
    <>
      {countries.map((country) => (
        <optgroup label={country.name}>
          {country.cities.map((c) => (
            // An option without a value submits its text: the city's name, written once.
            <option selected={c.name === city} safe>
              {c.name}
            </option>
          ))}
        </optgroup>
      ))}
    </>
  ));

/** The category grid of a city in a language, with the current category marked. */
const categoryNavCache: KeptParts = new Map();
const categoryNav = (view: KeptView, city: string, category: Category | undefined) =>
  remember(categoryNavCache, `${view.locale}\u0000${city}\u0000${category ?? ""}`, view, (kept) => {
    const { t } = kept;
    return (
      // Boosted links: htmx gets each link's address itself and swaps it as the filters say.
      <nav id="categories" aria-label={t("browse.categories")} class="mt-3 grid grid-cols-3 gap-2 sm:grid-cols-4" hx-boost="true">
        <CategoryLink href={browseHref(city)} label={t("browse.allCategories")} current={!category} />
        {categories.map((c) => (
          <CategoryLink href={browseHref(city, c)} label={t(categoryLabelKey(c))} current={category === c} photo={`/static/photos/${c}-1.svg`} />
        ))}
      </nav>
    );
  });

/**
 * A card in a language. Cards of a cached browse page are shared objects (src/activities/service.ts),
 * so each is rendered once per language for as long as the page is cached.
 */
const cardCache = madeOnce((_card: ActivityCard): KeptParts => new Map());
function cardHtml(view: KeptView, card: ActivityCard): JSX.Element {
  return remember(cardCache(card), view.locale, view, (kept) => <ActivityCardView view={kept} card={card} />);
}

/** Placeholders shown while htmx loads other results. */
const SKELETONS: JSX.Element = flatten(
  <ul class="browse-skeletons mt-4 grid-cols-1 gap-4 sm:grid-cols-2" aria-hidden="true">
    {Array.from({ length: 6 }, () => (
      // A photo, a title and a price line, drawn by the stylesheet (public/base.css).
      <li class="skeleton-card card">
        <i />
        <i />
        <i />
      </li>
    ))}
  </ul>
);

function CategoryLink({ href, label, current, photo }: { href: string; label: string; current: boolean; photo?: string }) {
  return (
    <a href={href} aria-current={current ? "true" : undefined} class="category-link">
      {photo ? <img src={photo} alt="" loading="lazy" /> : <span class="flex h-9 items-center text-lg" aria-hidden="true">★</span>}
      <span safe>{label}</span>
    </a>
  );
}

/** The part htmx swaps: count text, the cards and the next page. */
export function BrowseResults({ view, state }: { view: KeptView; state: BrowseState }) {
  const { t } = view;
  return (
    <section id="results" class="browse-results mt-4" aria-live="polite">
      <p class="text-sm text-muted" safe>
        {state.capped ? t("browse.found.capped", { count: formatCount(state.total, view.locale) }) : t("browse.found", { count: state.total })}
      </p>
      {state.cards.length === 0 ? (
        <div class="card mt-4 p-8 text-center">
          <p class="font-semibold" safe>
            {t("browse.empty.title")}
          </p>
          <p class="mt-1 text-sm text-muted" safe>
            {t("browse.empty.body")}
          </p>
        </div>
      ) : (
        <ul class="mt-3 grid grid-cols-1 gap-4 sm:grid-cols-2" data-failed-text={t("browse.imageFailed")}>
          <BrowseCards view={view} state={state} />
        </ul>
      )}
    </section>
  );
}

/** A page of cards, then the "Load more" item that fetches the next one (also when scrolled into view). */
export function BrowseCards({ view, state }: { view: KeptView; state: BrowseState }) {
  const { t } = view;
  const more = state.nextCursor ? browseHref(state.city, state.category, state.nextCursor) : null;
  return (
    <>
      {state.cards.map((card) => (
        <li>{cardHtml(view, card)}</li>
      ))}
      {more ? (
        <li class="sm:col-span-2" id="load-more">
          <a href={more} hx-get={`${more}&page=more`} hx-trigger="click, revealed" hx-target="#load-more" hx-swap="outerHTML" class="btn btn-secondary w-full">
            <span safe>{t("browse.loadMore")}</span>
            <span class="spinner htmx-indicator h-4 w-4 border-2" aria-hidden="true" />
          </a>
        </li>
      ) : (
        ""
      )}
    </>
  );
}

export function ActivityCardView({ view, card }: { view: KeptView; card: ActivityCard }) {
  const price = priceParts(view, card);
  return (
    // One class name (its parts are styled from it, public/base.css): a browse page carries twenty.
    // The failed-image text is the list's (`data-failed-text`), read when a photo fails.
    <a href={`/activity/${card.id}`} class="card-link">
      <div class="img-frame">
        <img src={photoUrl(card.cover, "thumb")!} alt="" loading="lazy" />
      </div>
      <div>
        <div>
          <h2 safe>{card.title}</h2>
          <p>
            <span safe>{price.amount}</span>
            <span safe>{price.unit}</span>
            {card.group ? <span safe>{` · ${sessionText(view, card.group.sessionMinutes)}`}</span> : ""}
          </p>
        </div>
        <span safe>{ratingLabel(view, card.rating)}</span>
      </div>
      <div>
        <Avatar photo={card.host.photo} name={card.host.firstName} size="css" />
        <span safe>{nameAndAge(card.host.firstName, card.host.age)}</span>
      </div>
    </a>
  );
}
