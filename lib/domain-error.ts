import type { MessageKey } from "./i18n";

/**
 * A refusal: "this booking can no longer be accepted", "too many reports", "not found", a field
 * that does not read, a request from another site. It is the app's one way to refuse: services
 * and the request's checks throw it, they never build answers, and no function returns a
 * "refused" result instead. The app's one error hook (src/web/shell/error-answers.tsx,
 * `refusalAnswer`) turns it into what the caller reads: JSON `{ message, fields?, ...extra }`
 * for the API, scripts and htmx (with a toast for htmx), what the route's `refused` option says
 * for a browser's plain post (its form drawn again with the messages beside its fields, or back
 * to a page with a toast; src/context.ts), the error page for a browser's page, `Retry-After`
 * when there is a wait.
 */
export class DomainError extends Error {
  override readonly name = "DomainError";
  constructor(
    /** The catalogue key of the message the person reads. */
    readonly key: MessageKey,
    /** The HTTP status that answers it: 400, 401, 402, 403, 404, 409, 413, 422, 429, 502, 503. */
    readonly status: number,
    readonly details: DomainErrorDetails = {},
  ) {
    super(details.log ?? key);
  }

  /** The values the message names (`{minutes}`), the wait's minutes included. */
  get params(): Record<string, string | number> | undefined {
    const wait = this.details.retryAfterMs ? { minutes: Math.ceil(this.details.retryAfterMs / 60_000) } : undefined;
    return this.details.params || wait ? { ...wait, ...this.details.params } : undefined;
  }
}

export interface DomainErrorDetails {
  /** Values the message names; one that is a catalogue key is said in the person's language. */
  params?: Record<string, string | number>;
  /**
   * Input that does not read, by field: each field's message (a catalogue key). The JSON answer
   * carries them as `fields` (translated), a form shows each beside its field.
   */
  fields?: Record<string, MessageKey>;
  /** Values added to the JSON answer beside `message` (the API's documented extras). */
  extra?: Record<string, unknown>;
  /** How long before trying again: sent as `Retry-After`, and as `{minutes}` to the message. */
  retryAfterMs?: number;
  /**
   * An outside service's own words for the person (the payment provider's "Your card was
   * declined."): the message instead of the key's text, and the answer's `detail`.
   */
  said?: string;
  /** For the server's log only: written there with the refusal, never shown. */
  log?: string;
  /**
   * The answer itself, when the refusal has one of its own: the request's checks send a visitor
   * to the landing page and an unfinished profile to onboarding.
   */
  answer?: () => Response | Promise<Response>;
}

/** Whether something thrown is a refusal (as opposed to a failure). */
export const isDomainError = (err: unknown): err is DomainError => err instanceof DomainError;

/**
 * A field's refusal: a 400 with the field's message (`fields`), which is also the answer's
 * message. For input a schema cannot judge alone (a date in the past, an end before its start).
 */
export const invalidField = (field: string, key: MessageKey, params?: Record<string, string | number>) =>
  new DomainError(key, 400, { fields: { [field]: key }, params });

/** One issue of a failed schema: its path and its message (our schemas' messages are catalogue keys). */
export interface InputIssue {
  path: readonly PropertyKey[] | string | undefined;
  message: string;
}

/**
 * The refusal of input a route's schema did not accept: a 400 whose message is the first issue's,
 * with every field's first message. A path of several parts is named by its first (`photos`),
 * written as parts or as text (the framework joins them with dots: `about.politics`).
 */
export function invalidInput(issues: readonly InputIssue[], refusal?: MessageKey): DomainError {
  const fields: Record<string, MessageKey> = {};
  for (const issue of issues) {
    const path = typeof issue.path === "string" ? issue.path.replace(/^\//, "").split(/[./]/) : (issue.path ?? []).map(String);
    const field = path[0] || "_";
    fields[field] ??= issue.message as MessageKey;
  }
  return new DomainError(refusal ?? ((issues[0]?.message ?? "error.badRequest") as MessageKey), 400, { fields });
}
