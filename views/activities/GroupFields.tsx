import { currencySymbol, priceStep } from "../../lib/money";
import { CAPACITY_MAX, CAPACITY_MIN, DEFAULT_MIN_TO_RUN_HOURS, MIN_TO_RUN_HOURS, SESSION_MAX, SESSION_MIN, SESSION_STEP } from "../../src/activities/group";
import type { View } from "../../src/shell/view";
import { cancellationPolicies } from "../../db/schema";
import { FieldError } from "../components/Fields";
import { formatDuration } from "./Price";

/** How an activity is sold and a group's fields, as the plain form holds them (docs/decisions/0049). */
export interface GroupFormValues {
  format: "private" | "group";
  capacity: string;
  pricePerPerson: string;
  sessionMinutes: string;
  minSpots: string;
  maxSpots: string;
  privateGroupPrice: string;
  minToRun: string;
  minToRunHours: string;
}

export const emptyGroupForm: GroupFormValues = {
  format: "private",
  capacity: "",
  pricePerPerson: "",
  sessionMinutes: "",
  minSpots: "",
  maxSpots: "",
  privateGroupPrice: "",
  minToRun: "",
  minToRunHours: String(DEFAULT_MIN_TO_RUN_HOURS),
};

/** The group fields of a posted form, kept as typed so a refused form shows them again. */
export function postedGroup(sent: Record<string, unknown>): GroupFormValues {
  const str = (k: keyof GroupFormValues) => (typeof sent[k] === "string" ? (sent[k] as string) : emptyGroupForm[k]);
  return {
    format: sent.format === "group" ? "group" : "private",
    capacity: str("capacity"),
    pricePerPerson: str("pricePerPerson"),
    sessionMinutes: str("sessionMinutes"),
    minSpots: str("minSpots"),
    maxSpots: str("maxSpots"),
    privateGroupPrice: str("privateGroupPrice"),
    minToRun: str("minToRun"),
    minToRunHours: str("minToRunHours") || String(DEFAULT_MIN_TO_RUN_HOURS),
  };
}

/** 30 min … 8 h, in 30-minute steps. */
export const SESSION_CHOICES = Array.from({ length: (SESSION_MAX - SESSION_MIN) / SESSION_STEP + 1 }, (_, i) => SESSION_MIN + i * SESSION_STEP);

/** The session lengths and the minimum's deadlines as labelled choices, in the language. */
export const sessionChoices = (view: Pick<View, "t">) => SESSION_CHOICES.map((m) => ({ value: m, label: formatDuration(view, m) }));
export const deadlineChoices = (view: Pick<View, "t">) => MIN_TO_RUN_HOURS.map((n) => ({ value: n, label: view.t("activity.minToRunHoursOption", { n }) }));

/** The cancellation policies as labelled choices, each with what it gives back, in the language (docs/decisions/0050). */
export const policyChoices = (view: Pick<View, "t">) =>
  cancellationPolicies.map((p) => ({ value: p, label: view.t(`activity.policy.${p}`), hint: view.t(`activity.policyHint.${p}`) }));

/** The host's choice of a cancellation policy on the plain form: one radio per policy, with what it gives back. */
export function PolicyChoice({ view, value, error }: { view: Pick<View, "t">; value: string; error?: string }) {
  const { t } = view;
  return (
    <fieldset class="field" aria-describedby={["field-policy-help", ...(error ? ["field-cancellationPolicy-error"] : [])].join(" ")}>
      <legend class="field-label mb-1" safe>
        {t("activity.policyLabel")}
      </legend>
      <p id="field-policy-help" class="mb-2 text-sm text-muted" safe>
        {t("activity.policyHelp")}
      </p>
      {policyChoices(view).map((p) => (
        <label class="flex items-start gap-2 rounded-xl border border-line p-3 has-[:checked]:border-brand-500">
          <input id={`field-policy-${p.value}`} type="radio" name="cancellationPolicy" value={p.value} checked={value === p.value} class="mt-1 accent-[#e8553d]" aria-describedby={`policy-${p.value}-hint`} />
          <span>
            <span class="block font-medium" safe>
              {p.label}
            </span>
            <span id={`policy-${p.value}-hint`} class="block text-sm text-muted" safe>
              {p.hint}
            </span>
          </span>
        </label>
      ))}
      <FieldError id="field-cancellationPolicy-error" message={error} />
    </fieldset>
  );
}

/**
 * The choice Private / Group and, below it, the group's fields (the private one, the hourly rate,
 * is the form's own `hourlyRate` field, shown with `data-format-fields="private"`). Without
 * JavaScript both sets stay on the page; where the browser knows `:has()`, the stylesheet hides
 * the set of the format not chosen (public/base.css).
 */
export function FormatChoice({ view, values, errors }: { view: Pick<View, "t">; values: GroupFormValues; errors: Record<string, string> }) {
  const { t } = view;
  return (
    <fieldset class="field" aria-describedby={errors.format ? "field-format-error" : undefined}>
      <legend class="field-label mb-2" safe>
        {t("activity.formatLabel")}
      </legend>
      {(["private", "group"] as const).map((format) => (
        <label class="flex items-start gap-2 rounded-xl border border-line p-3 has-[:checked]:border-brand-500">
          <input id={`field-format-${format}`} type="radio" name="format" value={format} checked={values.format === format} class="mt-1 accent-[#e8553d]" aria-describedby={`format-${format}-hint`} />
          <span>
            <span class="block font-medium" safe>
              {t(format === "group" ? "activity.formatGroup" : "activity.formatPrivate")}
            </span>
            <span id={`format-${format}-hint`} class="block text-sm text-muted" safe>
              {t(format === "group" ? "activity.formatGroupHint" : "activity.formatPrivateHint")}
            </span>
          </span>
        </label>
      ))}
      <FieldError id="field-format-error" message={errors.format} />
    </fieldset>
  );
}

/** A group's fields on the plain form, each with its label and its refusal. */
export function GroupFieldset({ view, values, errors, currency }: { view: Pick<View, "t" | "locale">; values: GroupFormValues; errors: Record<string, string>; currency: string }) {
  const { t } = view;
  // Prices are typed in the activity's currency, to its smallest unit (a cent, a yen).
  const symbol = currencySymbol(currency, view.locale);
  const step = priceStep(currency);
  const invalid = (field: string) => (errors[field] ? "true" : undefined);
  const describedBy = (field: string, ...always: string[]) => [...always, ...(errors[field] ? [`field-${field}-error`] : [])].join(" ") || undefined;
  const number = (field: "capacity" | "minSpots" | "maxSpots" | "minToRun", label: string, hint?: string) => (
    <div class="field">
      <label class="field-label" for={`field-${field}`} safe>
        {label}
      </label>
      <input
        id={`field-${field}`}
        name={field}
        type="number"
        inputmode="numeric"
        min={field === "minToRun" ? "2" : field === "capacity" ? String(CAPACITY_MIN) : "1"}
        max={String(CAPACITY_MAX)}
        step="1"
        class="input"
        value={values[field]}
        aria-invalid={invalid(field)}
        aria-describedby={describedBy(field, ...(hint ? [`${field}-hint`] : []))}
      />
      {hint ? (
        <span id={`${field}-hint`} class="text-sm text-muted" safe>
          {hint}
        </span>
      ) : (
        ""
      )}
      <FieldError id={`field-${field}-error`} message={errors[field]} />
    </div>
  );
  const money = (field: "pricePerPerson" | "privateGroupPrice", label: string, hint?: string) => (
    <div class="field">
      <label class="field-label" for={`field-${field}`} safe>
        {label}
      </label>
      <div class="relative">
        <span class="pointer-events-none absolute left-3 top-1/2 -translate-y-1/2 text-muted" safe>
          {symbol}
        </span>
        <input
          id={`field-${field}`}
          name={field}
          type="number"
          inputmode="decimal"
          step={step}
          min={step}
          class={symbol.length > 1 ? "input pl-10" : "input pl-7"}
          value={values[field]}
          aria-invalid={invalid(field)}
          aria-describedby={describedBy(field, ...(hint ? [`${field}-hint`] : []))}
        />
      </div>
      {hint ? (
        <span id={`${field}-hint`} class="text-sm text-muted" safe>
          {hint}
        </span>
      ) : (
        ""
      )}
      <FieldError id={`field-${field}-error`} message={errors[field]} />
    </div>
  );
  const select = (field: "sessionMinutes" | "minToRunHours", label: string, choices: { value: number; label: string }[], empty?: string) => (
    <div class="field">
      <label class="field-label" for={`field-${field}`} safe>
        {label}
      </label>
      <select id={`field-${field}`} name={field} class="input" aria-invalid={invalid(field)} aria-describedby={describedBy(field)}>
        {empty !== undefined ? (
          <option value="" selected={!values[field]} safe>
            {empty}
          </option>
        ) : (
          ""
        )}
        {choices.map((c) => (
          <option value={String(c.value)} selected={values[field] === String(c.value)} safe>
            {c.label}
          </option>
        ))}
      </select>
      <FieldError id={`field-${field}-error`} message={errors[field]} />
    </div>
  );
  return (
    <fieldset class="flex flex-col gap-4 rounded-xl border border-line p-3" data-format-fields="group">
      <legend class="px-1 text-sm font-semibold" safe>
        {t("activity.formatFields")}
      </legend>
      {number("capacity", t("activity.capacityLabel"))}
      {money("pricePerPerson", t("activity.pricePerPersonLabel", { symbol }))}
      {select("sessionMinutes", t("activity.sessionLabel"), sessionChoices(view), "")}
      <div class="grid grid-cols-2 gap-3">
        {number("minSpots", t("activity.minSpotsLabel"))}
        {number("maxSpots", t("activity.maxSpotsLabel"))}
      </div>
      {money("privateGroupPrice", t("activity.privateGroupLabel", { symbol }), t("activity.privateGroupHint"))}
      {number("minToRun", t("activity.minToRunLabel"), t("activity.minToRunHint"))}
      {select("minToRunHours", t("activity.minToRunHoursLabel"), deadlineChoices(view))}
    </fieldset>
  );
}
