import type { View } from "../../src/shell/view";
import { ScreenHeader } from "../components/Fields";
import { Icon } from "../components/icons";
import { AppLayout } from "../layouts/AppLayout";
import { AuthScreen, Notice } from "./AuthScreen";

/** "Resend link": asks for the verification link again, then comes back to `next`. */
export function ResendForm({ view, next, primary = false }: { view: View; next: string; primary?: boolean }) {
  return (
    <form method="post" action="/api/auth/verify-email/resend">
      <input type="hidden" name="_csrf" value={view.csrf} />
      <input type="hidden" name="next" value={next} />
      <button type="submit" class={`btn ${primary ? "btn-primary" : "btn-secondary"} w-full sm:w-auto`} safe>
        {view.t("verify.resend")}
      </button>
    </form>
  );
}

export type VerifyOutcome =
  | { kind: "verified"; email: string }
  | { kind: "changed"; email: string }
  /** A link opened again after it verified the address, which still is the account's. */
  | { kind: "alreadyVerified"; email: string }
  | { kind: "taken"; email: string }
  | { kind: "invalid" }
  /** An operator's address: the link shows this page, and only its button verifies. */
  | { kind: "confirm"; token: string; email: string };

/** /verify-email: what following a verification link did. */
export function VerifyEmailResult({ view, outcome }: { view: View; outcome: VerifyOutcome }) {
  const { t } = view;
  const signedIn = view.user !== null;
  const onward = signedIn ? "/settings/account" : "/api/login";
  const onwardLabel = signedIn ? t("verify.continue") : t("verify.signIn");
  if (outcome.kind === "confirm") {
    return (
      <AuthScreen view={view} title={t("verify.confirmTitle")} back={onward} langPath={onward}>
        <>
          <Notice tone="info" body={t("verify.confirmBody", { email: outcome.email })} />
          <form method="post" action="/verify-email" class="flex flex-col gap-3">
            <input type="hidden" name="_csrf" value={view.csrf} />
            <input type="hidden" name="token" value={outcome.token} />
            <button type="submit" class="btn btn-primary btn-lg" safe>
              {t("verify.confirmButton")}
            </button>
          </form>
        </>
      </AuthScreen>
    );
  }
  if (outcome.kind === "verified" || outcome.kind === "changed" || outcome.kind === "alreadyVerified") {
    const title = outcome.kind === "verified" ? t("verify.doneTitle") : outcome.kind === "alreadyVerified" ? t("verify.alreadyTitle") : t("verify.changedTitle");
    const body =
      outcome.kind === "verified" ? t("verify.done", { email: outcome.email }) : outcome.kind === "alreadyVerified" ? t("verify.already", { email: outcome.email }) : t("verify.changed", { email: outcome.email });
    return (
      <AuthScreen view={view} title={title} back={onward} langPath={onward}>
        <>
          <div class="flex items-start gap-3">
            <span class="flex h-10 w-10 shrink-0 items-center justify-center rounded-full bg-green-100 text-green-800 dark:bg-green-900/40 dark:text-green-100">
              <Icon name="check" class="w-5 h-5" />
            </span>
            <Notice tone="success" body={body} />
          </div>
          <a href={onward} class="btn btn-primary btn-lg" safe>
            {onwardLabel}
          </a>
        </>
      </AuthScreen>
    );
  }
  const body = outcome.kind === "taken" ? t("verify.taken", { email: outcome.email }) : t("verify.invalid");
  return (
    <AuthScreen view={view} title={t("verify.invalidTitle")} back={onward} langPath={onward}>
      <>
        <Notice tone="error" body={[body, signedIn ? t("verify.invalidSignedIn") : t("verify.invalidSignedOut")]} />
        {signedIn ? <ResendForm view={view} next="/settings/account" primary /> : ""}
        <a href={onward} class={`btn ${signedIn ? "btn-secondary" : "btn-primary btn-lg"}`} safe>
          {onwardLabel}
        </a>
      </>
    </AuthScreen>
  );
}

/** A right that waits for a verified address: what to do, and the link sent again on request. */
export function VerifyNeededCard({ view, body, next }: { view: View; body: string; next: string }) {
  return (
    <section class="card flex flex-col gap-3 p-4" aria-labelledby="verify-needed-title">
      <h2 id="verify-needed-title" class="font-semibold" safe>
        {view.t("verify.neededTitle")}
      </h2>
      <p class="break-words text-sm text-muted" safe>
        {body}
      </p>
      <ResendForm view={view} next={next} primary />
    </section>
  );
}

/** A whole screen for a right that waits for a verified address (the operators' pages). */
export function VerifyNeededScreen({ view, title, body, next }: { view: View; title: string; body: string; next: string }) {
  return (
    <AppLayout view={view} title={title}>
      <>
        <ScreenHeader view={view} title={title} back="/settings" />
        <VerifyNeededCard view={view} body={body} next={next} />
      </>
    </AppLayout>
  );
}
