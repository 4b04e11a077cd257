import type { MessageKey } from "../../lib/i18n";
import { PREFERENCE_KEYS, type Preferences } from "../../src/notifications/rules";
import type { View } from "../../src/shell/view";

/** The texts the card's script shows in toasts, in the page's language. */
const TOAST_TEXTS = {
  notSupported: "notifications.notSupported",
  notSupportedBody: "notifications.notSupportedBody",
  permissionDenied: "notifications.permissionDenied",
  permissionDeniedBody: "notifications.permissionDeniedBody",
  notSubscribed: "notifications.notSubscribed",
  notSubscribedBody: "notifications.notSubscribedBody",
  settingsFailed: "notifications.settingsFailed",
  testFailed: "notifications.testFailed",
  preferenceFailed: "notifications.preferenceFailed",
  enabled: "notifications.enabled",
  disabled: "notifications.disabled",
  testSent: "notifications.testSent",
  testSentBody: "notifications.testSentBody",
  testTitle: "notifications.push.test.title",
  testBody: "notifications.push.test.body",
  error: "common.errorTitle",
} as const satisfies Record<string, MessageKey>;

/** One switch per kind of notification, each with what it covers. */
function Switches({ view, preferences, idPrefix }: { view: View; preferences: Preferences; idPrefix: string }) {
  const { t } = view;
  return (
    <ul class="divide-y divide-line">
      {PREFERENCE_KEYS.map((key) => (
        <li>
          <label for={`${idPrefix}-${key}`} class="flex min-h-12 cursor-pointer items-center gap-3 px-4 py-3">
            <span class="min-w-0 flex-1">
              <span class="block" safe>
                {t(`notifications.type.${key}`)}
              </span>
              <span id={`${idPrefix}-${key}-hint`} class="block text-sm text-muted" safe>
                {t(`notifications.type.${key}.hint`)}
              </span>
            </span>
            <input
              type="checkbox"
              name={key}
              role="switch"
              class="switch"
              id={`${idPrefix}-${key}`}
              aria-describedby={`${idPrefix}-${key}-hint`}
              checked={preferences[key]}
              data-push-preference={key}
            />
          </label>
        </li>
      ))}
    </ul>
  );
}

/**
 * Settings → Notifications: one switch per kind, which governs both the emails a person gets and
 * the push notifications on their devices (one preference for both), and the push part of the
 * card in the spec's three states: unsupported (with the hint to install the app, as iPhones
 * require), unsubscribed (Enable) and subscribed (a test notification, Turn off). Which state
 * this browser is in only the browser knows: islands/shell/push.ts shows one of them. Until it
 * has, the card shows the most common one, "unsubscribed" (so the page does not move, nor paint
 * its largest text, once the script has run). Without JavaScript nothing can be turned on, so
 * that part is hidden by the stylesheet (`data-push-first`); the switches are always shown, since
 * they govern email whether or not this device has push on: with the script each applies at
 * once, without it they post as a form.
 */
export function PushCard({ view, preferences, vapidPublicKey }: { view: View; preferences: Preferences; vapidPublicKey: string }) {
  const { t } = view;
  const texts = Object.fromEntries(Object.entries(TOAST_TEXTS).map(([name, key]) => [name, t(key)]));
  return (
    <section id="push-card" class="mt-6" aria-labelledby="push-title" data-vapid-key={vapidPublicKey} data-texts={JSON.stringify(texts)}>
      <h2 id="push-title" class="mb-2 px-1 text-sm font-semibold uppercase tracking-wide text-muted" safe>
        {t("notifications.title")}
      </h2>
      <div class="card overflow-hidden">
        <form method="post" action="/settings/notifications">
          <input type="hidden" name="_csrf" value={view.csrf} />
          <p class="px-4 pt-4 text-sm text-muted" safe>
            {t("notifications.choicesIntro")}
          </p>
          <Switches view={view} preferences={preferences} idPrefix="push" />
          {/* Without script the switches post as a form; with it each applies at once and the
              stylesheet hides this button (kept in the markup so the form has its submit button). */}
          <div class="border-t border-line p-4" data-no-script-only>
            <button type="submit" class="btn btn-primary" safe>
              {t("common.save")}
            </button>
          </div>
        </form>
        <div class="border-t border-line">
          <h3 class="px-4 pt-4 font-medium" safe>
            {t("notifications.pushTitle")}
          </h3>
          <div data-push-state="unsupported" hidden class="flex flex-col gap-1 p-4 pt-1">
            <p safe>{t("notifications.unsupported")}</p>
            <p class="text-sm text-muted" safe>
              {t("notifications.installHint")}
            </p>
          </div>
          <div data-push-state="unsubscribed" data-push-first class="flex flex-col items-start gap-3 p-4 pt-1">
            <p safe>{t("notifications.offIntro")}</p>
            <p data-push-blocked hidden class="text-sm text-red-600 dark:text-red-300" safe>
              {t("notifications.blocked")}
            </p>
            {/* Enabled by the script once it can answer it. */}
            <button type="button" class="btn btn-primary" data-push-action="enable" disabled safe>
              {t("notifications.enable")}
            </button>
          </div>
          <div data-push-state="subscribed" hidden class="flex flex-col items-start gap-3 p-4 pt-1">
            <p safe>{t("notifications.onIntro")}</p>
            <div class="flex flex-wrap gap-2">
              <button type="button" class="btn btn-secondary" data-push-action="test" safe>
                {t("notifications.sendTest")}
              </button>
              <button type="button" class="btn btn-ghost" data-push-action="disable" safe>
                {t("notifications.disable")}
              </button>
            </div>
          </div>
          <noscript>
            <p class="p-4 pt-1 text-sm text-muted" safe>
              {t("notifications.noScript")}
            </p>
          </noscript>
        </div>
      </div>
    </section>
  );
}
