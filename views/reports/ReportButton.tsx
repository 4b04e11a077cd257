import { reportReasons } from "../../db/schema";
import { remember, type KeptParts } from "../../lib/html/fragments";
import { REPORT_NOTES_MAX } from "../../shared/limits";
import { reasonLabel } from "../../src/reports/service";
import type { KeptFormView, KeptView, View } from "../../src/shell/view";
import { CharacterCounter } from "../components/Fields";

type Kind = "person" | "activity";

/**
 * The reasons and notes of the report form: the same for everyone who sees them, so rendered
 * once per language and kind of target (decision 0018: the activity page stays cheap).
 */
const reasonFieldsKept: KeptParts = new Map();
function ReasonFields({ view, kind }: { view: KeptView; kind: Kind }) {
  return remember(reasonFieldsKept, `${view.locale}\u0000${kind}`, view, (kept) => {
    const { t } = kept;
    return (
      <>
        <fieldset>
          <legend class="mb-2 font-medium" safe>
            {t(kind === "person" ? "reports.whyPerson" : "reports.whyActivity")}
          </legend>
          <div class="flex flex-col gap-1">
            {reportReasons.map((reason) => (
              <label class="flex min-h-11 items-center gap-3 rounded-lg px-2 hover:bg-sunken">
                <input type="radio" name="reason" value={reason} required class="h-4 w-4" />
                <span safe>{t(reasonLabel(reason))}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <div class="field">
          <label class="field-label" for={`report-${kind}-notes`} safe>
            {t("reports.notes")}
          </label>
          <textarea
            id={`report-${kind}-notes`}
            name="notes"
            class="input"
            rows="3"
            maxlength={String(REPORT_NOTES_MAX)}
            placeholder={t("reports.notesHint")}
            data-counter={`report-${kind}-count`}
            aria-describedby={`report-${kind}-count`}
          ></textarea>
          <CharacterCounter view={kept} id={`report-${kind}-count`} count={0} max={REPORT_NOTES_MAX} />
        </div>
      </>
    );
  });
}

/**
 * "Report" for a person (`targetUserId`) or an activity (`targetActivityId`): a disclosure with
 * the reason list and notes. Without JavaScript the form posts and the page comes back with a
 * confirmation toast; with htmx the confirmation replaces the form in place. Reusable on any
 * screen that shows someone or something others may report (profiles, activities, conversations).
 */
export function ReportButton({ view, targetUserId, targetActivityId }: { view: KeptFormView; targetUserId?: string; targetActivityId?: string }) {
  const { t } = view;
  const kind: Kind = targetUserId ? "person" : "activity";
  return (
    <details class="report mt-6" data-report>
      <summary class="btn btn-ghost min-h-11 cursor-pointer px-2 text-sm text-muted" safe>
        {t(kind === "person" ? "reports.reportPerson" : "reports.reportActivity")}
      </summary>
      <form
        method="post"
        action="/api/reports"
        class="card mt-2 flex flex-col gap-4 p-4"
        data-validate
        hx-post="/api/reports"
        hx-target="closest details"
        hx-swap="outerHTML"
        hx-disabled-elt="find button[type=submit]"
      >
        <input type="hidden" name="_csrf" value={view.csrf} />
        <input type="hidden" name="next" value={view.path} />
        {targetUserId ? <input type="hidden" name="targetUserId" value={targetUserId} /> : <input type="hidden" name="targetActivityId" value={targetActivityId ?? ""} />}
        <ReasonFields view={view} kind={kind} />
        <button type="submit" class="btn btn-primary w-full" data-needs-valid data-busy-text={t("reports.sending")} safe>
          {t("reports.send")}
        </button>
      </form>
    </details>
  );
}

/** What replaces the form once htmx sent it: the reporter's confirmation. */
export function ReportSent({ view }: { view: View }) {
  const { t } = view;
  return (
    <div class="card mt-6 p-4" role="status" data-report-sent>
      <p class="font-semibold" safe>
        {t("reports.sent")}
      </p>
      <p class="text-sm text-muted" safe>
        {t("reports.sentBody")}
      </p>
    </div>
  );
}
