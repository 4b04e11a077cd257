import type { PublicActivity } from "../activities/serialize";

/**
 * What the API shows of a saved activity (docs/decisions/0055): its id, the title it is known by
 * and when it was saved; with the activity's public JSON (`GET /api/activities/{id}`) while it is
 * listed, else `available: false` and nothing more of it.
 */
export type SavedJson =
  | { activityId: string; title: string; savedAt: string; available: true; activity: PublicActivity }
  | { activityId: string; title: string; savedAt: string; available: false };

export const savedAtIso = (ms: number) => new Date(ms).toISOString();
