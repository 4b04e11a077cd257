import type { UserConfig } from "@unocss/core";
import presetWind3, { type Theme } from "@unocss/preset-wind3";

/**
 * The stylesheet is generated from the class names used in views/ and islands/ at build time.
 * Colours that change with the theme are CSS variables (see public/base.css).
 *
 * Contrast (WCAG AA: 4.5:1 for text, 3:1 for large text and shapes): brand-500 is the brand's
 * orange for accents, focus rings and large text only (3.5:1 on the light surface). Text on an
 * orange background and orange text on light backgrounds use brand-600 or darker: white on
 * brand-600 is 5.2:1, brand-600 on the light surface 5.0:1 and on sunken 4.6:1. In the dark
 * theme orange text is brand-300 (9.2:1 on the dark surface).
 */
const config: UserConfig<Theme> = {
  presets: [presetWind3({ dark: "class" })],
  theme: {
    colors: {
      brand: {
        50: "#fff4f1",
        100: "#ffe4dc",
        300: "#fb9c85",
        500: "#e8553d",
        600: "#c0402a",
        700: "#b03522",
        800: "#8a2818",
        900: "#6e2113",
      },
      surface: "rgb(var(--surface) / <alpha-value>)",
      raised: "rgb(var(--raised) / <alpha-value>)",
      sunken: "rgb(var(--sunken) / <alpha-value>)",
      ink: "rgb(var(--ink) / <alpha-value>)",
      muted: "rgb(var(--muted) / <alpha-value>)",
      line: "rgb(var(--line) / <alpha-value>)",
    },
  },
  shortcuts: {
    btn: "inline-flex items-center justify-center gap-2 rounded-xl px-4 py-2.5 font-semibold transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-500 disabled:opacity-50 disabled:cursor-not-allowed select-none",
    "btn-lg": "py-3 text-base",
    "btn-primary": "bg-brand-600 text-white hover:bg-brand-700 active:bg-brand-800",
    "btn-secondary": "border border-line bg-raised text-ink hover:bg-sunken",
    "btn-ghost": "text-ink hover:bg-sunken",
    // A button of one icon (back, close, share, edit): 44×44 px, the smallest sure tap (WCAG 2.5.5).
    "btn-icon": "btn btn-ghost h-11 w-11 shrink-0 px-0",
    card: "rounded-2xl border border-line bg-raised shadow-sm",
    field: "flex flex-col gap-1.5",
    "field-label": "text-sm font-medium",
    "field-error": "text-sm text-red-600 dark:text-red-300",
    // A disabled field (the chat's box before acceptance) is sunk and dashed, so it does not look typeable.
    // At least 44 px tall (WCAG 2.5.5): a select is drawn a pixel or two shorter than a text field.
    input:
      "min-h-11 w-full rounded-xl border border-line bg-raised px-3 py-2.5 text-base text-ink placeholder:text-muted focus:outline-2 focus:outline-brand-500 aria-[invalid=true]:border-red-500 disabled:cursor-not-allowed disabled:border-dashed disabled:bg-sunken disabled:text-muted",
    link: "font-medium text-brand-600 underline-offset-2 hover:underline dark:text-brand-300",
    "text-muted": "text-muted",
    tab: "rounded-lg px-3 py-2 text-center text-muted",
    "tab-active": "bg-raised text-ink shadow-sm",
    "nav-tab":
      "flex min-w-0 flex-col items-center gap-0.5 py-2 text-[0.6875rem] leading-4 font-medium text-muted hover:text-ink focus-visible:outline-2 focus-visible:outline-brand-500",
    "nav-tab-current": "text-brand-600! dark:text-brand-300!",
    // Browse's cards and category grid (views/activities/Browse.tsx; their parts: public/base.css).
    "card-link": "card block overflow-hidden hover:shadow-md focus-visible:shadow-md",
    "category-link":
      "flex flex-col items-center gap-1 rounded-xl border border-line bg-raised p-2 text-center text-xs font-medium aria-[current=true]:border-brand-500 aria-[current=true]:bg-brand-50 aria-[current=true]:text-brand-700 dark:aria-[current=true]:bg-brand-900/40 dark:aria-[current=true]:text-brand-100",
    avatar: "shrink-0 rounded-full object-cover",
    "offline-banner": "sticky top-0 z-40 bg-yellow-300 text-yellow-950 text-sm font-medium px-4 py-2 text-center",
    "nav-badge":
      "absolute -right-2.5 -top-1.5 h-[1.125rem] min-w-[1.125rem] rounded-full bg-brand-600 px-1 text-center text-[0.6875rem] font-bold leading-[1.125rem] text-white",
  },
};

export default config;
