import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { reviewRoutes } from "./routes";
import { publishJob } from "../../reviews/service";

/** Reviews: the review screen and API, the person's reviews, and the job publishing hidden reviews. */
export const reviewsFeature = (deps: Deps) => {
  deps.jobs.register(publishJob as never);
  return new Elysia({ name: "offline.reviews.feature", seed: deps.id }).use(reviewRoutes(deps));
};
