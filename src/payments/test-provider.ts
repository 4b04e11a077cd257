import { eq } from "drizzle-orm";
import { writeTransaction, type Db, type WriteTx, one, written } from "../../db/client";
import { loggable } from "../../db/faults";
import { type Movement, testCheckoutSessions, testConnectedAccounts, testPaymentIntents, testPaymentOperations } from "../../db/schema";
import {
  PaymentError,
  type CheckoutSession,
  type CheckoutSessionState,
  type ConnectedAccount,
  type PaymentEvent,
  type PaymentEvents,
  type PaymentIntent,
  type PaymentIntentStatus,
  type PaymentProvider,
} from "../ports/payments";
import { CARD_MESSAGES, luhnValid, TEST_CARDS, type CardInput, type ConfirmResult } from "./test-cards";
import { balanceOf, operationsOn, operationWithKey, recordOperation, reversedOf, testId } from "./test-operations";
import { decimalFromCents } from "../../lib/money";

/** The smallest charge, in the currency's minor unit (Stripe's for USD, EUR and JPY alike). */
const MINIMUM_CHARGE = 50;

type IntentRow = typeof testPaymentIntents.$inferSelect;

/**
 * What a test can make the provider do, to show what a real provider over a network does
 * (tests/money-races.ts): answer late while other calls run, and act without answering.
 */
export interface ProviderFaults {
  /** Every call waits this long before it acts, as a round trip to Stripe does. */
  latencyMs: number;
  /**
   * The next call of each listed movement acts, then fails as if its answer were lost (a timeout,
   * a crash). `authorize`: the next card confirmed is authorised, and neither the answer nor the
   * events reach the app, as when the app dies right after the provider acted.
   */
  loseAnswer: Set<Movement | "authorize">;
}

/**
 * The built-in test provider (ARCHITECTURE decision 6): no outside service, state in our own
 * database, the usual test cards. It behaves as Stripe does where bookings can tell: manual
 * capture, idempotency keys returning the first call's result, declines worded as Stripe words
 * them, authentication (3-D Secure) through a page of ours, and events dispatched through
 * `PaymentEvents` as Stripe's webhooks would deliver them.
 */
export class TestProvider implements PaymentProvider {
  readonly name = "test" as const;
  readonly testMode = true;
  /** None by default: the app's own test provider answers at once. */
  readonly faults: ProviderFaults = { latencyMs: 0, loseAnswer: new Set() };

  constructor(
    private readonly db: Db,
    private readonly events: PaymentEvents,
    private readonly now: () => number = Date.now,
  ) {}

  private toIntent(row: IntentRow): PaymentIntent {
    return {
      id: row.id,
      clientSecret: row.clientSecret,
      status: row.status as PaymentIntentStatus,
      amountCents: row.amountCents,
      currency: row.currency,
      metadata: row.metadata,
      lastError: row.lastError,
      nextActionUrl: row.status === "requires_action" ? `/payments/test/authenticate/${row.id}` : null,
    };
  }

  private async row(intentId: string) {
    return await one(this.db.select().from(testPaymentIntents).where(eq(testPaymentIntents.id, intentId)));
  }

  private async setStatus(intentId: string, status: PaymentIntentStatus, lastError: string | null = null) {
    await writeTransaction(this.db, (tx) => tx.update(testPaymentIntents).set({ status, lastError, updatedAt: this.now() }).where(eq(testPaymentIntents.id, intentId)));
  }

  private async emit(event: Omit<PaymentEvent, "id">) {
    try {
      await this.events.dispatch({ id: testId("tevt"), ...event });
    } catch (err) {
      // A webhook handler failing never undoes the payment; the reconciliation jobs catch up.
      console.error(`test provider: handling ${event.type} failed: ${loggable(err)}`);
    }
  }

  async createIntent(input: Parameters<PaymentProvider["createIntent"]>[0], idempotencyKey: string): Promise<PaymentIntent> {
    await this.roundTrip();
    // As Stripe: an integer in the currency's smallest unit (whole yen), at least 50 of them (50 cents, ¥50).
    if (!Number.isInteger(input.amountCents) || input.amountCents < MINIMUM_CHARGE) {
      throw new PaymentError(`Amount must be at least ${decimalFromCents(MINIMUM_CHARGE, input.currency)} ${input.currency.toUpperCase()}.`, "invalid_request", 400);
    }
    const existing = await one(this.db.select().from(testPaymentIntents).where(eq(testPaymentIntents.idempotencyKey, idempotencyKey)));
    if (existing) return this.toIntent(existing);
    const intentId = testId("tpi");
    const row = await written(writeTransaction(this.db, (tx) => tx
      .insert(testPaymentIntents)
      .values({
        id: intentId,
        clientSecret: `${intentId}_secret_${crypto.randomUUID().replace(/-/g, "")}`,
        status: "requires_payment_method",
        amountCents: input.amountCents,
        currency: input.currency,
        metadata: input.metadata,
        description: input.description ?? null,
        idempotencyKey,
        createdAt: this.now(),
        updatedAt: this.now(),
      })
      .returning()));
    return this.toIntent(row);
  }

  async getIntent(intentId: string): Promise<PaymentIntent | null> {
    await this.roundTrip();
    const row = await this.row(intentId);
    return row ? this.toIntent(row) : null;
  }

  /** The intent a browser holds the client secret of, or null. */
  async intentBySecret(clientSecret: string): Promise<PaymentIntent | null> {
    const row = await one(this.db.select().from(testPaymentIntents).where(eq(testPaymentIntents.clientSecret, clientSecret)));
    return row ? this.toIntent(row) : null;
  }

  /**
   * What the card form does (POST /api/payments/test/confirm): checks the card and authorises
   * the intent. Confirming an intent that is already authorised answers its state again, and
   * sends its news again.
   */
  async confirmCard(input: CardInput): Promise<ConfirmResult> {
    await this.roundTrip();
    const row = await one(this.db.select().from(testPaymentIntents).where(eq(testPaymentIntents.clientSecret, input.clientSecret)));
    if (!row) throw new PaymentError(CARD_MESSAGES.notFound, "not_found", 404);
    const intent = this.toIntent(row);
    const answer = (status: PaymentIntentStatus, error?: string): ConfirmResult => ({
      status,
      paymentIntentId: row.id,
      ...(error ? { error } : {}),
      ...(status === "requires_action" ? { nextActionUrl: `/payments/test/authenticate/${row.id}` } : {}),
    });
    // Confirmed again once authorised: its news is sent again too, as Stripe sends an event again
    // until it is received; an app that died before it heard of the authorisation hears it now.
    if (intent.status === "requires_capture") return this.authorised(row.id);
    if (intent.status === "succeeded" || intent.status === "requires_action") return answer(intent.status);
    if (intent.status === "canceled") return answer("canceled", CARD_MESSAGES.canceled);

    const refuse = async (message: string) => {
      await this.setStatus(row.id, "requires_payment_method", message);
      return answer("requires_payment_method", message);
    };
    const number = String(input.cardNumber ?? "").replace(/[\s-]/g, "");
    if (!luhnValid(number)) return refuse(CARD_MESSAGES.invalidNumber);
    const expiry = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(String(input.expiry ?? ""));
    const month = expiry ? Number(expiry[1]) : 0;
    if (!expiry || month < 1 || month > 12) return refuse(CARD_MESSAGES.invalidExpiry);
    const year = expiry[2]!.length === 2 ? 2000 + Number(expiry[2]) : Number(expiry[2]);
    const today = new Date(this.now());
    if (year * 12 + month < today.getUTCFullYear() * 12 + today.getUTCMonth() + 1) return refuse(CARD_MESSAGES.expired);
    if (!/^\d{3}$/.test(String(input.cvc ?? "").trim())) return refuse(CARD_MESSAGES.invalidCvc);

    switch (number) {
      case TEST_CARDS.success:
        return this.authorise(row.id);
      case TEST_CARDS.declined:
        await this.emit({ type: "payment_intent.payment_failed", objectId: row.id, metadata: row.metadata, paymentIntentId: row.id });
        return refuse(CARD_MESSAGES.declined);
      case TEST_CARDS.insufficientFunds:
        await this.emit({ type: "payment_intent.payment_failed", objectId: row.id, metadata: row.metadata, paymentIntentId: row.id });
        return refuse(CARD_MESSAGES.insufficientFunds);
      case TEST_CARDS.authentication:
        await this.setStatus(row.id, "requires_action");
        return answer("requires_action");
      default:
        return refuse(CARD_MESSAGES.unknownCard);
    }
  }

  /** The test authentication page's answer: approve authorises, fail refuses the card. */
  async authenticate(intentId: string, approve: boolean): Promise<ConfirmResult> {
    const row = await this.row(intentId);
    if (!row) throw new PaymentError(CARD_MESSAGES.notFound, "not_found", 404);
    if (row.status !== "requires_action") return { status: row.status as PaymentIntentStatus, paymentIntentId: row.id, ...(row.lastError ? { error: row.lastError } : {}) };
    if (approve) return this.authorise(row.id);
    await this.setStatus(row.id, "requires_payment_method", CARD_MESSAGES.authenticationFailed);
    return { status: "requires_payment_method", paymentIntentId: row.id, error: CARD_MESSAGES.authenticationFailed };
  }

  private async authorise(intentId: string): Promise<ConfirmResult> {
    await this.setStatus(intentId, "requires_capture");
    this.answerLost("authorize");
    return this.authorised(intentId);
  }

  /** The news of an authorised intent (and of its hosted checkout, completed with it), and the answer. */
  private async authorised(intentId: string): Promise<ConfirmResult> {
    const row = (await this.row(intentId))!;
    await this.emit({ type: "payment_intent.amount_capturable_updated", objectId: row.id, metadata: row.metadata, paymentIntentId: row.id });
    const session = await one(this.db.select().from(testCheckoutSessions).where(eq(testCheckoutSessions.paymentIntentId, intentId)));
    if (session && session.status === "open") {
      await writeTransaction(this.db, (tx) => tx.update(testCheckoutSessions).set({ status: "complete" }).where(eq(testCheckoutSessions.id, session.id)));
      await this.emit({ type: "checkout.session.completed", objectId: session.id, metadata: row.metadata, paymentIntentId: row.id });
    }
    return { status: "requires_capture", paymentIntentId: intentId };
  }

  /**
   * A call's way to the provider and back: nothing with the default faults; with `latencyMs`,
   * a wait before the call acts, during which other calls run (as they do against Stripe).
   */
  private async roundTrip() {
    if (this.faults.latencyMs > 0) await Bun.sleep(this.faults.latencyMs);
  }

  /** After acting: the answer is lost when a test asked for it (the provider acted, the caller never heard). */
  private answerLost(kind: Movement | "authorize") {
    if (this.faults.loseAnswer.delete(kind)) throw new PaymentError("The payment service did not answer in time.", "provider_unavailable", 503);
  }

  private async setStatusIn(tx: WriteTx, intentId: string, status: PaymentIntentStatus) {
    await tx.update(testPaymentIntents).set({ status, lastError: null, updatedAt: this.now() }).where(eq(testPaymentIntents.id, intentId));
  }

  async capture(intentId: string, idempotencyKey: string): Promise<PaymentIntent> {
    await this.roundTrip();
    const out = await writeTransaction(this.db, async (tx) => {
      const row = await one(tx.select().from(testPaymentIntents).where(eq(testPaymentIntents.id, intentId)));
      if (!row) return { error: new PaymentError(CARD_MESSAGES.notFound, "not_found", 404) };
      // The same key answers as the first time; another key on a captured payment is refused, as Stripe does.
      if (await operationWithKey(tx, idempotencyKey)) return { row, acted: false };
      if (row.status !== "requires_capture") return { error: new PaymentError(`This payment cannot be captured: it is ${row.status}.`, "invalid_request", 409) };
      await recordOperation(tx, this.now(), "capture", intentId, row.amountCents, idempotencyKey);
      await this.setStatusIn(tx, intentId, "succeeded");
      return { row, acted: true };
    });
    if ("error" in out) throw out.error;
    if (out.acted) {
      await this.emit({ type: "payment_intent.succeeded", objectId: intentId, metadata: out.row.metadata, paymentIntentId: intentId });
      this.answerLost("capture");
    }
    return this.toIntent((await this.row(intentId))!);
  }

  async release(intentId: string, idempotencyKey: string): Promise<PaymentIntent> {
    await this.roundTrip();
    const out = await writeTransaction(this.db, async (tx) => {
      const row = await one(tx.select().from(testPaymentIntents).where(eq(testPaymentIntents.id, intentId)));
      if (!row) return { error: new PaymentError(CARD_MESSAGES.notFound, "not_found", 404) };
      if (await operationWithKey(tx, idempotencyKey) || row.status === "canceled") return { row, acted: false };
      if (row.status === "succeeded") return { error: new PaymentError("This payment was already captured: refund it instead.", "invalid_request", 409) };
      await recordOperation(tx, this.now(), "release", intentId, row.amountCents, idempotencyKey);
      await this.setStatusIn(tx, intentId, "canceled");
      await tx.update(testCheckoutSessions).set({ status: "expired" }).where(eq(testCheckoutSessions.paymentIntentId, intentId));
      return { row, acted: true };
    });
    if ("error" in out) throw out.error;
    if (out.acted) {
      await this.emit({ type: "payment_intent.canceled", objectId: intentId, metadata: out.row.metadata, paymentIntentId: intentId });
      this.answerLost("release");
    }
    return this.toIntent((await this.row(intentId))!);
  }

  async refund(intentId: string, amountCents: number | null, idempotencyKey: string): Promise<{ id: string }> {
    await this.roundTrip();
    const out = await writeTransaction(this.db, async (tx) => {
      const previous = await operationWithKey(tx, idempotencyKey);
      if (previous) return { id: previous.id, acted: false };
      const row = await one(tx.select().from(testPaymentIntents).where(eq(testPaymentIntents.id, intentId)));
      if (!row) return { error: new PaymentError(CARD_MESSAGES.notFound, "not_found", 404) };
      if (row.status !== "succeeded") return { error: new PaymentError(`Only a captured payment can be refunded: it is ${row.status}.`, "invalid_request", 409) };
      const ops = await tx.select().from(testPaymentOperations).where(eq(testPaymentOperations.target, intentId));
      const refunded = ops.filter((o) => o.kind === "refund").reduce((sum, o) => sum + o.amountCents, 0);
      const amount = amountCents ?? row.amountCents - refunded;
      if (amount <= 0 || refunded + amount > row.amountCents) return { error: new PaymentError("The refund is more than what is left of the payment.", "invalid_request", 409) };
      return { id: await recordOperation(tx, this.now(), "refund", intentId, amount, idempotencyKey), acted: true };
    });
    if ("error" in out) throw out.error;
    if (out.acted) this.answerLost("refund");
    return { id: out.id };
  }

  async refundsOf(intentId: string): Promise<{ id: string; amountCents: number }[]> {
    await this.roundTrip();
    return (await operationsOn(this.db, intentId))
      .filter((o) => o.kind === "refund")
      .map((o) => ({ id: o.id, amountCents: o.amountCents }));
  }

  async transfersOf(transferGroup: string): Promise<{ id: string; amountCents: number; reversedCents: number }[]> {
    await this.roundTrip();
    const transfers = (await this.db
      .select()
      .from(testPaymentOperations)
      .where(eq(testPaymentOperations.transferGroup, transferGroup)))
      .filter((o) => o.kind === "transfer");
    return Promise.all(transfers.map(async (o) => ({ id: o.id, amountCents: o.amountCents, reversedCents: await reversedOf(this.db, o.id) })));
  }

  async transfer(input: Parameters<PaymentProvider["transfer"]>[0], idempotencyKey: string): Promise<{ id: string }> {
    await this.roundTrip();
    const out = await writeTransaction(this.db, async (tx) => {
      const previous = await operationWithKey(tx, idempotencyKey);
      if (previous) return { id: previous.id, acted: false };
      const account = await one(tx.select().from(testConnectedAccounts).where(eq(testConnectedAccounts.id, input.destinationAccountId)));
      if (!account) return { error: new PaymentError("No such payout account.", "not_found", 404) };
      if (!account.payoutsEnabled) return { error: new PaymentError("This payout account cannot receive transfers yet.", "invalid_request", 409) };
      if (!Number.isInteger(input.amountCents) || input.amountCents <= 0) return { error: new PaymentError("A transfer needs a positive amount.", "invalid_request", 400) };
      // As with Stripe's source_transaction: only a charged payment pays a transfer, up to what is left of it.
      const source = await one(tx.select().from(testPaymentIntents).where(eq(testPaymentIntents.id, input.sourceIntentId)));
      if (!source) return { error: new PaymentError(CARD_MESSAGES.notFound, "not_found", 404) };
      if (source.status !== "succeeded") return { error: new PaymentError("This payment has not been captured.", "invalid_request", 409) };
      const ops = await tx.select().from(testPaymentOperations).where(eq(testPaymentOperations.target, source.id));
      const refunded = ops.filter((o) => o.kind === "refund").reduce((sum, o) => sum + o.amountCents, 0);
      let transferred = 0;
      for (const t of ops.filter((o) => o.kind === "transfer")) transferred += t.amountCents - (await reversedOf(tx, t.id));
      if (input.amountCents > source.amountCents - refunded - transferred) return { error: new PaymentError("The transfer is more than what is left of the payment.", "invalid_request", 409) };
      return { id: await recordOperation(tx, this.now(), "transfer", input.sourceIntentId, input.amountCents, idempotencyKey, { destination: account.id, transferGroup: input.transferGroup }), acted: true };
    });
    if ("error" in out) throw out.error;
    if (out.acted) this.answerLost("transfer");
    return { id: out.id };
  }

  async reverseTransfer(transferId: string, amountCents: number | null, idempotencyKey: string): Promise<{ id: string }> {
    await this.roundTrip();
    const out = await writeTransaction(this.db, async (tx) => {
      const previous = await operationWithKey(tx, idempotencyKey);
      if (previous) return { id: previous.id };
      const transfer = await one(tx.select().from(testPaymentOperations).where(eq(testPaymentOperations.id, transferId)));
      if (!transfer || transfer.kind !== "transfer") return { error: new PaymentError("No such transfer.", "not_found", 404) };
      const left = transfer.amountCents - (await reversedOf(tx, transfer.id));
      const amount = amountCents ?? left;
      if (!Number.isInteger(amount) || amount <= 0 || amount > left) return { error: new PaymentError("The reversal is more than what is left of the transfer.", "invalid_request", 409) };
      // As Stripe: a reversal is taken from the payout account's balance, and refused when the
      // balance cannot cover it (it went to the host's bank).
      if (transfer.destination && (await balanceOf(tx, transfer.destination)) < amount) {
        return { error: new PaymentError("The payout account's balance is insufficient to cover this reversal.", "insufficient_funds", 409) };
      }
      return { id: await recordOperation(tx, this.now(), "reverse", transferId, amount, idempotencyKey) };
    });
    if ("error" in out) throw out.error;
    return { id: out.id };
  }

  async createCheckoutSession(input: Parameters<PaymentProvider["createCheckoutSession"]>[0], idempotencyKey: string): Promise<CheckoutSession> {
    const existing = await one(this.db.select().from(testCheckoutSessions).where(eq(testCheckoutSessions.idempotencyKey, idempotencyKey)));
    if (existing) return { id: existing.id, url: `/payments/test/checkout/${existing.id}`, paymentIntentId: existing.paymentIntentId };
    const intent = await this.createIntent({ amountCents: input.amountCents, currency: input.currency, metadata: input.metadata, description: input.description }, `${idempotencyKey}:intent`);
    const sessionId = testId("tcs");
    await writeTransaction(this.db, (tx) => tx
      .insert(testCheckoutSessions)
      .values({ id: sessionId, paymentIntentId: intent.id, description: input.description, successUrl: input.successUrl, cancelUrl: input.cancelUrl, idempotencyKey, createdAt: this.now() }));
    return { id: sessionId, url: `/payments/test/checkout/${sessionId}`, paymentIntentId: intent.id };
  }

  /**
   * The hosted checkout page's cancel button: the session ends unpaid, its intent is released,
   * and `checkout.session.expired` is reported (as Stripe does when a session expires). A paid
   * session stays as it is.
   */
  async expireCheckout(sessionId: string, idempotencyKey = `checkout:${sessionId}:expire`): Promise<void> {
    const session = await one(this.db.select().from(testCheckoutSessions).where(eq(testCheckoutSessions.id, sessionId)));
    if (!session || session.status === "complete") return;
    const row = await this.row(session.paymentIntentId);
    if (row && row.status !== "requires_capture" && row.status !== "succeeded") await this.release(row.id, idempotencyKey);
    if (session.status === "expired") return;
    await writeTransaction(this.db, (tx) => tx.update(testCheckoutSessions).set({ status: "expired" }).where(eq(testCheckoutSessions.id, session.id)));
    await this.emit({ type: "checkout.session.expired", objectId: session.id, metadata: row?.metadata ?? {}, paymentIntentId: session.paymentIntentId });
  }

  async getCheckoutSession(sessionId: string): Promise<CheckoutSessionState | null> {
    const session = await one(this.db.select().from(testCheckoutSessions).where(eq(testCheckoutSessions.id, sessionId)));
    if (!session) return null;
    const row = await this.row(session.paymentIntentId);
    // Paid is complete, as at Stripe, even when the news of it was lost on the way.
    const paid = row?.status === "requires_capture" || row?.status === "succeeded";
    return { id: session.id, status: paid ? "complete" : session.status, paymentIntentId: session.paymentIntentId };
  }

  /** As Stripe: only an open session is expired (its unpaid intent released, its news sent); any other is answered as it is. */
  async expireCheckoutSession(sessionId: string, idempotencyKey: string): Promise<CheckoutSessionState> {
    const before = await this.getCheckoutSession(sessionId);
    if (!before) throw new PaymentError("No such checkout session.", "not_found", 404);
    if (before.status === "open") await this.expireCheckout(sessionId, idempotencyKey);
    return (await this.getCheckoutSession(sessionId))!;
  }

  /** The hosted checkout page's data: the session and its intent. */
  async checkoutSession(sessionId: string) {
    const session = await one(this.db.select().from(testCheckoutSessions).where(eq(testCheckoutSessions.id, sessionId)));
    if (!session) return null;
    const row = await this.row(session.paymentIntentId);
    return row ? { session, intent: this.toIntent(row) } : null;
  }

  async createConnectedAccount(input: { userId: string; email: string | null }, idempotencyKey: string): Promise<ConnectedAccount> {
    const existing = await one(this.db.select().from(testConnectedAccounts).where(eq(testConnectedAccounts.idempotencyKey, idempotencyKey)));
    if (existing) return this.toAccount(existing);
    const row = await written(writeTransaction(this.db, (tx) => tx
      .insert(testConnectedAccounts)
      .values({ id: testId("tacct"), userId: input.userId, email: input.email, idempotencyKey, createdAt: this.now() })
      .returning()));
    return this.toAccount(row);
  }

  private toAccount(row: typeof testConnectedAccounts.$inferSelect): ConnectedAccount {
    return { id: row.id, payoutsEnabled: row.payoutsEnabled, requirements: row.payoutsEnabled ? [] : ["test_onboarding"] };
  }

  async onboardingLink(accountId: string, urls: { refreshUrl: string; returnUrl: string }): Promise<{ url: string }> {
    const q = new URLSearchParams({ return: urls.returnUrl, refresh: urls.refreshUrl });
    return { url: `/payments/test/onboarding/${accountId}?${q}` };
  }

  async getConnectedAccount(accountId: string): Promise<ConnectedAccount | null> {
    await this.roundTrip();
    const row = await one(this.db.select().from(testConnectedAccounts).where(eq(testConnectedAccounts.id, accountId)));
    return row ? this.toAccount(row) : null;
  }

  /** The test onboarding page's button: the account can receive payouts from now on. */
  enableAccount(accountId: string): Promise<ConnectedAccount | null> {
    return this.setPayoutsEnabled(accountId, true);
  }

  /**
   * The account's whole balance sent to its bank, as the provider's automatic payouts do (a test's
   * control, like `faults`): a reversal afterwards finds nothing to take back. Answers the amount.
   */
  async payOutBalance(accountId: string): Promise<number> {
    return await writeTransaction(this.db, async (tx) => {
      const balance = await balanceOf(tx, accountId);
      if (balance > 0) await recordOperation(tx, this.now(), "payout", accountId, balance, `account:${accountId}:payout:${testId("po")}`);
      return Math.max(0, balance);
    });
  }

  /** The host finishing onboarding (true), or the account losing its payouts (false); reported as `account.updated`. */
  async setPayoutsEnabled(accountId: string, enabled: boolean): Promise<ConnectedAccount | null> {
    const row = await one(writeTransaction(this.db, (tx) => tx.update(testConnectedAccounts).set({ payoutsEnabled: enabled }).where(eq(testConnectedAccounts.id, accountId)).returning()));
    if (!row) return null;
    await this.emit({ type: "account.updated", objectId: row.id, metadata: { userId: row.userId }, paymentIntentId: null });
    return this.toAccount(row);
  }

  async parseWebhook(): Promise<PaymentEvent> {
    throw new PaymentError("The test provider sends no webhooks.", "invalid_request", 400);
  }
}
