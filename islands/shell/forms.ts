import { groupPriceFor } from "../../shared/pricing";
import type { GroupTotalConfig } from "../../shared/seats";
import { moneyFormatter } from "../../shared/money";

/**
 * Forms marked data-validate keep their submit button disabled until the form is valid: its
 * inputs' own constraints, lists that must not be empty (data-list-required, a JSON array), and
 * no pending or failed check inside it (data-blocking="true", e.g. the username check).
 */
function formReady(form: HTMLFormElement): boolean {
  if (!form.checkValidity()) return false;
  for (const input of form.querySelectorAll<HTMLInputElement>("input[data-list-required]")) {
    try {
      if (!(JSON.parse(input.value || "[]") as unknown[]).length) return false;
    } catch {
      return false;
    }
  }
  if (form.querySelector('[data-blocking="true"]')) return false;
  // Forms that only make sense with a change (the username screen) wait for one.
  if (form.hasAttribute("data-require-change")) {
    const fields = [...form.querySelectorAll<HTMLInputElement>("input[data-initial]")];
    if (fields.every((f) => f.value === f.dataset.initial)) return false;
  }
  return true;
}

/**
 * An input with data-after-max="{id}" says why it is refused while its value is after its `max`
 * (onboarding's birthday: under 18), instead of only leaving Next disabled: the message inside
 * the element #id is shown and the input marked invalid; both go again once the value is fine.
 */
function sayIfAfterMax(input: HTMLInputElement) {
  const message = document.getElementById(input.dataset.afterMax ?? "")?.firstElementChild;
  if (!(message instanceof HTMLElement)) return;
  const after = input.validity.rangeOverflow;
  message.hidden = !after;
  if (after) input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
}

function refreshForm(form: HTMLFormElement) {
  const ready = formReady(form);
  for (const button of form.querySelectorAll<HTMLButtonElement>("button[type=submit][data-needs-valid]")) button.disabled = !ready;
}

/**
 * A date select with data-hours-for="{id}" (the booking dialog): each date option lists its open
 * start hours (data-hours="9 10 11"); the time select #id keeps only those enabled, and forgets a
 * chosen time the new date does not offer. For a group session, each date option also says the
 * spots left at each start (data-spots='{"10":3,"11":0}'), and the time select the words for each
 * count (data-spots-texts='{"0":"Full","1":"1 spot left",…}'): each start's label then says its
 * spots on the date chosen ("10:00 AM · 3 spots left", "… · Full").
 */
function limitHours(select: HTMLSelectElement) {
  const times = document.getElementById(select.dataset.hoursFor ?? "");
  if (!(times instanceof HTMLSelectElement)) return;
  const chosen = select.selectedOptions[0];
  const open = chosen?.value ? new Set((chosen.dataset.hours ?? "").split(" ").filter(Boolean)) : null;
  const spots = chosen?.value ? readJson<Record<string, number>>(chosen.dataset.spots) : null;
  const spotsTexts = readJson<Record<string, string>>(times.dataset.spotsTexts);
  for (const option of times.options) {
    const hour = option.dataset.hour;
    if (!hour) continue;
    option.disabled = open !== null && !open.has(hour);
    if (spotsTexts && option.dataset.label) {
      const left = spots?.[hour];
      option.textContent = left === undefined ? option.dataset.label : `${option.dataset.label} · ${spotsTexts[String(left)] ?? ""}`;
    }
  }
  if (times.selectedOptions[0]?.disabled) times.value = "";
  limitDurations(select, times);
}

/**
 * The durations a start allows (data-durations-for="{id}" on the date select): each date option
 * says, per open start hour, the most minutes a booking may run from it (data-longest='{"11":60}');
 * once a date and a start are chosen, the longer durations of #id (those with data-minutes) are
 * greyed out, and a chosen one too long falls back to the longest that fits.
 */
function limitDurations(select: HTMLSelectElement, times: HTMLSelectElement) {
  const durations = document.getElementById(select.dataset.durationsFor ?? "");
  if (!(durations instanceof HTMLSelectElement)) return;
  const longest = select.selectedOptions[0]?.value ? readJson<Record<string, number>>(select.selectedOptions[0].dataset.longest) : null;
  const hour = times.selectedOptions[0]?.dataset.hour;
  const most = longest && hour ? (longest[hour] ?? Infinity) : Infinity;
  for (const option of durations.options) {
    if (!option.dataset.minutes) continue;
    option.disabled = Number(option.dataset.minutes) > most;
  }
  if (durations.selectedOptions[0]?.disabled) {
    const fitting = [...durations.options].filter((o) => o.dataset.minutes && !o.disabled);
    durations.value = fitting.at(-1)?.value ?? "";
  }
}

function readJson<T>(text: string | undefined): T | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

/**
 * A group booking's choice ([data-group-booking], views/bookings/Parts.tsx `SpotsFields`): the −
 * and + buttons step the spots within the bounds (1 to the capacity for a private group), and
 * the total (spots × the price per person, or the private group's price when higher, plus the
 * service fee: shared/pricing.ts, the server's own rule) follows each change. Without this the
 * form still works: the number input and the server's answer.
 */
function refreshGroup(box: HTMLElement) {
  const config = readJson<GroupTotalConfig>(box.dataset.groupBooking);
  const input = box.querySelector<HTMLInputElement>("input[data-spots-input]");
  if (!config || !input) return;
  const asPrivate = box.querySelector<HTMLInputElement>("input[data-private-group]")?.checked === true && config.privateGroupPriceCents !== null;
  const min = asPrivate ? 1 : config.min;
  const max = asPrivate ? config.capacity : config.max;
  input.min = String(min);
  input.max = String(max);
  const hint = box.querySelector<HTMLElement>("[data-spots-hint]");
  if (hint) hint.textContent = asPrivate ? config.privateHint : config.hint;
  const typed = Number(input.value);
  const spots = input.value.trim() !== "" && Number.isInteger(typed) ? typed : min;
  const valid = spots >= min && spots <= max;
  for (const button of box.querySelectorAll<HTMLButtonElement>("button[data-spots-step]")) {
    button.hidden = false;
    button.disabled = Number(button.dataset.spotsStep) < 0 ? spots <= min : spots >= max;
  }
  if (valid) input.removeAttribute("aria-invalid");
  else input.setAttribute("aria-invalid", "true");
  const counted = Math.min(Math.max(spots, min), max);
  const price = groupPriceFor(config.pricePerPersonCents, counted, asPrivate ? config.privateGroupPriceCents : null);
  const money = moneyFormatter(config.locale, config.money);
  const write = (selector: string, text: string) => {
    const el = box.querySelector<HTMLElement>(selector);
    if (el && el.textContent !== text) el.textContent = text;
  };
  write("[data-total-label]", asPrivate ? config.privateLabel : (config.subtotalLabels[counted] ?? ""));
  write("[data-total-subtotal]", money(price.subtotalCents));
  write("[data-total-fee]", money(price.serviceFeeCents));
  write("[data-total-total]", money(price.totalCents));
}

function stepSpots(button: HTMLButtonElement) {
  const box = button.closest<HTMLElement>("[data-group-booking]");
  const input = box?.querySelector<HTMLInputElement>("input[data-spots-input]");
  if (!box || !input) return;
  const min = Number(input.min) || 1;
  const max = Number(input.max) || min;
  const now = Number(input.value);
  const from = input.value.trim() !== "" && Number.isInteger(now) ? now : min;
  input.value = String(Math.min(Math.max(from + Number(button.dataset.spotsStep), min), max));
  // As typing would: the form's own checks and the total follow.
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

export function watchForms() {
  const refreshAll = (root: ParentNode = document) => {
    for (const form of root.querySelectorAll<HTMLFormElement>("form[data-validate]")) refreshForm(form);
  };
  const onChange = (event: Event) => {
    const target = event.target as HTMLElement | null;
    if (target instanceof HTMLInputElement && target.hasAttribute("data-lowercase")) {
      const { selectionStart, selectionEnd } = target;
      const lower = target.value.toLowerCase();
      if (lower !== target.value) {
        target.value = lower;
        target.setSelectionRange(selectionStart, selectionEnd);
      }
    }
    if (target instanceof HTMLInputElement && target.dataset.afterMax) sayIfAfterMax(target);
    if (target instanceof HTMLSelectElement && target.dataset.hoursFor) limitHours(target);
    // A start chosen: the durations that fit it (the date select knows them).
    if (target instanceof HTMLSelectElement && target.dataset.startOf) {
      const dates = document.getElementById(target.dataset.startOf);
      if (dates instanceof HTMLSelectElement) limitHours(dates);
    }
    const group = target?.closest?.<HTMLElement>("[data-group-booking]");
    if (group) refreshGroup(group);
    // Live character counters ("n/500 characters").
    const counterId = target?.dataset?.counter;
    const counter = counterId ? document.getElementById(counterId) : null;
    if (counter && (target instanceof HTMLTextAreaElement || target instanceof HTMLInputElement)) {
      counter.textContent = (counter.dataset.counterTemplate ?? "{count}").replace("{count}", String(target.value.length));
    }
    const form = target?.closest?.("form[data-validate]");
    if (form instanceof HTMLFormElement) refreshForm(form);
  };
  document.addEventListener("input", onChange);
  document.addEventListener("change", onChange);
  // A check in flight blocks the form until its answer arrives (htmx swaps the status in).
  document.addEventListener("htmx:beforeRequest", (event) => {
    const elt = (event as CustomEvent).detail?.elt as HTMLElement | undefined;
    const statusId = elt?.dataset.checkStatus;
    const status = statusId ? document.getElementById(statusId) : null;
    if (status) {
      status.dataset.blocking = "true";
      status.textContent = status.dataset.checkingText ?? "";
      const form = status.closest("form");
      if (form) refreshForm(form);
    }
  });
  document.addEventListener("htmx:afterSettle", (event) => {
    const form = ((event as CustomEvent).detail?.elt as HTMLElement | undefined)?.closest?.("form[data-validate]");
    if (form instanceof HTMLFormElement) refreshForm(form);
  });
  // The busy text ("Creating Profile...") replaces the button's while the form is sent.
  document.addEventListener("submit", (event) => {
    const form = event.target as HTMLFormElement;
    const button = form.querySelector<HTMLButtonElement>("button[type=submit][data-busy-text]");
    if (!button || event.defaultPrevented) return;
    setTimeout(() => {
      button.textContent = button.dataset.busyText ?? button.textContent;
      button.disabled = true;
      button.setAttribute("aria-busy", "true");
    });
  });
  document.addEventListener("click", (event) => {
    const button = (event.target as Element | null)?.closest?.("button[data-spots-step]");
    if (button instanceof HTMLButtonElement) stepSpots(button);
  });
  const limitAll = (root: ParentNode = document) => {
    for (const select of root.querySelectorAll<HTMLSelectElement>("select[data-hours-for]")) limitHours(select);
    for (const box of root.querySelectorAll<HTMLElement>("[data-group-booking]")) refreshGroup(box);
  };
  refreshAll();
  limitAll();
  document.addEventListener("htmx:load", (event) => {
    refreshAll((event.target as ParentNode) ?? document);
    limitAll((event.target as ParentNode) ?? document);
  });
}
