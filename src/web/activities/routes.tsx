import { Elysia } from "elysia";
import { readCache } from "../../../db/client";
import { uuidLike } from "../../../lib/validation";
import type { Activity, User } from "../../../db/schema";
import type { ReviewView } from "../../reviews/service";
import type { PublicUserSource } from "../../profiles/serialize";
import { Browse, BrowseBody, BrowseCards, BrowseResults, FilterErrorsOob, type BrowseState } from "../../../views/activities/Browse";
import { anyFilter, readBrowseFilters } from "../../activities/filters";
import { findActivities, foundCards } from "../../bookings/find";
import { CreateActivityForm, emptyCreateForm, type CreateFormState } from "../../../views/activities/CreateForm";
import { ActivityDetail, ActivityNotFound } from "../../../views/activities/Detail";
import { HostActivities, HostDashboard, type DashboardData } from "../../../views/activities/HostDashboard";
import { ActivityWizardPage } from "../../../views/activities/Wizard";
import { context, type FormScreen, type Render } from "../../context";
import { type Deps, type RequestState } from "../../deps";
import { stringsFrom, waitHeaders, waitParams } from "../../../lib/http";
import { currencyOf, DEFAULT_CITY_NAME, DEFAULT_COUNTRY } from "../../../lib/places";
import { todayIn } from "../../../lib/time";
import { activityZone } from "../../bookings/times";
import { publicUser } from "../../profiles/serialize";
import { htmlResponse } from "../../shell/render";
import { cardHearts, type CardHearts } from "../../../views/saved/Heart";
import { savedIdsOf } from "../../saved/queries";
import { OFFLINE_KEEP_HEADER } from "../../../shared/offline";
import { viewOf } from "../../shell/view";
import { createActivity, creationWait } from "../../activities/service";
import { activityCreateBody, hoursErrorDay, readBrowseQuery } from "../../activities/input";
import { postedAvailability } from "../../../views/activities/Availability";
import { postedGroup } from "../../../views/activities/GroupFields";
import { activityDialog, hostEarnings, hostRequests, hostSessions } from "../../bookings/queries";
import { activityRatingAndReviews, browseActivities, countOwnActivities, findListedActivityAndHost, findOwnActivity, ownActivities } from "../../activities/queries";

/**
 * What the activity page shows of an activity, its host and its reviews: read once per database
 * change (`readCache`), as browse pages are, since many guests open the same activities. The
 * page's kept parts live as long as its read (Detail.tsx). 2,000 reads hold the activities most
 * of a crowd asks for (with a Zipf popularity over 10,000 activities, the first 2,000 get about
 * 83 % of the asks); with 500, reads let go were read and drawn again (docs/decisions/0059).
 */
const activityPage = readCache<{ activity: Activity; host: PublicUserSource; rating: { average: number | null; count: number }; reviews: ReviewView[] } | null>(2000);

/** A saved activity's page says so to the service worker, which keeps it for reading offline. Frozen: laid over once. */
const SAVED_PAGE_HEADERS = Object.freeze({ [OFFLINE_KEEP_HEADER]: "saved" });

/** The browse page's own headers: it answers htmx's partial requests too. Frozen: laid over the page's headers once (src/shell/render.ts). */
const BROWSE_PAGE_HEADERS = Object.freeze({ Vary: "HX-Request, HX-Target" });

/**
 * The activity page's hour, `date in the activity's zone/UTC hour`: worked out again once a minute
 * per zone rather than on every page (a zone's date needs the time-zone rules).
 */
const hours = new Map<string, { minute: number; hour: string }>();
function hourIn(zone: string, now: number): string {
  const minute = Math.floor(now / 60_000);
  const known = hours.get(zone);
  if (known?.minute === minute) return known.hour;
  const hour = `${todayIn(now, zone)}/${new Date(now).toISOString().slice(0, 13)}`;
  hours.set(zone, { minute, hour });
  return hour;
}

/** The host as the page shows them, made once per host row (a kept read: the same object while unchanged) and hour. */
const publicHosts = new WeakMap<PublicUserSource, { hour: string; host: ReturnType<typeof publicUser> }>();
function publicHostOn(host: PublicUserSource, hour: string, now: number) {
  const known = publicHosts.get(host);
  if (known?.hour === hour) return known.host;
  const made = publicUser(host, new Date(now));
  publicHosts.set(host, { hour, host: made });
  return made;
}

/** The activity screens: browse, the activity page, the host dashboard, the create form and the wizard. */
export function activityRoutes(deps: Deps) {
  const readActivityPage = async (id: string) => {
    // The activity and its host in one read, its reviews beside it: both at once, one round trip
    // on PostgreSQL rather than two (reviews are read for an id that is not an activity's only
    // when its page answers 404).
    const [found, reviewed] = await Promise.all([findListedActivityAndHost(deps, id), uuidLike(id) ? activityRatingAndReviews(deps.db, id, 3) : null]);
    if (!found || !reviewed) return null;
    return { activity: found.activity, host: found.host, rating: reviewed.rating, reviews: reviewed.reviews };
  };

  /** Which cards of a browse page the viewer saved (their hearts, docs/decisions/0055), and the page a heart comes back to without JavaScript. */
  const browseHearts = async (request: Request, state: RequestState): Promise<CardHearts> => {
    const url = new URL(request.url);
    url.searchParams.delete("page");
    const saved = state.user ? await savedIdsOf(deps.db, state.user.id) : new Set<string>();
    return { saved, back: url.pathname + url.search };
  };

  const browse = async ({ request, query, state, render }: { request: Request; query: Record<string, string | undefined>; state: RequestState; render: Render }) => {
    const asked = readBrowseQuery(query, state.user);
    const now = deps.now();
    // The date, time of day, people, price and order (decision 0054): a refused one is said beside
    // its field and left out; the others apply.
    const { filters, errors, sent } = readBrowseFilters(query, asked.city, now);
    const refused = Object.keys(errors).length > 0;
    const page = anyFilter(filters) ? foundCards(await findActivities(deps.db, { ...asked, filters }, now)) : await browseActivities(deps.db, asked);
    const messages = refused ? Object.fromEntries(Object.entries(errors).map(([field, key]) => [field, state.t(key)])) : undefined;
    const browseState: BrowseState = { city: asked.city, category: asked.category, filtersOpen: query.filters === "1", ...page, shared: page, filters, errors: messages, sent };
    const hearts = await browseHearts(request, state);
    // htmx asks for just the part it swaps: the next page of cards, the results after a "when"
    // filter's change (with each filter's message, out of band), or the list after a city or category change.
    if (request.headers.get("hx-request") && !request.headers.get("hx-history-restore-request")) {
      const view = await viewOf(deps, state, request);
      // The hearts are the viewer's own: never kept by a browser for another.
      const own: Record<string, string> = state.user ? { ...BROWSE_PAGE_HEADERS, "Cache-Control": "no-store" } : BROWSE_PAGE_HEADERS;
      const cardsHearts = cardHearts(view, browseState.cards, hearts);
      if (query.page === "more") return htmlResponse(String(await (<BrowseCards view={view} state={browseState} hearts={cardsHearts} />)), 200, own);
      const target = request.headers.get("hx-target");
      if (target === "results") {
        return htmlResponse(String(await (<><BrowseResults view={view} state={browseState} hearts={cardsHearts} /><FilterErrorsOob view={view} state={browseState} /></>)), 200, own);
      }
      if (target === "browse") return htmlResponse(String(await (<BrowseBody view={view} state={browseState} hearts={hearts} />)), 200, own);
    }
    return render((v) => <Browse view={v} state={browseState} hearts={hearts} />, { status: refused ? 400 : 200, headers: BROWSE_PAGE_HEADERS });
  };

  const hostDashboard = async ({ user, render }: { user: User; render: Render }) => {
    const [activities, activityCount, requests, earnings, sessions] = await Promise.all([
      ownActivities(deps, user.id, 4),
      countOwnActivities(deps, user.id),
      hostRequests(deps, user.id, 3),
      hostEarnings(deps, user.id),
      hostSessions(deps, user.id, { upcoming: true }),
    ]);
    // The payout account's state as last read from the provider (its events and the setup screen keep it current).
    const data: DashboardData = { user, activities, activityCount, requests: requests.requests, requestCount: requests.total, sessions, earnings, currency: currencyOf(user.country, user.city) ?? "usd", payoutsReady: user.payoutsEnabled };
    return render((view) => <HostDashboard view={view} data={data} />);
  };
  const nearOf = (user: User) => `${user.city ?? DEFAULT_CITY_NAME}, ${user.country ?? DEFAULT_COUNTRY}`;

  /**
   * A refused create form: the form again as it was typed, each field's message and the alert.
   * Someone over the creation limit is told that first, whatever else the form holds.
   */
  const createFormRefused: FormScreen = async ({ sent, error, message, fields }, { state, user, render }) => {
    if (!user) return undefined;
    const wait = error.status === 429 ? 0 : await creationWait(deps, user.id);
    const str = (k: string) => (typeof sent[k] === "string" ? (sent[k] as string) : "");
    const formState: CreateFormState = {
      values: {
        title: str("title"),
        description: str("description"),
        category: str("category"),
        hourlyRate: str("hourlyRate"),
        hasMeetingPoint: str("hasMeetingPoint") === "true",
        meetingPoint: str("meetingPoint"),
        photos: stringsFrom(sent.photos),
        availability: postedAvailability(sent),
        group: postedGroup(sent),
        cancellationPolicy: str("cancellationPolicy") || "flexible",
      },
      errors: wait > 0 ? {} : fields,
      hoursDay: wait > 0 ? undefined : hoursErrorDay(error),
      alert: { title: state.t("wizard.createError"), body: wait > 0 ? state.t("activity.tooManyCreated", waitParams(wait)) : (Object.values(fields)[0] ?? message) },
    };
    return render((view) => <CreateActivityForm view={view} state={formState} maps={deps.config.maps} near={nearOf(user)} currency={currencyOf(user.country, user.city) ?? "usd"} />, {
      status: wait > 0 ? 429 : error.status,
      headers: waitHeaders(wait),
    });
  };

  return new Elysia({ name: "offline.activities", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .get("/", browse)
    .get("/browse", browse)
    .get("/host", hostDashboard)
    .get("/host-dashboard", hostDashboard)
    .get("/host/activities", async ({ request, state, user, render }) => {
      const list = await ownActivities(deps, user.id);
      return render((view) => <HostActivities view={view} activities={list} />);
    })
    .get("/create-activity", ({ request, state, user, render }) =>
      render((view) => <CreateActivityForm view={view} state={emptyCreateForm} maps={deps.config.maps} near={nearOf(user)} currency={currencyOf(user.country, user.city) ?? "usd"} />),
    )
    .post("/create-activity", async ({ body, user, sendTo }) => {
      await createActivity(deps, user, body);
      return sendTo("/host-dashboard", { title: "toast.activityCreated" });
    }, { body: activityCreateBody, refused: { screen: createFormRefused } })
    .get("/create-activity-flow", ({ request, state, user, render }) =>
      render((view) => (
        <ActivityWizardPage view={view} city={user.city ?? DEFAULT_CITY_NAME} country={user.country ?? DEFAULT_COUNTRY} maps={deps.config.maps} />
      )),
    )
    .get("/edit-activity/:id", async ({ params, request, state, user, render }) => {
      const activity = await findOwnActivity(deps, user.id, params.id);
      if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
      return render((view) => (
        <ActivityWizardPage view={view} activity={activity} city={activity.city} country={activity.country} maps={deps.config.maps} />
      ));
    })
    .get("/activity/:id", async ({ params, request, state, user, render }) => {
      const page = await activityPage(deps.db, params.id, () => readActivityPage(params.id));
      if (!page) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
      const { activity, host, rating, reviews } = page;
      const now = deps.now();
      // The dialog's open dates and hours (in the activity's city) and the host's age (UTC) move with the hour.
      const hour = hourIn(activityZone(activity), now);
      const dialog = await activityDialog(deps, activity, hour);
      const saved = user ? (await savedIdsOf(deps.db, user.id)).has(activity.id) : false;
      return render(
        (view) => (
          <ActivityDetail view={view} page={page} hour={hour} activity={activity} host={publicHostOn(host, hour, now)} rating={rating} reviews={reviews} maps={deps.config.maps} dialog={dialog} saved={saved} />
        ),
        // A saved activity's page is kept by the service worker for reading offline (docs/decisions/0055).
        saved ? { headers: SAVED_PAGE_HEADERS } : undefined,
      );
    });
}
