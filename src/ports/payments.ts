/**
 * The one interface every payment provider implements (ARCHITECTURE decision 6): the built-in
 * `test` provider (state in our database, the usual test cards) and `stripe` (the real SDK).
 * Bookings talk only to this interface, through `deps.payments`.
 *
 * Money is integer cents. Every call that moves money or creates something at the provider takes
 * an idempotency key derived from the booking and the action (`booking:{id}:capture`), so a
 * retried job or request never charges, refunds or pays twice: the same key returns the first
 * call's result. Authorisations are manual-capture PaymentIntents.
 */

export type PaymentIntentStatus =
  | "requires_payment_method"
  | "requires_confirmation"
  | "requires_action"
  | "processing"
  /** Authorised: the card is held, nothing charged yet. */
  | "requires_capture"
  /** Captured (charged). */
  | "succeeded"
  /** Released (an authorisation cancelled) or never completed. */
  | "canceled";

export interface PaymentIntent {
  id: string;
  /** Handed to the browser to confirm the card (Stripe.js, or our test card form). */
  clientSecret: string;
  status: PaymentIntentStatus;
  amountCents: number;
  currency: string;
  /** Strings only (Stripe's rule): bookingId, activityId, guestId, date, time, duration ... */
  metadata: Record<string, string>;
  /** The card's last refusal, as the provider words it ("Your card was declined."). */
  lastError: string | null;
  /** Where the browser must go to authenticate the card (3-D Secure), when status is requires_action. */
  nextActionUrl: string | null;
}

export interface CheckoutSession {
  /** The spec's `sessionId`. */
  id: string;
  /** The provider's hosted checkout page (Stripe Checkout, or our own test checkout page). */
  url: string;
  /** Known at creation for the test provider; for Stripe once the session completes. */
  paymentIntentId: string | null;
}

/** A hosted checkout session as the provider knows it now. */
export interface CheckoutSessionState {
  id: string;
  /** open: the guest may still pay on it; complete: paid (its intent authorised); expired: nothing can be paid on it any more. */
  status: "open" | "complete" | "expired";
  /** The intent that pays for it: with Stripe, made when the guest pays, so null while nobody tried. */
  paymentIntentId: string | null;
}

export interface ConnectedAccount {
  id: string;
  /** The host can receive transfers. Read from the provider, never from a return URL alone. */
  payoutsEnabled: boolean;
  /** What the provider still needs, in its words (e.g. "individual.id_number", "external_account"). */
  requirements: string[];
}

/** A provider notification, verified and normalised; `id` is unique per event (deduplicate on it). */
export interface PaymentEvent {
  id: string;
  type:
    | "payment_intent.amount_capturable_updated"
    | "payment_intent.succeeded"
    | "payment_intent.canceled"
    | "payment_intent.payment_failed"
    | "checkout.session.completed"
    | "checkout.session.expired"
    | "account.updated"
    | "other";
  /** The PaymentIntent, checkout session or account the event is about. */
  objectId: string;
  /** For intents and sessions: the metadata given at creation; for sessions: the intent id too. */
  metadata: Record<string, string>;
  paymentIntentId: string | null;
}

export class PaymentError extends Error {
  constructor(
    message: string,
    /** declined | insufficient_funds | authentication_required | invalid_card | not_found | provider_unavailable | invalid_request */
    readonly code: string,
    readonly status = 402,
  ) {
    super(message);
  }
}

export interface PaymentProvider {
  readonly name: "test" | "stripe";
  /** Screens that take money say so plainly when this is true. */
  readonly testMode: boolean;

  /** A manual-capture PaymentIntent for `amountCents`, to be confirmed by the browser. */
  createIntent(
    input: { amountCents: number; currency: string; metadata: Record<string, string>; transferGroup?: string; description?: string },
    idempotencyKey: string,
  ): Promise<PaymentIntent>;
  /** The intent as the provider knows it now, or null when it does not exist. */
  getIntent(id: string): Promise<PaymentIntent | null>;
  /** Charges an authorised intent (requires_capture → succeeded). */
  capture(id: string, idempotencyKey: string): Promise<PaymentIntent>;
  /** Releases an authorisation (→ canceled); the guest is never charged. Releasing a released one is fine. */
  release(id: string, idempotencyKey: string): Promise<PaymentIntent>;
  /** Refunds a captured intent, in full unless an amount is given. */
  refund(intentId: string, amountCents: number | null, idempotencyKey: string): Promise<{ id: string }>;
  /** Sends the host's share to their connected account (separate charges and transfers). */
  transfer(
    input: { amountCents: number; currency: string; destinationAccountId: string; sourceIntentId: string; transferGroup: string },
    idempotencyKey: string,
  ): Promise<{ id: string }>;
  /** The refunds made on an intent, as the provider knows them: what reconciliation asks after a lost answer. */
  refundsOf(intentId: string): Promise<{ id: string; amountCents: number }[]>;
  /** The transfers made with a transfer group (`booking:{id}`), with what was reversed of each. */
  transfersOf(transferGroup: string): Promise<{ id: string; amountCents: number; reversedCents: number }[]>;
  /** Takes a transfer back (a paid booking refunded later). */
  reverseTransfer(transferId: string, amountCents: number | null, idempotencyKey: string): Promise<{ id: string }>;

  /** The hosted checkout page of the booking dialog flow (manual capture). */
  createCheckoutSession(
    input: { amountCents: number; currency: string; metadata: Record<string, string>; description: string; successUrl: string; cancelUrl: string },
    idempotencyKey: string,
  ): Promise<CheckoutSession>;

  /** The hosted checkout session as the provider knows it now, or null when it does not exist. */
  getCheckoutSession(id: string): Promise<CheckoutSessionState | null>;
  /**
   * Ends an open hosted checkout session: nothing can be paid on it afterwards. A session that is
   * no longer open (paid, or expired already) is answered as it is, so the caller reads which.
   */
  expireCheckoutSession(id: string, idempotencyKey: string): Promise<CheckoutSessionState>;

  /** A payout account for a host (Connect Express with Stripe). */
  createConnectedAccount(input: { userId: string; email: string | null }, idempotencyKey: string): Promise<ConnectedAccount>;
  /** Where the host completes the provider's onboarding; returns to `returnUrl`, or `refreshUrl` when the link expired. */
  onboardingLink(accountId: string, urls: { refreshUrl: string; returnUrl: string }): Promise<{ url: string }>;
  getConnectedAccount(accountId: string): Promise<ConnectedAccount | null>;

  /** Verifies a webhook on its raw body and signature header; throws PaymentError("invalid_request") when it does not verify. */
  parseWebhook(rawBody: string, signature: string | null): Promise<PaymentEvent>;
}

export type PaymentEventHandler = (event: PaymentEvent) => Promise<void> | void;

/**
 * Where verified provider events go: Stripe's webhook route (after verifying and deduplicating)
 * and the test provider (which has no webhooks and dispatches its own events) both call
 * `dispatch`; features such as bookings subscribe with `on`. Handlers are idempotent: an event may
 * arrive more than once, late, or out of order.
 */
export class PaymentEvents {
  private handlers: PaymentEventHandler[] = [];

  on(handler: PaymentEventHandler) {
    this.handlers.push(handler);
  }

  async dispatch(event: PaymentEvent) {
    for (const handler of this.handlers) await handler(event);
  }
}
