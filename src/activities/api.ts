import { Elysia } from "elysia";
import { madeOnce } from "../lib/memo";
import { context } from "../context";
import { type Deps, type RequestState } from "../deps";
import { asRecord, json, jsonBytes, waitHeaders, waitParams } from "../lib/http";
import { createActivity, creationWait, deleteActivity, updateActivity } from "./service";
import { readActivityInput, readBrowseQuery, translateActivityErrors, type ActivityErrors } from "./input";
import { publicUser } from "../profiles/serialize";
import { publicActivity } from "./serialize";
import { activityRating, activityReviews, browseListings, findListedActivity, findOwnActivity, hostOf, ownActivities } from "./queries";

/**
 * The JSON of a page of listings. `browseListings` hands out one shared page per read until the
 * database changes, so its JSON is written once for as long as the page is kept.
 */
const listingsJson = madeOnce((page: Awaited<ReturnType<typeof browseListings>>) =>
  new TextEncoder().encode(JSON.stringify(page.listings.map((l) => publicActivity(l.activity, l.host, l.rating)))),
);

export function activityErrors(state: RequestState, errors: ActivityErrors, status = 400) {
  const translated = translateActivityErrors(state.t, errors);
  return json({ message: Object.values(translated)[0] ?? state.t("error.badRequest"), errors: translated }, status);
}

/**
 * The activity calls of spec §7. Only an activity's host changes it; others get 404. Creating
 * and changing take, beside the spec's fields, when the activity can be booked (decision 0037):
 * `weeklyHours` (`null` or `"any"`, or seven days Monday first, each `[[540, 720], …]` minute
 * pairs or the text `"09:00-12:00, 14:00-18:00"`; see `readWeeklyHours`), `noticeMinutes` (one
 * of NOTICE_CHOICES), `horizonDays` (one of HORIZON_CHOICES) and `instantBooking` (boolean).
 * A refusal is 400 `{ message, errors: { field: message } }` and changes nothing.
 */
export function activityApi(deps: Deps) {
  const notFound = (state: RequestState) => json({ message: state.t("activity.notFound") }, 404);

  return new Elysia({ name: "offline.activities.api", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .get("/api/activities", async ({ query, state, set, user }) => {
      const page = await browseListings(deps.db, readBrowseQuery(query, user, { sizeFromQuery: true }), new Date(deps.now()));
      // Counted up to BROWSE_COUNT_CAP: past it the header holds the cap and X-Total-Count-Capped says "at least".
      const headers: Record<string, string> = { "X-Total-Count": String(page.total) };
      if (page.capped) headers["X-Total-Count-Capped"] = "true";
      if (page.nextCursor) headers["X-Next-Cursor"] = page.nextCursor;
      return jsonBytes(listingsJson(page), 200, headers);
    })
    .get("/api/activities/:id", async ({ params, user, state }) => {
      const activity = await findListedActivity(deps, params.id);
      if (!activity) return notFound(state);
      const [host, rating] = await Promise.all([hostOf(deps, activity), activityRating(deps.db, activity.id)]);
      return json(publicActivity(activity, host && publicUser(host, new Date(deps.now())), rating));
    })
    .get("/api/activities/:id/reviews", async ({ params, user, state }) => {
      const activity = await findListedActivity(deps, params.id);
      return activity ? json(await activityReviews(deps.db, activity.id)) : notFound(state);
    })
    .post("/api/activities", async ({ body, user, state }) => {
      const wait = await creationWait(deps, user.id);
      if (wait > 0) return json({ message: state.t("activity.tooManyCreated", waitParams(wait)) }, 429, waitHeaders(wait));
      const read = await readActivityInput(deps, user, asRecord(body));
      if (!read.ok) return activityErrors(state, read.errors);
      const created = await createActivity(deps, user, read.changes);
      if (!created.ok) return json({ message: state.t("activity.tooManyCreated", waitParams(created.retryAfterMs)) }, 429, waitHeaders(created.retryAfterMs));
      return json(publicActivity(created.activity, publicUser(user, new Date(deps.now()))), 201);
    })
    .patch("/api/activities/:id", async ({ params, body, user, state }) => {
      const activity = await findOwnActivity(deps, user.id, params.id);
      if (!activity) return notFound(state);
      const read = await readActivityInput(deps, user, asRecord(body), activity);
      if (!read.ok) return activityErrors(state, read.errors);
      return json(publicActivity(await updateActivity(deps, activity, read.changes), publicUser(user, new Date(deps.now()))));
    })
    .delete("/api/activities/:id", async ({ params, user, state }) => {
      const activity = await findOwnActivity(deps, user.id, params.id);
      if (!activity) return notFound(state);
      return json({ status: await deleteActivity(deps, activity) });
    })
    .get("/api/user/activities", async ({ user }) => {
      const host = publicUser(user, new Date(deps.now()));
      return json((await ownActivities(deps, user.id)).map((a) => publicActivity(a, host)));
    });
}
