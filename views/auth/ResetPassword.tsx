import { PASSWORD_MIN } from "../../shared/limits";
import type { View } from "../../src/shell/view";
import { AuthScreen, FormError, Notice, PasswordField } from "./AuthScreen";

export type ResetState =
  | { kind: "form"; token: string; email: string; errors?: { password?: string; form?: string } }
  /** The link expired, was used, or never was one. */
  | { kind: "invalid" };

/** /reset-password: the new-password form from an emailed link, or why the link no longer works. */
export function ResetPassword({ view, state }: { view: View; state: ResetState }) {
  const { t } = view;
  if (state.kind === "invalid") {
    return (
      <AuthScreen view={view} title={t("reset.invalidTitle")} back="/api/login" langPath="/forgot-password">
        <>
          <Notice tone="error" body={t("reset.invalid")} />
          <a href="/forgot-password" class="btn btn-primary btn-lg" safe>
            {t("reset.askAgain")}
          </a>
          <a href="/api/login" class="btn btn-secondary" safe>
            {t("forgot.backToSignIn")}
          </a>
        </>
      </AuthScreen>
    );
  }
  const errors = state.errors ?? {};
  return (
    <AuthScreen view={view} title={t("reset.title")} back="/api/login" langPath={`/reset-password?token=${state.token}`}>
      <>
        <p class="break-words text-sm text-muted" safe>
          {t("reset.intro", { email: state.email })}
        </p>
        <form method="post" action="/reset-password" class="flex flex-col gap-4" novalidate>
          <input type="hidden" name="_csrf" value={view.csrf} />
          <input type="hidden" name="token" value={state.token} />
          {/* For password managers: the account the new password belongs to. */}
          <input type="email" name="username" autocomplete="username" value={state.email} readonly hidden />
          <FormError message={errors.form} />
          <PasswordField id="reset-password" label={t("reset.newPassword")} error={errors.password} hint={t("login.passwordHint")} autocomplete="new-password" minlength={PASSWORD_MIN} />
          <button type="submit" class="btn btn-primary btn-lg" safe>
            {t("reset.submit")}
          </button>
        </form>
      </>
    </AuthScreen>
  );
}
