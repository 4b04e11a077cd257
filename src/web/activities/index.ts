import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { activityApi } from "./api";
import { activityRoutes } from "./routes";

/** Activities: the JSON API (spec §7), and browse, the activity page and host management pages. */
export const activitiesFeature = (deps: Deps) => new Elysia({ name: "offline.activities.feature", seed: deps.id }).use(activityApi(deps)).use(activityRoutes(deps));
