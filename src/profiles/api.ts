import { Elysia } from "elysia";
import { context, type Deps, type RequestState } from "../context";
import { asRecord, json } from "../lib/http";
import { translateErrors } from "../lib/i18n";
import { hostListings } from "../activities/service";
import { publicActivity } from "../activities/serialize";
import { changeEmail, changePassword, findByUsername, isUsernameTaken, updateProfile, type UpdateResult } from "./service";
import { publicUser, selfUser } from "./serialize";
import { reviewsOf } from "../reviews/service";
import { usernameSchema } from "./schema";

/** The JSON answer to a profile change: the user, or 4xx with a message per field. */
export function updateAnswer(state: RequestState, result: UpdateResult) {
  if (result.ok) return json(selfUser(result.user));
  const errors = translateErrors(state.t, result.errors);
  return json({ message: Object.values(errors)[0] ?? state.t("profile.updateFailed"), errors }, result.status);
}

/** The profile calls of spec §7. */
export function profileApi(deps: Deps) {
  const unauthorized = (state: RequestState) => json({ message: state.t("error.unauthorized") }, 401);
  const notFound = (state: RequestState) => json({ message: state.t("profile.hostNotFound") }, 404);

  return new Elysia({ name: "offline.profiles.api", seed: deps.id })
    .use(context(deps))
    .put("/api/user/profile", async ({ body, state }) =>
      state.user ? updateAnswer(state, await updateProfile(deps, state.user, asRecord(body))) : unauthorized(state),
    )
    .put("/api/user/username", async ({ body, state }) =>
      state.user ? updateAnswer(state, await updateProfile(deps, state.user, { username: asRecord(body).username ?? "" })) : unauthorized(state),
    )
    .put("/api/user/email", async ({ body, state }) =>
      state.user ? updateAnswer(state, await changeEmail(deps, state.user, asRecord(body))) : unauthorized(state),
    )
    .put("/api/user/password", async ({ body, state }) =>
      state.user ? updateAnswer(state, await changePassword(deps, state.user, asRecord(body), state.session!.sid)) : unauthorized(state),
    )
    .get("/api/check-username", async ({ query, state }) => {
      if (!state.user) return unauthorized(state);
      const parsed = usernameSchema.safeParse(query.username ?? "");
      if (!parsed.success) return json({ available: false, message: state.t(parsed.error.issues[0]!.message as never) });
      if (parsed.data === state.user.username) return json({ available: true });
      return json({ available: !(await isUsernameTaken(deps.db, parsed.data, state.user.id)) });
    })
    .get("/api/user/reviews", async ({ state }) => (state.user ? json((await reviewsOf(deps.db, state.user.id)).reviews) : unauthorized(state)))
    .get("/api/users/by-username/:username", async ({ params, state }) => {
      if (!state.user) return unauthorized(state);
      const user = await findByUsername(deps.db, params.username);
      return user ? json(publicUser(user, new Date(deps.now()))) : notFound(state);
    })
    .get("/api/users/by-username/:username/activities", async ({ params, state }) => {
      if (!state.user) return unauthorized(state);
      const user = await findByUsername(deps.db, params.username);
      if (!user) return notFound(state);
      const { listings } = await hostListings(deps.db, user.id, 100, new Date(deps.now()));
      return json(listings.map((l) => publicActivity(l.activity, l.host, l.rating)));
    })
    .get("/api/users/by-username/:username/reviews", async ({ params, state }) => {
      if (!state.user) return unauthorized(state);
      const user = await findByUsername(deps.db, params.username);
      return user ? json((await reviewsOf(deps.db, user.id)).reviews) : notFound(state);
    });
}
