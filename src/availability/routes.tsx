import { Elysia } from "elysia";
import { AvailabilityScreen, type AvailabilityData } from "../../views/availability/AvailabilityScreen";
import { findOwnActivity, ownActivities } from "../activities/queries";
import { activityHoursBody, hoursErrorDay } from "../activities/input";
import { updateActivity } from "../activities/service";
import { ActivityNotFound } from "../../views/activities/Detail";
import { availabilityValues, postedAvailability } from "../../views/activities/Availability";
import { ActivityHoursScreen } from "../../views/availability/ActivityHoursScreen";
import { heldCount } from "../bookings/availability";
import { context, type FormScreen } from "../context";
import type { Deps } from "../deps";
import { asRecord, wantsJson } from "../lib/http";
import { isDomainError } from "../lib/domain-error";
import type { User } from "../../db/schema";
import { parseBody } from "../lib/validation";
import { addBlock, hostZone, removeBlock, upcomingBlocks } from "./blocks";
import { blockInput } from "./input";
import { busyCalendarState } from "./busy-calendar";
import { calendarFeedState } from "./feed";

/** What the Availability screen shows a host. */
async function availabilityData(deps: Deps, host: User, form?: AvailabilityData["form"]): Promise<AvailabilityData> {
  return {
    zone: hostZone(host),
    activities: await ownActivities(deps, host.id),
    blocks: await upcomingBlocks(deps, host.id),
    form,
    feed: calendarFeedState(deps, host),
    busyCalendar: await busyCalendarState(deps, host),
  };
}

/** Text fields of a form body as they were sent (to show them again with a refusal). */
const sentValues = (body: unknown) => Object.fromEntries(Object.entries(asRecord(body)).filter(([k, v]) => k !== "_csrf" && typeof v === "string")) as Record<string, string>;

/**
 * The host's Availability screen (reached from the dashboard): each activity's week, days off and
 * blocked times across all activities, and the calendars. Plain forms, no JavaScript needed.
 */
export function availabilityRoutes(deps: Deps) {
  /** A refused activity's hours: the form again as it was sent, with the message (someone else's activity is not found). */
  const activityHoursRefused: FormScreen = async ({ sent, error, fields }, { user, params, render }) => {
    const activity = user && params.id ? await findOwnActivity(deps, user.id, params.id) : undefined;
    if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
    return render((view) => <ActivityHoursScreen view={view} activity={activity} values={postedAvailability(sent)} errors={fields} hoursDay={hoursErrorDay(error)} />, { status: error.status });
  };

  return new Elysia({ name: "offline.availability", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .get("/host/availability", async ({ user, render }) => {
      const data = await availabilityData(deps, user);
      return render((view) => <AvailabilityScreen view={view} data={data} />);
    })
    .post("/host/availability/blocks", async ({ body, user, request, state, render, sendTo }) => {
      try {
        const block = await addBlock(deps, user, parseBody(blockInput, body));
        const held = await heldCount(deps, user.id, block.startsAt, block.endsAt);
        if (wantsJson(request)) return Response.json({ id: block.id, startsAt: block.startsAt, endsAt: block.endsAt, allDay: block.allDay, note: block.note, heldBookings: held }, { status: 201 });
        return sendTo("/host/availability", { title: "availability.blockAdded", body: held ? "availability.overlapsRequests" : "availability.blockAddedBody", variant: "success" });
      } catch (err) {
        if (!isDomainError(err) || wantsJson(request)) throw err;
        const field = typeof err.details.extra?.field === "string" ? err.details.extra.field : undefined;
        const data = await availabilityData(deps, user, { values: sentValues(body), error: state.t(err.key, err.params), field });
        return render((view) => <AvailabilityScreen view={view} data={data} />, { status: err.status });
      }
    })
    .get("/host/availability/activities/:id", async ({ params, user, render }) => {
      const activity = await findOwnActivity(deps, user.id, params.id);
      if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
      return render((view) => <ActivityHoursScreen view={view} activity={activity} values={availabilityValues(activity)} errors={{}} />);
    })
    .post("/host/availability/activities/:id", async ({ params, body, user, render, sendTo }) => {
      const activity = await findOwnActivity(deps, user.id, params.id);
      if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
      await updateActivity(deps, user, activity, body);
      return sendTo("/host/availability", { title: "availability.hoursSaved", body: "availability.hoursSavedBody", variant: "success" });
    }, { body: activityHoursBody, refused: { screen: activityHoursRefused } })
    .post("/host/availability/blocks/:id/remove", async ({ params, user, request, sendTo }) => {
      try {
        await removeBlock(deps, user.id, params.id);
      } catch (err) {
        if (!isDomainError(err) || wantsJson(request)) throw err;
        return sendTo("/host/availability", { title: "availability.blockFailed", body: err.key, variant: "error" });
      }
      if (wantsJson(request)) return new Response(null, { status: 204 });
      return sendTo("/host/availability", { title: "availability.blockRemoved", body: "availability.blockRemovedBody", variant: "success" });
    });
}
