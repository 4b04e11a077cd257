import { Elysia } from "elysia";
import type { User } from "../../db/schema";
import { LocationFields, Onboarding, onboardingValues, ONBOARDING_STEPS, UsernameStatus, type OnboardingState } from "../../views/profiles/Onboarding";
import { context, type Deps, type Render } from "../context";
import { asRecord, listFrom, redirectTo } from "../lib/http";
import { translateErrors, type MessageKey } from "../lib/i18n";
import { htmlResponse } from "../shell/render";
import { viewOf } from "../shell/view";
import { findCountry } from "../lib/places";
import { usernameSchema } from "./schema";
import { isUsernameTaken, updateProfile } from "./service";

/** The first onboarding step still missing its answer (6 when all are done). */
export function firstIncompleteStep(user: User): number {
  if (!user.firstName || !user.lastName) return 1;
  if (!user.username) return 2;
  if (!user.dateOfBirth) return 3;
  if (!user.photo) return 4;
  if (!user.country || !user.city) return 5;
  return 6;
}

/** Which fields each step saves, and the spec's two-line message when it fails. */
const STEP_FIELDS: Record<number, { fields: string[]; alert?: (errors: Record<string, MessageKey>) => { title: MessageKey; body: MessageKey } | undefined }> = {
  1: { fields: ["firstName", "lastName"], alert: () => ({ title: "profile.requiredFields", body: "profile.bothNamesRequired" }) },
  2: {
    fields: ["username"],
    alert: (e) => (e.username === "profile.usernameTaken" ? { title: "profile.usernameNotAvailable", body: "profile.usernameChooseAnother" } : undefined),
  },
  3: {
    fields: ["dateOfBirth"],
    alert: (e) => (e.dateOfBirth === "profile.ageRequirement" ? { title: "profile.ageRequirementTitle", body: "profile.ageRequirement" } : undefined),
  },
  4: { fields: ["photos"] },
  5: { fields: ["country", "city"] },
};

/** Onboarding, and the fragments its fields and the settings location card swap in. */
export function profileRoutes(deps: Deps) {
  const today = () => new Date(deps.now());

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
      const spec = STEP_FIELDS[step];
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
          { step, values: { ...values, ...typed, photos: values.photos }, errors, alert: alert && { title: state.t(alert.title), body: state.t(alert.body) } },
          result.status,
        );
      }
      const next = firstIncompleteStep(result.user);
      if (next <= ONBOARDING_STEPS) return redirectTo(request, `/onboarding?step=${Math.max(next, Math.min(step + 1, ONBOARDING_STEPS))}`);
      return sendTo("/browse", { title: "toast.profileCompleted", body: "toast.profileCompletedBody" });
    }, { signedIn: true })
    .get("/fragments/username-status", async ({ request, query, state, user, render }) => {
      const view = viewOf(deps, state, request);
      const parsed = usernameSchema.safeParse(query.username ?? "");
      if (!parsed.success) {
        const key = parsed.error.issues[0]!.message as MessageKey;
        const value = String(query.username ?? "").trim();
        if (!value) return htmlResponse(String(<UsernameStatus view={view} state="unknown" />));
        return htmlResponse(String(<UsernameStatus view={view} state={key === "profile.usernameTooShort" ? "tooShort" : "invalid"} message={state.t(key)} />));
      }
      if (parsed.data === user.username) return htmlResponse(String(<UsernameStatus view={view} state="unchanged" />));
      const taken = await isUsernameTaken(deps.db, parsed.data, user.id);
      return htmlResponse(String(<UsernameStatus view={view} state={taken ? "taken" : "available"} />));
    }, { signedIn: true })
    .get("/fragments/location", ({ request, query, state, user, render }) => {
      const view = viewOf(deps, state, request);
      const country = findCountry(query.country)?.name ?? null;
      return htmlResponse(String(<LocationFields view={view} country={country} city={null} />));
    }, { signedIn: true })
    .post("/settings/location", async ({ request, body, state, user, toastHeader, render }) => {
      const view = viewOf(deps, state, request);
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
    }, { onboarded: true });
}
