import type { View } from "../../src/shell/view";
import { AppLayout } from "../layouts/AppLayout";
import { PlainPage } from "../layouts/PlainPage";

export function NotFound({ view }: { view: View }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("notFound.title")}>
      <section class="flex min-h-[60vh] flex-col items-center justify-center text-center">
        <p class="text-6xl font-extrabold text-brand-500">404</p>
        <h1 class="mt-4 text-2xl font-bold" safe>
          {t("notFound.title")}
        </h1>
        <p class="mt-2 text-muted" safe>
          {t("notFound.body")}
        </p>
        <a href="/" class="btn btn-primary mt-6">
          {t("notFound.back") as "safe"}
        </a>
      </section>
    </AppLayout>
  );
}

/** An error a person can read: a title and a sentence, never a stack trace. */
export function ErrorScreen({ view, title, body }: { view: View; title: string; body: string }) {
  const { t } = view;
  const content = (
    <section class="flex min-h-[60vh] flex-col items-center justify-center text-center">
      <h1 class="text-2xl font-bold" safe>
        {title}
      </h1>
      <p class="mt-2 text-muted" safe>
        {body}
      </p>
      <a href="/" class="btn btn-primary mt-6">
        {t("notFound.back") as "safe"}
      </a>
    </section>
  );
  return (
    <PlainPage view={view} title={title}>
      {content}
    </PlainPage>
  );
}
