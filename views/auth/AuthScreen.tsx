import type { View } from "../../src/shell/view";
import { Icon } from "../components/icons";
import { LanguageSwitch } from "../components/LanguageSwitch";
import { Document } from "../layouts/Document";

/**
 * The frame of the account screens reached from emails and the sign-in screen (forgot and reset
 * password, verification, joining a provider's account): the sign-in screen's look, one column
 * that fits a phone. `langPath` is where the language switch comes back to (a page reached with
 * a token in its address names the address to come back to, or another page once it is used).
 */
export function AuthScreen({ view, title, back = "/", langPath, children }: { view: View; title: string; back?: string; langPath?: string; children: JSX.Element }) {
  const { t } = view;
  return (
    <Document view={view} title={title}>
      <main id="main" class="mx-auto flex min-h-screen max-w-md flex-col px-5 py-6">
        <a href={back} class="btn btn-ghost -ml-3 self-start" aria-label={t("login.backHome")}>
          <Icon name="arrowLeft" class="w-5 h-5" />
        </a>
        <div class="mt-4 flex items-center gap-3">
          <img src="/static/icon.svg" alt="" width="40" height="40" class="rounded-xl" />
          <h1 class="min-w-0 break-words text-2xl font-bold" safe>
            {title}
          </h1>
        </div>
        <div class="mt-6 flex flex-col gap-4">{children as "safe"}</div>
        <footer class="mt-auto pt-8">
          <LanguageSwitch view={langPath ? { ...view, path: langPath } : view} />
        </footer>
      </main>
    </Document>
  );
}

/** A message on an account screen: `status` (polite) for news, `alert` for a refusal. */
export function Notice({ tone, title, body }: { tone: "success" | "info" | "error"; title?: string; body: string | string[] }) {
  const colours =
    tone === "success"
      ? "bg-green-50 text-green-900 dark:bg-green-900/30 dark:text-green-100"
      : tone === "error"
        ? "bg-red-50 text-red-800 dark:bg-red-900/30 dark:text-red-100"
        : "bg-sunken text-ink";
  const lines = Array.isArray(body) ? body : [body];
  return (
    <div role={tone === "error" ? "alert" : "status"} class={`rounded-xl px-4 py-3 text-sm ${colours}`}>
      {title ? (
        <p class="font-semibold" safe>
          {title}
        </p>
      ) : (
        ""
      )}
      {lines.map((line) => (
        <p class="mt-1 break-words first:mt-0" safe>
          {line}
        </p>
      ))}
    </div>
  );
}

/** The form error at the top of an account form, like the sign-in screen's. */
export function FormError({ message }: { message?: string }) {
  return message ? (
    <p role="alert" class="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-700 dark:bg-red-900/30 dark:text-red-200" safe>
      {message}
    </p>
  ) : (
    ""
  );
}

/**
 * A labelled input with its error, or else its hint, tied to it for screen readers
 * (`${id}-error`, `${id}-hint`): the sign-in forms' fields.
 */
function LabelledInput({ id, label, error, hint, input }: { id: string; label: string; error?: string; hint?: string; input: Record<string, string | undefined> }) {
  const describedBy = error ? `${id}-error` : hint ? `${id}-hint` : undefined;
  return (
    <div class="field">
      <label class="field-label" for={id} safe>
        {label}
      </label>
      <input id={id} class="input" required {...input} aria-invalid={error ? "true" : undefined} aria-describedby={describedBy} />
      {error ? (
        <span id={`${id}-error`} class="field-error" safe>
          {error}
        </span>
      ) : hint ? (
        <span id={`${id}-hint`} class="text-xs text-muted" safe>
          {hint}
        </span>
      ) : (
        ""
      )}
    </div>
  );
}

/** The email field every sign-in form asks for. */
export function EmailField({ id, label, value, error }: { id: string; label: string; value: string; error?: string }) {
  return <LabelledInput id={id} label={label} error={error} input={{ type: "email", name: "email", autocomplete: "email", inputmode: "email", value }} />;
}

/** A password field with its hint or error. */
export function PasswordField({
  id,
  label,
  error,
  hint,
  autocomplete,
  minlength,
}: {
  id: string;
  label: string;
  error?: string;
  hint?: string;
  autocomplete: "new-password" | "current-password";
  minlength?: number;
}) {
  return <LabelledInput id={id} label={label} error={error} hint={hint} input={{ type: "password", name: "password", autocomplete, minlength: minlength?.toString() }} />;
}
