import { locales, type Locale } from "../../lib/i18n";
import type { View } from "../../src/shell/view";

const names: Record<Locale, string> = { en: "English", fr: "Français" };

/** Posts the chosen interface language; works without JavaScript. */
export function LanguageSwitch({ view }: { view: View }) {
  return (
    <form method="post" action="/api/locale" class="flex items-center justify-center gap-1 text-sm">
      <input type="hidden" name="_csrf" value={view.csrf} />
      <input type="hidden" name="next" value={view.path} />
      {locales.map((locale) => (
        <button
          type="submit"
          name="locale"
          value={locale}
          lang={locale}
          class={`min-h-11 rounded-lg px-2 py-1 ${locale === view.locale ? "font-semibold text-ink" : "text-muted hover:text-ink"}`}
          aria-pressed={locale === view.locale ? "true" : "false"}
        >
          {names[locale] as "safe"}
        </button>
      ))}
    </form>
  );
}
