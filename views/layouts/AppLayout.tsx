import type { View } from "../../src/shell/view";
import { Icon, type IconName } from "../components/icons";
import { Document } from "./Document";
import { remember, type KeptParts } from "../../src/lib/html/fragments";

const tabs: { href: string; label: "nav.browse" | "nav.bookings" | "nav.host" | "nav.profile"; icon: IconName; match: RegExp }[] = [
  { href: "/", label: "nav.browse", icon: "search", match: /^\/($|browse|activity\/|booking\/)/ },
  { href: "/bookings", label: "nav.bookings", icon: "calendar", match: /^\/(bookings|messages|booking-success|review$|checkout)/ },
  { href: "/host", label: "nav.host", icon: "home", match: /^\/(host|create-activity|edit-activity|stripe-connect)/ },
  { href: "/profile", label: "nav.profile", icon: "user", match: /^\/(profile|edit-profile|settings|reviews)/ },
];

/** Above this many unread conversations the badge reads "9+". */
const BADGE_MAX = 9;

/**
 * The bottom navigation in a language with one tab (or none) current and a number of unread
 * conversations on the Bookings tab: rendered once each (remember). The number is the only
 * personal part, and a kept navigation depends on nothing else.
 */
const navs: KeptParts = new Map();
function bottomNav(view: View): JSX.Element {
  const currentTab = tabs.findIndex((tab) => tab.match.test(view.path));
  const unread = Math.min(view.unreadConversations(), BADGE_MAX + 1);
  const { t } = view;
  return remember(navs, `${view.locale}\u0000${currentTab}\u0000${unread}`, () => (
    <nav
      aria-label={t("nav.label")}
      class="fixed bottom-0 inset-x-0 z-30 border-t border-line bg-surface/95 backdrop-blur pb-[env(safe-area-inset-bottom)]"
    >
      <ul class="mx-auto grid max-w-screen-md grid-cols-4">
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
                  {tab.href === "/bookings" && unread > 0 ? (
                    <span class="nav-badge" data-unread-badge aria-hidden="true">
                      {(unread > BADGE_MAX ? `${BADGE_MAX}+` : String(unread)) as "safe"}
                    </span>
                  ) : (
                    ""
                  )}
                </span>
                <span safe>{t(tab.label)}</span>
                {tab.href === "/bookings" && unread > 0 ? (
                  <span class="sr-only" safe>
                    {`(${unread > BADGE_MAX ? t("inbox.unreadCountCapped", { max: BADGE_MAX }) : t("inbox.unreadCount", { count: unread })})`}
                  </span>
                ) : (
                  ""
                )}
              </a>
            </li>
          );
        })}
      </ul>
    </nav>
  ));
}

/** The signed-in screens: content above a fixed bottom navigation with the current tab marked. */
export function AppLayout({ view, title, children, stylesheets }: { view: View; title: string; children: JSX.Element; stylesheets?: (string | null)[] }) {
  return (
    <Document view={view} title={title} stylesheets={stylesheets}>
      <>
        <main id="main" class="mx-auto max-w-screen-md px-4 pt-4 pb-24">
          {children as "safe"}
        </main>
        {bottomNav(view)}
      </>
    </Document>
  );
}
