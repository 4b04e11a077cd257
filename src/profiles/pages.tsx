import { Elysia } from "elysia";
import type { User } from "../../db/schema";
import { EditProfile, type EditProfileState } from "../../views/profiles/EditProfile";
import { NotFound } from "../../views/shell/NotFound";
import { AllActivities, AllReviews, OwnProfile, PublicProfileSheet, type ProfileData } from "../../views/profiles/Profile";
import { PushCard } from "../../views/notifications/PushCard";
import { preferencesOf } from "../notifications/service";
import { AccountForm, AccountOverview, Help, SettingsHub, type AccountFormState, type AccountScreen } from "../../views/profiles/Settings";
import { hostActivities } from "../activities/service";
import { context } from "../context";
import { type Deps } from "../deps";
import { asRecord, listFrom, redirectTo, stringsFrom, waitHeaders, waitParams } from "../lib/http";
import { translateErrors, type MessageKey } from "../texts";
import { aboutFields, parseAbout, parseVisibility } from "./about";
import { reviewsOf } from "../reviews/service";
import { changeEmail, changePassword, findByUsername, updateProfile, type UpdateResult } from "./service";
import { publicUser } from "./serialize";
import { pendingEmailChange } from "../auth/tokens";

const SCREENS: AccountScreen[] = ["first-name", "name", "birthday", "username", "email", "password"];
/** The spec's message when a single-field screen fails to save, where it names one. */
const FAILURE: Partial<Record<AccountScreen, MessageKey>> = {
  "first-name": "settings.firstNameFailed",
  birthday: "settings.birthdayFailed",
};

/** Profile, public profile, edit profile and the settings screens. */
export function profilePages(deps: Deps) {
  const profileData = async (user: User): Promise<ProfileData> => {
    const [activities, reviews] = await Promise.all([hostActivities(deps.db, user.id, 5), reviewsOf(deps.db, user.id, 3)]);
    return { profile: publicUser(user, new Date(deps.now())), activities, reviews };
  };


  const editState = (user: User): EditProfileState => ({
    photos: user.photos,
    bio: user.bio ?? "",
    interests: user.interests.join(", "),
    about: parseAbout(user.about),
    visibility: parseVisibility(user.aboutVisibility),
  });

  const accountValues = (user: User): Record<string, string> => ({
    firstName: user.firstName ?? "",
    lastName: user.lastName ?? "",
    dateOfBirth: user.dateOfBirth ?? "",
    username: user.username ?? "",
    email: user.email ?? "",
  });

  return new Elysia({ name: "offline.profiles.pages", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .get("/profile", async ({ request, state, user, render }) => {
      const data = await profileData(user);
      return render((view) => (
        <OwnProfile view={view} user={user} data={data} allAbout={parseAbout(user.about)} visibility={parseVisibility(user.aboutVisibility)} />
      ));
    })
    .get("/profile/:username", async ({ params, request, state, render }) => {
      const user = await findByUsername(deps.db, params.username);
      const data = user ? await profileData(user) : null;
      return render((view) => <PublicProfileSheet view={view} data={data} />, { status: data ? 200 : 404 });
    })
    .get("/profile/:username/reviews", async ({ params, request, state, render }) => {
      const user = await findByUsername(deps.db, params.username);
      if (!user) return render((view) => <PublicProfileSheet view={view} data={null} />, { status: 404 });
      const r = await reviewsOf(deps.db, user.id);
      return render((view) => (
        <AllReviews view={view} title={view.t("profile.reviewsOf", { name: user.firstName ?? "" })} back={`/profile/${user.username}`} {...r} />
      ));
    })
    .get("/profile/:username/activities", async ({ params, request, state, render }) => {
      const user = await findByUsername(deps.db, params.username);
      if (!user) return render((view) => <PublicProfileSheet view={view} data={null} />, { status: 404 });
      const { cards } = await hostActivities(deps.db, user.id, 100);
      return render((view) => (
        <AllActivities view={view} title={view.t("profile.activitiesOf", { name: user.firstName ?? "" })} back={`/profile/${user.username}`} cards={cards} />
      ));
    })
    .get("/edit-profile", ({ request, state, user, render }) => render((view) => <EditProfile view={view} state={editState(user)} />))
    .post("/edit-profile", async ({ body, state, user, render, sendTo }) => {
      const input = asRecord(body);
      // The edit form always sends its photo list; anything else is not that form.
      if (typeof input.photos !== "string") {
        return render((view) => <EditProfile view={view} state={{ ...editState(user), alert: { title: state.t("common.errorTitle"), body: state.t("error.badRequest") } }} />, { status: 400 });
      }
      const about: Record<string, unknown> = {};
      const visibility: Record<string, boolean> = {};
      for (const f of aboutFields) {
        if (f.kind === "multi") {
          about[f.key] = Object.keys(input)
            .filter((k) => k.startsWith(`about_${f.key}_`) && input[k])
            .map((k) => k.slice(`about_${f.key}_`.length));
        } else if (typeof input[`about_${f.key}`] === "string") about[f.key] = input[`about_${f.key}`];
        visibility[f.visibilityKey] = Boolean(input[`visible_${f.visibilityKey}`]);
      }
      const result = await updateProfile(deps, user, {
        photos: input.photos,
        bio: input.bio ?? "",
        interests: input.interests ?? "",
        about,
        aboutVisibility: visibility,
      });
      if (result.ok) return sendTo("/profile", { title: "toast.profileUpdated" });
      const errors = translateErrors(state.t, result.errors);
      const draft: EditProfileState = {
        photos: listFrom(input.photos) ? stringsFrom(input.photos) : user.photos,
        bio: typeof input.bio === "string" ? input.bio : "",
        interests: typeof input.interests === "string" ? input.interests : "",
        about: parseAbout(JSON.stringify(about)),
        visibility,
        errors,
        alert: { title: state.t("common.errorTitle"), body: Object.values(errors)[0] },
      };
      return render((view) => <EditProfile view={view} state={draft} />, { status: result.status });
    })
    .get("/settings", ({ request, state, user, render }) =>
      render((view) => <SettingsHub view={view} user={user} pushCard={<PushCard view={view} preferences={preferencesOf(deps.db, user.id)} vapidPublicKey={deps.secrets.vapidPublicKey} />} />),
    )
    .get("/settings/account", ({ request, state, user, render }) => {
      const pending = pendingEmailChange(deps.db, user.id, deps.now());
      return render((view) => <AccountOverview view={view} user={user} pendingEmail={pending} />);
    })
    .get("/help", ({ request, state, user, render }) => render((view) => <Help view={view} />))
    .get("/settings/:screen", ({ params, request, state, user, render }) => {
      const screen = params.screen as AccountScreen;
      if (!SCREENS.includes(screen)) return render((view) => <NotFound view={view} />, { status: 404 });
      const formState: AccountFormState = { values: accountValues(user), pendingEmail: pendingEmailChange(deps.db, user.id, deps.now()) };
      return render((view) => <AccountForm view={view} screen={screen} user={user} state={formState} />);
    })
    .post("/settings/:screen", async ({ params, request, body, state, user, render, sendTo }) => {
      const screen = params.screen as AccountScreen;
      const input = asRecord(body);
      let result: UpdateResult;
      if (!SCREENS.includes(screen)) return redirectTo(request, "/settings");
      if (screen === "first-name") result = await updateProfile(deps, user, { firstName: input.firstName ?? "" });
      else if (screen === "name") result = await updateProfile(deps, user, { firstName: input.firstName ?? "", lastName: input.lastName ?? "" });
      else if (screen === "birthday") result = await updateProfile(deps, user, { dateOfBirth: input.dateOfBirth ?? "" });
      else if (screen === "username") result = await updateProfile(deps, user, { username: input.username ?? "" });
      else if (screen === "email") result = await changeEmail(deps, user, input, state.session!.sid, state.locale);
      else result = await changePassword(deps, user, input, state.session!.sid);
      // The new address confirms an email change first: its screen says what it waits for.
      if (result.ok && result.pendingEmail) return sendTo("/settings/email", { title: "toast.emailChangeSent", body: "toast.emailChangeSentBody" });
      if (result.ok) return sendTo("/settings", { title: "toast.profileUpdated" });
      const typed = Object.fromEntries(Object.entries(input).filter(([k, v]) => typeof v === "string" && !k.toLowerCase().includes("password"))) as Record<string, string>;
      const errors = translateErrors(state.t, result.errors, waitParams(result.retryAfterMs));
      const failure = FAILURE[screen];
      const formState: AccountFormState = {
        values: { ...accountValues(user), ...typed },
        errors,
        alert: failure ? state.t(failure) : undefined,
        pendingEmail: screen === "email" ? pendingEmailChange(deps.db, user.id, deps.now()) : null,
      };
      return render((view) => <AccountForm view={view} screen={screen} user={user} state={formState} />, { status: result.status, headers: waitHeaders(result.retryAfterMs) });
    });
}
