import { Elysia } from "elysia";
import type { User } from "../../db/schema";
import { LocationFields, Onboarding, onboardingValues, UsernameStatus, type OnboardingState } from "../../views/profiles/Onboarding";
import { firstIncompleteStep, onboardingStep, ONBOARDING_STEPS } from "./onboarding";
import { context, type Render } from "../context";
import { type Deps } from "../deps";
import { asRecord, listFrom, redirectTo } from "../lib/http";
import { translateErrors } from "../texts";
import { htmlResponse } from "../shell/render";
import { viewOf } from "../shell/view";
import { findCountry } from "../lib/places";
import { checkUsername, updateProfile } from "./service";

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
      return htmlResponse(String(<UsernameStatus view={viewOf(deps, state, request)} state={check.state} message={message} screen={screen} />));
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
