import { madeOnce } from "../../shared/memo";
import { ratingLabel, nameAndAge } from "../../lib/labels";
import type { Activity } from "../../db/schema";
import { categoryLabelKey, categoryPhoto, isCategory } from "../../src/activities/categories";
import type { Config } from "../../src/config";
import type { PublicUser } from "../../src/profiles/serialize";
import type { ReviewView } from "../../src/reviews/service";
import type { KeptFormView, View } from "../../src/shell/view";
import { ScreenHeader } from "../components/Fields";
import { Icon } from "../components/icons";
import { Island } from "../components/Island";
import { Avatar, Carousel, ReviewList } from "../components/People";
import { AppLayout } from "../layouts/AppLayout";
import { DialogFields, RequestDialog } from "../bookings/Request";
import type { DialogRules, DialogTimes } from "../../src/bookings/queries";
import { remember, type KeptParts } from "../../lib/html/fragments";
import { ReportButton } from "../reports/ReportButton";
import { weeklyHoursSummary } from "./Availability";
import { activityPriceParts, formatDuration, sessionText } from "./Price";
import { activityGroupPrice } from "../../src/activities/queries";
import { Heart, HeartsForm } from "../saved/Heart";

export { formatDuration } from "./Price";

interface ActivityPageProps {
  view: View;
  activity: Activity;
  host: PublicUser;
  rating: { average: number | null; count: number };
  reviews: ReviewView[];
  maps: Config["maps"];
  /** The booking dialog: its open times, the rules they are of, and the key they are shared under (`activityDialog`). */
  dialog: { times: DialogTimes; rules: DialogRules; shared: string };
}

/**
 * The page is made of three parts. Above and below the booking dialog, what the activity's read
 * shows, kept per read of the page (`page`: the object the activity page's read cache hands out,
 * replaced when a change of the database changes it), language, hour and whether the visitor is
 * its host (decision 0018), rendered from the kept view (`remember` with `form`): their forms
 * carry an unguessable slot in place of the visitor's CSRF token, filled per request, and the path
 * is the activity's own, so nothing of one visitor is ever kept. Between them, the dialog's own
 * form, and its fields, kept per language and shared dialog (`activityDialog`: the open times of
 * the same rules, the same hour and the same busy times, as a host's activities alike have them),
 * rendered and compressed once for all of them (decision 0053).
 */
const keptParts = madeOnce((_page: object): KeptParts => new Map());
const dialogFields: KeptParts = new Map();

/** /activity/{id}: photos, what, who, where, reviews, and Request & Pay. */
export function ActivityDetail(props: ActivityPageProps & { page: object; hour: string; saved: boolean }) {
  const { view, activity, page, hour, dialog, saved } = props;
  const own = view.user?.id === activity.hostId;
  const parts = keptParts(page);
  const key = `${view.locale}:${own ? "host" : "guest"}:${hour}`;
  const form = { path: `/activity/${activity.id}` };
  const top = remember(parts, `top:${key}`, view, form, (kept) => <ActivityTop {...props} view={kept} own={own} />);
  const bottom = remember(parts, `bottom:${key}`, view, form, (kept) => <ActivityBottom {...props} view={kept} own={own} />);
  const request = own ? "" : ((<RequestDialog view={view} activity={activity} fields={dialogOf(view, dialog)} />) as string);
  // The heart is the viewer's own (docs/decisions/0055): drawn outside the kept parts, over the header's end.
  const heart = own ? "" : `<div class="heart-place">${Heart({ t: view.t, activityId: activity.id, title: activity.title, saved })}</div>${HeartsForm({ view, back: `/activity/${activity.id}` })}`;
  return (
    <AppLayout view={view} title={activity.title}>
      {`<div class="relative">${heart}${top}${request}${bottom}</div>` as "safe"}
    </AppLayout>
  );
}

function dialogOf(view: View, dialog: ActivityPageProps["dialog"]): JSX.Element {
  return remember(dialogFields, `${view.locale}\u0000${dialog.shared}`, view, (kept) => <DialogFields view={kept} activity={dialog.rules} open={dialog.times} />);
}

type PartProps = Omit<ActivityPageProps, "view" | "dialog"> & { view: KeptFormView; own: boolean };

/** The page above the booking dialog: photos, what, who, where, the cancellation policy. */
function ActivityTop({ view, activity, host, rating, maps }: PartProps) {
  const { t } = view;
  const photos = activity.photos.length ? activity.photos : [categoryPhoto(activity.category)];
  const exact = activity.hasMeetingPoint && activity.meetingPoint;
  const place = `${activity.city}, ${activity.country}`;
  const query = exact ? `${activity.meetingPoint}, ${place}` : place;
  const osmLink = `https://www.openstreetmap.org/search?query=${encodeURIComponent(query)}`;
  const max = activity.maxDurationMinutes ?? 240;
  // A group is sold by the spot for sessions of one length (docs/decisions/0049).
  const group = activityGroupPrice(activity);
  const price = activityPriceParts(view, activity);
  return (
      <>
        <ScreenHeader view={view} title={t("activity.title")} back="/" heading={false} />
        <Carousel view={view} photos={photos} label={t("profile.photos")} />
        <div class="mt-4 flex items-start justify-between gap-3">
          <h1 class="text-2xl font-bold" safe>
            {activity.title}
          </h1>
          <span class="shrink-0 pt-1 text-sm font-medium" safe>
            {ratingLabel(view, rating.average, rating.count)}
          </span>
        </div>
        <div class="mt-2 flex flex-wrap gap-2 text-sm">
          <span class="rounded-full bg-sunken px-3 py-1" safe>
            {isCategory(activity.category) ? t(categoryLabelKey(activity.category)) : activity.category}
          </span>
          <span class="rounded-full bg-sunken px-3 py-1" data-price safe>
            {`${price.amount}${price.unit}`}
          </span>
          {group ? (
            <>
              <span class="rounded-full bg-sunken px-3 py-1" data-session safe>
                {sessionText(view, group.sessionMinutes)}
              </span>
              <span class="rounded-full bg-sunken px-3 py-1" safe>
                {t("activity.groupOf", { n: group.capacity })}
              </span>
            </>
          ) : (
            <span class="rounded-full bg-sunken px-3 py-1" safe>
              {activity.minDurationMinutes === max
                ? formatDuration(view, max)
                : t("activity.durationRange", { min: formatDuration(view, activity.minDurationMinutes), max: formatDuration(view, max) })}
            </span>
          )}
        </div>
        {activity.instantBooking || activity.weeklyHours ? (
          <div class="mt-2 flex flex-col gap-0.5 text-sm text-muted" data-availability>
            {activity.instantBooking ? (
              <p class="font-medium" safe>
                {t("activity.instantBooking")}
              </p>
            ) : (
              ""
            )}
            {activity.weeklyHours ? <p safe>{t("activity.available", { schedule: weeklyHoursSummary(view, activity.weeklyHours) })}</p> : ""}
          </div>
        ) : (
          ""
        )}

        <a href={host.username ? `/profile/${host.username}` : "#"} class="card mt-4 flex items-center gap-3 p-3 hover:bg-sunken">
          <Avatar photo={host.photo} name={host.firstName} size={48} />
          <div class="min-w-0 flex-1">
            <p class="text-sm text-muted" safe>
              {t("activity.hostedBy")}
            </p>
            <p class="font-semibold" safe>
              {nameAndAge(host.firstName, host.age)}
            </p>
          </div>
          <Icon name="chevronRight" class="w-5 h-5 text-muted" />
        </a>

        <section class="mt-6">
          <h2 class="mb-2 text-lg font-semibold" safe>
            {t("activity.about")}
          </h2>
          <p class="whitespace-pre-line" safe>
            {activity.description}
          </p>
        </section>

        <section class="mt-6">
          <h2 class="mb-2 text-lg font-semibold" safe>
            {t("activity.location")}
          </h2>
          <p class="flex items-start gap-2">
            <Icon name="map" class="mt-0.5 w-5 h-5 shrink-0 text-muted" />
            <span>
              <span class="font-medium" safe>
                {exact ? activity.meetingPoint! : place}
              </span>
              {exact ? (
                <span class="block text-sm text-muted" safe>
                  {place}
                </span>
              ) : (
                <span class="block text-sm text-muted" safe>
                  {t("activity.locationShared")}
                </span>
              )}
            </span>
          </p>
          <div class="mt-3">
            <Island
              name="ActivityMap"
              props={{ query, zoom: exact ? 16 : 12, tileUrl: maps.tileUrl, geocoderUrl: maps.geocoderUrl, attribution: maps.attribution, label: t("activity.map"), stylesheet: view.assets.leafletCss }}
            />
          </div>
          <a href={osmLink} class="link mt-1 inline-flex min-h-11 items-center text-sm" rel="noopener noreferrer" target="_blank" safe>
            {t("activity.openMap")}
          </a>
        </section>

        <section class="mt-6" data-cancellation-policy={activity.cancellationPolicy}>
          <h2 class="mb-2 text-lg font-semibold" safe>
            {t("activity.policyLabel")}
          </h2>
          <p class="font-medium" safe>
            {t(`activity.policy.${activity.cancellationPolicy}`)}
          </p>
          <p class="text-sm text-muted" safe>
            {t(`activity.policyHint.${activity.cancellationPolicy}`)}
          </p>
          <p class="text-sm text-muted" safe>
            {t("booking.policyHost")}
          </p>
        </section>
      </>
  );
}

/** The page below the booking dialog: reviews, the report button, the bar with the price. */
function ActivityBottom({ view, own, activity, reviews }: PartProps) {
  const { t } = view;
  const group = activityGroupPrice(activity);
  const price = activityPriceParts(view, activity);
  return (
      <>
        <section class="mt-6">
          <h2 class="mb-2 text-lg font-semibold" safe>
            {t("profile.reviews")}
          </h2>
          <ReviewList view={view} reviews={reviews} empty={t("profile.noReviews")} />
        </section>

        {own ? "" : <ReportButton view={view} targetActivityId={activity.id} />}

        <div class="fixed inset-x-0 bottom-16 z-20 border-t border-line bg-surface/95 px-4 py-3 backdrop-blur">
          <div class="mx-auto flex max-w-screen-md items-center justify-between gap-3">
            <p data-bottom-price>
              <span class="text-lg font-bold" safe>
                {price.amount}
              </span>
              <span class="text-muted" safe>
                {price.unit}
              </span>
              {group ? (
                <span class="block text-sm text-muted" safe>
                  {sessionText(view, group.sessionMinutes)}
                </span>
              ) : (
                ""
              )}
            </p>
            {own ? (
              <a href={`/edit-activity/${activity.id}`} class="btn btn-secondary" safe>
                {t("activity.edit")}
              </a>
            ) : (
              <a href={`/booking/${activity.id}/date-time`} class="btn btn-primary" safe>
                {t(activity.instantBooking ? "activity.bookAndPay" : "activity.requestAndPay")}
              </a>
            )}
          </div>
        </div>
        <div class="h-20" aria-hidden="true" />
      </>
  );
}

export function ActivityNotFound({ view }: { view: View }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("activity.notFound")}>
      <section class="flex min-h-[60vh] flex-col items-center justify-center text-center">
        <h1 class="text-2xl font-bold" safe>
          {t("activity.notFound")}
        </h1>
        <a href="/" class="btn btn-primary mt-6" safe>
          {t("notFound.back")}
        </a>
      </section>
    </AppLayout>
  );
}
