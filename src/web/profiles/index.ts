import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { profileApi } from "./api";
import { profileRoutes } from "./routes";

/** Profiles: the profile API, onboarding, profiles, edit profile and the settings screens. */
export const profilesFeature = (deps: Deps) => new Elysia({ name: "offline.profiles.feature", seed: deps.id }).use(profileApi(deps)).use(profileRoutes(deps));
