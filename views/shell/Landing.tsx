import type { View } from "../../src/shell/view";
import { Icon, type IconName } from "../components/icons";
import { LanguageSwitch } from "../components/LanguageSwitch";
import { ThemeToggle } from "../components/ThemeToggle";
import { Document } from "../layouts/Document";
import { cityOptions, DATE_CHOICES } from "../activities/Browse";
import { DEFAULT_CITY_NAME } from "../../lib/places";
import { PEOPLE_MAX, TIMES_OF_DAY } from "../../src/activities/filters";

/** What signed-out visitors see on /welcome, / and every other path. */
export function Landing({ view, next }: { view: View; next: string }) {
  const { t } = view;
  const loginHref = next === "/" ? "/api/login" : `/api/login?next=${encodeURIComponent(next)}`;
  const signUpHref = `${loginHref}${loginHref.includes("?") ? "&" : "?"}mode=signup`;
  const highlights: { icon: IconName; title: Parameters<typeof t>[0]; body: Parameters<typeof t>[0] }[] = [
    { icon: "map", title: "landing.highlight.local.title", body: "landing.highlight.local.body" },
    { icon: "users", title: "landing.highlight.people.title", body: "landing.highlight.people.body" },
    { icon: "chat", title: "landing.highlight.booking.title", body: "landing.highlight.booking.body" },
  ];
  return (
    <Document view={view} title={t("landing.title")} description={t("landing.tagline")}>
      <main id="main" class="mx-auto flex min-h-screen max-w-screen-md flex-col px-5 py-8">
        <header class="flex items-center justify-between">
          <span class="flex items-center gap-2 text-xl font-bold tracking-tight">
            <img src="/static/icon.svg" alt="" width="32" height="32" class="rounded-lg" />
            {t("app.name") as "safe"}
          </span>
          <div class="flex items-center gap-1">
            <ThemeToggle view={view} />
            <a href={loginHref} class="btn btn-ghost">
              {t("landing.signIn") as "safe"}
            </a>
          </div>
        </header>
        <section class="mt-12 flex-1">
          <h1 class="text-4xl font-extrabold leading-tight tracking-tight sm:text-5xl" safe>
            {t("landing.tagline")}
          </h1>
          <p class="mt-4 text-lg text-muted" safe>
            {t("landing.intro")}
          </p>
          <div class="mt-8 flex flex-col gap-3 sm:flex-row">
            <a href={signUpHref} class="btn btn-primary btn-lg">
              {t("landing.getStarted") as "safe"}
            </a>
            <a href={loginHref} class="btn btn-secondary btn-lg">
              {t("landing.signIn") as "safe"}
            </a>
          </div>
          <LandingSearch view={view} />
          <ul class="mt-12 grid gap-4 sm:grid-cols-3">
            {highlights.map((h) => (
              <li class="card p-5">
                <span class="inline-flex h-11 w-11 items-center justify-center rounded-full bg-brand-50 text-brand-600 dark:bg-brand-900/40 dark:text-brand-300">
                  <Icon name={h.icon} />
                </span>
                <h2 class="mt-3 font-semibold" safe>
                  {t(h.title)}
                </h2>
                <p class="mt-1 text-sm text-muted" safe>
                  {t(h.body)}
                </p>
              </li>
            ))}
          </ul>
        </section>
        <footer class="mt-10">
          <LanguageSwitch view={view} />
        </footer>
      </main>
    </Document>
  );
}

/**
 * The search by when (decision 0054): a plain GET form to browse. A visitor is asked to sign in
 * there (the landing page with that address as where to come back), then sees the results.
 */
function LandingSearch({ view }: { view: View }) {
  const { t } = view;
  const field = "flex min-w-0 flex-col gap-1";
  return (
    <form method="get" action="/browse" class="card mt-8 grid grid-cols-2 gap-3 p-4" aria-labelledby="landing-search-title">
      <h2 id="landing-search-title" class="col-span-2 font-semibold" safe>
        {t("browse.when.searchTitle")}
      </h2>
      <div class={`${field} col-span-2`}>
        <label class="field-label" for="landing-city" safe>
          {t("browse.city")}
        </label>
        <select id="landing-city" name="city" class="input py-2">
          {cityOptions(DEFAULT_CITY_NAME)}
        </select>
      </div>
      <div class={field}>
        <label class="field-label" for="landing-date" safe>
          {t("browse.when.date")}
        </label>
        <select id="landing-date" name="date" class="input py-2">
          {DATE_CHOICES.filter(([value]) => value !== "day").map(([value, label]) => (
            <option value={value} safe>
              {t(label)}
            </option>
          ))}
        </select>
      </div>
      <div class={field}>
        <label class="field-label" for="landing-time" safe>
          {t("browse.when.timeOfDay")}
        </label>
        <select id="landing-time" name="timeOfDay" class="input py-2">
          <option value="" safe>
            {t("browse.when.anyTime")}
          </option>
          {TIMES_OF_DAY.map((time) => (
            <option value={time} safe>
              {t(`browse.when.${time}`)}
            </option>
          ))}
        </select>
      </div>
      <div class={field}>
        <label class="field-label" for="landing-people" safe>
          {t("browse.when.people")}
        </label>
        <select id="landing-people" name="people" class="input py-2">
          <option value="" safe>
            {t("browse.when.anyPeople")}
          </option>
          {Array.from({ length: PEOPLE_MAX }, (_, i) => i + 1).map((n) => (
            <option value={String(n)} safe>
              {t("browse.when.peopleCount", { n })}
            </option>
          ))}
        </select>
      </div>
      <div class="flex items-end">
        <button type="submit" class="btn btn-primary w-full" safe>
          {t("browse.when.search")}
        </button>
      </div>
    </form>
  );
}
