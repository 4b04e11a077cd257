import type { SavedEntry } from "../../src/saved/queries";
import type { View } from "../../src/shell/view";
import { coverPhoto } from "../../src/activities/categories";
import { photoUrl } from "../../src/uploads/service";
import { activityPriceParts } from "../activities/Price";
import { ScreenHeader } from "../components/Fields";
import { AppLayout } from "../layouts/AppLayout";
import { Heart, HeartsForm } from "./Heart";

/**
 * /saved: the person's saved activities, newest first. One that is gone (deleted, archived,
 * hidden or unlisted) is named by the title it had when saved and says so, with a button to take
 * it out of the list. Drawn per person, never kept (it is all theirs). The service worker keeps
 * this page and each saved activity's page for reading without a connection.
 */
export function SavedList({ view, entries }: { view: View; entries: SavedEntry[] }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("saved.title")}>
      <>
      <ScreenHeader view={view} title={t("saved.title")} />
      {entries.length === 0 ? (
        <div class="card mt-4 p-8 text-center">
          <p class="font-semibold" safe>
            {t("saved.empty.title")}
          </p>
          <p class="mt-1 text-sm text-muted" safe>
            {t("saved.empty.body")}
          </p>
          <a href="/" class="btn btn-primary mt-4" safe>
            {t("saved.empty.browse")}
          </a>
        </div>
      ) : (
        <>
          <p class="text-sm text-muted" safe>
            {t("saved.intro")}
          </p>
          <p class="mt-2 text-sm text-muted" safe>
            {t("saved.count", { count: entries.length })}
          </p>
          <ul class="mt-3 flex flex-col gap-3" data-saved-list>
            {entries.map((entry) => (
              // The service worker reads which activities' pages to keep from `data-saved-activity` (islands/worker/rules.ts).
              <li class="relative" data-saved-activity={entry.available ? entry.activityId : undefined} data-saved-gone={entry.available ? undefined : entry.activityId}>
                {entry.available ? <Available view={view} entry={entry} /> : <Gone view={view} entry={entry} />}
              </li>
            ))}
          </ul>
          {HeartsForm({ view, back: "/saved" }) as "safe"}
        </>
      )}
      </>
    </AppLayout>
  );
}

function Available({ view, entry }: { view: View; entry: Extract<SavedEntry, { available: true }> }) {
  const price = activityPriceParts(view, entry.activity);
  return (
    <>
      <a href={`/activity/${entry.activityId}`} class="card flex min-h-11 items-center gap-3 p-2 pr-14 hover:bg-sunken">
        <img src={photoUrl(coverPhoto(entry.activity), "thumb")!} alt="" loading="lazy" class="h-16 w-20 shrink-0 rounded-xl object-cover" />
        <span class="min-w-0 flex-1">
          <span class="block truncate font-semibold" safe>
            {entry.title}
          </span>
          <span class="block text-sm text-muted" safe>
            {`${price.amount}${price.unit} · ${entry.activity.city}`}
          </span>
        </span>
      </a>
      <div class="absolute right-2 top-1/2 -translate-y-1/2">{Heart({ t: view.t, activityId: entry.activityId, title: entry.title, saved: true }) as "safe"}</div>
    </>
  );
}

function Gone({ view, entry }: { view: View; entry: Extract<SavedEntry, { available: false }> }) {
  const { t } = view;
  const action = `/saved/${encodeURIComponent(entry.activityId)}`;
  return (
    <div class="card flex min-h-11 items-center gap-3 p-3" data-unavailable>
      <p class="min-w-0 flex-1 text-muted" safe>
        {t("saved.gone", { title: entry.title })}
      </p>
      <form method="post" action={action}>
        <input type="hidden" name="_csrf" value={view.csrf} />
        <input type="hidden" name="save" value="0" />
        <button type="submit" class="btn btn-secondary min-h-11" aria-label={t("saved.removeNamed", { title: entry.title })} safe>
          {t("saved.remove")}
        </button>
      </form>
    </div>
  );
}
