import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { busyCalendarJob } from "../../availability/busy-calendar";
import { feedRoutes } from "./feed-routes";
import { availabilityRoutes } from "./routes";

/**
 * When hosts can be booked (docs/decisions/0037-availability.md): the host's Availability
 * screen (weekly hours per activity, days off and blocked times), the private calendar feeds,
 * and the outside busy calendar with the job that reads it. The booking rules that apply all
 * this live in `src/bookings/times.ts` and `src/bookings/availability.ts`.
 */
export const availabilityFeature = (deps: Deps) => {
  // Reading an outside calendar waits on someone else's server: in a lane of its own (docs/decisions/0045).
  deps.jobs.register({ ...busyCalendarJob, lane: "calendar" } as never);
  return new Elysia({ name: "offline.availability.feature", seed: deps.id }).use(availabilityRoutes(deps)).use(feedRoutes(deps));
};
