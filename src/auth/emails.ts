import type { User } from "../../db/schema";
import type { Deps } from "../deps";
import type { OutgoingEmail } from "../ports/mail";
import { composeEmail } from "../email/outbox";
import { locales, translator, type Locale } from "../../lib/i18n";

/**
 * The account emails (docs/decisions/0034): verifying an address, confirming an email change,
 * telling the old address it changed, resetting a password, a sign-up attempt with a taken
 * address, and joining a provider's account. Each goes out in the recipient's language: their
 * own choice, else the language of the request that caused it, else the default language.
 */

type Mail = Pick<Deps, "config">;

/** The language an email to `user` is written in. */
export function recipientLocale(deps: Mail, user: Pick<User, "locale"> | null | undefined, requestLocale?: Locale): Locale {
  const own = user?.locale;
  if (own && (locales as string[]).includes(own)) return own as Locale;
  return requestLocale ?? deps.config.defaultLanguage;
}

/** An address of this site for a link in an email (PUBLIC_URL: the address people use). */
export const siteLink = (deps: Mail, path: string, params: Record<string, string> = {}) => {
  const query = new URLSearchParams(params).toString();
  return `${deps.config.publicUrl}${path}${query ? `?${query}` : ""}`;
};

/** Sign-up, or a new link asked for: confirm the account's address. */
export function verifyEmail(deps: Mail, locale: Locale, to: string, token: string): OutgoingEmail {
  const t = translator(locale);
  return composeEmail(deps, "verify", to, {
    locale,
    subject: t("authEmail.verify.subject"),
    heading: t("authEmail.verify.heading"),
    paragraphs: [t("authEmail.verify.body", { email: to })],
    action: { label: t("authEmail.verify.action"), url: siteLink(deps, "/verify-email", { token }) },
    after: [t("authEmail.verify.after")],
    footer: t("email.footer.account"),
  });
}

/** An email change: the new address confirms it before it replaces the old one. */
export function emailChangeEmail(deps: Mail, locale: Locale, to: string, token: string): OutgoingEmail {
  const t = translator(locale);
  return composeEmail(deps, "email-change", to, {
    locale,
    subject: t("authEmail.change.subject"),
    heading: t("authEmail.change.heading"),
    paragraphs: [t("authEmail.change.body", { email: to })],
    action: { label: t("authEmail.change.action"), url: siteLink(deps, "/verify-email", { token }) },
    after: [t("authEmail.change.after")],
    footer: t("email.footer.account"),
  });
}

/** To the old address, once the new one is confirmed. */
export function emailChangedEmail(deps: Mail, locale: Locale, to: string, newEmail: string): OutgoingEmail {
  const t = translator(locale);
  return composeEmail(deps, "email-changed", to, {
    locale,
    subject: t("authEmail.changed.subject"),
    heading: t("authEmail.changed.heading"),
    paragraphs: [t("authEmail.changed.body", { old: to, new: newEmail })],
    after: [t("authEmail.changed.after")],
    footer: t("email.footer.account"),
  });
}

/** "Forgot password?": a link to choose a new one. */
export function resetEmail(deps: Mail, locale: Locale, to: string, token: string): OutgoingEmail {
  const t = translator(locale);
  return composeEmail(deps, "password-reset", to, {
    locale,
    subject: t("authEmail.reset.subject"),
    heading: t("authEmail.reset.heading"),
    paragraphs: [t("authEmail.reset.body", { email: to })],
    action: { label: t("authEmail.reset.action"), url: siteLink(deps, "/reset-password", { token }) },
    after: [t("authEmail.reset.after")],
    footer: t("email.footer.account"),
  });
}

/** Someone tried to sign up with an address that has an account: its holder hears of it. */
export function signupAttemptEmail(deps: Mail, locale: Locale, to: string): OutgoingEmail {
  const t = translator(locale);
  return composeEmail(deps, "signup-attempt", to, {
    locale,
    subject: t("authEmail.signupAttempt.subject"),
    heading: t("authEmail.signupAttempt.heading"),
    paragraphs: [t("authEmail.signupAttempt.body", { email: to }), t("authEmail.signupAttempt.body2")],
    action: { label: t("authEmail.signupAttempt.action"), url: siteLink(deps, "/api/login", { email: to }) },
    after: [t("authEmail.signupAttempt.reset", { url: siteLink(deps, "/forgot-password", { email: to }) }), t("authEmail.signupAttempt.after")],
    footer: t("email.footer.account"),
  });
}

/** A provider's sign-in waits to be joined to the account: the link that confirms it. */
export function linkAccountEmail(deps: Mail, locale: Locale, to: string, token: string, provider: string): OutgoingEmail {
  const t = translator(locale);
  return composeEmail(deps, "link-account", to, {
    locale,
    subject: t("authEmail.link.subject", { provider }),
    heading: t("authEmail.link.heading", { provider }),
    paragraphs: [t("authEmail.link.body", { provider, email: to })],
    action: { label: t("authEmail.link.action"), url: siteLink(deps, "/link-account/confirm", { token }) },
    after: [t("authEmail.link.after")],
    footer: t("email.footer.account"),
  });
}
