import { madeOnce } from "../../shared/memo";
import { ratingLabel, nameAndAge } from "../../lib/labels";
import { categories, categoryLabelKey, type Category } from "../../src/activities/categories";
import type { ActivityCard } from "../../src/activities/queries";
import { priceParts, sessionText } from "./Price";
import { currencySymbol, formatCount } from "../../lib/money";
import { cachedFormatter } from "../../lib/intl";
import { cityByName, countries } from "../../lib/places";
import { clockText } from "../../shared/availability";
import { filterParams, PEOPLE_MAX, SORTS, TIMES_OF_DAY, type BrowseFilters, type FilterField, type ReadFilters } from "../../src/activities/filters";
import type { KeptView, View } from "../../src/shell/view";
import { photoUrl } from "../../src/uploads/service";
import { Avatar } from "../components/People";
import { AppLayout } from "../layouts/AppLayout";
import { between, flatten, remember, rememberAround, type KeptAround, type KeptParts } from "../../lib/html/fragments";
import { cardHearts, HeartsForm, type CardHearts } from "../saved/Heart";

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
  /** The date, time of day, people, price and order filters that apply (decision 0054). */
  filters?: BrowseFilters;
  /** Each refused filter's message, in the reader's language; the results leave that filter out. */
  errors?: Partial<Record<FilterField, string>>;
  /** The filters as sent: a refused one is shown again as typed. */
  sent?: ReadFilters["sent"];
}

/** htmx attributes of the filters: each swaps the whole browse part and updates the address. */
const swap = { "hx-target": "#browse", "hx-swap": "outerHTML", "hx-push-url": "true", "hx-indicator": "#browse" };

export const browseHref = (city: string, category?: string, cursor?: string, filters?: boolean, when?: BrowseFilters) => {
  const q = new URLSearchParams({ city });
  if (category) q.set("category", category);
  for (const [name, value] of when ? filterParams(when) : []) q.set(name, value);
  if (cursor) q.set("cursor", cursor);
  if (filters) q.set("filters", "1");
  return `/browse?${q}`;
};

/** The filters' part of the kept parts' keys. */
const filtersKey = (f: BrowseFilters | undefined) => (f ? new URLSearchParams(filterParams(f)).toString() : "");

/** '/' and '/browse': the city and category filters over the list. */
export function Browse({ view, state, hearts }: { view: View; state: BrowseState; hearts?: CardHearts }) {
  return (
    <AppLayout view={view} title={view.t("home.title", { city: state.city })}>
      <>
        <BrowseBody view={view} state={state} hearts={hearts} />
        {(hearts ? HeartsForm({ view, back: hearts.back }) : "") as "safe"}
      </>
    </AppLayout>
  );
}

/**
 * What is rendered of a shared page, per language and filter state. Nothing in the browse body
 * depends on the visitor (its forms are GET forms without a token) but the cards' hearts, so it
 * is kept for as long as its page is cached (decision 0018) with a hole for each card's heart,
 * which is the viewer's own (docs/decisions/0055).
 */
const keptBodies = madeOnce((_page: object): KeptAround => new Map());

/** What htmx swaps on a filter change: the page's content, not the shell around it. */
export function BrowseBody({ view, state, hearts }: { view: View; state: BrowseState; hearts?: CardHearts }) {
  const own = cardHearts(view, state.cards, hearts);
  if (!state.shared || state.errors) return <BrowseBodyView view={view} state={state} hearts={own} />;
  const key = `${view.locale}\u0000${state.city}\u0000${state.category ?? ""}\u0000${state.filtersOpen ? 1 : 0}\u0000${filtersKey(state.filters)}`;
  return between(rememberAround(keptBodies(state.shared), key, view, state.cards.length, (kept, holes) => <BrowseBodyView view={kept} state={state} hearts={holes} />), own);
}

function BrowseBodyView({ view, state, hearts }: { view: KeptView; state: BrowseState; hearts: readonly string[] }) {
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
          <form method="get" action="/browse" id="browse-form" class="mt-3 flex flex-wrap items-stretch gap-2" hx-get="/browse" hx-trigger="change, submit">
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
          {/* The "when" fields belong to the same form (form="browse-form": sent by its button
              without script) but sit outside it, so that with htmx their change swaps the results
              only rather than the whole browse part as the city's does. */}
          {state.errors ? <WhenFields view={view} state={state} /> : whenFields(view, state)}
          {/* The category grid is open only when asked for (?filters=1, its summary): once a category
              is picked it closes again, so on a phone the count and cards are on screen rather than
              below the grid. The summary names the category that applies. */}
          <details class="mt-3" open={state.filtersOpen ? true : undefined}>
            <summary class="btn btn-secondary cursor-pointer list-none" aria-controls="categories" safe>
              {state.category ? `${t("browse.filters")} · ${t(categoryLabelKey(state.category))}` : t("browse.filters")}
            </summary>
            {categoryNav(view, state.city, state.category, state.filters)}
          </details>
        </div>
        <BrowseResults view={view} state={state} hearts={hearts} />
        {SKELETONS}
      </div>
  );
}

// The parts of the browse page that are the same for every visitor are rendered once (remember).

/** Every city, grouped by country, with the current one selected. */
const cityOptionsCache: KeptParts = new Map();
export const cityOptions = (city: string) =>
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
const categoryNav = (view: KeptView, city: string, category: Category | undefined, when: BrowseFilters | undefined) =>
  remember(categoryNavCache, `${view.locale}\u0000${city}\u0000${category ?? ""}\u0000${filtersKey(when)}`, view, (kept) => {
    const { t } = kept;
    return (
      // Boosted links: htmx gets each link's address itself and swaps it as the filters say.
      <nav id="categories" aria-label={t("browse.categories")} class="mt-3 grid grid-cols-3 gap-2 sm:grid-cols-4" hx-boost="true">
        <CategoryLink href={browseHref(city, undefined, undefined, false, when)} label={t("browse.allCategories")} current={!category} />
        {categories.map((c) => (
          <CategoryLink href={browseHref(city, c, undefined, false, when)} label={t(categoryLabelKey(c))} current={category === c} photo={`/static/photos/${c}-1.svg`} />
        ))}
      </nav>
    );
  });

/**
 * A card in a language. Cards of a cached browse page are shared objects (`browseActivities`),
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
export function BrowseResults({ view, state, hearts }: { view: KeptView; state: BrowseState; hearts: readonly string[] }) {
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
          <Loosen view={view} state={state} />
        </div>
      ) : (
        <ul class="mt-3 grid grid-cols-1 gap-4 sm:grid-cols-2" data-failed-text={t("browse.imageFailed")}>
          <BrowseCards view={view} state={state} hearts={hearts} />
        </ul>
      )}
    </section>
  );
}

/**
 * A page of cards, then the "Load more" item that fetches the next one (also when scrolled into
 * view). Each card's heart (`hearts`, in the cards' order) sits beside its link, over its photo.
 */
export function BrowseCards({ view, state, hearts }: { view: KeptView; state: BrowseState; hearts: readonly string[] }) {
  const { t } = view;
  const more = state.nextCursor ? browseHref(state.city, state.category, state.nextCursor, false, state.filters) : null;
  return (
    <>
      {state.cards.map((card, i) => (
        <li>
          {cardHtml(view, card)}
          {(hearts[i] ?? "") as "safe"}
        </li>
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
          {card.firstStart ? <FirstStartLine view={view} start={card.firstStart} /> : ""}
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

// ---- Find by when (decision 0054) ----

/**
 * What a change of a "when" field asks htmx for: the results alone, the address updated. Each
 * field belongs to the browse form and asks on its change (a field's own trigger); where the
 * answer goes is said once, on the fields' box, which htmx's inheritance hands to each.
 */
const resultsSwap = { form: "browse-form", "hx-get": "/browse" };
const resultsTarget = { "hx-include": "#browse-form", "hx-target": "#results", "hx-swap": "outerHTML", "hx-push-url": "true", "hx-indicator": "#results" };

const FILTER_FIELDS: FilterField[] = ["date", "timeOfDay", "people", "maxPrice", "sort"];
const errorId = (field: FilterField) => `browse-error-${field}`;

/** A refused filter's message beside it; `oob` for htmx's answer that swaps the results only (each field's message is replaced, emptied when it reads now). */
function FilterError({ field, message, oob }: { field: FilterField; message?: string; oob?: boolean }) {
  return (
    <p id={errorId(field)} class="field-error" role={message ? "alert" : undefined} hidden={message ? undefined : true} hx-swap-oob={oob ? "true" : undefined} safe>
      {message ?? ""}
    </p>
  );
}

/** For htmx's answer to a change of a filter: every filter's message, set or cleared. */
export function FilterErrorsOob({ view, state }: { view: KeptView; state: BrowseState }) {
  return (
    <>
      {FILTER_FIELDS.map((field) => (
        <FilterError field={field} message={state.errors?.[field]} oob />
      ))}
      <DateSelect view={view} state={state} oob />
      <DayInput state={state} oob />
    </>
  );
}

/** The date as the form shows it: a refused one as sent, an accepted one as it applies (a day of the calendar: "day" and the day). */
function dateShown(state: BrowseState) {
  const f = state.filters;
  const sent = state.sent ?? {};
  if (state.errors?.date) return { word: sent.date && /^\d/.test(sent.date) ? "day" : (sent.date ?? ""), day: sent.day ?? (sent.date && /^\d/.test(sent.date) ? sent.date : "") };
  const isDay = !!f?.date && /^\d/.test(f.date);
  return { word: isDay ? "day" : (f?.date ?? ""), day: isDay ? f!.date! : "" };
}

export const DATE_CHOICES = [
  ["", "browse.when.anyDay"],
  ["today", "browse.when.today"],
  ["tomorrow", "browse.when.tomorrow"],
  ["weekend", "browse.when.weekend"],
  ["day", "browse.when.pickDay"],
] as const;

/** The date's choices; htmx's answer to a filter's change draws it again (`oob`), so it always says what applies. */
function DateSelect({ view, state, oob }: { view: KeptView; state: BrowseState; oob?: boolean }) {
  const { word } = dateShown(state);
  return (
    <select id="browse-date" name="date" class="input py-2" hx-swap-oob={oob ? "true" : undefined} {...resultsSwap} {...(state.errors?.date ? { "aria-invalid": "true", "aria-describedby": errorId("date") } : {})}>
      {DATE_CHOICES.map(([value, label]) => (
        <option value={value} selected={word === value} safe>
          {view.t(label)}
        </option>
      ))}
    </select>
  );
}

/** The calendar's day: picking one asks for it (`date=day`), whatever the date's choice said. */
function DayInput({ state, oob }: { state: BrowseState; oob?: boolean }) {
  const { day } = dateShown(state);
  return (
    <input
      id="browse-day"
      type="date"
      name="day"
      class="input py-2"
      value={day}
      hx-swap-oob={oob ? "true" : undefined}
      {...resultsSwap}
      hx-vals='{"date":"day"}'
      {...(state.errors?.date ? { "aria-invalid": "true", "aria-describedby": errorId("date") } : {})}
    />
  );
}

/**
 * The "when" fields of a filter without refusals, the same on every page of its results: drawn
 * once per language, city (its currency) and filters, not once per page of cards.
 */
const whenFieldsCache: KeptParts = new Map();
const whenFields = (view: KeptView, state: BrowseState) =>
  remember(whenFieldsCache, `${view.locale}\u0000${state.city}\u0000${filtersKey(state.filters)}`, view, (kept) => <WhenFields view={kept} state={state} />);

/** The date, time of day, people, most price and order: labelled fields of the browse form. */
function WhenFields({ view, state }: { view: KeptView; state: BrowseState }) {
  const { t } = view;
  const f = state.filters ?? { sort: "recommended" as const };
  const e = state.errors ?? {};
  const sent = state.sent ?? {};
  const currency = cityByName(state.city)?.currency ?? "usd";
  const invalid = (field: FilterField) => (e[field] ? { "aria-invalid": "true", "aria-describedby": errorId(field) } : {});
  const field = "flex min-w-0 flex-col gap-1";
  return (
    <div class="mt-3 grid grid-cols-2 gap-2 sm:grid-cols-3" {...resultsTarget}>
      <div class={field}>
        <label class="field-label" for="browse-date" safe>
          {t("browse.when.date")}
        </label>
        <DateSelect view={view} state={state} />
      </div>
      <div class={field}>
        <label class="field-label" for="browse-day" safe>
          {t("browse.when.day")}
        </label>
        <DayInput state={state} />
        <FilterError field="date" message={e.date} />
      </div>
      <div class={field}>
        <label class="field-label" for="browse-time" safe>
          {t("browse.when.timeOfDay")}
        </label>
        <select id="browse-time" name="timeOfDay" class="input py-2" {...resultsSwap} {...invalid("timeOfDay")}>
          <option value="" safe>
            {t("browse.when.anyTime")}
          </option>
          {TIMES_OF_DAY.map((time) => (
            <option value={time} selected={f.timeOfDay === time} safe>
              {t(`browse.when.${time}`)}
            </option>
          ))}
        </select>
        <FilterError field="timeOfDay" message={e.timeOfDay} />
      </div>
      <div class={field}>
        <label class="field-label" for="browse-people" safe>
          {t("browse.when.people")}
        </label>
        <select id="browse-people" name="people" class="input py-2" {...resultsSwap} {...invalid("people")}>
          <option value="" safe>
            {t("browse.when.anyPeople")}
          </option>
          {Array.from({ length: PEOPLE_MAX }, (_, i) => i + 1).map((n) => (
            <option value={String(n)} selected={f.people === n} safe>
              {t("browse.when.peopleCount", { n })}
            </option>
          ))}
        </select>
        <FilterError field="people" message={e.people} />
      </div>
      <div class={field}>
        <label class="field-label" for="browse-price" safe>
          {t("browse.when.maxPrice", { symbol: currencySymbol(currency, view.locale) })}
        </label>
        <input
          id="browse-price"
          name="maxPrice"
          class="input py-2"
          inputmode="decimal"
          value={e.maxPrice ? (sent.maxPrice ?? "") : (f.maxPrice ?? "")}
          {...resultsSwap}
          aria-invalid={e.maxPrice ? "true" : undefined}
          aria-describedby={e.maxPrice ? `browse-price-hint ${errorId("maxPrice")}` : "browse-price-hint"}
        />
        <p id="browse-price-hint" class="text-xs text-muted" safe>
          {t("browse.when.maxPriceHint")}
        </p>
        <FilterError field="maxPrice" message={e.maxPrice} />
      </div>
      <div class={field}>
        <label class="field-label" for="browse-sort" safe>
          {t("browse.when.sort")}
        </label>
        <select id="browse-sort" name="sort" class="input py-2" {...resultsSwap} {...invalid("sort")}>
          {SORTS.map((sort) => (
            <option value={sort} selected={f.sort === sort} safe>
              {t(`browse.sort.${sort}`)}
            </option>
          ))}
        </select>
        <FilterError field="sort" message={e.sort} />
      </div>
    </div>
  );
}

/** An empty result's way out: a link per filter that applies, each leaving that one out. */
function Loosen({ view, state }: { view: KeptView; state: BrowseState }) {
  const { t } = view;
  const f = state.filters;
  const links: [string, string][] = [];
  if (f) {
    const without = (change: Partial<BrowseFilters>) => browseHref(state.city, state.category, undefined, false, { ...f, ...change });
    if (f.date) links.push([without({ date: undefined }), t("browse.loosen.date")]);
    if (f.timeOfDay) links.push([without({ timeOfDay: undefined }), t("browse.loosen.timeOfDay")]);
    if (f.people && f.people > 1) links.push([without({ people: undefined }), t("browse.loosen.people")]);
    if (f.maxPrice) links.push([without({ maxPrice: undefined, maxPriceCents: undefined }), t("browse.loosen.maxPrice")]);
  }
  if (state.category && links.length) links.push([browseHref(state.city, undefined, undefined, false, f), t("browse.loosen.category")]);
  if (!links.length) {
    return (
      <p class="mt-1 text-sm text-muted" safe>
        {t("browse.empty.body")}
      </p>
    );
  }
  return (
    <>
      <p class="mt-1 text-sm text-muted" safe>
        {t("browse.empty.loosen")}
      </p>
      <ul class="mt-3 flex flex-wrap justify-center gap-2">
        {links.map(([href, label]) => (
          <li>
            <a href={href} class="btn btn-secondary" safe>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </>
  );
}

const weekdayFormat = cachedFormatter((locale) => new Intl.DateTimeFormat(locale, { weekday: "short", timeZone: "UTC" }));

/** "Sat 10:00 AM · 3 spots left": a card's first start that matches, on the activity's clock. */
function FirstStartLine({ view, start }: { view: KeptView; start: NonNullable<ActivityCard["firstStart"]> }) {
  const [y, m, d] = start.date.split("-").map(Number) as [number, number, number];
  const [hh, mm] = start.time.split(":").map(Number) as [number, number];
  const when = view.t("browse.firstStart", { day: weekdayFormat(view.locale).format(Date.UTC(y, m - 1, d)), time: clockText(hh * 60 + mm, view.locale) });
  return (
    <p class="font-medium text-ink" safe>
      {start.spotsLeft === null ? when : `${when} · ${view.t("browse.spotsLeft", { n: start.spotsLeft })}`}
    </p>
  );
}
