import { NAME_MAX, PASSWORD_MIN } from "../../shared/limits";
import type { User } from "../../db/schema";
import type { MessageKey } from "../../lib/i18n";
import { formatDate } from "../../lib/time";
import type { View } from "../../src/shell/view";
import { FormAlert, ScreenHeader, TextField } from "../components/Fields";
import { Icon, type IconName } from "../components/icons";
import { LanguageSwitch } from "../components/LanguageSwitch";
import { ThemeToggle } from "../components/ThemeToggle";
import { AppLayout } from "../layouts/AppLayout";
import { LocationFields, UsernameField } from "./Onboarding";
import { ResendForm } from "../auth/VerifyEmail";
import { CardSection } from "../components/CardSection";
import { DeleteAccountRow } from "../account/DeleteAccount";

/** "Verified" or "Not verified", next to the address. */
function VerifiedBadge({ view, verified }: { view: View; verified: boolean }) {
  return (
    <span
      class={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ${
        verified ? "bg-green-100 text-green-800 dark:bg-green-900/40 dark:text-green-100" : "bg-yellow-100 text-yellow-900 dark:bg-yellow-900/40 dark:text-yellow-100"
      }`}
    >
      {verified ? <Icon name="check" class="w-3.5 h-3.5" /> : ""}
      {(verified ? view.t("settings.emailVerified") : view.t("settings.emailUnverified")) as "safe"}
    </span>
  );
}

/**
 * What waits on the address: a pending change (the new address's link), or an address not yet
 * verified; each with "Resend link". Nothing when the address is verified and nothing waits.
 */
export function EmailStatus({ view, user, pendingEmail, next }: { view: View; user: User; pendingEmail: string | null; next: string }) {
  const { t } = view;
  if (!pendingEmail && (!user.email || user.emailVerified)) return "";
  const title = pendingEmail ? t("settings.emailPending", { email: pendingEmail }) : t("settings.emailUnverified");
  const hint = pendingEmail
    ? t("settings.emailPendingHint", { email: pendingEmail, current: user.email ?? "—" })
    : t("settings.emailUnverifiedHint", { email: user.email ?? "" });
  return (
    <section class="card flex flex-col gap-3 p-4" aria-labelledby="email-status-title" data-email-status>
      <h2 id="email-status-title" class="break-words font-semibold" safe>
        {title}
      </h2>
      <p class="break-words text-sm text-muted" safe>
        {hint}
      </p>
      <ResendForm view={view} next={next} />
    </section>
  );
}

function Row({ href, label, value, icon }: { href: string; label: string; value?: string | null; icon?: IconName }) {
  return (
    <li>
      <a href={href} class="flex min-h-12 items-center gap-3 px-4 py-3 hover:bg-sunken">
        {icon ? <Icon name={icon} class="w-5 h-5 text-muted" /> : ""}
        <span class="flex-1" safe>
          {label}
        </span>
        {/* Shown whole (an email address is read to be checked), wrapping where it must. */}
        {value ? (
          <span class="min-w-0 max-w-[60%] text-right text-sm text-muted [overflow-wrap:anywhere]" safe>
            {value}
          </span>
        ) : (
          ""
        )}
        <Icon name="chevronRight" class="w-4 h-4 text-muted" />
      </a>
    </li>
  );
}

/**
 * /settings: location, push notifications (`pushCard`), the calendar feed (`calendarCard`,
 * views/availability/CalendarFeedCard.tsx), theme, language, account, a copy of one's data
 * (`dataExportCard`), support and sign-out.
 */
export function SettingsHub({
  view,
  user,
  pushCard,
  calendarCard,
  dataExportCard,
}: {
  view: View;
  user: User;
  pushCard: JSX.Element;
  calendarCard: JSX.Element;
  /** "Your data": a copy to download (views/account/DataExport.tsx). */
  dataExportCard: JSX.Element;
}) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("settings.title")}>
      <>
        <ScreenHeader view={view} title={t("settings.title")} back="/profile" />
        <CardSection title={t("settings.location")}>
          {/* A country or city picked with the mouse or a phone's picker is saved at once (the
              selects' change); the visible Save button is there for everyone else: a keyboard, a
              screen reader, a browser without script. With script it saves through htmx too. */}
          <form method="post" action="/settings/location" class="p-4" hx-post="/settings/location" hx-target="#location-fields" hx-swap="outerHTML">
            <input type="hidden" name="_csrf" value={view.csrf} />
            <LocationFields view={view} country={user.country} city={user.city} autosave />
            <button type="submit" class="btn btn-secondary mt-3" safe>
              {t("common.save")}
            </button>
          </form>
        </CardSection>
        {pushCard as "safe"}
        {calendarCard as "safe"}
        <CardSection title={t("settings.appearance")}>
          <div class="flex flex-col divide-y divide-line">
            <div class="flex items-center justify-between px-4 py-3">
              <span safe>{t("settings.theme")}</span>
              <ThemeToggle view={view} />
            </div>
            <div class="flex items-center justify-between px-4 py-3">
              <span safe>{t("settings.language")}</span>
              <LanguageSwitch view={view} />
            </div>
          </div>
        </CardSection>
        <CardSection title={t("settings.account")}>
          <ul class="divide-y divide-line">
            <Row href="/settings/account" label={t("settings.accountOverview")} />
            <Row href="/settings/name" label={t("settings.name")} value={user.name} />
            <Row href="/settings/birthday" label={t("settings.birthday")} value={user.dateOfBirth && formatDate(user.dateOfBirth, view.locale)} />
            <Row href="/settings/username" label={t("settings.username")} value={user.username ? `@${user.username}` : ""} />
            <Row href="/settings/email" label={t("settings.email")} value={user.email && !user.emailVerified ? `${user.email} · ${t("settings.emailUnverified")}` : user.email} />
            <Row href="/settings/password" label={t("settings.password")} value={user.passwordHash ? "••••••••" : t("settings.passwordNotSet")} />
            {/* Deleting the account (views/account/DeleteAccount.tsx). */}
            <DeleteAccountRow view={view} />
          </ul>
        </CardSection>
        {dataExportCard as "safe"}
        <CardSection title={t("settings.support")}>
          <ul>
            <Row href="/help" label={t("settings.help")} icon="help" />
          </ul>
        </CardSection>
        <details class="card mt-6 overflow-hidden">
          <summary class="flex min-h-12 cursor-pointer list-none items-center gap-3 px-4 py-3 font-medium text-red-600 dark:text-red-300">
            <Icon name="logout" class="w-5 h-5" />
            <span safe>{t("shell.signOut")}</span>
          </summary>
          <form method="post" action="/api/auth/logout" class="border-t border-line px-4 py-3">
            <input type="hidden" name="_csrf" value={view.csrf} />
            <p class="text-sm" safe>
              {t("settings.signOutConfirm")}
            </p>
            <div class="mt-3 flex gap-2">
              <button type="submit" class="btn bg-red-600 text-white hover:bg-red-700" safe>
                {t("shell.signOut")}
              </button>
            </div>
          </form>
        </details>
      </>
    </AppLayout>
  );
}

/** /settings/account: everything at a glance, each with its Edit button; what waits on the address. */
export function AccountOverview({ view, user, pendingEmail = null }: { view: View; user: User; pendingEmail?: string | null }) {
  const { t } = view;
  const rows: { label: MessageKey; value: string; href?: string; badge?: boolean }[] = [
    { label: "profile.firstName", value: user.firstName ?? "", href: "/settings/first-name" },
    { label: "profile.birthday", value: user.dateOfBirth ? formatDate(user.dateOfBirth, view.locale) : "", href: "/settings/birthday" },
    { label: "profile.username", value: user.username ? `@${user.username}` : "" },
    { label: "login.email", value: user.email ?? "", href: "/settings/email", badge: Boolean(user.email) },
    { label: "login.password", value: user.passwordHash ? "••••••••" : t("settings.passwordNotSet"), href: "/settings/password" },
  ];
  return (
    <AppLayout view={view} title={t("settings.accountOverview")}>
      <>
        <ScreenHeader view={view} title={t("settings.accountOverview")} back="/settings" />
        <dl class="card divide-y divide-line">
          {rows.map((row, i) => (
            <div class="grid grid-cols-[minmax(0,1fr)_auto] items-center gap-x-3 px-4 py-3">
              <dt id={`account-row-${i}`} class="text-sm text-muted" safe>
                {t(row.label)}
              </dt>
              <dd class="col-start-2 row-span-2 row-start-1">
                {row.href ? (
                  <a href={row.href} id={`account-edit-${i}`} class="btn btn-secondary px-3 py-1.5 text-sm" aria-labelledby={`account-edit-${i} account-row-${i}`} safe>
                    {t("common.edit")}
                  </a>
                ) : (
                  <span class="text-xs text-muted" safe>
                    {t("settings.readOnly")}
                  </span>
                )}
              </dd>
              <dd class="flex min-w-0 flex-wrap items-center gap-2">
                <span class="min-w-0 font-medium [overflow-wrap:anywhere]" safe>
                  {row.value || "—"}
                </span>
                {row.badge ? <VerifiedBadge view={view} verified={user.emailVerified} /> : ""}
              </dd>
            </div>
          ))}
        </dl>
        <div class="mt-4">
          <EmailStatus view={view} user={user} pendingEmail={pendingEmail} next="/settings/account" />
        </div>
      </>
    </AppLayout>
  );
}

export type AccountScreen = "first-name" | "name" | "birthday" | "username" | "email" | "password";

export interface AccountFormState {
  values: Record<string, string>;
  errors?: Record<string, string>;
  alert?: string;
  /** The email screen: the new address a change waits on, if any. */
  pendingEmail?: string | null;
}

const screenTitles: Record<AccountScreen, MessageKey> = {
  "first-name": "settings.firstName",
  name: "settings.name",
  birthday: "settings.birthday",
  username: "settings.username",
  email: "settings.email",
  password: "settings.password",
};

/** One account edit screen: its fields, Cancel and Save, back to /settings on success. */
export function AccountForm({ view, screen, user, state }: { view: View; screen: AccountScreen; user: User; state: AccountFormState }) {
  const { t } = view;
  const v = state.values;
  const e = state.errors ?? {};
  const needsCurrent = Boolean(user.passwordHash);
  return (
    <AppLayout view={view} title={t(screenTitles[screen])}>
      <>
        <ScreenHeader view={view} title={t(screenTitles[screen])} back="/settings" />
        {screen === "email" ? (
          <div class="mb-4 flex flex-col gap-3">
            {user.email ? (
              <p class="flex flex-wrap items-center gap-2 text-sm">
                <span class="text-muted" safe>
                  {t("settings.emailStatus")}
                </span>
                <VerifiedBadge view={view} verified={user.emailVerified} />
              </p>
            ) : (
              ""
            )}
            <EmailStatus view={view} user={user} pendingEmail={state.pendingEmail ?? null} next="/settings/email" />
          </div>
        ) : (
          ""
        )}
        <form method="post" action={`/settings/${screen}`} class="flex flex-col gap-4" data-validate novalidate {...(screen === "username" ? { "data-require-change": "" } : {})}>
          <input type="hidden" name="_csrf" value={view.csrf} />
          {state.alert ? <FormAlert title={t("common.errorTitle")} body={state.alert} /> : ""}
          {screen === "first-name" ? (
            <TextField name="firstName" label={t("profile.firstName")} value={v.firstName} error={e.firstName} required maxlength={NAME_MAX} autocomplete="given-name" />
          ) : screen === "name" ? (
            <>
              <TextField name="firstName" label={t("profile.firstName")} value={v.firstName} error={e.firstName} required maxlength={NAME_MAX} autocomplete="given-name" />
              <TextField name="lastName" label={t("profile.lastName")} value={v.lastName} error={e.lastName} required maxlength={NAME_MAX} autocomplete="family-name" />
            </>
          ) : screen === "birthday" ? (
            <TextField name="dateOfBirth" type="date" label={t("profile.birthday")} value={v.dateOfBirth} error={e.dateOfBirth} required attrs={{ min: "1900-01-01" }} />
          ) : screen === "username" ? (
            <UsernameField view={view} value={v.username} error={e.username} current={user.username} />
          ) : screen === "email" ? (
            <>
              <TextField name="email" type="email" label={t("login.email")} value={v.email} error={e.email} required autocomplete="email" />
              {needsCurrent ? (
                <TextField name="currentPassword" type="password" label={t("account.currentPassword")} error={e.currentPassword} required autocomplete="current-password" />
              ) : (
                ""
              )}
            </>
          ) : (
            <>
              {needsCurrent ? (
                <TextField name="currentPassword" type="password" label={t("account.currentPassword")} error={e.currentPassword} required autocomplete="current-password" />
              ) : (
                ""
              )}
              <TextField name="newPassword" type="password" label={t("account.newPassword")} error={e.newPassword} required minlength={PASSWORD_MIN} autocomplete="new-password" hint={t("login.passwordHint")} />
              <TextField name="confirmPassword" type="password" label={t("account.confirmPassword")} error={e.confirmPassword} required autocomplete="new-password" />
            </>
          )}
          <div class="mt-2 flex gap-3">
            <a href="/settings" class="btn btn-secondary flex-1" safe>
              {t("common.cancel")}
            </a>
            <button type="submit" class="btn btn-primary flex-1" data-needs-valid data-busy-text={t("common.saving")} safe>
              {screen === "password" || screen === "email" ? t("common.update") : t("common.save")}
            </button>
          </div>
        </form>
      </>
    </AppLayout>
  );
}

/** /help: answers to the questions people ask most. */
export function Help({ view }: { view: View }) {
  const { t } = view;
  const items: [MessageKey, MessageKey][] = [
    ["help.booking.q", "help.booking.a"],
    ["help.payment.q", "help.payment.a"],
    ["help.decline.q", "help.decline.a"],
    ["help.safety.q", "help.safety.a"],
  ];
  return (
    <AppLayout view={view} title={t("settings.help")}>
      <>
        <ScreenHeader view={view} title={t("settings.help")} back="/settings" />
        <div class="flex flex-col gap-3">
          {items.map(([q, a]) => (
            <details class="card p-4">
              <summary class="cursor-pointer font-medium" safe>
                {t(q)}
              </summary>
              <p class="mt-2 text-sm text-muted" safe>
                {t(a)}
              </p>
            </details>
          ))}
        </div>
      </>
    </AppLayout>
  );
}
