import type { View } from "../../src/shell/view";
import { AuthScreen, EmailField, FormError, Notice } from "./AuthScreen";

export interface ForgotForm {
  email: string;
  /** The request was taken: the same answer whether or not the address has an account. */
  sent?: boolean;
  errors?: { email?: string; form?: string };
}

/** /forgot-password: ask for a reset link, then the answer that says where it went (if anywhere). */
export function ForgotPassword({ view, form }: { view: View; form: ForgotForm }) {
  const { t } = view;
  const errors = form.errors ?? {};
  const signIn = `/api/login${form.email ? `?email=${encodeURIComponent(form.email)}` : ""}`;
  if (form.sent) {
    return (
      <AuthScreen view={view} title={t("forgot.sentTitle")} back={signIn} langPath="/forgot-password">
        <>
          <Notice tone="success" body={[t("forgot.sent", { email: form.email }), t("forgot.sentHint")]} />
          <a href={signIn} class="btn btn-primary btn-lg" safe>
            {t("forgot.backToSignIn")}
          </a>
          <a href="/forgot-password" class="btn btn-secondary" safe>
            {t("forgot.again")}
          </a>
        </>
      </AuthScreen>
    );
  }
  return (
    <AuthScreen view={view} title={t("forgot.title")} back={signIn}>
      <>
        <p class="text-sm text-muted" safe>
          {t("forgot.intro")}
        </p>
        <form method="post" action="/forgot-password" class="flex flex-col gap-4" novalidate>
          <input type="hidden" name="_csrf" value={view.csrf} />
          <FormError message={errors.form} />
          <EmailField id="forgot-email" label={t("login.email")} value={form.email} error={errors.email} />
          <button type="submit" class="btn btn-primary btn-lg" safe>
            {t("forgot.submit")}
          </button>
        </form>
        <p class="text-center text-sm">
          <a class="link" href={signIn} safe>
            {t("forgot.backToSignIn")}
          </a>
        </p>
      </>
    </AuthScreen>
  );
}
