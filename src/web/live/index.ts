import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { liveRoutes } from "./routes";

export { LIVE_SOCKET_OPTIONS } from "./routes";

/**
 * The live feature: the `/ws` socket (`routes.ts`), which listens to the app's events
 * (`listener.ts`) and delivers them to the people of each booking, in this process or, with
 * Redis, in every process (`hub.ts`, `redis.ts`).
 */
export const liveFeature = (deps: Deps) => new Elysia({ name: "offline.live.feature", seed: deps.id }).use(liveRoutes(deps));
