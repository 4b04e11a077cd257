import { Elysia } from "elysia";
import { Browse } from "../../views/activities/Browse";
import { context, type Deps, type RequestState } from "../context";
import { renderPage } from "../shell/render";
import { browseActivities, DEFAULT_CITY } from "./service";

export function activityRoutes(deps: Deps) {
  const browse = async ({ request, state }: { request: Request; state: RequestState }) => {
    const city = state.user?.city || DEFAULT_CITY;
    const { cards, total } = await browseActivities(deps.db, { city, limit: 24 });
    return renderPage(deps, state, request, (view) => <Browse view={view} city={city} cards={cards} total={total} />);
  };
  return new Elysia({ name: "offline.activities", seed: deps.id })
    .use(context(deps))
    .get("/", browse)
    .get("/browse", browse);
}
