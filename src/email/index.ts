import { Elysia } from "elysia";
import type { Deps } from "../deps";
import { emailJob } from "./outbox";
import { emailRoutes } from "./routes";

/** Email: the sending job, and the one-click unsubscribe pages (docs/decisions/0034). */
export const emailFeature = (deps: Deps) => {
  deps.jobs.register(emailJob);
  return new Elysia({ name: "offline.email.feature", seed: deps.id }).use(emailRoutes(deps));
};
