import { Elysia } from "elysia";
import type { User } from "../../../db/schema";
import { context } from "../../context";
import { type Deps, type RequestState } from "../../deps";
import { DomainError } from "../../../lib/domain-error";
import { json } from "../../../lib/http";
import { hostListings } from "../../activities/queries";
import { publicActivity } from "../../activities/serialize";
import { changeEmail, changePassword, findByUsername, checkUsername, updateProfile } from "../../profiles/service";
import { emailChangeSchema, passwordChangeSchema, profileChangesSchema, usernameBody, usernameQuery } from "../../profiles/input";
import { publicUser, selfUser } from "../../profiles/serialize";
import { reviewsOf } from "../../reviews/queries";

/**
 * The JSON answer to an email change: the user, unchanged, and the address that waits for its
 * link (202), or the user alone when the account kept its own address.
 */
export function emailChangeAnswer(state: RequestState, user: User, pendingEmail: string | null) {
  if (!pendingEmail) return json(selfUser(user));
  // Nothing changed yet: the new address confirms it first.
  return json({ ...selfUser(user), pendingEmail, message: state.t("account.emailChangeSent", { email: pendingEmail }) }, 202);
}

/** The profile calls of spec §7. A refused change is 4xx `{ message, fields: { field: message } }` and changes nothing. */
export function profileApi(deps: Deps) {
  /** The person asked about, by username, or "Host not found". */
  const someone = async (username: string) => {
    const user = await findByUsername(deps.db, username);
    if (!user) throw new DomainError("profile.hostNotFound", 404);
    return user;
  };

  return new Elysia({ name: "offline.profiles.api", seed: deps.id })
    .use(context(deps))
    .put("/api/user/profile", async ({ body, user }) => json(selfUser(await updateProfile(deps, user, body))), {
      signedIn: true,
      body: profileChangesSchema(() => new Date(deps.now())),
    })
    .put("/api/user/username", async ({ body, user }) => json(selfUser(await updateProfile(deps, user, body))), { signedIn: true, body: usernameBody })
    .put("/api/user/email", async ({ body, user, state }) => emailChangeAnswer(state, user, await changeEmail(deps, user, body, state.session!.sid, state.locale)), {
      signedIn: true,
      body: emailChangeSchema,
    })
    .put("/api/user/password", async ({ body, user, state }) => json(selfUser(await changePassword(deps, user, body, state.session!.sid))), {
      signedIn: true,
      body: passwordChangeSchema,
    })
    .get("/api/check-username", async ({ query, user, state }) => {
      const check = await checkUsername(deps, user, query.username);
      if ("message" in check) return json({ available: false, message: state.t(check.message) });
      return json({ available: check.state !== "taken" });
    }, { signedIn: true, query: usernameQuery })
    .get("/api/user/reviews", async ({ user }) => json((await reviewsOf(deps.db, user.id)).reviews), { onboarded: true })
    .get("/api/users/by-username/:username", async ({ params }) => json(publicUser(await someone(params.username), new Date(deps.now()))), { onboarded: true })
    .get("/api/users/by-username/:username/activities", async ({ params }) => {
      const user = await someone(params.username);
      const { listings } = await hostListings(deps.db, user.id, 100, new Date(deps.now()));
      return json(listings.map((l) => publicActivity(l.activity, l.host, l.rating)));
    }, { onboarded: true })
    .get("/api/users/by-username/:username/reviews", async ({ params }) => json((await reviewsOf(deps.db, (await someone(params.username)).id)).reviews), { onboarded: true });
}
