import type { MessageKey } from "../../lib/i18n";
import type { PayoutSetup } from "../../src/payments/payouts";
import type { View } from "../../src/shell/view";
import { FormAlert, ScreenHeader } from "../components/Fields";
import { Icon, type IconName } from "../components/icons";
import { AppLayout } from "../layouts/AppLayout";
import { VerifyNeededCard } from "../auth/VerifyEmail";

export interface PaymentSetupState {
  setup: PayoutSetup;
  testMode: boolean;
  /** The host just came back from the provider's onboarding. */
  returned: boolean;
  alert?: { title: string; body: string };
  /** The address is not verified: what to do (payouts wait for it), or null. */
  verifyFirst?: string | null;
}

const NEEDS: MessageKey[] = ["payments.need.governmentId", "payments.need.bankAccount", "payments.need.businessInfoIfApplicable", "payments.need.taxId"];

const EXPLAINERS: { icon: IconName; title: MessageKey; body: MessageKey }[] = [
  { icon: "card", title: "payments.explain.paid.title", body: "payments.explain.paid.body" },
  { icon: "shield", title: "payments.explain.secure.title", body: "payments.explain.secure.body" },
  { icon: "calendar", title: "payments.explain.when.title", body: "payments.explain.when.body" },
];

function StartButton({ view, label }: { view: View; label: string }) {
  return (
    <form method="post" action="/stripe-connect-setup" class="mt-4">
      <input type="hidden" name="_csrf" value={view.csrf} />
      <button type="submit" class="btn btn-primary w-full" safe>
        {label}
      </button>
    </form>
  );
}

function Status({ view, state }: { view: View; state: PaymentSetupState }) {
  const { t } = view;
  const { setup } = state;
  if (setup.state === "enabled") {
    return (
      <section class="card flex items-start gap-3 p-4" role="status">
        <span class="flex h-10 w-10 shrink-0 items-center justify-center rounded-full bg-green-100 text-green-800 dark:bg-green-900/40 dark:text-green-100">
          <Icon name="check" class="w-5 h-5" />
        </span>
        <div class="min-w-0">
          <h2 class="font-semibold" safe>
            {t("payments.enabled.title")}
          </h2>
          <p class="text-sm text-muted" safe>
            {t("payments.enabled.body")}
          </p>
        </div>
      </section>
    );
  }
  if (setup.state === "incomplete") {
    return (
      <section class="card p-4">
        <h2 class="font-semibold" safe>
          {t("payments.incomplete.title")}
        </h2>
        <p class="text-sm text-muted" safe>
          {state.returned ? t("payments.incomplete.returned") : t("payments.incomplete.body")}
        </p>
        {setup.missing.length ? (
          <ul class="mt-3 flex flex-col gap-1 text-sm">
            {setup.missing.map((key) => (
              <li class="flex items-center gap-2">
                <span aria-hidden="true" class="h-1.5 w-1.5 shrink-0 rounded-full bg-current" />
                <span safe>{t(key)}</span>
              </li>
            ))}
          </ul>
        ) : (
          ""
        )}
        {state.verifyFirst ? "" : <StartButton view={view} label={t("payments.continue")} />}
      </section>
    );
  }
  return "";
}

/** /stripe-connect-setup: the host's payout account, as the payment provider knows it. */
export function PaymentSetupScreen({ view, state }: { view: View; state: PaymentSetupState }) {
  const { t } = view;
  const { setup } = state;
  return (
    <AppLayout view={view} title={t("payments.setupTitle")}>
      <>
        <ScreenHeader view={view} title={t("payments.setupTitle")} back="/host-dashboard" />
        <div class="flex flex-col gap-4">
          {state.alert ? <FormAlert title={state.alert.title} body={state.alert.body} /> : ""}
          {state.testMode ? (
            <p class="rounded-xl bg-yellow-50 px-3 py-2 text-sm text-yellow-900 dark:bg-yellow-900/30 dark:text-yellow-100" safe>
              {t("payments.testMode")}
            </p>
          ) : (
            ""
          )}
          {state.verifyFirst && setup.state !== "enabled" ? <VerifyNeededCard view={view} body={state.verifyFirst} next="/stripe-connect-setup" /> : ""}
          <Status view={view} state={state} />

          <section>
            <h2 class="mb-1 text-lg font-semibold" safe>
              {t("payments.intro.title")}
            </h2>
            <p class="text-sm text-muted" safe>
              {t("payments.intro.body")}
            </p>
          </section>

          <ul class="flex flex-col gap-2">
            {EXPLAINERS.map((e) => (
              <li class="card flex items-start gap-3 p-4">
                <span class="flex h-10 w-10 shrink-0 items-center justify-center rounded-full bg-sunken">
                  <Icon name={e.icon} class="w-5 h-5" />
                </span>
                <div class="min-w-0">
                  <h3 class="font-medium" safe>
                    {t(e.title)}
                  </h3>
                  <p class="text-sm text-muted" safe>
                    {t(e.body)}
                  </p>
                </div>
              </li>
            ))}
          </ul>

          {setup.state !== "enabled" ? (
            <section class="card p-4">
              <h2 class="font-semibold" safe>
                {t("payments.needs.title")}
              </h2>
              <ul class="mt-2 flex flex-col gap-2 text-sm">
                {NEEDS.map((key) => (
                  <li class="flex items-center gap-2">
                    <Icon name="check" class="w-4 h-4 shrink-0 text-muted" />
                    <span safe>{t(key)}</span>
                  </li>
                ))}
              </ul>
              <p class="mt-3 text-xs text-muted" safe>
                {t("payments.needs.time")}
              </p>
            </section>
          ) : (
            ""
          )}

          {setup.state === "none" && !state.verifyFirst ? <StartButton view={view} label={t("payments.start")} /> : ""}
        </div>
      </>
    </AppLayout>
  );
}
