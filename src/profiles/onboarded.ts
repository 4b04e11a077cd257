import type { User } from "../../db/schema";

/**
 * What a finished profile has, step by step: onboarding's five steps (spec §2), which fields each
 * saves and when it is done. The access level `onboarded` (src/context.ts, checked by
 * `accessDenied`) lets a person through once every step is; the onboarding screens
 * (src/profiles/onboarding.ts) walk the same steps, adding what each says when it fails.
 */
export interface ProfileStep {
  fields: string[];
  done(user: User): boolean;
}

export const profileSteps: readonly ProfileStep[] = [
  { fields: ["firstName", "lastName"], done: (u) => Boolean(u.firstName && u.lastName) },
  { fields: ["username"], done: (u) => Boolean(u.username) },
  { fields: ["dateOfBirth"], done: (u) => Boolean(u.dateOfBirth) },
  { fields: ["photos"], done: (u) => Boolean(u.photo) },
  { fields: ["country", "city"], done: (u) => Boolean(u.country && u.city) },
];

export const ONBOARDING_STEPS = profileSteps.length;

/** The first step still missing its answer (ONBOARDING_STEPS + 1 when all are done). */
export function firstIncompleteStep(user: User): number {
  const i = profileSteps.findIndex((s) => !s.done(user));
  return i < 0 ? ONBOARDING_STEPS + 1 : i + 1;
}

/** Onboarding is done when every one of its steps has its answer. */
export const isProfileComplete = (user: User): boolean => firstIncompleteStep(user) > ONBOARDING_STEPS;
