import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { removeFilesJob } from "../../account/delete";
import { deleteRoutes } from "./delete-routes";

/** Deleting an account: the screens, the API, the operators' screen and the job removing the files. */
export const accountDeletionFeature = (deps: Deps) => {
  deps.jobs.register(removeFilesJob as never);
  return new Elysia({ name: "offline.account.delete.feature", seed: deps.id }).use(deleteRoutes(deps));
};
