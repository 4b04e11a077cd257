import Stripe from "stripe";
import type { Config } from "../config";
import {
  PaymentError,
  type CheckoutSession,
  type CheckoutSessionState,
  type ConnectedAccount,
  type PaymentEvent,
  type PaymentIntent,
  type PaymentIntentStatus,
  type PaymentProvider,
} from "../ports/payments";

export type StripeSettings = NonNullable<Config["stripe"]>;

/**
 * How long one attempt of a Stripe call may take. With two retries, a call has ended (answered or
 * failed) well within the grace period after which an unrecorded movement is recovered
 * (`RECOVERY_GRACE_MS`, docs/decisions/0028), so recovery never races a live call.
 */
export const STRIPE_TIMEOUT_MS = 20_000;

/** The event types bookings and payout setup act on; anything else arrives as "other". */
const KNOWN_EVENTS = new Set<PaymentEvent["type"]>([
  "payment_intent.amount_capturable_updated",
  "payment_intent.succeeded",
  "payment_intent.canceled",
  "payment_intent.payment_failed",
  "checkout.session.completed",
  "checkout.session.expired",
  "account.updated",
]);

const STATUSES = new Set<PaymentIntentStatus>([
  "requires_payment_method",
  "requires_confirmation",
  "requires_action",
  "processing",
  "requires_capture",
  "succeeded",
  "canceled",
]);

/** Stripe's card error codes, as our PaymentError codes. */
function codeOf(err: { code?: string; decline_code?: string; type?: string }): string {
  const code = err.decline_code === "insufficient_funds" ? "insufficient_funds" : err.code;
  switch (code) {
    case "card_declined":
      return "declined";
    case "insufficient_funds":
      return "insufficient_funds";
    case "authentication_required":
      return "authentication_required";
    case "expired_card":
    case "incorrect_cvc":
    case "invalid_cvc":
    case "incorrect_number":
    case "invalid_number":
    case "invalid_expiry_month":
    case "invalid_expiry_year":
      return "invalid_card";
    case "resource_missing":
      return "not_found";
    default:
      return err.type === "card_error" ? "declined" : "invalid_request";
  }
}

/**
 * Any failure of a Stripe call as a PaymentError: card errors keep Stripe's message ("Your card was
 * declined.") with 402, a missing object is 404, Stripe being unreachable or failing is 503, and
 * a refused request (a wrong state, a bad parameter) is 400 with Stripe's message.
 */
export function paymentErrorOf(err: unknown): PaymentError {
  if (err instanceof PaymentError) return err;
  if (err instanceof Stripe.errors.StripeError) {
    if (err instanceof Stripe.errors.StripeCardError) return new PaymentError(err.message, codeOf(err), 402);
    // 409: a request with the same idempotency key is still being processed (a retry after a
    // timeout met the first attempt): it may yet act, so this is no answer, never a refusal.
    if (err.statusCode === 409) return new PaymentError(err.message || "The payment service is still processing this request.", "provider_unavailable", 503);
    if (
      err instanceof Stripe.errors.StripeConnectionError ||
      err instanceof Stripe.errors.StripeAPIError ||
      err instanceof Stripe.errors.StripeRateLimitError ||
      err instanceof Stripe.errors.StripeAuthenticationError ||
      err instanceof Stripe.errors.StripePermissionError
    ) {
      return new PaymentError(err.message || "The payment service is unavailable.", "provider_unavailable", 503);
    }
    const code = codeOf(err);
    return new PaymentError(err.message, code, code === "not_found" ? 404 : 400);
  }
  return new PaymentError(err instanceof Error ? err.message : String(err), "provider_unavailable", 503);
}

/** Metadata as Stripe returns it: string values only. */
function stringsOf(metadata: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (metadata && typeof metadata === "object") {
    for (const [k, v] of Object.entries(metadata)) if (typeof v === "string") out[k] = v;
  }
  return out;
}

const idOf = (value: unknown): string | null =>
  typeof value === "string" ? value : value && typeof value === "object" && "id" in value && typeof value.id === "string" ? value.id : null;

function intentOf(pi: Stripe.PaymentIntent): PaymentIntent {
  return {
    id: pi.id,
    clientSecret: pi.client_secret ?? "",
    status: STATUSES.has(pi.status as PaymentIntentStatus) ? (pi.status as PaymentIntentStatus) : "requires_payment_method",
    amountCents: pi.amount,
    currency: pi.currency,
    metadata: stringsOf(pi.metadata),
    lastError: pi.last_payment_error?.message ?? null,
    nextActionUrl: pi.next_action?.redirect_to_url?.url ?? null,
  };
}

function sessionStateOf(session: Stripe.Checkout.Session): CheckoutSessionState {
  // A session Stripe reports without a status (older objects) is open until it says otherwise.
  const status: CheckoutSessionState["status"] = session.status === "complete" ? "complete" : session.status === "expired" ? "expired" : "open";
  return { id: session.id, status, paymentIntentId: idOf(session.payment_intent) };
}

function accountOf(account: Stripe.Account): ConnectedAccount {
  return {
    id: account.id,
    payoutsEnabled: account.payouts_enabled === true,
    requirements: [...(account.requirements?.currently_due ?? [])],
  };
}

/**
 * Where Stripe's hosted pages live (Connect onboarding, Checkout): our forms redirect there, so
 * the page's form-action policy must allow them. A local Stripe (`apiBase`) serves its own.
 */
export function stripeHostedOrigins(settings: StripeSettings): string[] {
  const origins = ["https://connect.stripe.com", "https://checkout.stripe.com"];
  if (settings.apiBase) origins.push(new URL(settings.apiBase).origin);
  return origins;
}

/**
 * Payments through Stripe: PaymentIntents with manual capture (authorised when a request is sent,
 * captured on acceptance, cancelled to release), separate charges and transfers to Connect
 * Express accounts, Checkout for the hosted page, and signed webhooks. Every call that creates
 * or moves something carries the caller's idempotency key.
 */
export class StripeProvider implements PaymentProvider {
  readonly name = "stripe" as const;
  readonly testMode: boolean;
  private readonly stripe: Stripe;

  constructor(private readonly settings: StripeSettings) {
    this.testMode = settings.secretKey.startsWith("sk_test_") || settings.secretKey.startsWith("rk_test_");
    const options: ConstructorParameters<typeof Stripe>[1] = { maxNetworkRetries: 2, timeout: STRIPE_TIMEOUT_MS, telemetry: false };
    if (settings.apiBase) {
      const base = new URL(settings.apiBase);
      options.protocol = base.protocol === "http:" ? "http" : "https";
      options.host = base.hostname;
      options.port = base.port || (base.protocol === "http:" ? "80" : "443");
    }
    this.stripe = new Stripe(settings.secretKey, options);
  }

  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw paymentErrorOf(err);
    }
  }

  createIntent(
    input: { amountCents: number; currency: string; metadata: Record<string, string>; transferGroup?: string; description?: string },
    idempotencyKey: string,
  ) {
    return this.call(async () => {
      const pi = await this.stripe.paymentIntents.create(
        {
          amount: input.amountCents,
          currency: input.currency,
          capture_method: "manual",
          allowed_payment_method_types: ["card"],
          metadata: input.metadata,
          ...(input.transferGroup ? { transfer_group: input.transferGroup } : {}),
          ...(input.description ? { description: input.description } : {}),
        },
        { idempotencyKey },
      );
      return intentOf(pi);
    });
  }

  async getIntent(id: string) {
    try {
      return intentOf(await this.stripe.paymentIntents.retrieve(id));
    } catch (err) {
      const e = paymentErrorOf(err);
      if (e.code === "not_found") return null;
      throw e;
    }
  }

  capture(id: string, idempotencyKey: string) {
    return this.call(async () => intentOf(await this.stripe.paymentIntents.capture(id, {}, { idempotencyKey })));
  }

  async release(id: string, idempotencyKey: string) {
    try {
      return intentOf(await this.stripe.paymentIntents.cancel(id, {}, { idempotencyKey }));
    } catch (err) {
      // Releasing a released authorisation is fine: Stripe refuses it, the intent says canceled.
      const e = paymentErrorOf(err);
      if (e.code === "not_found") throw e;
      const now = await this.getIntent(id);
      if (now?.status === "canceled") return now;
      throw e;
    }
  }

  refund(intentId: string, amountCents: number | null, idempotencyKey: string) {
    return this.call(async () => {
      const refund = await this.stripe.refunds.create(
        { payment_intent: intentId, ...(amountCents !== null ? { amount: amountCents } : {}) },
        { idempotencyKey },
      );
      return { id: refund.id };
    });
  }

  transfer(
    input: { amountCents: number; currency: string; destinationAccountId: string; sourceIntentId: string; transferGroup: string },
    idempotencyKey: string,
  ) {
    return this.call(async () => {
      // A transfer is tied to the charge that paid for it, so it can leave before that charge's
      // funds are available in our balance.
      const pi = await this.stripe.paymentIntents.retrieve(input.sourceIntentId);
      const charge = idOf(pi.latest_charge);
      if (pi.status !== "succeeded" || !charge) {
        throw new PaymentError("This payment has not been captured.", "invalid_request", 400);
      }
      const transfer = await this.stripe.transfers.create(
        {
          amount: input.amountCents,
          currency: input.currency,
          destination: input.destinationAccountId,
          source_transaction: charge,
          transfer_group: input.transferGroup,
        },
        { idempotencyKey },
      );
      return { id: transfer.id };
    });
  }

  refundsOf(intentId: string) {
    return this.call(async () => {
      const out: { id: string; amountCents: number }[] = [];
      for await (const refund of this.stripe.refunds.list({ payment_intent: intentId, limit: 100 })) {
        if (refund.status !== "failed" && refund.status !== "canceled") out.push({ id: refund.id, amountCents: refund.amount });
      }
      return out;
    });
  }

  transfersOf(transferGroup: string) {
    return this.call(async () => {
      const out: { id: string; amountCents: number; reversedCents: number }[] = [];
      for await (const transfer of this.stripe.transfers.list({ transfer_group: transferGroup, limit: 100 })) {
        out.push({ id: transfer.id, amountCents: transfer.amount, reversedCents: transfer.amount_reversed });
      }
      return out;
    });
  }

  reverseTransfer(transferId: string, amountCents: number | null, idempotencyKey: string) {
    return this.call(async () => {
      const reversal = await this.stripe.transfers.createReversal(transferId, amountCents !== null ? { amount: amountCents } : {}, { idempotencyKey });
      return { id: reversal.id };
    });
  }

  createCheckoutSession(
    input: { amountCents: number; currency: string; metadata: Record<string, string>; description: string; successUrl: string; cancelUrl: string },
    idempotencyKey: string,
  ): Promise<CheckoutSession> {
    return this.call(async () => {
      const session = await this.stripe.checkout.sessions.create(
        {
          mode: "payment",
          line_items: [
            { quantity: 1, price_data: { currency: input.currency, unit_amount: input.amountCents, product_data: { name: input.description } } },
          ],
          payment_intent_data: {
            capture_method: "manual",
            metadata: input.metadata,
            ...(input.metadata.bookingId ? { transfer_group: `booking:${input.metadata.bookingId}` } : {}),
          },
          metadata: input.metadata,
          success_url: input.successUrl,
          cancel_url: input.cancelUrl,
        },
        { idempotencyKey },
      );
      return { id: session.id, url: session.url ?? "", paymentIntentId: idOf(session.payment_intent) };
    });
  }

  async getCheckoutSession(id: string) {
    try {
      return sessionStateOf(await this.stripe.checkout.sessions.retrieve(id));
    } catch (err) {
      const e = paymentErrorOf(err);
      if (e.code === "not_found") return null;
      throw e;
    }
  }

  async expireCheckoutSession(id: string, idempotencyKey: string) {
    try {
      return sessionStateOf(await this.stripe.checkout.sessions.expire(id, {}, { idempotencyKey }));
    } catch (err) {
      // Stripe expires only an open session and refuses any other (paid meanwhile, or expired
      // already): the session as it is now says which. No answer is no answer.
      const e = paymentErrorOf(err);
      if (e.status >= 500 || e.code === "not_found") throw e;
      const current = await this.getCheckoutSession(id);
      if (current && current.status !== "open") return current;
      throw e;
    }
  }

  createConnectedAccount(input: { userId: string; email: string | null }, idempotencyKey: string) {
    return this.call(async () => {
      const account = await this.stripe.accounts.create(
        {
          type: "express",
          ...(input.email ? { email: input.email } : {}),
          capabilities: { transfers: { requested: true } },
          metadata: { userId: input.userId },
        },
        { idempotencyKey },
      );
      return accountOf(account);
    });
  }

  onboardingLink(accountId: string, urls: { refreshUrl: string; returnUrl: string }) {
    return this.call(async () => {
      const link = await this.stripe.accountLinks.create({
        account: accountId,
        type: "account_onboarding",
        refresh_url: urls.refreshUrl,
        return_url: urls.returnUrl,
      });
      return { url: link.url };
    });
  }

  async getConnectedAccount(accountId: string) {
    try {
      return accountOf(await this.stripe.accounts.retrieve(accountId));
    } catch (err) {
      const e = paymentErrorOf(err);
      if (e.code === "not_found") return null;
      throw e;
    }
  }

  async parseWebhook(rawBody: string, signature: string | null): Promise<PaymentEvent> {
    const secret = this.settings.webhookSecret;
    if (!secret || !signature) throw new PaymentError("Webhook signature missing.", "invalid_request", 400);
    let event: Stripe.Event;
    try {
      event = await this.stripe.webhooks.constructEventAsync(rawBody, signature, secret);
    } catch {
      throw new PaymentError("Webhook signature does not verify.", "invalid_request", 400);
    }
    const object = (event.data?.object ?? {}) as unknown as Record<string, unknown>;
    const type = KNOWN_EVENTS.has(event.type as PaymentEvent["type"]) ? (event.type as PaymentEvent["type"]) : "other";
    const objectId = idOf(object) ?? "";
    const paymentIntentId = type.startsWith("payment_intent.") ? objectId : type.startsWith("checkout.session.") ? idOf(object.payment_intent) : null;
    return { id: event.id, type, objectId, metadata: stringsOf(object.metadata), paymentIntentId };
  }
}
