import type { AccountDeletion } from "../../db/schema";
import { intlLocale } from "../../lib/intl";
import type { OpenItem } from "../../src/account/delete";
import type { View } from "../../src/shell/view";
import { FormAlert, ScreenHeader, TextField } from "../components/Fields";
import { AppLayout } from "../layouts/AppLayout";
import { OpenItems } from "./DeleteAccount";

const when = (view: View, epochMs: number) => new Date(epochMs).toLocaleString(intlLocale(view.locale), { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }) + " UTC";

export interface AdminDeletionsState {
  /** The address looked up, and the account it found (only its address is shown). */
  email?: string;
  found?: { email: string } | null;
  open?: OpenItem[];
  error?: string;
}

/**
 * /admin/deletions, for operators: find the account a person asked by email to delete, delete it
 * under the same rules as the person's own screen, and the log of deletions (when, asked by whom,
 * whether the files are gone), which holds nobody's personal data.
 */
export function AdminDeletions({ view, state, log }: { view: View; state: AdminDeletionsState; log: AccountDeletion[] }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("deletion.admin.title")}>
      <>
        <ScreenHeader view={view} title={t("deletion.admin.title")} />
        <p class="mb-4 flex flex-wrap gap-4 text-sm">
          <a href="/admin/reports" class="link inline-flex min-h-11 items-center" safe>
            {t("moderation.title")}
          </a>
          <a href="/admin/payments" class="link inline-flex min-h-11 items-center" safe>
            {t("payments.admin.paymentsLink")}
          </a>
        </p>
        <p class="mb-4 text-sm" safe>
          {t("deletion.admin.intro")}
        </p>
        <form method="get" action="/admin/deletions" class="card flex flex-col gap-3 p-4">
          <TextField name="email" type="email" label={t("deletion.admin.emailLabel")} value={state.email} error={state.found === null ? t("deletion.admin.notFound") : undefined} required autocomplete="off" />
          <button type="submit" class="btn btn-secondary" safe>
            {t("deletion.admin.find")}
          </button>
        </form>
        {state.found ? (
          <section class="card mt-4 flex flex-col gap-3 p-4" aria-labelledby="deletion-found" data-found-account>
            <h2 id="deletion-found" class="font-semibold [overflow-wrap:anywhere]" safe>
              {t("deletion.admin.found", { email: state.found.email })}
            </h2>
            {state.error ? <FormAlert title={t("common.errorTitle")} body={state.error} focus /> : ""}
            {state.open?.length ? <OpenItems view={view} open={state.open} headingLevel={3} /> : ""}
            <form method="post" action="/admin/deletions">
              <input type="hidden" name="_csrf" value={view.csrf} />
              <input type="hidden" name="email" value={state.found.email} />
              <button type="submit" class="btn w-full bg-red-600 text-white hover:bg-red-700" safe>
                {t("deletion.admin.submit")}
              </button>
            </form>
          </section>
        ) : (
          ""
        )}
        <section class="mt-6" aria-labelledby="deletion-log">
          <h2 id="deletion-log" class="mb-2 text-lg font-semibold" safe>
            {t("deletion.admin.logTitle")}
          </h2>
          {log.length ? (
            <div class="card overflow-x-auto">
              <table class="w-full text-left text-sm" data-deletion-log>
                <thead>
                  <tr class="border-b border-line">
                    <th scope="col" class="px-3 py-2" safe>
                      {t("deletion.admin.when")}
                    </th>
                    <th scope="col" class="px-3 py-2" safe>
                      {t("deletion.admin.by")}
                    </th>
                    <th scope="col" class="px-3 py-2" safe>
                      {t("deletion.admin.files")}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {log.map((d) => (
                    <tr class="border-b border-line last:border-0" data-deletion={d.id}>
                      <td class="px-3 py-2" safe>
                        {when(view, d.createdAt)}
                      </td>
                      <td class="px-3 py-2" safe>
                        {d.requestedBy === "self" ? t("deletion.admin.bySelf") : t("deletion.admin.byOperator")}
                      </td>
                      <td class="px-3 py-2" safe>
                        {d.filesRemovedAt ? `${t("deletion.admin.filesRemoved")} · ${when(view, d.filesRemovedAt)}` : t("deletion.admin.filesPending")}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : (
            <p class="card p-4 text-sm text-muted" safe>
              {t("deletion.admin.logEmpty")}
            </p>
          )}
        </section>
      </>
    </AppLayout>
  );
}
