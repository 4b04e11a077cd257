import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { savedApi } from "./api";
import { savedRoutes } from "./routes";

/** Saved activities: the heart's form, the Saved page and the Saved API (docs/decisions/0055). */
export const savedFeature = (deps: Deps) =>
  new Elysia({ name: "offline.saved.feature", seed: deps.id }).use(savedApi(deps)).use(savedRoutes(deps));
