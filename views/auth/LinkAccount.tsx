import type { View } from "../../src/shell/view";
import { AuthScreen, FormError, Notice, PasswordField } from "./AuthScreen";

export type LinkState =
  /** A provider's sign-in found an existing account: prove it is yours. */
  | { kind: "choose"; email: string; provider: string; hasPassword: boolean; errors?: { password?: string; form?: string } }
  /** The link was emailed. */
  | { kind: "sent"; email: string; provider: string }
  /** The existing account's address is not verified: nothing is joined to it. */
  | { kind: "unverified"; email: string; provider: string }
  /** The pending sign-in, or the emailed link, no longer works. */
  | { kind: "expired" }
  /** The emailed link opened in a browser that did not start this provider's sign-in: nothing is joined. */
  | { kind: "otherBrowser"; provider: string }
  /** From the emailed link: one button that joins and signs in. */
  | { kind: "confirm"; token: string; email: string; provider: string }
  /** Joining was refused for another reason (the message says which). */
  | { kind: "refused"; message: string };

/** The screens of joining a provider's account to an existing Offline account. */
export function LinkAccount({ view, state }: { view: View; state: LinkState }) {
  const { t } = view;
  switch (state.kind) {
    case "choose": {
      const errors = state.errors ?? {};
      return (
        <AuthScreen view={view} title={t("link.title")} back="/api/login" langPath="/link-account">
          <>
            <Notice tone="info" body={t(state.hasPassword ? "link.exists" : "link.noPassword", { email: state.email, provider: state.provider })} />
            {state.hasPassword ? (
              <form method="post" action="/link-account" class="flex flex-col gap-4" novalidate>
                <input type="hidden" name="_csrf" value={view.csrf} />
                <h2 class="text-lg font-semibold" safe>
                  {t("link.withPassword")}
                </h2>
                <FormError message={errors.form} />
                <input type="email" name="username" autocomplete="username" value={state.email} readonly hidden />
                <PasswordField id="link-password" label={t("login.password")} error={errors.password} autocomplete="current-password" />
                <button type="submit" class="btn btn-primary btn-lg" safe>
                  {t("link.passwordSubmit", { provider: state.provider })}
                </button>
                <p class="text-center text-sm">
                  <a class="link" href={`/forgot-password?email=${encodeURIComponent(state.email)}`} safe>
                    {t("login.forgotPassword")}
                  </a>
                </p>
              </form>
            ) : (
              ""
            )}
            <form method="post" action="/link-account/email" class="flex flex-col gap-3">
              <input type="hidden" name="_csrf" value={view.csrf} />
              {state.hasPassword ? (
                <h2 class="text-lg font-semibold" safe>
                  {t("link.byEmail")}
                </h2>
              ) : (
                ""
              )}
              <button type="submit" class={`btn ${state.hasPassword ? "btn-secondary" : "btn-primary btn-lg"}`} safe>
                {t("link.emailButton")}
              </button>
            </form>
          </>
        </AuthScreen>
      );
    }
    case "sent":
      return (
        <AuthScreen view={view} title={t("link.sentTitle")} back="/api/login" langPath="/api/login">
          <>
            <Notice tone="success" body={t("link.sent", { email: state.email, provider: state.provider })} />
            <a href="/api/login" class="btn btn-secondary" safe>
              {t("forgot.backToSignIn")}
            </a>
          </>
        </AuthScreen>
      );
    case "unverified":
      return (
        <AuthScreen view={view} title={t("link.unverifiedTitle")} back="/api/login" langPath="/api/login">
          <>
            <Notice
              tone="error"
              body={[t("link.unverified", { email: state.email, provider: state.provider }), t("link.unverifiedWhat", { provider: state.provider })]}
            />
            <a href={`/api/login?email=${encodeURIComponent(state.email)}`} class="btn btn-primary btn-lg" safe>
              {t("verify.signIn")}
            </a>
            <a href={`/forgot-password?email=${encodeURIComponent(state.email)}`} class="btn btn-secondary" safe>
              {t("link.resetPassword")}
            </a>
          </>
        </AuthScreen>
      );
    case "expired":
      return (
        <AuthScreen view={view} title={t("link.expiredTitle")} back="/api/login" langPath="/api/login">
          <>
            <Notice tone="error" body={t("link.expired")} />
            <a href="/api/login" class="btn btn-primary btn-lg" safe>
              {t("link.startAgain")}
            </a>
          </>
        </AuthScreen>
      );
    case "otherBrowser":
      return (
        <AuthScreen view={view} title={t("link.otherBrowserTitle")} back="/api/login" langPath="/api/login">
          <>
            <Notice tone="info" body={[t("link.otherBrowser", { provider: state.provider }), t("link.otherBrowserNotYou", { provider: state.provider })]} />
            <a href="/api/login" class="btn btn-primary btn-lg" safe>
              {t("link.startAgain")}
            </a>
          </>
        </AuthScreen>
      );
    case "confirm":
      return (
        <AuthScreen view={view} title={t("link.confirmTitle", { provider: state.provider })} back="/" langPath={`/link-account/confirm?token=${state.token}`}>
          <>
            <Notice tone="info" body={[t("link.confirm", { provider: state.provider, email: state.email }), t("link.confirmWarning", { provider: state.provider })]} />
            <form method="post" action="/link-account/confirm" class="flex flex-col gap-3">
              <input type="hidden" name="_csrf" value={view.csrf} />
              <input type="hidden" name="token" value={state.token} />
              <button type="submit" class="btn btn-primary btn-lg" safe>
                {t("link.confirmButton", { provider: state.provider })}
              </button>
            </form>
            <a href="/" class="btn btn-secondary" safe>
              {t("link.cancel")}
            </a>
          </>
        </AuthScreen>
      );
    case "refused":
      return (
        <AuthScreen view={view} title={t("link.title")} back="/api/login" langPath="/api/login">
          <>
            <Notice tone="error" body={state.message} />
            <a href="/api/login" class="btn btn-primary btn-lg" safe>
              {t("forgot.backToSignIn")}
            </a>
          </>
        </AuthScreen>
      );
  }
}
