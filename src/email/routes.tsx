import { Elysia } from "elysia";
import { context, type Deps } from "../context";
import { emailJob } from "./outbox";

/** Email (docs/decisions/0034): the sending job. */
export function emailRoutes(deps: Deps) {
  deps.jobs.register(emailJob);
  return new Elysia({ name: "offline.email", seed: deps.id }).use(context(deps));
}
