import { Elysia } from "elysia";
import { context } from "../context";
import { type Deps, type RequestState } from "../deps";
import { asRecord, json, waitHeaders, waitParams } from "../lib/http";
import { translateErrors } from "../texts";
import { hostListings } from "../activities/queries";
import { publicActivity } from "../activities/serialize";
import { changeEmail, changePassword, findByUsername, checkUsername, updateProfile, type UpdateResult } from "./service";
import { readEmailChange, readPasswordChange } from "./input";
import { publicUser, selfUser } from "./serialize";
import { reviewsOf } from "../reviews/queries";

/** The JSON answer to a profile change: the user, or 4xx with a message per field. */
export function updateAnswer(state: RequestState, result: UpdateResult) {
  if (result.ok && result.pendingEmail) {
    // Nothing changed yet: the new address confirms it first.
    return json({ ...selfUser(result.user), pendingEmail: result.pendingEmail, message: state.t("account.emailChangeSent", { email: result.pendingEmail }) }, 202);
  }
  if (result.ok) return json(selfUser(result.user));
  const errors = translateErrors(state.t, result.errors, waitParams(result.retryAfterMs));
  return json({ message: Object.values(errors)[0] ?? state.t("profile.updateFailed"), errors }, result.status, waitHeaders(result.retryAfterMs));
}

/** The profile calls of spec §7. */
export function profileApi(deps: Deps) {
  const notFound = (state: RequestState) => json({ message: state.t("profile.hostNotFound") }, 404);

  return new Elysia({ name: "offline.profiles.api", seed: deps.id })
    .use(context(deps))
    .put("/api/user/profile", async ({ body, user, state }) => updateAnswer(state, await updateProfile(deps, user, asRecord(body))), { signedIn: true })
    .put("/api/user/username", async ({ body, user, state }) => updateAnswer(state, await updateProfile(deps, user, { username: asRecord(body).username ?? "" })), {
      signedIn: true,
    })
    .put("/api/user/email", async ({ body, user, state }) => {
      const change = readEmailChange(asRecord(body));
      return updateAnswer(state, change.ok ? await changeEmail(deps, user, change.data, state.session!.sid, state.locale) : change);
    }, { signedIn: true })
    .put("/api/user/password", async ({ body, user, state }) => {
      const change = readPasswordChange(asRecord(body), !!user.passwordHash);
      return updateAnswer(state, change.ok ? await changePassword(deps, user, change.data, state.session!.sid) : change);
    }, { signedIn: true })
    .get("/api/check-username", async ({ query, user, state }) => {
      const check = await checkUsername(deps, user, query.username);
      if ("message" in check) return json({ available: false, message: state.t(check.message) });
      return json({ available: check.state !== "taken" });
    }, { signedIn: true })
    .get("/api/user/reviews", async ({ user }) => json((await reviewsOf(deps.db, user.id)).reviews), { onboarded: true })
    .get("/api/users/by-username/:username", async ({ params, state }) => {
      const user = await findByUsername(deps.db, params.username);
      return user ? json(publicUser(user, new Date(deps.now()))) : notFound(state);
    }, { onboarded: true })
    .get("/api/users/by-username/:username/activities", async ({ params, state }) => {
      const user = await findByUsername(deps.db, params.username);
      if (!user) return notFound(state);
      const { listings } = await hostListings(deps.db, user.id, 100, new Date(deps.now()));
      return json(listings.map((l) => publicActivity(l.activity, l.host, l.rating)));
    }, { onboarded: true })
    .get("/api/users/by-username/:username/reviews", async ({ params, state }) => {
      const user = await findByUsername(deps.db, params.username);
      return user ? json((await reviewsOf(deps.db, user.id)).reviews) : notFound(state);
    }, { onboarded: true });
}
