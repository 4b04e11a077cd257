import { Elysia } from "elysia";
import type { User } from "../../../db/schema";
import { EditProfile, type EditProfileState } from "../../../views/profiles/EditProfile";
import { LocationFields, Onboarding, onboardingValues, UsernameStatus, type OnboardingState } from "../../../views/profiles/Onboarding";
import { AllActivities, AllReviews, OwnProfile, PublicProfileSheet, type ProfileData } from "../../../views/profiles/Profile";
import { AccountForm, AccountOverview, Help, SettingsHub, type AccountFormState, type AccountScreen } from "../../../views/profiles/Settings";
import { PushCard } from "../../../views/notifications/PushCard";
import { CalendarFeedCard } from "../../../views/availability/CalendarFeedCard";
import { NotFound } from "../../../views/shell/NotFound";
import { hostActivities } from "../../activities/queries";
import { calendarFeedState } from "../../availability/feed";
import { pendingEmailChange } from "../../auth/tokens";
import { context, type FormScreen, type Render, type SendTo } from "../../context";
import { type Deps } from "../../deps";
import { listFrom, redirectTo, stringsFrom } from "../../../lib/http";
import { findCountry } from "../../../lib/places";
import { preferencesOf } from "../../notifications/service";
import { reviewsOf } from "../../reviews/queries";
import { htmlResponse } from "../../shell/render";
import { viewOf } from "../../shell/view";
import type { MessageKey } from "../../../lib/i18n";
import { parseAbout, parseVisibility } from "../../profiles/about";
import { aboutOfForm, editProfileBody, type ProfileChanges, emailChangeSchema, locationBody, onboardingBody, passwordChangeSchema, settingsBodies, usernameParams, usernameQuery } from "../../profiles/input";
import { firstIncompleteStep, onboardingStep, ONBOARDING_STEPS } from "../../profiles/onboarding";
import { publicUser } from "../../profiles/serialize";
import { changeEmail, changePassword, checkUsername, findByUsername, updateProfile } from "../../profiles/service";
import { exportStatus } from "../../account/export";
import { DataExportCard } from "../../../views/account/DataExport";

const SCREENS: AccountScreen[] = ["first-name", "name", "birthday", "username", "email", "password"];
/** The spec's message when a single-field screen fails to save, where it names one. */
const FAILURE: Partial<Record<AccountScreen, MessageKey>> = {
  "first-name": "settings.firstNameFailed",
  birthday: "settings.birthdayFailed",
};

/**
 * The profile pages: onboarding and the fragments its fields and the settings location card swap
 * in; then, once onboarded, the profile, public profiles, edit profile and the settings screens.
 */
export function profileRoutes(deps: Deps) {
  const today = () => new Date(deps.now());

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

  const onboardingPage = (render: Render, s: OnboardingState, status = 200) => render((view) => <Onboarding view={view} state={s} today={today()} />, { status });

  /**
   * A refused onboarding step: the step again with what was typed, each field's own message and
   * the spec's two-line alert where the step has one. A step not reached yet is not shown.
   */
  const onboardingRefused: FormScreen = ({ sent, error, fields }, { state, user, render }) => {
    const step = Number(sent.step);
    const spec = onboardingStep(step);
    if (!user || !spec || step > firstIncompleteStep(user)) return new Response(null, { status: 303, headers: { Location: "/onboarding" } });
    const keys = error.details.fields ?? {};
    const alert = spec.alert?.(keys);
    // The alert already says it: the field keeps only its own, different messages.
    const errors = Object.fromEntries(Object.entries(fields).filter(([field]) => !alert || keys[field] !== alert.body));
    const values = onboardingValues(user);
    const typed = Object.fromEntries(spec.fields.map((f) => [f, typeof sent[f] === "string" ? sent[f] : values[f as keyof typeof values]]));
    const screen: OnboardingState = {
      step,
      values: { ...values, ...typed, photos: values.photos },
      errors,
      alert: alert && { title: state.t(alert.title), body: state.t(alert.body) },
      underage: keys.dateOfBirth === "profile.ageRequirement",
    };
    return onboardingPage(render, screen, error.status);
  };

  /** A refused Edit profile: the form again as it was sent, the first message in the alert. */
  const editProfileRefused: FormScreen = ({ sent, error, message, fields }, { state, user, render }) => {
    if (!user) return undefined;
    const alert = (body: string) => ({ title: state.t("common.errorTitle"), body });
    // Not the edit form, which always sends its photo list.
    if (typeof sent.photos !== "string") return render((view) => <EditProfile view={view} state={{ ...editState(user), alert: alert(message) }} />, { status: 400 });
    const { about, visibility } = aboutOfForm(sent);
    const draft: EditProfileState = {
      photos: listFrom(sent.photos) ? stringsFrom(sent.photos) : user.photos,
      bio: typeof sent.bio === "string" ? sent.bio : "",
      interests: typeof sent.interests === "string" ? sent.interests : "",
      about: parseAbout(JSON.stringify(about)),
      visibility,
      errors: fields,
      alert: alert(Object.values(fields)[0] ?? message),
    };
    return render((view) => <EditProfile view={view} state={draft} />, { status: error.status });
  };

  /** A refused settings screen: the form again with what was typed (never a password) and each field's message. */
  const accountFormRefused =
    (screen: AccountScreen): FormScreen =>
    async ({ sent, error, fields }, { state, user, render }) => {
      if (!user) return undefined;
      const typed = Object.fromEntries(Object.entries(sent).filter(([k, v]) => typeof v === "string" && !k.toLowerCase().includes("password"))) as Record<string, string>;
      const failure = FAILURE[screen];
      const formState: AccountFormState = {
        values: { ...accountValues(user), ...typed },
        errors: fields,
        alert: failure ? state.t(failure) : undefined,
        pendingEmail: screen === "email" ? await pendingEmailChange(deps.db, user.id, deps.now()) : null,
      };
      return render((view) => <AccountForm view={view} screen={screen} user={user} state={formState} />, { status: error.status });
    };

  /** The single-field settings screens that change the profile: each declares its body, and is drawn again when refused. */
  const bodies = settingsBodies(today);
  const saveScreen = async ({ body, user, sendTo }: { body: ProfileChanges; user: User; sendTo: SendTo }) => {
    await updateProfile(deps, user, body);
    return sendTo("/settings", { title: "toast.profileUpdated" });
  };

  return new Elysia({ name: "offline.profiles", seed: deps.id })
    .use(context(deps))
    .get("/onboarding", ({ request, query, state, user, render }) => {
      const reachable = firstIncompleteStep(user);
      if (reachable > ONBOARDING_STEPS) return redirectTo(request, "/browse");
      const asked = Number(query.step);
      const step = Number.isInteger(asked) && asked >= 1 && asked <= reachable ? asked : reachable;
      return onboardingPage(render, { step, values: onboardingValues(user) });
    }, { signedIn: true })
    .post("/onboarding", async ({ request, body, user, sendTo }) => {
      const { step, changes } = body;
      if (step === null || step > firstIncompleteStep(user)) return redirectTo(request, "/onboarding");
      const saved = await updateProfile(deps, user, changes);
      const next = firstIncompleteStep(saved);
      if (next <= ONBOARDING_STEPS) return redirectTo(request, `/onboarding?step=${Math.max(next, Math.min(step + 1, ONBOARDING_STEPS))}`);
      return sendTo("/browse", { title: "toast.profileCompleted", body: "toast.profileCompletedBody" });
    }, { signedIn: true, body: onboardingBody(today), refused: { screen: onboardingRefused } })
    .get("/fragments/username-status", async ({ request, query, state, user }) => {
      const check = await checkUsername(deps, user, query.username);
      const message = check.state === "tooShort" || check.state === "invalid" ? state.t(check.message) : undefined;
      return htmlResponse(String(<UsernameStatus view={await viewOf(deps, state, request)} state={check.state} message={message} screen={query.screen} />));
    }, { signedIn: true, query: usernameQuery })
    .get("/fragments/location", async ({ request, query, state, user, render }) => {
      const view = await viewOf(deps, state, request);
      const country = findCountry(query.country)?.name ?? null;
      return htmlResponse(String(<LocationFields view={view} country={country} city={null} />));
    }, { signedIn: true })
    // Choosing a country resets the city to that country's first city, and saves at once.
    .post("/settings/location", async ({ request, body, state, user, toastHeader }) => {
      const saved = await updateProfile(deps, user, body);
      if (!request.headers.get("hx-request")) return redirectTo(request, "/settings");
      const view = await viewOf(deps, state, request);
      return htmlResponse(String(<LocationFields view={view} country={saved.country} city={saved.city} autosave />), 200, toastHeader({ title: "toast.profileUpdated" }));
    }, { onboarded: true, body: locationBody, refused: { title: "common.errorTitle", back: "/settings" } })
    // Everything below is for onboarded people only.
    .guard({ onboarded: true })
    .get("/profile", async ({ request, state, user, render }) => {
      const data = await profileData(user);
      return render((view) => (
        <OwnProfile view={view} user={user} data={data} allAbout={parseAbout(user.about)} visibility={parseVisibility(user.aboutVisibility)} />
      ));
    })
    .get("/profile/:username", async ({ params, render }) => {
      const user = await findByUsername(deps.db, params.username);
      const data = user ? await profileData(user) : null;
      return render((view) => <PublicProfileSheet view={view} data={data} />, { status: data ? 200 : 404 });
    }, { params: usernameParams })
    .get("/profile/:username/reviews", async ({ params, render }) => {
      const user = await findByUsername(deps.db, params.username);
      if (!user) return render((view) => <PublicProfileSheet view={view} data={null} />, { status: 404 });
      const r = await reviewsOf(deps.db, user.id);
      return render((view) => (
        <AllReviews view={view} title={view.t("profile.reviewsOf", { name: user.firstName ?? "" })} back={`/profile/${user.username}`} {...r} />
      ));
    }, { params: usernameParams })
    .get("/profile/:username/activities", async ({ params, render }) => {
      const user = await findByUsername(deps.db, params.username);
      if (!user) return render((view) => <PublicProfileSheet view={view} data={null} />, { status: 404 });
      const { cards } = await hostActivities(deps.db, user.id, 100);
      return render((view) => (
        <AllActivities view={view} title={view.t("profile.activitiesOf", { name: user.firstName ?? "" })} back={`/profile/${user.username}`} cards={cards} />
      ));
    }, { params: usernameParams })
    .get("/edit-profile", ({ request, state, user, render }) => render((view) => <EditProfile view={view} state={editState(user)} />))
    .post("/edit-profile", async ({ body, user, sendTo }) => {
      await updateProfile(deps, user, body.changes);
      return sendTo("/profile", { title: "toast.profileUpdated" });
    }, { body: editProfileBody(today), refused: { screen: editProfileRefused } })
    .get("/settings", async ({ request, state, user, render }) => {
      const [preferences, feed, dataExport] = await Promise.all([preferencesOf(deps.db, user.id), calendarFeedState(deps, user), exportStatus(deps, user.id)]);
      return render((view) => (
        <SettingsHub
          view={view}
          user={user}
          pushCard={<PushCard view={view} preferences={preferences} vapidPublicKey={deps.secrets.vapidPublicKey} />}
          calendarCard={<CalendarFeedCard view={view} feed={feed} />}
          dataExportCard={<DataExportCard view={view} status={dataExport} />}
        />
      ));
    })
    .get("/settings/account", async ({ request, state, user, render }) => {
      const pending = await pendingEmailChange(deps.db, user.id, deps.now());
      return render((view) => <AccountOverview view={view} user={user} pendingEmail={pending} />);
    })
    .get("/help", ({ request, state, user, render }) => render((view) => <Help view={view} />))
    .get("/settings/:screen", async ({ params, request, state, user, render }) => {
      const screen = params.screen as AccountScreen;
      if (!SCREENS.includes(screen)) return render((view) => <NotFound view={view} />, { status: 404 });
      const formState: AccountFormState = { values: accountValues(user), pendingEmail: await pendingEmailChange(deps.db, user.id, deps.now()) };
      return render((view) => <AccountForm view={view} screen={screen} user={user} state={formState} />);
    })
    .post("/settings/first-name", saveScreen, { body: bodies["first-name"], refused: { screen: accountFormRefused("first-name") } })
    .post("/settings/name", saveScreen, { body: bodies.name, refused: { screen: accountFormRefused("name") } })
    .post("/settings/birthday", saveScreen, { body: bodies.birthday, refused: { screen: accountFormRefused("birthday") } })
    .post("/settings/username", saveScreen, { body: bodies.username, refused: { screen: accountFormRefused("username") } })
    .post("/settings/email", async ({ body, user, state, sendTo }) => {
      // The new address confirms an email change first: its screen says what it waits for.
      if (await changeEmail(deps, user, body, state.session!.sid, state.locale)) return sendTo("/settings/email", { title: "toast.emailChangeSent", body: "toast.emailChangeSentBody" });
      return sendTo("/settings", { title: "toast.profileUpdated" });
    }, { body: emailChangeSchema, refused: { screen: accountFormRefused("email") } })
    .post("/settings/password", async ({ body, user, state, sendTo }) => {
      await changePassword(deps, user, body, state.session!.sid);
      return sendTo("/settings", { title: "toast.profileUpdated" });
    }, { body: passwordChangeSchema, refused: { screen: accountFormRefused("password") } })
    .post("/settings/:screen", ({ request }) => redirectTo(request, "/settings"));
}
