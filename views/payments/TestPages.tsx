import type { testCheckoutSessions } from "../../db/schema";
import { formatMoney } from "../../lib/money";
import type { ConnectedAccount, PaymentIntent } from "../../src/ports/payments";
import type { View } from "../../src/shell/view";
import { Document } from "../layouts/Document";
import { CardForm, TestModeNote, type CardState } from "../bookings/Parts";

/** The test provider's pages stand apart from the app, as a provider's hosted pages do. */
function ProviderFrame({ view, title, children }: { view: View; title: string; children: JSX.Element }) {
  return (
    <Document view={view} title={title}>
      <main id="main" class="mx-auto flex min-h-screen max-w-md flex-col gap-4 px-4 py-6">
        <p class="text-xs font-semibold uppercase tracking-wide text-muted" safe>
          {view.t("payments.providerName")}
        </p>
        <h1 class="text-2xl font-bold" safe>
          {title}
        </h1>
        {children as "safe"}
      </main>
    </Document>
  );
}

/** The hosted checkout page of the booking dialog flow (what Stripe Checkout is with Stripe). */
export function CheckoutPage({ view, session, intent, card }: { view: View; session: typeof testCheckoutSessions.$inferSelect; intent: PaymentIntent; card: CardState }) {
  const { t } = view;
  const amount = formatMoney(intent.amountCents, view.locale, { currency: intent.currency });
  return (
    <ProviderFrame view={view} title={t("payments.checkoutTitle")}>
      <>
        <section class="card p-4">
          <p class="font-medium" safe>
            {session.description}
          </p>
          <p class="mt-1 text-2xl font-bold" safe>
            {amount}
          </p>
          <p class="mt-1 text-sm text-muted" safe>
            {t("booking.holdNote")}
          </p>
        </section>
        <section class="card p-4">
          <CardForm view={view} action={`/payments/test/checkout/${session.id}`} amountCents={intent.amountCents} currency={intent.currency} button={t("payments.pay", { amount })} card={card} testMode />
        </section>
        <form method="post" action={`/payments/test/checkout/${session.id}/cancel`}>
          <input type="hidden" name="_csrf" value={view.csrf} />
          <button type="submit" class="btn btn-ghost w-full" safe>
            {t("payments.cancelCheckout")}
          </button>
        </form>
      </>
    </ProviderFrame>
  );
}

/** Stands in for the card issuer's authentication (3-D Secure): approve or fail. */
export function TestAuthenticatePage({ view, intent, returnTo }: { view: View; intent: PaymentIntent; returnTo: string }) {
  const { t } = view;
  return (
    <ProviderFrame view={view} title={t("payments.authTitle")}>
      <>
        <TestModeNote view={view} />
        <p safe>{t("payments.authBody", { amount: formatMoney(intent.amountCents, view.locale, { currency: intent.currency }) })}</p>
        <form method="post" action={`/payments/test/authenticate/${intent.id}`} class="flex gap-2">
          <input type="hidden" name="_csrf" value={view.csrf} />
          <input type="hidden" name="return" value={returnTo} />
          <button type="submit" name="outcome" value="fail" class="btn btn-secondary flex-1" safe>
            {t("payments.authFail")}
          </button>
          <button type="submit" name="outcome" value="approve" class="btn btn-primary flex-1" safe>
            {t("payments.authApprove")}
          </button>
        </form>
      </>
    </ProviderFrame>
  );
}

/** Stands in for the provider's payout onboarding: one button makes the account ready. */
export function TestOnboardingPage({ view, account, returnTo }: { view: View; account: ConnectedAccount; returnTo: string }) {
  const { t } = view;
  return (
    <ProviderFrame view={view} title={t("payments.onboardingTitle")}>
      <>
        <TestModeNote view={view} />
        <p safe>{t(account.payoutsEnabled ? "payments.onboardingDone" : "payments.onboardingBody")}</p>
        <form method="post" action={`/payments/test/onboarding/${account.id}`}>
          <input type="hidden" name="_csrf" value={view.csrf} />
          <input type="hidden" name="return" value={returnTo} />
          <button type="submit" class="btn btn-primary w-full" safe>
            {t("payments.onboardingEnable")}
          </button>
        </form>
      </>
    </ProviderFrame>
  );
}
