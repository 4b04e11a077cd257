import { profileSteps, type ProfileStep } from "./onboarded";
import type { MessageKey } from "../../lib/i18n";

/**
 * Onboarding's five steps (spec §2): the profile's steps (src/profiles/onboarded.ts: which fields
 * each saves, when it is done, which the access check reads too) and the spec's two-line message
 * when a step fails. The route and the screen read them from here.
 */
export interface OnboardingStep extends ProfileStep {
  alert?: (errors: Record<string, MessageKey>) => { title: MessageKey; body: MessageKey } | undefined;
}

export { firstIncompleteStep, isProfileComplete, ONBOARDING_STEPS } from "./onboarded";

/**
 * Each step's alert, by step number. The age rule's two lines (step 3) are said under the
 * birthday field (views/profiles/Onboarding.tsx), where the page script says them too, as soon as
 * the date is picked.
 */
const alerts: Record<number, OnboardingStep["alert"]> = {
  1: () => ({ title: "profile.requiredFields", body: "profile.bothNamesRequired" }),
  2: (e) => (e.username === "profile.usernameTaken" ? { title: "profile.usernameNotAvailable", body: "profile.usernameChooseAnother" } : undefined),
};

export const onboardingSteps: OnboardingStep[] = profileSteps.map((step, i) => ({ ...step, alert: alerts[i + 1] }));

/** The step that asks for photos: it needs one at least. */
export const PHOTO_STEP = 4;

/** The step (1-based) of a step number, or undefined. */
export const onboardingStep = (step: number) => (Number.isInteger(step) && step >= 1 ? onboardingSteps[step - 1] : undefined);
