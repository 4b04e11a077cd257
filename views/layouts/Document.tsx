import { escapeHtml } from "@kitajs/html";
import { madeOnce } from "../../shared/memo";
import { flatten, remember, type KeptParts } from "../../lib/html/fragments";
import type { KeptView, Toast, View } from "../../src/shell/view";

/** Applied before first paint so a dark theme never flashes light. Its hash is in the CSP. */
export const THEME_SCRIPT =
  "try{if(localStorage.getItem('theme')==='dark')document.documentElement.classList.add('dark')}catch(e){}";

const HTMX_CONFIG = JSON.stringify({
  includeIndicatorStyles: false,
  allowEval: false,
  allowScriptTags: false,
  historyCacheSize: 0,
  selfRequestsOnly: true,
});

/** The HTML document every screen renders into. */
export function Document({
  view,
  title,
  description,
  children,
  bodyClass = "",
  stylesheets = [],
  preload = [],
}: {
  view: View;
  title: string;
  description?: string;
  children: JSX.Element;
  bodyClass?: string;
  /** Extra built stylesheets this screen needs. */
  stylesheets?: (string | null)[];
  /**
   * Islands this screen cannot show without (the wizard, whose page is its island): their files
   * (React among them) are linked as modulepreload at low priority, so they download with the
   * page instead of after its script has run, without holding up the stylesheet and the first
   * paint. Not for an island whose fallback HTML is the page's content until it mounts: there,
   * even at low priority, they moved the largest paint of the date-time screen and the
   * conversation from 1.3 s to 1.7 s under Lighthouse (decision 0039).
   */
  preload?: string[];
}) {
  const { t } = view;
  const appName = t("app.name");
  // Every page draws this shell around its kept parts, so it is joined as text rather than drawn
  // element by element: what changes per page (the language, title, token, body class) is
  // escaped as the JSX runtime escapes it, and what never changes was drawn once (`SHELL`).
  const shell = (content: string) =>
    `<!doctype html><html lang="${escapeHtml(view.locale)}"><head>${SHELL.headStart}<title>${escapeHtml(title === appName ? title : `${title} · ${appName}`)}</title>` +
    (description ? `<meta name="description" content="${escapeHtml(description)}"/>` : "") +
    `${SHELL.themeColor}<meta name="csrf-token" content="${escapeHtml(view.csrf)}"/>${headEnd(view, stylesheets, preload)}</head>` +
    `<body class="min-h-screen bg-surface text-ink antialiased ${escapeHtml(bodyClass)}" hx-headers="${escapeHtml(JSON.stringify({ "X-CSRF-Token": view.csrf }))}">` +
    `${bodyStart(view)}${content}` +
    `${view.toast ? String(<Toasts view={view} toast={view.toast} />) : remember(noToasts, view.locale, view, (kept) => <Toasts view={kept} toast={null} />)}` +
    `${remember(installCards, view.locale, view, (kept) => <InstallCard view={kept} />)}</body></html>`;
  return typeof children === "string" ? shell(children) : Promise.resolve(children).then(shell);
}

/** What the shell of every page holds alike, drawn once. */
const SHELL = {
  headStart: flatten(String(
    <>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover" />
    </>,
  )),
  themeColor: flatten(String(<meta name="theme-color" content="#e8553d" />)),
};

// What every page has alike is rendered once per language or per set of built files (remember),
// from the kept view remember hands the render: nothing of the visitor (the CSRF token above, a
// toast) is kept.

/** The end of the head: scripts and stylesheets, the same on every page with the same built files. */
const headEnds = madeOnce((_assets: View["assets"]): KeptParts => new Map());
function headEnd(view: KeptView, stylesheets: (string | null)[], islands: string[]): JSX.Element {
  const byExtras = headEnds(view.assets);
  const extra = stylesheets.filter((href): href is string => Boolean(href));
  return remember(byExtras, `${extra.join("\u0000")}\u0001${islands.join("\u0000")}`, view, ({ assets }) => (
    <>
      <meta name="htmx-config" content={HTMX_CONFIG} />
      <link rel="manifest" href="/manifest.webmanifest" />
      <link rel="icon" href="/static/icon.svg" type="image/svg+xml" />
      <script>{THEME_SCRIPT as "safe"}</script>
      {assets.css ? <link rel="stylesheet" href={assets.css} /> : ""}
      {extra.map((href) => <link rel="stylesheet" href={href} />)}
      {assets.htmx ? <script src={assets.htmx} defer /> : ""}
      {assets.loader ? <script type="module" src={assets.loader} /> : ""}
      {[...new Set(islands.flatMap((name) => assets.islands?.[name] ?? []))].map((href) => (
        <link rel="modulepreload" href={href} fetchpriority="low" />
      ))}
    </>
  ));
}

/** The skip link and the offline banner, in the page's language. */
const bodyStarts: KeptParts = new Map();
const bodyStart = (view: KeptView) =>
  remember(bodyStarts, view.locale, view, ({ t }) => (
    <>
      <a href="#main" class="skip-link">
        {t("app.skipToContent") as "safe"}
      </a>
      <div id="offline-banner" role="status" hidden class="offline-banner">
        {t("shell.offline") as "safe"}
      </div>
    </>
  ));

const noToasts: KeptParts = new Map();
const installCards: KeptParts = new Map();

/**
 * The install card: hidden until the browser says the app can be installed, then shown by the
 * page script (islands/shell.ts), which also answers its two buttons. No React involved.
 */
function InstallCard({ view }: { view: KeptView }) {
  const { t } = view;
  return (
    <div
      id="install-card"
      role="dialog"
      aria-labelledby="install-title"
      hidden
      class="fixed inset-x-0 bottom-20 z-40 mx-auto w-[calc(100%-2rem)] max-w-sm card p-4"
    >
      <div class="flex items-start gap-3">
        <img src="/static/icon.svg" alt="" width="40" height="40" class="rounded-xl" loading="lazy" />
        <div class="min-w-0 flex-1">
          <p id="install-title" class="font-semibold">
            {t("shell.install.title") as "safe"}
          </p>
          <p class="text-sm text-muted">{t("shell.install.body") as "safe"}</p>
        </div>
      </div>
      <div class="mt-3 flex justify-end gap-2">
        <button type="button" class="btn btn-ghost" data-install="dismiss">
          {t("shell.install.dismiss") as "safe"}
        </button>
        <button type="button" class="btn btn-primary" data-install="accept">
          {t("shell.install.accept") as "safe"}
        </button>
      </div>
    </div>
  );
}

/**
 * One toast at a time, as the spec says; the flash toast of a redirect is rendered here, and
 * islands/shell.ts adds toasts sent by htmx responses (HX-Trigger: toast).
 */
function Toasts({ view, toast }: { view: KeptView; toast: Toast | null }) {
  // A labelled region, as a section would be, but a div: a section is expected to carry a heading.
  return (
    <div
      role="region"
      id="toasts"
      tabindex="-1"
      aria-label={view.t("shell.notifications")}
      data-dismiss-label={view.t("shell.dismiss")}
      class="toast-region"
    >
      {toast ? (
        <div class={`toast toast-${toast.variant}`} role={toast.variant === "error" ? "alert" : "status"}>
          <div class="flex-1 min-w-0">
            <p class="font-semibold" safe>
              {toast.title}
            </p>
            {toast.body ? (
              <p class="text-sm opacity-90" safe>
                {toast.body}
              </p>
            ) : (
              ""
            )}
          </div>
          <button type="button" class="toast-close" data-toast-close aria-label={view.t("shell.dismiss")}>
            ×
          </button>
        </div>
      ) : (
        ""
      )}
    </div>
  );
}
