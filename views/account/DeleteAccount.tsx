import type { User } from "../../db/schema";
import type { MessageKey } from "../../lib/i18n";
import { OPEN_ITEM_TEXT, type OpenItem } from "../../src/account/delete";
import type { View } from "../../src/shell/view";
import { FormAlert, ScreenHeader, TextField } from "../components/Fields";
import { Icon } from "../components/icons";
import { AppLayout } from "../layouts/AppLayout";
import { PlainPage } from "../layouts/PlainPage";

/** The row on Settings → Account that leads to the deletion screen. */
export function DeleteAccountRow({ view }: { view: View }) {
  return (
    <li>
      <a href="/settings/delete-account" class="flex min-h-12 items-center gap-3 px-4 py-3 text-red-700 hover:bg-sunken dark:text-red-300" data-delete-account>
        <span class="flex-1" safe>
          {view.t("deletion.settingsRow")}
        </span>
        <Icon name="chevronRight" class="w-4 h-4" />
      </a>
    </li>
  );
}

/** What is still open, each with where to finish it (the refusal, and the screen when something is open already). */
export function OpenItems({ view, open, headingLevel = 2 }: { view: View; open: OpenItem[]; headingLevel?: 2 | 3 }) {
  const { t } = view;
  const Heading = headingLevel === 2 ? "h2" : "h3";
  return (
    <section class="card flex flex-col gap-2 border border-amber-300 p-4 dark:border-amber-700" aria-labelledby="deletion-open-title" data-open-items>
      <Heading id="deletion-open-title" class="font-semibold" safe>
        {t("deletion.openTitle")}
      </Heading>
      <p class="text-sm text-muted" safe>
        {t("deletion.openIntro")}
      </p>
      <ul class="flex flex-col divide-y divide-line">
        {open.map((item, i) => (
          <li class="flex items-center gap-3 py-2" data-open-item={item.kind}>
            <span id={`open-item-${i}`} class="min-w-0 flex-1 text-sm [overflow-wrap:anywhere]" safe>
              {t(OPEN_ITEM_TEXT[item.kind], { activity: item.activityTitle })}
            </span>
            {/* Each "Open" is told apart by the item it finishes. */}
            <a href={item.href} class="btn btn-secondary min-h-11 shrink-0 px-3 text-sm" aria-describedby={`open-item-${i}`} safe>
              {t("deletion.openLink")}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

export interface DeleteAccountState {
  open: OpenItem[];
  /** What was typed in the email box, shown again on a refusal (never the password). */
  email?: string;
  errors?: Record<string, string>;
  alert?: string;
}

const GOES: MessageKey[] = ["deletion.goes.profile", "deletion.goes.activities", "deletion.goes.devices", "deletion.goes.email"];
const STAYS: MessageKey[] = ["deletion.stays.others", "deletion.stays.money"];

/**
 * /settings/delete-account: what is deleted and what is kept, anything still open with its link,
 * then the confirmation (the password, or the account's email for an account without one) and the
 * one red button. A plain form; refused, it is drawn again with why.
 */
export function DeleteAccountScreen({ view, user, state }: { view: View; user: User; state: DeleteAccountState }) {
  const { t } = view;
  const e = state.errors ?? {};
  const byPassword = Boolean(user.passwordHash);
  const list = (keys: MessageKey[]) => (
    <ul class="flex list-disc flex-col gap-1 pl-5 text-sm">
      {keys.map((k) => (
        <li safe>{t(k)}</li>
      ))}
    </ul>
  );
  return (
    <AppLayout view={view} title={t("deletion.title")}>
      <>
        <ScreenHeader view={view} title={t("deletion.title")} back="/settings" />
        <div class="flex flex-col gap-4">
          <p safe>{t("deletion.intro")}</p>
          <p class="text-sm">
            <a href="/settings#data-export" class="link inline-flex min-h-11 items-center" safe>
              {t("deletion.copyFirst")}
            </a>
          </p>
          <section class="card flex flex-col gap-2 p-4" aria-labelledby="deletion-goes">
            <h2 id="deletion-goes" class="font-semibold" safe>
              {t("deletion.goesTitle")}
            </h2>
            {list(GOES)}
          </section>
          <section class="card flex flex-col gap-2 p-4" aria-labelledby="deletion-stays">
            <h2 id="deletion-stays" class="font-semibold" safe>
              {t("deletion.staysTitle")}
            </h2>
            {list(STAYS)}
          </section>
          {state.open.length ? <OpenItems view={view} open={state.open} /> : ""}
          <form method="post" action="/settings/delete-account" class="flex flex-col gap-4" data-delete-form>
            <input type="hidden" name="_csrf" value={view.csrf} />
            {state.alert ? <FormAlert title={t("common.errorTitle")} body={state.alert} focus /> : ""}
            {byPassword ? (
              <TextField name="password" type="password" label={t("deletion.passwordLabel")} hint={t("deletion.passwordHint")} error={e.password} required autocomplete="current-password" />
            ) : (
              <TextField
                name="email"
                // An account without an address confirms with its username, which is no email.
                type={user.email ? "email" : "text"}
                label={t("deletion.emailLabel")}
                hint={t("deletion.emailHint", { email: user.email ?? user.username ?? "" })}
                value={state.email}
                error={e.email}
                required
                autocomplete="off"
              />
            )}
            <div class="flex gap-3">
              <a href="/settings" class="btn btn-secondary flex-1" safe>
                {t("common.cancel")}
              </a>
              <button type="submit" class="btn flex-1 bg-red-600 text-white hover:bg-red-700" data-busy-text={t("deletion.deleting")} safe>
                {t("deletion.submit")}
              </button>
            </div>
          </form>
        </div>
      </>
    </AppLayout>
  );
}

/** /account-deleted: what the person sees once signed out, their account gone. */
export function AccountDeletedScreen({ view }: { view: View }) {
  const { t } = view;
  return (
    <PlainPage view={view} title={t("deletion.doneTitle")}>
      <section class="flex min-h-[60vh] flex-col items-center justify-center gap-4 text-center" data-account-deleted>
        <h1 class="text-2xl font-bold" safe>
          {t("deletion.doneTitle")}
        </h1>
        <p safe>{t("deletion.doneBody")}</p>
        <a href="/" class="btn btn-primary" safe>
          {t("deletion.doneBack")}
        </a>
      </section>
    </PlainPage>
  );
}
