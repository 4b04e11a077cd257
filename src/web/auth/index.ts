import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { accountEmailRoutes } from "./email-routes";
import { linkRoutes } from "./link-routes";
import { oauthFlows } from "../../auth/oauth";
import { authRoutes } from "./routes";
import { expiredSessionsCleanup } from "../../auth/service";
import { expiredTokensCleanup } from "../../auth/tokens";

/**
 * Accounts: sign-up, sign-in and sessions with providers (routes.tsx), verified addresses and
 * password reset (email-routes.tsx), joining a provider's account to an existing one
 * (link-routes.tsx), and the jobs clearing expired sessions and links.
 */
export const authFeature = (deps: Deps) => {
  deps.jobs.register(expiredSessionsCleanup, expiredTokensCleanup);
  const flows = oauthFlows(deps.config.oauth, deps.config.publicUrl);
  return new Elysia({ name: "offline.auth.feature", seed: deps.id }).use(accountEmailRoutes(deps)).use(linkRoutes(deps, flows)).use(authRoutes(deps, flows));
};
