import type { View } from "../../src/shell/view";
import { Icon, type IconName } from "../components/icons";
import { Document } from "./Document";
import { rememberAround, type KeptAround } from "../../lib/html/fragments";

const tabs: { href: string; label: "nav.browse" | "saved.nav" | "nav.bookings" | "nav.host" | "nav.profile"; icon: IconName; match: RegExp }[] = [
  { href: "/", label: "nav.browse", icon: "search", match: /^\/($|browse|activity\/|booking\/)/ },
  { href: "/saved", label: "saved.nav", icon: "heart", match: /^\/saved/ },
  { href: "/bookings", label: "nav.bookings", icon: "calendar", match: /^\/(bookings|messages|booking-success|review$|checkout)/ },
  { href: "/host", label: "nav.host", icon: "home", match: /^\/(host|create-activity|edit-activity|stripe-connect)/ },
  { href: "/profile", label: "nav.profile", icon: "user", match: /^\/(profile|edit-profile|settings|reviews)/ },
];

/** Above this many unread conversations the badge reads "9+". */
const BADGE_MAX = 9;

/**
 * The bottom navigation in a language with one tab (or none) current: rendered once each
 * (rememberAround). The number of unread conversations on the Bookings tab is the person's own:
 * it is not kept, but rendered per request into the two holes the kept navigation leaves for it.
 */
const navs: KeptAround = new Map();
function bottomNav(view: View): JSX.Element {
  const currentTab = tabs.findIndex((tab) => tab.match.test(view.path));
  const kept = rememberAround(navs, `${view.locale}\u0000${currentTab}`, view, 2, ({ t }, [badgeHole, countHole]) => (
    <nav
      aria-label={t("nav.label")}
      class="fixed bottom-0 inset-x-0 z-30 border-t border-line bg-surface/95 backdrop-blur pb-[env(safe-area-inset-bottom)]"
    >
      <ul class="mx-auto grid max-w-screen-md grid-cols-5">
        {tabs.map((tab, i) => {
          const current = i === currentTab;
          return (
            <li>
              <a
                href={tab.href}
                class={`nav-tab ${current ? "nav-tab-current" : ""}`}
                aria-current={current ? "page" : undefined}
              >
                <span class="relative">
                  <Icon name={tab.icon} />
                  {(tab.href === "/bookings" ? badgeHole : "") as "safe"}
                </span>
                <span safe>{t(tab.label)}</span>
                {(tab.href === "/bookings" ? countHole : "") as "safe"}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  ));
  const unread = Math.min(view.unreadConversations(), BADGE_MAX + 1);
  if (unread === 0) return kept[0]! + kept[1]! + kept[2]!;
  const { t } = view;
  return (
    <>
      {kept[0] as "safe"}
      <span class="nav-badge" data-unread-badge aria-hidden="true">
        {(unread > BADGE_MAX ? `${BADGE_MAX}+` : String(unread)) as "safe"}
      </span>
      {kept[1] as "safe"}
      <span class="sr-only" safe>
        {`(${unread > BADGE_MAX ? t("inbox.unreadCountCapped", { max: BADGE_MAX }) : t("inbox.unreadCount", { count: unread })})`}
      </span>
      {kept[2] as "safe"}
    </>
  );
}

/** The signed-in screens: content above a fixed bottom navigation with the current tab marked. */
export function AppLayout({ view, title, children, stylesheets }: { view: View; title: string; children: JSX.Element; stylesheets?: (string | null)[] }) {
  // Joined as text around the screen, like the document's shell (Document.tsx).
  const content = (screen: string) => `${MAIN_OPEN}${screen}</main>${bottomNav(view)}`;
  const page = typeof children === "string" ? content(children) : Promise.resolve(children).then(content);
  return (
    <Document view={view} title={title} stylesheets={stylesheets}>
      {page as "safe"}
    </Document>
  );
}

/** The start of every signed-in screen's content. */
const MAIN_OPEN = '<main id="main" class="mx-auto max-w-screen-md px-4 pt-4 pb-24">';
