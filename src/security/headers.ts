import { THEME_SCRIPT } from "../../views/layouts/Document";
import type { Config } from "../config";
import { pathOf } from "../../lib/http";

/**
 * The headers every answer carries (decision 0031): what a browser may load and run for our
 * pages, which of its features they may use, who may frame or hold a handle on them, and that
 * they are only ever reached over https once served so.
 */

/** The origin part of a URL template such as https://{s}.tile.example.org/{z}/{x}/{y}.png. */
export function templateOrigin(template: string) {
  const m = /^(https?:\/\/[^/]+)/.exec(template);
  return m ? m[1]!.replace(/\{s\}/g, "*") : "";
}

/** What Stripe.js and its Payment Element need: its script, its frames, and its API. */
export const STRIPE_JS_SOURCES = { script: ["https://js.stripe.com"], frame: ["https://js.stripe.com", "https://hooks.stripe.com"], connect: ["https://api.stripe.com"] };

/** What the policies depend on besides the configuration. */
export interface PolicySources {
  /** Where the browser sends photos itself (a bucket's presigned form), if not to us. */
  uploadOrigin?: string;
  /** Where a form may lead besides our own pages: the payment provider's hosted pages. */
  formTargets?: string[];
  /** Whether Stripe.js and its card form run (Stripe is the payment provider). */
  stripeJs?: boolean;
}

function contentSecurityPolicy(config: Config, { uploadOrigin, formTargets = [], stripeJs = false }: PolicySources) {
  const tiles = templateOrigin(config.maps.tileUrl);
  const geocoder = templateOrigin(config.maps.geocoderUrl);
  const themeHash = new Bun.CryptoHasher("sha256").update(THEME_SCRIPT).digest("base64");
  const extra = (sources: string[]) => (stripeJs ? sources.map((s) => ` ${s}`).join("") : "");
  return [
    "default-src 'self'",
    `script-src 'self' 'sha256-${themeHash}'${extra(STRIPE_JS_SOURCES.script)}`,
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob: ${tiles}`,
    `connect-src 'self' ${geocoder}${uploadOrigin ? ` ${uploadOrigin}` : ""}${extra(STRIPE_JS_SOURCES.connect)}`,
    "font-src 'self'",
    // Only Stripe's card form (its Payment Element and 3-D Secure frames) is framed, and only with Stripe.
    ...(stripeJs ? [`frame-src 'self'${extra(STRIPE_JS_SOURCES.frame)}`] : []),
    "object-src 'none'",
    "base-uri 'self'",
    // A form may lead to the payment provider's hosted pages (a redirect after a post counts).
    `form-action 'self'${formTargets.map((o) => ` ${o}`).join("")}`,
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * Browser features the app never uses are turned off for its pages and every frame in them
 * (decision 0031). Kept: the clipboard and the share sheet (the copy and share buttons), the
 * defaults for the rest. Geolocation is off: places are typed and looked up (the geocoder), never
 * read from the device. Payment (the Payment Request API) only for Stripe.js's frames, with Stripe.
 */
export function permissionsPolicy(stripeJs: boolean) {
  const denied = [
    "accelerometer",
    "autoplay",
    "camera",
    "display-capture",
    "geolocation",
    "gyroscope",
    "hid",
    "magnetometer",
    "microphone",
    "midi",
    "publickey-credentials-get",
    "screen-wake-lock",
    "serial",
    "usb",
    "xr-spatial-tracking",
    "browsing-topics",
  ];
  const payment = stripeJs ? `payment=(${STRIPE_JS_SOURCES.frame.map((o) => `"${o}"`).join(" ")})` : "payment=()";
  return [...denied.map((feature) => `${feature}=()`), payment, "clipboard-write=(self)", "web-share=(self)"].join(", ");
}

/** Photos (`/objects/…`) are read by our own pages and service worker only (decision 0031). */
const PHOTO_PATH = /^\/objects\//;

/** The app's security headers, made once at start-up. */
export interface SecurityHeaders {
  /** The headers every answer carries. */
  readonly every: Readonly<Record<string, string>>;
  /** The headers for this request's answer: a photo's also say that only our own origin reads it. */
  of(request: Request): Record<string, string>;
}

export function securityHeaders(config: Config, sources: PolicySources = {}): SecurityHeaders {
  // Served over https: browsers must never come back over plain http.
  const hsts = new URL(config.publicUrl).protocol === "https:" ? "max-age=31536000; includeSubDomains" : null;
  const every: Record<string, string> = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": contentSecurityPolicy(config, sources),
    // No other site's window keeps a handle on ours (OAuth and Stripe's hosted pages are
    // top-level redirects, Stripe's card form and 3-D Secure are frames: none needs one).
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": permissionsPolicy(!!sources.stripeJs),
    ...(hsts ? { "Strict-Transport-Security": hsts } : {}),
  };
  const photo = { ...every, "Cross-Origin-Resource-Policy": "same-origin" };
  return { every, of: (request) => (PHOTO_PATH.test(pathOf(request.url)) ? photo : every) };
}

/**
 * Adds the headers set for this request (`set.headers`: the security headers) to the answer
 * itself, as the framework would merge them: the answer's own headers win, cookies are added.
 * The framework copies any answer while `set.headers` holds something (new headers, and a new
 * answer reading the body as a stream), so the caller empties it: the answer leaves as it is.
 */
export function addSetHeaders(headers: Headers, taken: Record<string, string | number | string[] | undefined>) {
  for (const key in taken) {
    const value = taken[key];
    if (value === undefined) continue;
    if (key.toLowerCase() === "set-cookie") for (const cookie of Array.isArray(value) ? value : [String(value)]) headers.append("Set-Cookie", cookie);
    else if (!headers.has(key)) headers.set(key, Array.isArray(value) ? value.join(", ") : String(value));
  }
}

/**
 * Whether one of these Set-Cookie values starts a session (sign-in): such an answer is never
 * stored by the browser, like anything answered to a signed-in person (decision 0031).
 */
export const startsSession = (cookies: string[], name: string) => cookies.some((c) => c.startsWith(`${name}=`) && !/;\s*Max-Age=0(?:;|$)/i.test(c));
