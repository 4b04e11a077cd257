import type { View } from "../../src/shell/view";
import { PlainPage } from "../layouts/PlainPage";

/** A small centred page, in the app's layout when signed in (as error pages are). */
function Page({ view, title, children }: { view: View; title: string; children: JSX.Element }) {
  return (
    <PlainPage view={view} title={title}>
      <section class="mx-auto flex min-h-[60vh] max-w-md flex-col items-center justify-center text-center">{children as "safe"}</section>
    </PlainPage>
  );
}

/**
 * `GET /email/unsubscribe?t=…`: asks before changing anything (a link checker that opens the
 * link stops nothing); the button posts the same address, as a mail program's one-click does.
 */
export function UnsubscribeConfirm({ view, kind, action }: { view: View; kind: string; action: string }) {
  const { t } = view;
  const question = t("notifications.unsubscribe.question", { kind });
  return (
    <Page view={view} title={t("notifications.unsubscribe.title")}>
      <>
        <h1 class="text-2xl font-bold" safe>
          {question}
        </h1>
        <p class="mt-2 text-muted" safe>
          {t("notifications.unsubscribe.explain")}
        </p>
        <form method="post" action={action} class="mt-6 flex flex-wrap justify-center gap-2">
          <input type="hidden" name="_csrf" value={view.csrf} />
          <input type="hidden" name="List-Unsubscribe" value="One-Click" />
          <button type="submit" class="btn btn-primary" safe>
            {t("notifications.unsubscribe.confirm")}
          </button>
          <a href="/settings" class="btn btn-ghost" safe>
            {t("notifications.unsubscribe.settings")}
          </a>
        </form>
      </>
    </Page>
  );
}

/** A title, a sentence and the way to Settings: the answer after unsubscribing, or to a bad link. */
function Outcome({ view, title, body }: { view: View; title: string; body: string }) {
  return (
    <Page view={view} title={title}>
      <>
        <h1 class="text-2xl font-bold" safe>
          {title}
        </h1>
        <p class="mt-2 text-muted" safe>
          {body}
        </p>
        <a href="/settings" class="btn btn-primary mt-6" safe>
          {view.t("notifications.unsubscribe.settings")}
        </a>
      </>
    </Page>
  );
}

/** After the one-click post: done, and where to turn it back on. */
export function Unsubscribed({ view, kind }: { view: View; kind: string }) {
  return <Outcome view={view} title={view.t("notifications.unsubscribe.done")} body={view.t("notifications.unsubscribe.doneBody", { kind })} />;
}

/** A token that is malformed or not ours: said plainly (400), with the way to Settings. */
export function UnsubscribeInvalid({ view }: { view: View }) {
  return <Outcome view={view} title={view.t("notifications.unsubscribe.invalid")} body={view.t("notifications.unsubscribe.invalidBody")} />;
}
