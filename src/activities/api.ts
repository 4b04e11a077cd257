import { Elysia } from "elysia";
import { context, type Deps, type RequestState } from "../context";
import { asRecord, json } from "../lib/http";
import { translateErrors } from "../lib/i18n";
import { isCategory } from "./categories";
import {
  createActivity,
  deleteActivity,
  findListedActivity,
  findOwnActivity,
  hostOf,
  ownActivities,
  readActivityInput,
  updateActivity,
  type ActivityErrors,
} from "./manage";
import { hostEarnings, hostRequests } from "./host";
import { DEFAULT_CITY_NAME } from "../profiles/places";
import { publicUser } from "../profiles/serialize";
import { publicActivity } from "./serialize";
import { activityRating, activityReviews, browseListings } from "./service";

export const PAGE_SIZE = 20;

export function activityErrors(state: RequestState, errors: ActivityErrors, status = 400) {
  const translated = translateErrors(state.t, errors);
  return json({ message: Object.values(translated)[0] ?? state.t("error.badRequest"), errors: translated }, status);
}

/** The activity calls of spec §7. Only an activity's host changes it; others get 404. */
export function activityApi(deps: Deps) {
  const unauthorized = (state: RequestState) => json({ message: state.t("error.unauthorized") }, 401);
  const notFound = (state: RequestState) => json({ message: state.t("activity.notFound") }, 404);

  return new Elysia({ name: "offline.activities.api", seed: deps.id })
    .use(context(deps))
    .get("/api/activities", async ({ query, state, set }) => {
      if (!state.user) return unauthorized(state);
      const city = typeof query.city === "string" && query.city.trim() ? query.city.trim().slice(0, 80) : (state.user.city ?? DEFAULT_CITY_NAME);
      const category = isCategory(query.category) ? query.category : undefined;
      const limit = Math.min(Math.max(Number(query.limit) || PAGE_SIZE, 1), 100);
      const page = await browseListings(deps.db, { city, category, limit, cursor: typeof query.cursor === "string" ? query.cursor : undefined }, new Date(deps.now()));
      const headers: Record<string, string> = { "X-Total-Count": String(page.total) };
      if (page.nextCursor) headers["X-Next-Cursor"] = page.nextCursor;
      return json(
        page.listings.map((l) => publicActivity(l.activity, l.host, l.rating)),
        200,
        headers,
      );
    })
    .get("/api/activities/:id", async ({ params, state }) => {
      if (!state.user) return unauthorized(state);
      const activity = await findListedActivity(deps, params.id);
      if (!activity) return notFound(state);
      const [host, rating] = await Promise.all([hostOf(deps, activity), activityRating(deps.db, activity.id)]);
      return json(publicActivity(activity, host && publicUser(host, new Date(deps.now())), rating));
    })
    .get("/api/activities/:id/reviews", async ({ params, state }) => {
      if (!state.user) return unauthorized(state);
      const activity = await findListedActivity(deps, params.id);
      return activity ? json(await activityReviews(deps.db, activity.id)) : notFound(state);
    })
    .post("/api/activities", async ({ body, state }) => {
      if (!state.user) return unauthorized(state);
      const read = await readActivityInput(deps, state.user, asRecord(body));
      if (!read.ok) return activityErrors(state, read.errors);
      const activity = await createActivity(deps, state.user, read.changes);
      return json(publicActivity(activity, publicUser(state.user, new Date(deps.now()))), 201);
    })
    .patch("/api/activities/:id", async ({ params, body, state }) => {
      if (!state.user) return unauthorized(state);
      const activity = await findOwnActivity(deps, state.user.id, params.id);
      if (!activity) return notFound(state);
      const read = await readActivityInput(deps, state.user, asRecord(body), activity);
      if (!read.ok) return activityErrors(state, read.errors);
      return json(publicActivity(await updateActivity(deps, activity, read.changes), publicUser(state.user, new Date(deps.now()))));
    })
    .delete("/api/activities/:id", async ({ params, state }) => {
      if (!state.user) return unauthorized(state);
      const activity = await findOwnActivity(deps, state.user.id, params.id);
      if (!activity) return notFound(state);
      return json({ status: await deleteActivity(deps, activity) });
    })
    .get("/api/host/requests", async ({ state }) => {
      if (!state.user) return unauthorized(state);
      return json((await hostRequests(deps, state.user.id)).requests);
    })
    .get("/api/host/earnings", async ({ state }) => {
      if (!state.user) return unauthorized(state);
      const e = await hostEarnings(deps, state.user.id);
      return json({ totalEarnings: (e.totalEarningsCents / 100).toFixed(2), pendingPayouts: (e.pendingPayoutsCents / 100).toFixed(2), completedBookings: e.completedBookings });
    })
    .get("/api/user/activities", async ({ state }) => {
      if (!state.user) return unauthorized(state);
      const host = publicUser(state.user, new Date(deps.now()));
      return json((await ownActivities(deps, state.user.id)).map((a) => publicActivity(a, host)));
    });
}
