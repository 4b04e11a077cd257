import { Elysia } from "elysia";
import { context, type Refused } from "../../context";
import { type Deps } from "../../deps";
import { isHtmx, ownReturnPath, redirectTo, safeNext } from "../../../lib/http";
import { htmlResponse } from "../../shell/render";
import { heartForm, savedParams } from "../../saved/input";
import { savedList } from "../../saved/queries";
import { saveActivity, unsaveActivity } from "../../saved/service";
import { Heart, heartAction } from "../../../views/saved/Heart";
import { SavedList } from "../../../views/saved/SavedList";

/**
 * The Saved page and the heart's form (docs/decisions/0055). The form is public so that a
 * visitor whose session ended, pressing a heart on a page they still had open, is sent to sign
 * in and brought back to that page rather than refused; a signed-in post needs its CSRF token
 * as every write does.
 */
/** A refused heart without JavaScript goes back to its page with the refusal as a toast. */
const heartRefused: Refused = {
  back: (refused) => (refused.sent.back === undefined ? "/saved" : safeNext(refused.sent.back, "/saved")),
  // A toast holds catalogue keys only: the limit's message names its number, this one does not.
  toastBody: (refused) => (refused.error.key === "saved.error.tooMany" ? "saved.error.full" : refused.error.key),
};

export function savedRoutes(deps: Deps) {
  const page = new Elysia({ name: "offline.saved.page", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .get("/saved", async ({ user, render }) => {
      const entries = await savedList(deps.db, user.id);
      return render((view) => <SavedList view={view} entries={entries} />);
    });
  const heart = new Elysia({ name: "offline.saved.heart", seed: deps.id })
    .use(context(deps))
    .guard({ public: true })
    .post("/saved/:activityId", async ({ params, body, state, request, sendTo }) => {
      // Without JavaScript the heart comes back to the page it was pressed on (its Referer, sent
      // by this site's own pages), unless the form says where.
      const back = body.back ?? ownReturnPath(request.headers.get("referer"), request, "/saved");
      const user = state.user;
      if (!user) return redirectTo(request, `/api/login?next=${encodeURIComponent(back)}`);
      const { title } = body.save ? await saveActivity(deps, user.id, params.activityId) : await unsaveActivity(deps, user.id, params.activityId);
      if (isHtmx(request)) {
        // Just the heart, pressed or not, in place of the one pressed (the hearts form swaps nothing itself).
        const heart = Heart({ t: state.t, activityId: params.activityId, title, saved: body.save });
        return htmlResponse(heart, 200, { "Cache-Control": "no-store", "HX-Retarget": `button[formaction="${heartAction(params.activityId)}"]`, "HX-Reswap": "outerHTML" });
      }
      return sendTo(back, body.save ? { title: "saved.added", body: "saved.addedBody" } : { title: "saved.removed" });
    }, {
      params: savedParams,
      body: heartForm,
      refused: heartRefused,
    });
  return new Elysia({ name: "offline.saved", seed: deps.id }).use(page).use(heart);
}
