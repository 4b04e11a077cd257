import type { User } from "../../db/schema";
import type { Deps, RequestState } from "../deps";
import { isMessageKey, type Locale, type MessageKey, type Translate } from "../../lib/i18n";
import { unreadConversations } from "../bookings/unread";
import { isHtmx, pathOf } from "../../lib/http";

export interface Toast {
  title: string;
  body?: string;
  variant: "success" | "error";
}

/** What every server-rendered screen gets: texts, the user, the CSRF token, built file URLs. */
export interface View {
  t: Translate;
  locale: Locale;
  user: User | null;
  csrf: string;
  path: string;
  assets: Deps["assets"];
  toast: Toast | null;
  /** How many of the signed-in person's conversations are unread (the Bookings tab's badge); read once, when first asked. */
  unreadConversations: () => number;
}

/** The person-free views kept parts are rendered from (lib/html/fragments.ts). */
export type { KeptFormView, KeptView } from "../../lib/html/fragments";

/** A flash toast is stored as catalogue keys only, so a cookie can never inject text. */
export interface FlashData {
  title: MessageKey;
  body?: MessageKey;
  variant?: "success" | "error";
}

export function encodeFlash(flash: FlashData): string {
  return Buffer.from(JSON.stringify(flash)).toString("base64url");
}

export function decodeFlash(value: string | undefined, t: Translate): Toast | null {
  if (!value) return null;
  try {
    const data = JSON.parse(Buffer.from(value, "base64url").toString("utf8")) as Partial<FlashData>;
    if (typeof data.title !== "string" || !isMessageKey(data.title)) return null;
    const body = typeof data.body === "string" && isMessageKey(data.body) ? t(data.body) : undefined;
    return { title: t(data.title), body, variant: data.variant === "error" ? "error" : "success" };
  } catch {
    return null;
  }
}

/**
 * Whether this answer shows (and so spends) a flash toast: a page the browser navigates to. A flash
 * is only ever set on an answer the browser follows with a navigation (a 303, or htmx's
 * `HX-Redirect`), but other requests may carry the cookie meanwhile: the page being left asks for
 * parts of itself (the conversation's cards follow a live status change with an htmx GET of the
 * same address), and the service worker reads pages it keeps for offline reading. Either would
 * spend the toast on an answer nobody sees. A browser names a navigation's answer a `document`;
 * a caller that says nothing (a test, a script) is taken as navigating.
 */
export const showsFlash = (request: Request) => {
  if (isHtmx(request)) return false;
  const destination = request.headers.get("sec-fetch-dest");
  return destination === null || destination === "document";
};

/** What a screen renders with. The unread count is read now (once per database change, `readCache`): the bottom navigation shows it. */
export async function viewOf(deps: Deps, state: RequestState, request: Request): Promise<View> {
  const user = state.user;
  const unread = user ? await unreadConversations(deps, user.id) : 0;
  return {
    t: state.t,
    locale: state.locale,
    user: state.user,
    csrf: state.session?.csrf ?? "",
    path: pathOf(request.url),
    assets: deps.assets,
    toast: showsFlash(request) ? decodeFlash(state.cookies[deps.cookies.flash], state.t) : null,
    unreadConversations: () => unread,
  };
}
