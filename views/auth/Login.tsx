import { PASSWORD_MIN } from "../../shared/limits";
import type { OAuthProviderConfig } from "../../src/config";
import type { View } from "../../src/shell/view";
import { Icon } from "../components/icons";
import { LanguageSwitch } from "../components/LanguageSwitch";
import { Document } from "../layouts/Document";
import { EmailField } from "./AuthScreen";

export interface LoginForm {
  mode: "signin" | "signup";
  next: string;
  email?: string;
  errors?: Partial<Record<"email" | "password" | "form", string>>;
}

/** /api/login: sign in or create an account with email and password, or with a provider. */
export function Login({ view, form, providers }: { view: View; form: LoginForm; providers: OAuthProviderConfig[] }) {
  const { t } = view;
  const signup = form.mode === "signup";
  const nextQuery = form.next === "/" ? "" : `next=${encodeURIComponent(form.next)}`;
  const tabHref = (mode: "signin" | "signup") =>
    `/api/login?${[nextQuery, mode === "signup" ? "mode=signup" : ""].filter(Boolean).join("&")}`.replace(/\?$/, "");
  const errors = form.errors ?? {};
  return (
    <Document view={view} title={t("login.title")}>
      <main id="main" class="mx-auto flex min-h-screen max-w-md flex-col px-5 py-6">
        <a href="/" class="btn btn-ghost -ml-3 self-start" aria-label={t("login.backHome")}>
          <Icon name="arrowLeft" class="w-5 h-5" />
        </a>
        <div class="mt-4 flex items-center gap-3">
          <img src="/static/icon.svg" alt="" width="40" height="40" class="rounded-xl" />
          <h1 class="text-2xl font-bold" safe>
            {t("login.title")}
          </h1>
        </div>

        {/* Two links that look like a segmented control; the current one is marked as the page. */}
        <div class="mt-6 grid grid-cols-2 rounded-xl bg-sunken p-1 text-sm font-medium">
          <a href={tabHref("signin")} aria-current={signup ? undefined : "page"} class={`tab ${signup ? "" : "tab-active"}`}>
            {t("login.signInTab") as "safe"}
          </a>
          <a href={tabHref("signup")} aria-current={signup ? "page" : undefined} class={`tab ${signup ? "tab-active" : ""}`}>
            {t("login.signUpTab") as "safe"}
          </a>
        </div>

        <form method="post" action={signup ? "/api/register" : "/api/login"} class="mt-6 flex flex-col gap-4" novalidate>
          <input type="hidden" name="next" value={form.next} />
          {errors.form ? (
            <p role="alert" class="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-700 dark:bg-red-900/30 dark:text-red-200" safe>
              {errors.form}
            </p>
          ) : (
            ""
          )}
          <EmailField id="login-email" label={t("login.email")} value={form.email ?? ""} error={errors.email} />
          <div class="field">
            <label class="field-label" for="login-password">
              {t("login.password") as "safe"}
            </label>
            <input
              id="login-password"
              class="input"
              type="password"
              name="password"
              autocomplete={signup ? "new-password" : "current-password"}
              required
              minlength={signup ? String(PASSWORD_MIN) : undefined}
              aria-invalid={errors.password ? "true" : undefined}
              aria-describedby={errors.password ? "password-error" : signup ? "password-hint" : undefined}
            />
            {errors.password ? (
              <span id="password-error" class="field-error" safe>
                {errors.password}
              </span>
            ) : signup ? (
              <span id="password-hint" class="text-xs text-muted" safe>
                {t("login.passwordHint")}
              </span>
            ) : (
              ""
            )}
          </div>
          {signup ? (
            <p class="text-xs text-muted" safe>
              {t("login.adult")}
            </p>
          ) : (
            <a class="link -mt-2 inline-flex min-h-11 items-center self-end text-sm" href={`/forgot-password${form.email ? `?email=${encodeURIComponent(form.email)}` : ""}`} safe>
              {t("login.forgotPassword")}
            </a>
          )}
          <button type="submit" class="btn btn-primary btn-lg">
            {(signup ? t("login.submitSignUp") : t("login.submitSignIn")) as "safe"}
          </button>
        </form>

        {providers.length ? (
          <>
            <div class="my-6 flex items-center gap-3 text-xs uppercase text-muted">
              <span class="h-px flex-1 bg-line" />
              {t("login.or") as "safe"}
              <span class="h-px flex-1 bg-line" />
            </div>
            <div class="flex flex-col gap-3">
              {providers.map((p) => (
                <a
                  href={`/api/login/${p.id}${nextQuery ? `?${nextQuery}` : ""}`}
                  class="btn btn-secondary btn-lg"
                >
                  {t("login.continueWith", { provider: p.name }) as "safe"}
                </a>
              ))}
            </div>
          </>
        ) : (
          ""
        )}
        <p class="mt-8 text-center text-sm text-muted">
          {(signup ? t("login.haveAccount") : t("login.noAccount")) as "safe"}{" "}
          <a class="link" href={tabHref(signup ? "signin" : "signup")}>
            {(signup ? t("login.signInTab") : t("login.signUpTab")) as "safe"}
          </a>
        </p>
        <footer class="mt-auto pt-8">
          <LanguageSwitch view={view} />
        </footer>
      </main>
    </Document>
  );
}
