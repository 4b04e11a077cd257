import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { releaseSuspendedJob } from "../../reports/moderation";
import { reportRoutes } from "./routes";

/** Reports and their moderation: the routes, and the job releasing a suspended person's bookings. */
export const reportsFeature = (deps: Deps) => {
  deps.jobs.register(releaseSuspendedJob as never);
  return new Elysia({ name: "offline.reports.feature", seed: deps.id }).use(reportRoutes(deps));
};
