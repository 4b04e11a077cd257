import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { uploadRoutes } from "./routes";
import { leftoverUploadCleanup, staleUploadsCleanup } from "../../uploads/service";

/** Photo uploads: their routes and their clean-up jobs. */
export const uploadsFeature = (deps: Deps) => {
  deps.jobs.register(staleUploadsCleanup, leftoverUploadCleanup);
  return new Elysia({ name: "offline.uploads.feature", seed: deps.id }).use(uploadRoutes(deps));
};
