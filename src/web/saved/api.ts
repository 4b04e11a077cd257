import { Elysia } from "elysia";
import { context } from "../../context";
import { type Deps } from "../../deps";
import { DomainError } from "../../../lib/domain-error";
import { json } from "../../../lib/http";
import { publicActivity } from "../../activities/serialize";
import { activityRating } from "../../activities/queries";
import { publicUser } from "../../profiles/serialize";
import { savedParams } from "../../saved/input";
import { isSaved, savedList } from "../../saved/queries";
import { savedAtIso, type SavedJson } from "../../saved/serialize";
import { saveActivity, unsaveActivity } from "../../saved/service";

/**
 * The Saved calls (docs/decisions/0055): the list, newest first; whether one activity is saved;
 * PUT saves and DELETE unsaves, both idempotent (PUT answers 201 the first time, then 200).
 * Signed out: 401. Writes carry the CSRF token as every signed-in write does.
 */
export function savedApi(deps: Deps) {
  return new Elysia({ name: "offline.saved.api", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .get("/api/saved", async ({ user }) => {
      const now = new Date(deps.now());
      const entries = await savedList(deps.db, user.id);
      const list = await Promise.all(
        entries.map(async (entry): Promise<SavedJson> => {
          const base = { activityId: entry.activityId, title: entry.title, savedAt: savedAtIso(entry.savedAt) };
          if (!entry.available) return { ...base, available: false };
          const rating = await activityRating(deps.db, entry.activityId);
          return { ...base, available: true, activity: publicActivity(entry.activity, entry.host && publicUser(entry.host, now), rating) };
        }),
      );
      return json(list);
    })
    .get("/api/saved/:activityId", async ({ user, params }) => {
      const saved = await isSaved(deps.db, user.id, params.activityId);
      if (!saved) throw new DomainError("saved.error.notSaved", 404);
      return json({ activityId: params.activityId, saved: true, savedAt: savedAtIso(saved.createdAt) });
    }, { params: savedParams })
    .put("/api/saved/:activityId", async ({ user, params }) => {
      const { created } = await saveActivity(deps, user.id, params.activityId);
      return json({ activityId: params.activityId, saved: true }, created ? 201 : 200);
    }, { params: savedParams })
    .delete("/api/saved/:activityId", async ({ user, params }) => {
      await unsaveActivity(deps, user.id, params.activityId);
      return json({ activityId: params.activityId, saved: false });
    }, { params: savedParams });
}
