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
 * chosen time the new date does not offer.
 */
function limitHours(select: HTMLSelectElement) {
  const times = document.getElementById(select.dataset.hoursFor ?? "");
  if (!(times instanceof HTMLSelectElement)) return;
  const chosen = select.selectedOptions[0];
  const open = chosen?.value ? new Set((chosen.dataset.hours ?? "").split(" ").filter(Boolean)) : null;
  for (const option of times.options) {
    if (!option.dataset.hour) continue;
    option.disabled = open !== null && !open.has(option.dataset.hour);
  }
  if (times.selectedOptions[0]?.disabled) times.value = "";
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
  const limitAll = (root: ParentNode = document) => {
    for (const select of root.querySelectorAll<HTMLSelectElement>("select[data-hours-for]")) limitHours(select);
  };
  refreshAll();
  limitAll();
  document.addEventListener("htmx:load", (event) => {
    refreshAll((event.target as ParentNode) ?? document);
    limitAll((event.target as ParentNode) ?? document);
  });
}
