import { countries, splitHighlighted } from "../../lib/places";
import type { View } from "../../src/shell/view";
import { Icon } from "./icons";

/**
 * A screen's top bar: back link, title, optional actions on the right. The title is the page's
 * heading unless `heading={false}`, for screens whose own content starts with a better one.
 */
export function ScreenHeader({ view, title, back, heading = true, children }: { view: Pick<View, "t">; title: string; back?: string; heading?: boolean; children?: JSX.Element }) {
  const titleClass = "min-w-0 flex-1 truncate text-xl font-bold";
  return (
    <header class="mb-4 flex min-h-11 items-center gap-2">
      {back ? (
        <a href={back} class="btn-icon -ml-3" aria-label={view.t("common.back")}>
          <Icon name="arrowLeft" class="w-5 h-5" />
        </a>
      ) : (
        ""
      )}
      {heading ? (
        <h1 class={titleClass} safe>
          {title}
        </h1>
      ) : (
        <p class={titleClass} safe>
          {title}
        </p>
      )}
      {(children ?? "") as "safe"}
    </header>
  );
}

export function FieldError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <span id={id} class="field-error" role="alert" safe>
      {message}
    </span>
  ) : (
    ""
  );
}

/** A labelled text input with its error; the error is tied to the input for screen readers. */
export function TextField(props: {
  name: string;
  label: string;
  value?: string | null;
  error?: string;
  type?: string;
  required?: boolean;
  autocomplete?: string;
  maxlength?: number;
  minlength?: number;
  hint?: string;
  attrs?: Record<string, string>;
  /** Marks the input invalid though the error is said elsewhere (in `children`). */
  invalid?: boolean;
  /** More ids describing the input (an element among `children`). */
  describedBy?: string;
  /** Shown after the field's hint and error, inside the field. */
  children?: JSX.Element;
}) {
  const id = `field-${props.name}`;
  const describedBy = [props.error ? `${id}-error` : props.hint ? `${id}-hint` : "", props.describedBy ?? ""].filter(Boolean).join(" ") || undefined;
  return (
    <div class="field">
      <label class="field-label" for={id} safe>
        {props.label}
      </label>
      <input
        id={id}
        class="input"
        type={props.type ?? "text"}
        name={props.name}
        value={props.value ?? ""}
        required={props.required}
        autocomplete={props.autocomplete}
        maxlength={props.maxlength?.toString()}
        minlength={props.minlength?.toString()}
        aria-invalid={props.error || props.invalid ? "true" : undefined}
        aria-describedby={describedBy}
        {...(props.attrs ?? {})}
      />
      {props.hint && !props.error ? (
        <span id={`${id}-hint`} class="text-xs text-muted" safe>
          {props.hint}
        </span>
      ) : (
        ""
      )}
      <FieldError id={`${id}-error`} message={props.error} />
      {(props.children ?? "") as "safe"}
    </div>
  );
}

export interface SelectOption {
  value: string;
  label: string;
  selected?: boolean;
  disabled?: boolean;
  /** data-* attributes of the option (`{ hours: "9 10" }` is `data-hours="9 10"`), for the page script. */
  data?: Record<string, string>;
}

const dataAttributes = (data: Record<string, string> | undefined) => Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [`data-${k}`, v]));

/**
 * A labelled choice. With `placeholder` it is a required select whose empty first option reads
 * the placeholder; without, a value is always chosen, so it is not marked required (a required
 * select must start with an empty placeholder option). `children` follow the select (a note
 * about the options).
 */
export function SelectField(props: { id: string; name: string; label: string; options: SelectOption[]; placeholder?: string; data?: Record<string, string>; children?: JSX.Element }) {
  return (
    <div class="field">
      <label class="field-label" for={props.id} safe>
        {props.label}
      </label>
      <select id={props.id} class="input" name={props.name} required={props.placeholder !== undefined} {...dataAttributes(props.data)}>
        {props.placeholder !== undefined ? (
          <option value="" safe>
            {props.placeholder}
          </option>
        ) : (
          ""
        )}
        {props.options.map((o) => (
          <option value={o.value} selected={o.selected} disabled={o.disabled} {...dataAttributes(o.data)} safe>
            {o.label}
          </option>
        ))}
      </select>
      {(props.children ?? "") as "safe"}
    </div>
  );
}

/**
 * The form-level message, as the spec's toasts say it: a title and a sentence. With `focus` (a
 * refused payment, whose form sits far down a long page) it takes the focus when the page loads,
 * so it is scrolled into view and read out at once rather than left below the screen: `autofocus`
 * does it without script, and the page script (islands/shell/alerts.ts) centres it on screen.
 */
export function FormAlert({ title, body, focus }: { title?: string; body?: string; focus?: boolean }) {
  if (!title && !body) return "";
  return (
    <div
      role="alert"
      class="rounded-xl bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-900/30 dark:text-red-100"
      {...(focus ? { tabindex: "-1", autofocus: true, "data-focus-alert": "" } : {})}
    >
      {title ? (
        <p class="font-semibold" safe>
          {title}
        </p>
      ) : (
        ""
      )}
      {body ? <p safe>{body}</p> : ""}
    </div>
  );
}

/** Options with the top ten first, then a separator, then the rest (spec §3). */
function HighlightedOptions({ names, selected, placeholder }: { names: string[]; selected?: string | null; placeholder?: string }) {
  const { top, rest } = splitHighlighted(names, (name) => name);
  const option = (name: string) => (
    <option value={name} selected={name === selected} safe>
      {name}
    </option>
  );
  return (
    <>
      {placeholder ? (
        <option value="" selected={!selected} safe>
          {placeholder}
        </option>
      ) : (
        ""
      )}
      {top.map(option)}
      {rest.length ? <option disabled>──────────</option> : ""}
      {rest.map(option)}
    </>
  );
}

export function CountryOptions({ selected, placeholder }: { selected?: string | null; placeholder?: string }) {
  return <HighlightedOptions names={countries.map((c) => c.name)} selected={selected} placeholder={placeholder} />;
}

export function CityOptions({ country, selected, placeholder }: { country?: string | null; selected?: string | null; placeholder?: string }) {
  const cities = countries.find((c) => c.name === country)?.cities ?? [];
  return <HighlightedOptions names={cities.map((c) => c.name)} selected={selected} placeholder={placeholder} />;
}

/** "n/max characters", kept current as the field with data-counter={id} is typed in. */
export function CharacterCounter({ view, id, count, max }: { view: Pick<View, "t">; id: string; count: number; max: number }) {
  return (
    <span id={id} class="text-right text-xs text-muted" data-counter-template={view.t("common.characterCount", { count: "{count}", max })} safe>
      {view.t("common.characterCount", { count, max })}
    </span>
  );
}
