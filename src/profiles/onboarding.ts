import type { User } from "../../db/schema";
import type { MessageKey } from "../texts";

/**
 * Onboarding's five steps (spec §2), defined once: which fields each step saves, when it is done,
 * and the spec's two-line message when it fails. The route, the screen and the access check
 * (`isProfileComplete`) all read them from here.
 */
export interface OnboardingStep {
  fields: string[];
  done(user: User): boolean;
  alert?: (errors: Record<string, MessageKey>) => { title: MessageKey; body: MessageKey } | undefined;
}

export const onboardingSteps: OnboardingStep[] = [
  {
    fields: ["firstName", "lastName"],
    done: (u) => Boolean(u.firstName && u.lastName),
    alert: () => ({ title: "profile.requiredFields", body: "profile.bothNamesRequired" }),
  },
  {
    fields: ["username"],
    done: (u) => Boolean(u.username),
    alert: (e) => (e.username === "profile.usernameTaken" ? { title: "profile.usernameNotAvailable", body: "profile.usernameChooseAnother" } : undefined),
  },
  // The age rule's two lines are said under the birthday field (views/profiles/Onboarding.tsx),
  // where the page script says them too, as soon as the date is picked.
  { fields: ["dateOfBirth"], done: (u) => Boolean(u.dateOfBirth) },
  { fields: ["photos"], done: (u) => Boolean(u.photo) },
  { fields: ["country", "city"], done: (u) => Boolean(u.country && u.city) },
];

export const ONBOARDING_STEPS = onboardingSteps.length;

/** The step that asks for photos: it needs one at least. */
export const PHOTO_STEP = 4;

/** The step (1-based) of a step number, or undefined. */
export const onboardingStep = (step: number) => (Number.isInteger(step) && step >= 1 ? onboardingSteps[step - 1] : undefined);

/** The first step still missing its answer (ONBOARDING_STEPS + 1 when all are done). */
export function firstIncompleteStep(user: User): number {
  const i = onboardingSteps.findIndex((s) => !s.done(user));
  return i < 0 ? ONBOARDING_STEPS + 1 : i + 1;
}

/** Onboarding is done when every one of its steps has its answer. */
export const isProfileComplete = (user: User): boolean => firstIncompleteStep(user) > ONBOARDING_STEPS;
