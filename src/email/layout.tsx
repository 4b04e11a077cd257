import type { Locale } from "../../lib/i18n";

/**
 * The one layout every email uses (docs/decisions/0034): a heading, paragraphs, an optional list
 * of details, one button, and a footer saying why the person gets it. Plain tables and inline
 * styles, as mail programs read them; the same content goes out as plain text (`emailText`).
 */
export interface EmailContent {
  locale: Locale;
  subject: string;
  /** The line mail programs show after the subject in a list; the first paragraph when absent. */
  preheader?: string;
  heading: string;
  paragraphs: string[];
  details?: { label: string; value: string }[];
  action?: { label: string; url: string };
  /** Paragraphs after the button (how long a link lasts, what to do if it was not you). */
  after?: string[];
  /** Why the person gets this email. */
  footer: string;
  /** Stopping this kind of email: a link in the footer, and the List-Unsubscribe headers. */
  unsubscribe?: { label: string; url: string };
}

const font = "font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;";

export function EmailLayout({ content, siteName, siteUrl }: { content: EmailContent; siteName: string; siteUrl: string }) {
  const preheader = content.preheader ?? content.paragraphs[0] ?? "";
  return (
    <>
      {"<!doctype html>"}
      <html lang={content.locale}>
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="color-scheme" content="light" />
          <title safe>{content.subject}</title>
        </head>
        <body style={`margin:0;padding:0;background:#f4f4f5;${font}color:#18181b;`}>
          <div style="display:none;max-height:0;overflow:hidden;" safe>
            {preheader}
          </div>
          <table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f4f5;">
            <tr>
              <td align="center" style="padding:24px 12px;">
                <table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border-radius:12px;">
                  <tr>
                    <td style="padding:24px 24px 0 24px;">
                      <a href={siteUrl} style="color:#18181b;text-decoration:none;font-weight:700;font-size:18px;" safe>
                        {siteName}
                      </a>
                    </td>
                  </tr>
                  <tr>
                    <td style="padding:16px 24px 24px 24px;">
                      <h1 style="margin:0 0 16px 0;font-size:22px;line-height:1.3;" safe>
                        {content.heading}
                      </h1>
                      {content.paragraphs.map((p) => (
                        <p style="margin:0 0 12px 0;font-size:16px;line-height:1.5;" safe>
                          {p}
                        </p>
                      ))}
                      {content.details?.length ? (
                        <table role="presentation" cellpadding="0" cellspacing="0" style="margin:4px 0 16px 0;font-size:15px;line-height:1.5;">
                          {content.details.map((d) => (
                            <tr>
                              <td style="padding:2px 16px 2px 0;color:#52525b;vertical-align:top;" safe>
                                {d.label}
                              </td>
                              <td style="padding:2px 0;font-weight:600;" safe>
                                {d.value}
                              </td>
                            </tr>
                          ))}
                        </table>
                      ) : (
                        ""
                      )}
                      {content.action ? (
                        <table role="presentation" cellpadding="0" cellspacing="0" style="margin:8px 0 16px 0;">
                          <tr>
                            <td style="border-radius:10px;background:#18181b;">
                              <a
                                href={content.action.url}
                                style="display:inline-block;padding:12px 20px;color:#ffffff;text-decoration:none;font-weight:600;font-size:16px;border-radius:10px;"
                                safe
                              >
                                {content.action.label}
                              </a>
                            </td>
                          </tr>
                        </table>
                      ) : (
                        ""
                      )}
                      {content.action ? (
                        <p style="margin:0 0 12px 0;font-size:13px;line-height:1.5;color:#52525b;word-break:break-all;">
                          <a href={content.action.url} style="color:#52525b;" safe>
                            {content.action.url}
                          </a>
                        </p>
                      ) : (
                        ""
                      )}
                      {(content.after ?? []).map((p) => (
                        <p style="margin:0 0 12px 0;font-size:14px;line-height:1.5;color:#3f3f46;" safe>
                          {p}
                        </p>
                      ))}
                    </td>
                  </tr>
                  <tr>
                    <td style="padding:16px 24px 24px 24px;border-top:1px solid #e4e4e7;font-size:13px;line-height:1.5;color:#52525b;">
                      <span safe>{content.footer}</span>
                      {content.unsubscribe ? (
                        <>
                          {" "}
                          <a href={content.unsubscribe.url} style="color:#52525b;" safe>
                            {content.unsubscribe.label}
                          </a>
                        </>
                      ) : (
                        ""
                      )}
                    </td>
                  </tr>
                </table>
              </td>
            </tr>
          </table>
        </body>
      </html>
    </>
  );
}

/**
 * A label's colon as the language writes it: French puts a narrow no-break space before it
 * ("Durée : 2 heures"), which also keeps the colon from starting a line of its own.
 */
const colon = (locale: Locale) => (locale === "fr" ? "\u202f:" : ":");

/** The same content as plain text, for mail programs that show no HTML. */
export function emailText(content: EmailContent, siteName: string): string {
  const c = colon(content.locale);
  const blocks: string[] = [content.heading, ...content.paragraphs];
  if (content.details?.length) blocks.push(content.details.map((d) => `${d.label}${c} ${d.value}`).join("\n"));
  if (content.action) blocks.push(`${content.action.label}${c}\n${content.action.url}`);
  blocks.push(...(content.after ?? []));
  blocks.push(`-- \n${siteName}\n${content.footer}${content.unsubscribe ? `\n${content.unsubscribe.label}${c} ${content.unsubscribe.url}` : ""}`);
  return `${blocks.join("\n\n")}\n`;
}
