import { Elysia } from "elysia";
import type { User } from "../../db/schema";
import { EditProfile, type EditProfileState } from "../../views/profiles/EditProfile";
import { LocationFields, Onboarding, onboardingValues, UsernameStatus, type OnboardingState } from "../../views/profiles/Onboarding";
import { AllActivities, AllReviews, OwnProfile, PublicProfileSheet, type ProfileData } from "../../views/profiles/Profile";
import { AccountForm, AccountOverview, Help, SettingsHub, type AccountFormState, type AccountScreen } from "../../views/profiles/Settings";
import { PushCard } from "../../views/notifications/PushCard";
import { CalendarFeedCard } from "../../views/availability/CalendarFeedCard";
import { NotFound } from "../../views/shell/NotFound";
import { hostActivities } from "../activities/queries";
import { calendarFeedState } from "../availability/feed";
import { pendingEmailChange } from "../auth/tokens";
import { context, type Render } from "../context";
import { type Deps } from "../deps";
import { asRecord, listFrom, redirectTo, stringsFrom, waitHeaders, waitParams } from "../lib/http";
import { findCountry } from "../lib/places";
import { preferencesOf } from "../notifications/service";
import { reviewsOf } from "../reviews/queries";
import { htmlResponse } from "../shell/render";
import { viewOf } from "../shell/view";
import { translateErrors, type MessageKey } from "../texts";
import { aboutFields, parseAbout, parseVisibility } from "./about";
import { readEmailChange, readPasswordChange } from "./input";
import { firstIncompleteStep, onboardingStep, ONBOARDING_STEPS } from "./onboarding";
import { publicUser } from "./serialize";
import { changeEmail, changePassword, checkUsername, findByUsername, updateProfile, type UpdateResult } from "./service";

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

  return new Elysia({ name: "offline.profiles", seed: deps.id })
    .use(context(deps))
    .get("/onboarding", ({ request, query, state, user, render }) => {
      const reachable = firstIncompleteStep(user);
      if (reachable > ONBOARDING_STEPS) return redirectTo(request, "/browse");
      const asked = Number(query.step);
      const step = Number.isInteger(asked) && asked >= 1 && asked <= reachable ? asked : reachable;
      return onboardingPage(render, { step, values: onboardingValues(user) });
    }, { signedIn: true })
    .post("/onboarding", async ({ request, body, state, user, render, sendTo }) => {
      const input = asRecord(body);
      const step = Number(input.step);
      const spec = onboardingStep(step);
      if (!spec || step > firstIncompleteStep(user)) return redirectTo(request, "/onboarding");
      const values = onboardingValues(user);

      const changes: Record<string, unknown> = {};
      for (const field of spec.fields) changes[field] = input[field] ?? "";
      if (step === 4 && !listFrom(input.photos)?.length) {
        return onboardingPage(render, { step, values, errors: { photos: state.t("profile.photoRequired") } }, 400);
      }
      const result = await updateProfile(deps, user, changes);
      if (!result.ok) {
        const alert = spec.alert?.(result.errors);
        // The alert already says it: the field keeps only its own, different messages.
        const errors = translateErrors(state.t, Object.fromEntries(Object.entries(result.errors).filter(([, v]) => !alert || v !== alert.body)));
        const typed = Object.fromEntries(spec.fields.map((f) => [f, typeof input[f] === "string" ? input[f] : values[f as keyof typeof values]]));
        return onboardingPage(
          render,
          {
            step,
            values: { ...values, ...typed, photos: values.photos },
            errors,
            alert: alert && { title: state.t(alert.title), body: state.t(alert.body) },
            underage: result.errors.dateOfBirth === "profile.ageRequirement",
          },
          result.status,
        );
      }
      const next = firstIncompleteStep(result.user);
      if (next <= ONBOARDING_STEPS) return redirectTo(request, `/onboarding?step=${Math.max(next, Math.min(step + 1, ONBOARDING_STEPS))}`);
      return sendTo("/browse", { title: "toast.profileCompleted", body: "toast.profileCompletedBody" });
    }, { signedIn: true })
    .get("/fragments/username-status", async ({ request, query, state, user, render }) => {
      const check = await checkUsername(deps, user, query.username);
      const message = check.state === "tooShort" || check.state === "invalid" ? state.t(check.message) : undefined;
      const screen = query.screen === "settings" ? "settings" : "onboarding";
      return htmlResponse(String(<UsernameStatus view={await viewOf(deps, state, request)} state={check.state} message={message} screen={screen} />));
    }, { signedIn: true })
    .get("/fragments/location", async ({ request, query, state, user, render }) => {
      const view = await viewOf(deps, state, request);
      const country = findCountry(query.country)?.name ?? null;
      return htmlResponse(String(<LocationFields view={view} country={country} city={null} />));
    }, { signedIn: true })
    .post("/settings/location", async ({ request, body, state, user, toastHeader, render }) => {
      const view = await viewOf(deps, state, request);
      const input = asRecord(body);
      const country = findCountry(input.country);
      // Choosing a country resets the city to that country's first city, and saves at once.
      const city = country?.cities.some((c) => c.name === input.city) ? String(input.city) : country?.cities[0]?.name;
      const result = await updateProfile(deps, user, { country: input.country, city: city ?? "" });
      const saved = result.ok ? result.user : user;
      const headers = toastHeader(result.ok ? { title: "toast.profileUpdated" } : { title: "common.errorTitle", body: "profile.locationRequired", variant: "error" });
      if (request.headers.get("hx-request")) {
        return htmlResponse(String(<LocationFields view={view} country={saved.country} city={saved.city} autosave />), result.ok ? 200 : 400, headers);
      }
      return redirectTo(request, "/settings");
    }, { onboarded: true })
    // Everything below is for onboarded people only.
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
    .get("/settings", async ({ request, state, user, render }) => {
      const [preferences, feed] = await Promise.all([preferencesOf(deps.db, user.id), calendarFeedState(deps, user)]);
      return render((view) => (
        <SettingsHub
          view={view}
          user={user}
          pushCard={<PushCard view={view} preferences={preferences} vapidPublicKey={deps.secrets.vapidPublicKey} />}
          calendarCard={<CalendarFeedCard view={view} feed={feed} />}
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
    .post("/settings/:screen", async ({ params, request, body, state, user, render, sendTo }) => {
      const screen = params.screen as AccountScreen;
      const input = asRecord(body);
      let result: UpdateResult;
      if (!SCREENS.includes(screen)) return redirectTo(request, "/settings");
      if (screen === "first-name") result = await updateProfile(deps, user, { firstName: input.firstName ?? "" });
      else if (screen === "name") result = await updateProfile(deps, user, { firstName: input.firstName ?? "", lastName: input.lastName ?? "" });
      else if (screen === "birthday") result = await updateProfile(deps, user, { dateOfBirth: input.dateOfBirth ?? "" });
      else if (screen === "username") result = await updateProfile(deps, user, { username: input.username ?? "" });
      else if (screen === "email") {
        const change = readEmailChange(input);
        result = change.ok ? await changeEmail(deps, user, change.data, state.session!.sid, state.locale) : change;
      } else {
        const change = readPasswordChange(input, !!user.passwordHash);
        result = change.ok ? await changePassword(deps, user, change.data, state.session!.sid) : change;
      }
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
        pendingEmail: screen === "email" ? await pendingEmailChange(deps.db, user.id, deps.now()) : null,
      };
      return render((view) => <AccountForm view={view} screen={screen} user={user} state={formState} />, { status: result.status, headers: waitHeaders(result.retryAfterMs) });
    });
}
