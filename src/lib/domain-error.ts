import type { MessageKey } from "./i18n";

/**
 * A refusal by the product's rules: "this booking can no longer be accepted", "too many
 * reports", "not found". Services throw it; they never build answers. The app's one error
 * handler (src/shell/error-answers.tsx, `domainErrorAnswer`) turns it into what the caller reads: JSON
 * `{ message, ...fields }` for the API, scripts and htmx (with a toast for htmx), the error page
 * for a browser's page, `Retry-After` when there is a wait. A form that shows the refusal inside
 * itself catches it in its route and renders the form again.
 */
export class DomainError extends Error {
  override readonly name = "DomainError";
  constructor(
    /** The catalogue key of the message the person reads. */
    readonly key: MessageKey,
    /** The HTTP status that answers it: 400, 402, 403, 404, 409, 413, 422, 429, 502, 503. */
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
  /** Values the message names. */
  params?: Record<string, string | number>;
  /** Fields added to the JSON answer beside `message` (the API's documented extras). */
  fields?: Record<string, unknown>;
  /** How long before trying again: sent as `Retry-After`, and as `{minutes}` to the message. */
  retryAfterMs?: number;
  /**
   * An outside service's own words for the person (the payment provider's "Your card was
   * declined."): the message instead of the key's text, and the answer's `detail`.
   */
  said?: string;
  /** For the server's log only: written there with the refusal, never shown. */
  log?: string;
}

/** Whether something thrown is a refusal by the rules (as opposed to a failure). */
export const isDomainError = (err: unknown): err is DomainError => err instanceof DomainError;
