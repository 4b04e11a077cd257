import type { View } from "../../src/shell/view";
import { Icon } from "./icons";

/** Switches light/dark; islands/shell.ts does the switching and keeps it under 'theme'. */
export function ThemeToggle({ view }: { view: View }) {
  return (
    <button type="button" class="btn-icon" data-theme-toggle aria-pressed="false" aria-label={view.t("shell.theme.toggle")}>
      <span class="dark:hidden">
        <Icon name="moon" class="w-5 h-5" />
      </span>
      <span class="hidden dark:inline">
        <Icon name="sun" class="w-5 h-5" />
      </span>
    </button>
  );
}
