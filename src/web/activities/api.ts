import { Elysia } from "elysia";
import { madeOnce } from "../../../shared/memo";
import { context } from "../../context";
import { type Deps } from "../../deps";
import { DomainError } from "../../../lib/domain-error";
import { json, jsonBytes } from "../../../lib/http";
import { createActivity, deleteActivity, updateActivity } from "../../activities/service";
import { activityCreateBody, activityUpdateBody, readBrowseQuery } from "../../activities/input";
import { anyFilter, asksWhen, readBrowseFilters } from "../../activities/filters";
import { findActivities, type FoundPage } from "../../bookings/find";
import type { MessageKey } from "../../../lib/i18n";
import { publicUser } from "../../profiles/serialize";
import { publicActivity } from "../../activities/serialize";
import { startTimesOn } from "../../bookings/queries";
import { scheduleMinimums } from "../../bookings/minimum";
import { dateTimeQuery } from "../../bookings/input";
import { activityRating, activityReviews, browseListings, findListedActivity, findOwnActivity, hostOf, ownActivities } from "../../activities/queries";

/**
 * The JSON of a page of listings. `browseListings` hands out one shared page per read until the
 * database changes, so its JSON is written once for as long as the page is kept.
 */
const listingsJson = madeOnce((page: Awaited<ReturnType<typeof browseListings>>) =>
  new TextEncoder().encode(JSON.stringify(page.listings.map((l) => publicActivity(l.activity, l.host, l.rating)))),
);

/** A filtered page's JSON: each activity with its first matching start (`firstStart: { date, time, spotsLeft }`). */
const foundJson = madeOnce((page: FoundPage) =>
  new TextEncoder().encode(JSON.stringify(page.listings.map((l) => ({ ...publicActivity(l.activity, l.host, l.rating), firstStart: l.firstStart ?? null })))),
);

/**
 * The activity calls of spec §7. Only an activity's host changes it; others get 404. Creating
 * and changing take, beside the spec's fields, when the activity can be booked (decision 0037):
 * `weeklyHours` (`null` or `"any"`, or seven days Monday first, each `[[540, 720], …]` minute
 * pairs or the text `"09:00-12:00, 14:00-18:00"`; see `readWeeklyHours`), `noticeMinutes` (one
 * of NOTICE_CHOICES), `horizonDays` (one of HORIZON_CHOICES) and `instantBooking` (boolean).
 * A refusal is 400 `{ message, fields: { field: message } }` and changes nothing.
 */
export function activityApi(deps: Deps) {
  /** A listed activity, or "not found". */
  const listed = async (id: string) => {
    const activity = await findListedActivity(deps, id);
    if (!activity) throw new DomainError("activity.notFound", 404);
    return activity;
  };
  /** The host's own activity; anyone else's is not found. */
  const own = async (hostId: string, id: string) => {
    const activity = await findOwnActivity(deps, hostId, id);
    if (!activity) throw new DomainError("activity.notFound", 404);
    return activity;
  };

  return new Elysia({ name: "offline.activities.api", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .get("/api/activities", async ({ query, user }) => {
      const asked = readBrowseQuery(query, user, { sizeFromQuery: true });
      const now = deps.now();
      // The same filters as the browse page (decision 0054); a refused one is 400 with its field's message.
      const { filters, errors } = readBrowseFilters(query, asked.city, now);
      const first = Object.values(errors)[0];
      if (first) throw new DomainError(first, 400, { fields: errors as Record<string, MessageKey> });
      const page = anyFilter(filters) ? await findActivities(deps.db, { ...asked, filters }, now) : await browseListings(deps.db, asked, new Date(now));
      // Counted up to BROWSE_COUNT_CAP: past it the header holds the cap and X-Total-Count-Capped says "at least".
      const headers: Record<string, string> = { "X-Total-Count": String(page.total) };
      if (page.capped) headers["X-Total-Count-Capped"] = "true";
      if (page.nextCursor) headers["X-Next-Cursor"] = page.nextCursor;
      return jsonBytes(asksWhen(filters) ? foundJson(page as FoundPage) : listingsJson(page), 200, headers);
    })
    .get("/api/activities/:id", async ({ params }) => {
      const activity = await listed(params.id);
      const [host, rating] = await Promise.all([hostOf(deps, activity), activityRating(deps.db, activity.id)]);
      return json(publicActivity(activity, host && publicUser(host, new Date(deps.now())), rating));
    })
    // The open starts of a day (docs/decisions/0049): `[{ start, open, spotsLeft }]`, spotsLeft null for a private activity.
    .get("/api/activities/:id/times", async ({ params, query }) => {
      const activity = await listed(params.id);
      if (!query.date) throw new DomainError("booking.dateRequired", 400, { fields: { date: "booking.dateRequired" } });
      return json(await startTimesOn(deps, activity, query.date));
    }, { query: dateTimeQuery })
    .get("/api/activities/:id/reviews", async ({ params }) => json(await activityReviews(deps.db, (await listed(params.id)).id)))
    .post("/api/activities", async ({ body, user }) => json(publicActivity(await createActivity(deps, user, body), publicUser(user, new Date(deps.now()))), 201), {
      body: activityCreateBody,
    })
    .patch("/api/activities/:id", async ({ params, body, user }) => {
      const activity = await own(user.id, params.id);
      const changed = await updateActivity(deps, user, activity, body);
      await scheduleMinimums(deps, changed);
      return json(publicActivity(changed, publicUser(user, new Date(deps.now()))));
    }, { body: activityUpdateBody })
    .delete("/api/activities/:id", async ({ params, user }) => json({ status: await deleteActivity(deps, await own(user.id, params.id)) }))
    .get("/api/user/activities", async ({ user }) => {
      const host = publicUser(user, new Date(deps.now()));
      return json((await ownActivities(deps, user.id)).map((a) => publicActivity(a, host)));
    });
}
