import { currencySymbol, decimalFromCents, minorUnits } from "../../lib/money";
import { currencyOf } from "../../lib/places";
import type { Activity } from "../../db/schema";
import { categories, categoryLabelKey } from "../../src/activities/categories";
import { ACTIVITY_DESCRIPTION_MAX as DESCRIPTION_MAX, ACTIVITY_TITLE_MAX as TITLE_MAX, MAX_RANGES_PER_DAY } from "../../shared/limits";
import type { Config } from "../../src/config";
import type { MessageKey } from "../../lib/i18n";
import type { View } from "../../src/shell/view";
import { Island } from "../components/Island";
import { Document } from "../layouts/Document";
import { photoGridTexts } from "../profiles/PhotoGridField";
import { DEFAULT_HORIZON_DAYS, DEFAULT_NOTICE_MINUTES } from "../../shared/availability";
import { dayNameKey } from "../../src/activities/input";
import { horizonChoices, noticeChoices } from "./Availability";
import { deadlineChoices, policyChoices, sessionChoices } from "./GroupFields";
import { DEFAULT_MIN_TO_RUN_HOURS } from "../../src/activities/group";

/** Texts the island fills itself ("{day}", "{index}"): written here with their other values in the language. */
const wizardTemplates = {
  addRangeFor: "wizard.addRangeFor", removeRangeFor: "wizard.removeRangeFor", rangeFrom: "wizard.rangeFrom", rangeTo: "wizard.rangeTo",
  hoursFormat: "activity.hoursFormat", hoursInvalidTime: "activity.hoursInvalidTime", hoursEndBeforeStart: "activity.hoursEndBeforeStart",
  hoursOverlap: "activity.hoursOverlap", hoursTooMany: "activity.hoursTooMany",
} as const satisfies Record<string, MessageKey>;

const wizardKeys = {
  title: "wizard.title", progress: "wizard.progress", close: "common.close", back: "common.back", next: "common.next",
  step1: "wizard.step1", step2: "wizard.step2", step3: "wizard.step3", step4: "wizard.step4", step5: "wizard.step5", step6: "wizard.step6", step7: "wizard.step7", step8: "wizard.step8",
  getTips: "wizard.getTips", inspiration: "wizard.inspiration", titleLabel: "create.titleLabel", titlePlaceholder: "wizard.titlePlaceholder",
  descriptionLabel: "create.descriptionLabel", descriptionPlaceholder: "wizard.descriptionPlaceholder",
  rateLabel: "create.rateLabel", breakdown: "wizard.breakdown", rateLine: "wizard.rateLine", feeLine: "wizard.feeLine", earnLine: "wizard.earnLine", enterRate: "wizard.enterRate",
  minDuration: "wizard.minDuration", maxDuration: "wizard.maxDuration", maxToggle: "wizard.maxToggle", noMax: "wizard.noMax", less: "wizard.less", more: "wizard.more",
  minutes: "activity.minutes", hours: "activity.hours", cityNote: "wizard.cityNote", meetingNow: "create.meetingNow", meetingLater: "create.meetingLater",
  meetingAddress: "create.meetingAddress", meetingPlaceholder: "create.meetingPlaceholder", create: "wizard.create", update: "wizard.update", saving: "common.saving",
  delete: "wizard.delete", deleteConfirm: "wizard.deleteConfirm", created: "toast.activityCreated", updated: "toast.activityUpdated", deleted: "toast.activityDeleted",
  createError: "wizard.createError", updateError: "wizard.updateError", deleteError: "wizard.deleteError", tryAgain: "wizard.tryAgain",
  hoursLegend: "activity.hoursLegend", hoursAny: "activity.hoursAny", hoursWeekly: "activity.hoursWeekly", closed: "wizard.closed", addRange: "wizard.addRange",
  copyMonday: "wizard.copyMonday", copyMondayClosed: "wizard.copyMondayClosed", copiedMonday: "wizard.copiedMonday", undo: "wizard.undo", noticeLabel: "activity.noticeLabel", horizonLabel: "activity.horizonLabel", instantLabel: "activity.instantBookingLabel",
  instantHelp: "activity.instantBookingHelp", hoursEmpty: "activity.hoursEmpty", policyLabel: "activity.policyLabel", policyHelp: "activity.policyHelp",
  formatLabel: "activity.formatLabel", formatPrivate: "activity.formatPrivate", formatPrivateHint: "activity.formatPrivateHint", formatGroup: "activity.formatGroup",
  formatGroupHint: "activity.formatGroupHint", capacityLabel: "activity.capacityLabel", pricePerPersonLabel: "activity.pricePerPersonLabel", sessionLabel: "activity.sessionLabel",
  minSpotsLabel: "activity.minSpotsLabel", maxSpotsLabel: "activity.maxSpotsLabel", privateGroupLabel: "activity.privateGroupLabel", privateGroupHint: "activity.privateGroupHint",
  minToRunLabel: "activity.minToRunLabel", minToRunHint: "activity.minToRunHint", minToRunHoursLabel: "activity.minToRunHoursLabel", minToRunNone: "activity.minToRunNone",
  perPersonLine: "activity.perPersonLine", earnPerPerson: "activity.earnPerPerson", enterPricePerPerson: "activity.enterPricePerPerson",
  capacityInvalid: "activity.capacityInvalid", pricePerPersonInvalid: "activity.pricePerPersonInvalid", minSpotsInvalid: "activity.minSpotsInvalid", maxSpotsInvalid: "activity.maxSpotsInvalid",
  privateGroupPriceInvalid: "activity.privateGroupPriceInvalid", minToRunInvalid: "activity.minToRunInvalid", sessionOutsideHours: "activity.sessionOutsideHours",
} as const satisfies Record<string, MessageKey>;

function tips(view: View, prefix: "title" | "description" | "photos") {
  const { t } = view;
  return {
    heading: t(`tips.${prefix}.heading` as MessageKey),
    tips: [1, 2, 3].map((n) => t(`tips.${prefix}.tip${n}` as MessageKey)),
    examples: [1, 2].map((n) => t(`tips.${prefix}.example${n}` as MessageKey)),
  };
}

/** How an activity is sold and a group's fields, as the wizard edits them (strings as typed; "" for none). */
function groupValues(activity?: Activity) {
  const text = (n: number | null | undefined) => (n === null || n === undefined ? "" : String(n));
  const money = (cents: number | null | undefined) => (cents === null || cents === undefined ? "" : decimalFromCents(cents, activity!.currency));
  return {
    format: activity?.format ?? "private",
    capacity: text(activity?.capacity),
    pricePerPerson: money(activity?.pricePerPersonCents),
    sessionMinutes: activity?.sessionMinutes ?? 0,
    minSpots: text(activity?.minSpots),
    maxSpots: text(activity?.maxSpots),
    privateGroupPrice: money(activity?.privateGroupPriceCents),
    minToRun: text(activity?.minToRun),
    minToRunHours: activity?.minToRunHours ?? DEFAULT_MIN_TO_RUN_HOURS,
  };
}

/** /create-activity-flow and /edit-activity/{id}: the wizard island on its own page. */
export function ActivityWizardPage({ view, activity, city, country, maps }: { view: View; activity?: Activity; city: string; country: string; maps: Config["maps"] }) {
  const { t } = view;
  // Its prices are in the activity's currency; a new one's, in the host's city's (what it will be created in).
  const currency = activity?.currency ?? currencyOf(country, city) ?? "usd";
  const symbol = currencySymbol(currency, view.locale);
  const texts: Record<string, string> = Object.fromEntries(Object.entries(wizardKeys).map(([k, key]) => [k, t(key)]));
  texts.rateLabel = t("create.rateLabel", { currency: currency.toUpperCase() });
  texts.pricePerPersonLabel = t("activity.pricePerPersonLabel", { symbol });
  texts.privateGroupLabel = t("activity.privateGroupLabel", { symbol });
  texts.locale = view.locale === "fr" ? "fr-FR" : "en-US";
  // Counters as templates with their limit already written in the language ("{count}/50 characters"):
  // the island only puts the typed count in.
  texts.titleCount = t("common.characterCount", { count: "{count}", max: TITLE_MAX });
  texts.descriptionCount = t("common.characterCount", { count: "{count}", max: DESCRIPTION_MAX });
  for (const [k, key] of Object.entries(wizardTemplates)) texts[k] = t(key, { day: "{day}", index: "{index}", max: MAX_RANGES_PER_DAY });
  const props = {
    mode: activity ? "edit" : "create",
    activity: activity
      ? {
          id: activity.id,
          category: activity.category,
          title: activity.title,
          description: activity.description,
          hourlyRate: decimalFromCents(activity.hourlyRateCents, activity.currency),
          photos: activity.photos,
          minDurationMinutes: activity.minDurationMinutes,
          maxDurationMinutes: activity.maxDurationMinutes,
          hasMeetingPoint: activity.hasMeetingPoint,
          meetingPoint: activity.meetingPoint ?? "",
          weeklyHours: activity.weeklyHours ?? null,
          noticeMinutes: activity.noticeMinutes,
          horizonDays: activity.horizonDays,
          instantBooking: activity.instantBooking,
          cancellationPolicy: activity.cancellationPolicy,
          ...groupValues(activity),
        }
      : {
          category: "",
          title: "",
          description: "",
          hourlyRate: "",
          photos: [],
          minDurationMinutes: 60,
          maxDurationMinutes: null,
          hasMeetingPoint: false,
          meetingPoint: "",
          weeklyHours: null,
          noticeMinutes: DEFAULT_NOTICE_MINUTES,
          horizonDays: DEFAULT_HORIZON_DAYS,
          instantBooking: false,
          cancellationPolicy: "flexible",
          ...groupValues(),
        },
    money: { currency: currency.toUpperCase(), digits: minorUnits(currency), symbol },
    city: activity?.city ?? city,
    country: activity?.country ?? country,
    geocoderUrl: maps.geocoderUrl,
    categories: categories.map((c) => ({ value: c, label: t(categoryLabelKey(c)), photo: `/static/photos/${c}-1.svg` })),
    photoTexts: photoGridTexts(view),
    days: [0, 1, 2, 3, 4, 5, 6].map((d) => t(dayNameKey(d))),
    noticeChoices: noticeChoices(t),
    horizonChoices: horizonChoices(t),
    sessionChoices: sessionChoices(view),
    deadlineChoices: deadlineChoices(view),
    policyChoices: policyChoices(view),
    tips: { title: tips(view, "title"), description: tips(view, "description"), photos: tips(view, "photos") },
    t: texts,
  };
  const title = activity ? t("wizard.editTitle") : t("wizard.title");
  return (
    <Document view={view} title={title} preload={["ActivityWizard"]}>
      <main id="main" class="mx-auto max-w-md px-5 py-4">
        <h1 class="sr-only" safe>
          {title}
        </h1>
        <Island name="ActivityWizard" props={props}>
          <div class="flex min-h-[60vh] flex-col items-center justify-center gap-3" role="status">
            <span class="spinner" />
            <span class="text-sm text-muted" safe>
              {t("app.loading")}
            </span>
          </div>
        </Island>
      </main>
    </Document>
  );
}
