import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { notFoundRoute, shellRoutes } from "./routes";

/** The app's shell: landing, offline page, language and theme, health, the service worker and assets. */
export const shellFeature = (deps: Deps) => new Elysia({ name: "offline.shell.feature", seed: deps.id }).use(shellRoutes(deps));

/**
 * The answer to any address no feature has: registered after every feature (it is not part of
 * `shellFeature`, which comes first).
 */
export { notFoundRoute };
