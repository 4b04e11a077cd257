import { Elysia } from "elysia";
import { AvailabilityScreen, type AvailabilityData } from "../../../views/availability/AvailabilityScreen";
import { findOwnActivity, ownActivities } from "../../activities/queries";
import { activityHoursBody, hoursErrorDay } from "../../activities/input";
import { updateActivity } from "../../activities/service";
import { ActivityNotFound } from "../../../views/activities/Detail";
import { availabilityValues, postedAvailability } from "../../../views/activities/Availability";
import { ActivityHoursScreen } from "../../../views/availability/ActivityHoursScreen";
import { heldCount } from "../../bookings/availability";
import { scheduleMinimums } from "../../bookings/minimum";
import { context, type FormScreen } from "../../context";
import type { Deps } from "../../deps";
import { wantsJson } from "../../../lib/http";
import type { User } from "../../../db/schema";
import { addBlock, hostZone, removeBlock, upcomingBlocks } from "../../availability/blocks";
import { blockInput } from "../../availability/input";
import { busyCalendarState } from "../../availability/busy-calendar";
import { calendarFeedState } from "../../availability/feed";

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
const sentValues = (sent: Record<string, unknown>) => Object.fromEntries(Object.entries(sent).filter(([k, v]) => k !== "_csrf" && typeof v === "string")) as Record<string, string>;

/** The add form's fields that show their own message; any other refusal is said above the form. */
const BLOCK_FIELDS = new Set(["date", "endDate", "from", "to"]);

/**
 * The host's Availability screen (reached from the dashboard): each activity's week, days off and
 * blocked times across all activities, and the calendars. Plain forms, no JavaScript needed.
 */
export function availabilityRoutes(deps: Deps) {
  /** A refused block is shown again in the add form, with what was sent and the reason beside its field. */
  const blockForm: FormScreen = async ({ sent, error, message, fields }, { user, render }) => {
    if (!user) return undefined;
    const field = Object.keys(fields)[0];
    const data = await availabilityData(deps, user, { values: sentValues(sent), error: message, field: field && BLOCK_FIELDS.has(field) ? field : undefined });
    return render((view) => <AvailabilityScreen view={view} data={data} />, { status: error.status });
  };

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
    .post("/host/availability/blocks", async ({ body, user, request, sendTo }) => {
      const block = await addBlock(deps, user, body);
      const held = await heldCount(deps, user.id, block.startsAt, block.endsAt);
      if (wantsJson(request)) return Response.json({ id: block.id, startsAt: block.startsAt, endsAt: block.endsAt, allDay: block.allDay, note: block.note, heldBookings: held }, { status: 201 });
      return sendTo("/host/availability", { title: "availability.blockAdded", body: held ? "availability.overlapsRequests" : "availability.blockAddedBody", variant: "success" });
    }, { body: blockInput, refused: { screen: blockForm } })
    .get("/host/availability/activities/:id", async ({ params, user, render }) => {
      const activity = await findOwnActivity(deps, user.id, params.id);
      if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
      return render((view) => <ActivityHoursScreen view={view} activity={activity} values={availabilityValues(activity)} errors={{}} />);
    })
    .post("/host/availability/activities/:id", async ({ params, body, user, render, sendTo }) => {
      const activity = await findOwnActivity(deps, user.id, params.id);
      if (!activity) return render((view) => <ActivityNotFound view={view} />, { status: 404 });
      await scheduleMinimums(deps, await updateActivity(deps, user, activity, body));
      return sendTo("/host/availability", { title: "availability.hoursSaved", body: "availability.hoursSavedBody", variant: "success" });
    }, { body: activityHoursBody, refused: { screen: activityHoursRefused } })
    .post("/host/availability/blocks/:id/remove", async ({ params, user, request, sendTo }) => {
      await removeBlock(deps, user.id, params.id);
      if (wantsJson(request)) return new Response(null, { status: 204 });
      return sendTo("/host/availability", { title: "availability.blockRemoved", body: "availability.blockRemovedBody", variant: "success" });
    }, { refused: { title: "availability.blockFailed", back: "/host/availability" } });
}
