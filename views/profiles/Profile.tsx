import { ratingNumber } from "../../lib/labels";
import type { User } from "../../db/schema";
import type { ActivityCard } from "../../src/activities/queries";
import type { MessageKey } from "../../lib/i18n";
import { aboutFields, choiceLabel, isVisible, type About, type AboutVisibility } from "../../src/profiles/about";
import type { PublicUser } from "../../src/profiles/serialize";
import type { ReviewView } from "../../src/reviews/service";
import type { View } from "../../src/shell/view";
import { ScreenHeader } from "../components/Fields";
import { Icon } from "../components/icons";
import { ActivityMiniList, Carousel, ChipSection, ReviewList } from "../components/People";
import { AppLayout } from "../layouts/AppLayout";
import { ReportButton } from "../reports/ReportButton";

export interface ProfileData {
  profile: PublicUser;
  activities: { cards: ActivityCard[]; total: number };
  reviews: { reviews: ReviewView[]; total: number; average: number | null };
}

const sectionKeys = { virtues: "about.virtues", vitals: "about.vitals", vices: "about.vices" } as const;

/** The about fields, grouped as Virtues, Vitals, Vices; the owner also sees the hidden ones, marked. */
export function AboutSections({ view, about, visibility }: { view: View; about: About; visibility?: AboutVisibility }) {
  const { t } = view;
  const sections = (["virtues", "vitals", "vices"] as const)
    .map((section) => ({ section, fields: aboutFields.filter((f) => f.section === section && about[f.key] !== undefined) }))
    .filter((s) => s.fields.length);
  if (!sections.length) return "";
  return (
    <>
      {sections.map(({ section, fields }) => (
        <section class="mt-6">
          <h2 class="mb-2 text-lg font-semibold" safe>
            {t(sectionKeys[section])}
          </h2>
          <dl class="card divide-y divide-line">
            {fields.map((f) => {
              const value = about[f.key]!;
              const text = Array.isArray(value) ? value.map((v) => choiceLabel(v, t)).join(", ") : f.kind === "choice" ? choiceLabel(value, t) : value;
              const hidden = visibility && !isVisible(visibility, f);
              return (
                <div class="flex items-start justify-between gap-4 px-4 py-3">
                  <dt class="text-sm text-muted" safe>
                    {t(`about.${f.key}` as MessageKey)}
                  </dt>
                  <dd class="text-right text-sm font-medium">
                    <span safe>{text}</span>
                    {hidden ? (
                      <span class="ml-2 rounded bg-sunken px-1.5 py-0.5 text-xs text-muted" safe>
                        {t("about.hidden")}
                      </span>
                    ) : (
                      ""
                    )}
                  </dd>
                </div>
              );
            })}
          </dl>
        </section>
      ))}
    </>
  );
}

/** The body both profile screens share: photos, who, bio, about, activities, reviews. */
function ProfileBody({ view, data, own, visibility, allAbout, viewAll }: { view: View; data: ProfileData; own: boolean; visibility?: AboutVisibility; allAbout: About; viewAll: { activities: string; reviews: string } }) {
  const { t } = view;
  const p = data.profile;
  const place = [p.city, p.country].filter(Boolean).join(", ");
  return (
    <>
      <Carousel view={view} photos={p.photos} label={t("profile.photos")} />
      <div class="mt-4">
        <p class="text-2xl font-bold">
          <span safe>{p.firstName ?? ""}</span>
          {p.age !== null ? <span class="font-normal text-muted" safe>{`, ${p.age}`}</span> : ""}
        </p>
        {place ? (
          <p class="mt-0.5 flex items-center gap-1 text-muted">
            <Icon name="map" class="w-4 h-4" />
            <span safe>{place}</span>
          </p>
        ) : (
          ""
        )}
        <p class="mt-1 text-sm text-muted" safe>
          {t("profile.memberSince", { year: p.memberSince })}
        </p>
      </div>
      {p.bio ? (
        <p class="mt-4 whitespace-pre-line" safe>
          {p.bio}
        </p>
      ) : own ? (
        <p class="mt-4 text-muted" safe>
          {t("profile.noBio")}
        </p>
      ) : (
        ""
      )}
      <ChipSection title={t("profile.interests")} items={p.interests} />
      <ChipSection title={t("profile.languages")} items={p.languages.map((l) => choiceLabel(l, t))} />
      <AboutSections view={view} about={own ? allAbout : p.about} visibility={visibility} />

      <section class="mt-8">
        <div class="mb-2 flex items-center justify-between">
          <h2 class="text-lg font-semibold" safe>
            {t("profile.activities")}
          </h2>
          {data.activities.total > 4 ? (
            <a href={viewAll.activities} class="link inline-flex min-h-11 items-center text-sm" safe>
              {t("common.viewAll")}
            </a>
          ) : (
            ""
          )}
        </div>
        <ActivityMiniList view={view} cards={data.activities.cards.slice(0, 4)} empty={own ? t("profile.noActivitiesOwn") : t("profile.noActivities")} />
      </section>

      <section class="mt-8">
        <div class="mb-2 flex items-center justify-between">
          <h2 class="text-lg font-semibold">
            <span safe>{t("profile.reviews")}</span>
            {data.reviews.average !== null ? (
              <span class="ml-2 text-base font-medium text-muted" safe>
                {`★ ${ratingNumber(data.reviews.average, view.locale)} · ${t("profile.reviewCount", { count: data.reviews.total })}`}
              </span>
            ) : (
              ""
            )}
          </h2>
          {data.reviews.total > 3 ? (
            <a href={viewAll.reviews} class="link inline-flex min-h-11 items-center text-sm" safe>
              {t("common.viewAll")}
            </a>
          ) : (
            ""
          )}
        </div>
        <ReviewList view={view} reviews={data.reviews.reviews.slice(0, 3)} empty={t("profile.noReviews")} />
      </section>
    </>
  );
}

/** /profile: your own profile, with share, edit and settings. */
export function OwnProfile({ view, user, data, allAbout, visibility }: { view: View; user: User; data: ProfileData; allAbout: About; visibility: AboutVisibility }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("profile.title")}>
      <>
        <ScreenHeader view={view} title={t("profile.title")}>
          <div class="flex items-center gap-1">
            <button
              type="button"
              class="btn-icon"
              data-copy={`/profile/${user.username}`}
              data-copied-text={t("profile.linkCopied")}
              data-copy-failed-text={t("profile.copyFailed")}
              aria-label={t("profile.share")}
            >
              <Icon name="share" class="w-5 h-5" />
            </button>
            <a href="/edit-profile" class="btn-icon" aria-label={t("profile.edit")}>
              <Icon name="edit" class="w-5 h-5" />
            </a>
            <a href="/settings" class="btn-icon" aria-label={t("settings.title")}>
              <Icon name="settings" class="w-5 h-5" />
            </a>
          </div>
        </ScreenHeader>
        <ProfileBody view={view} data={data} own visibility={visibility} allAbout={allAbout} viewAll={{ activities: "/host-dashboard", reviews: "/reviews" }} />
      </>
    </AppLayout>
  );
}

/** /profile/{username}: someone's public profile, shown as a bottom sheet. */
export function PublicProfileSheet({ view, data }: { view: View; data: ProfileData | null }) {
  const { t } = view;
  const title = data ? (data.profile.firstName ?? "") : t("profile.hostNotFound");
  return (
    <AppLayout view={view} title={title}>
      <>
      <div class="fixed inset-0 z-40 bg-black/40" aria-hidden="true" />
      <div role="dialog" aria-modal="true" aria-labelledby="sheet-title" class="fixed inset-x-0 bottom-0 top-6 z-40 mx-auto flex max-w-screen-md flex-col overflow-hidden rounded-t-3xl bg-surface shadow-2xl">
        <div class="flex items-center justify-between px-3 pt-2">
          <a href="/" data-history-back class="btn-icon" aria-label={t("common.back")}>
            <Icon name="arrowLeft" class="w-5 h-5" />
          </a>
          <span class="h-1.5 w-10 rounded-full bg-line" aria-hidden="true" />
          <a href="/" class="btn-icon" aria-label={t("common.close")}>
            <Icon name="x" class="w-5 h-5" />
          </a>
        </div>
        <div class="flex-1 overflow-y-auto px-4 pb-10 pt-2 focus-visible:outline-offset-[-2px]" tabindex="0">
          <h1 id="sheet-title" class="sr-only" safe>
            {title}
          </h1>
          {data ? (
            <>
              <ProfileBody view={view} data={data} own={false} allAbout={{}} viewAll={{ activities: `/profile/${data.profile.username}/activities`, reviews: `/profile/${data.profile.username}/reviews` }} />
              {view.user?.id === data.profile.id ? "" : <ReportButton view={view} targetUserId={data.profile.id} />}
            </>
          ) : (
            <div class="flex min-h-[50vh] flex-col items-center justify-center text-center">
              <p class="text-xl font-bold" safe>
                {t("profile.hostNotFound")}
              </p>
              <a href="/" class="btn btn-primary mt-6" safe>
                {t("notFound.back")}
              </a>
            </div>
          )}
        </div>
      </div>
      </>
    </AppLayout>
  );
}

/** A profile's full review list. */
export function AllReviews({ view, title, back, reviews, average, total }: { view: View; title: string; back: string; reviews: ReviewView[]; average: number | null; total: number }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={title}>
      <>
        <ScreenHeader view={view} title={title} back={back} />
        {average !== null ? (
          <p class="mb-4 text-muted" safe>
            {`★ ${ratingNumber(average, view.locale)} · ${t("profile.reviewCount", { count: total })}`}
          </p>
        ) : (
          ""
        )}
        <ReviewList view={view} reviews={reviews} empty={t("profile.noReviews")} />
      </>
    </AppLayout>
  );
}

/** A profile's full activity list. */
export function AllActivities({ view, title, back, cards }: { view: View; title: string; back: string; cards: ActivityCard[] }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={title}>
      <>
        <ScreenHeader view={view} title={title} back={back} />
        <ActivityMiniList view={view} cards={cards} empty={t("profile.noActivities")} />
      </>
    </AppLayout>
  );
}
