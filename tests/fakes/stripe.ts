/**
 * A local, stateful Stripe at its HTTP boundary: the endpoints the app's Stripe provider calls,
 * with Stripe's form-encoded requests, its JSON objects and errors, idempotency keys (the same
 * key replays the first answer; the same key with other parameters is refused), and signed
 * webhook delivery. The real `stripe` SDK talks to it through its `host`, `port` and `protocol`
 * options.
 *
 * The browser's side (Stripe.js confirming a card, a host completing onboarding, a guest paying
 * on Checkout) is played by the test through `confirm`, `setPayoutsEnabled` and
 * `completeCheckout`. Every state change also records the event Stripe would send (`events`),
 * for the test to deliver with `sendWebhook`.
 */
import { createHmac } from "node:crypto";

export const FAKE_SECRET_KEY = "sk_test_fake_offline";
export const FAKE_PUBLISHABLE_KEY = "pk_test_fake_offline";
export const FAKE_WEBHOOK_SECRET = "whsec_fake_offline";

export const CARDS = {
  ok: "4242424242424242",
  declined: "4000000000000002",
  insufficientFunds: "4000000000009995",
  authenticate: "4000002760003184",
} as const;

type Params = Record<string, unknown>;
type Obj = Record<string, unknown> & { id: string };

export interface RecordedRequest {
  method: string;
  path: string;
  params: Params;
  /** The Idempotency-Key header as sent (the SDK keys every POST itself when the caller does not). */
  idempotencyKey: string | null;
  status: number;
}

class StripeFailure {
  constructor(
    readonly status: number,
    readonly error: { type: string; message: string; code?: string; decline_code?: string; param?: string; payment_intent?: Obj },
  ) {}
}

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
function randomId(prefix: string, length = 24) {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return `${prefix}_${Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join("")}`;
}

/** `a[b][0][c]=1` as nested objects and arrays, the way Stripe reads the SDK's form bodies. */
export function parseStripeForm(text: string): Params {
  const root: Params = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.split("[").map((p, i) => (i === 0 ? p : p.replace(/]$/, "")));
    let node: Record<string, unknown> | unknown[] = root;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const index = part === "" ? (node as unknown[]).length : /^\d+$/.test(part) ? Number(part) : part;
      const container = node as Record<string | number, unknown>;
      if (last) {
        container[index] = value;
        return;
      }
      if (container[index] === undefined) container[index] = /^\d*$/.test(parts[i + 1]!) ? [] : {};
      node = container[index] as Record<string, unknown> | unknown[];
    });
  }
  return root;
}

const str = (v: unknown) => (typeof v === "string" ? v : undefined);
const int = (v: unknown) => (typeof v === "string" && /^\d+$/.test(v) ? Number(v) : undefined);
const record = (v: unknown): Record<string, string> =>
  v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === "string")) : {};

const missing = (param: string) =>
  new StripeFailure(400, { type: "invalid_request_error", code: "parameter_missing", param, message: `Missing required param: ${param}.` });
const noSuch = (kind: string, id: string, param = "id") =>
  new StripeFailure(404, { type: "invalid_request_error", code: "resource_missing", param, message: `No such ${kind}: '${id}'` });

/**
 * Amounts as Stripe reads them: an integer in the currency's smallest unit (cents; whole yen, as
 * JPY is one of Stripe's zero-decimal currencies), so "12.5" is no amount ("Invalid integer").
 * A charge below Stripe's minimum for its currency is refused (amount_too_small: 50 cents, 30
 * pence, ¥50, …), as is one above its eight-digit maximum: an amount sent in the wrong unit
 * (yen × 100, or cents / 100) fails here as it would at Stripe.
 */
const ZERO_DECIMAL = new Set(["bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "ugx", "vnd", "vuv", "xaf", "xof", "xpf"]);
const MINIMUM_CHARGE: Record<string, number> = { usd: 50, eur: 50, gbp: 30, jpy: 50, cad: 50, aud: 50, brl: 50, chf: 50, dkk: 250, nok: 300, sek: 300, hkd: 400, mxn: 1000, sgd: 50, nzd: 50, pln: 200, czk: 1500, huf: 17500, thb: 1000, myr: 200, aed: 200, ron: 200, bgn: 100, inr: 50 };
const MAXIMUM_AMOUNT = 99_999_999;

function integerAmount(v: unknown, param: string): number {
  if (v === undefined) throw missing(param);
  if (typeof v !== "string" || !/^-?\d+$/.test(v)) throw new StripeFailure(400, { type: "invalid_request_error", code: "parameter_invalid_integer", param, message: `Invalid integer: ${String(v)}` });
  return Number(v);
}

/** A charge's amount as Stripe checks it in its currency (see above). */
function chargeAmount(v: unknown, currency: string, param = "amount"): number {
  const amount = integerAmount(v, param);
  const minimum = MINIMUM_CHARGE[currency] ?? (ZERO_DECIMAL.has(currency) ? 1 : 50);
  if (amount < minimum) {
    const shown = ZERO_DECIMAL.has(currency) ? `${minimum} ${currency}` : `${(minimum / 100).toFixed(2)} ${currency}`;
    throw new StripeFailure(400, { type: "invalid_request_error", code: "amount_too_small", param, message: `Amount must be at least ${shown}` });
  }
  if (amount > MAXIMUM_AMOUNT) throw new StripeFailure(400, { type: "invalid_request_error", code: "amount_too_large", param, message: `Amount must be no more than ${MAXIMUM_AMOUNT}` });
  return amount;
}

const CANCELABLE = ["requires_payment_method", "requires_capture", "requires_confirmation", "requires_action", "processing"];

export function startFakeStripe(opts: { secretKey?: string; webhookSecret?: string } = {}) {
  const secretKey = opts.secretKey ?? FAKE_SECRET_KEY;
  const webhookSecret = opts.webhookSecret ?? FAKE_WEBHOOK_SECRET;
  const intents = new Map<string, Obj>();
  const charges = new Map<string, Obj>();
  const refunds = new Map<string, Obj>();
  const transfers = new Map<string, Obj>();
  const accounts = new Map<string, Obj>();
  const sessions = new Map<string, Obj>();
  const accountLinks: Obj[] = [];
  /** What each connected account has paid out to its bank (`payOutBalance`). */
  const paidOut = new Map<string, number>();
  /** A connected account's balance: the transfers it received, less their reversals and what went to its bank. */
  const balanceOf = (accountId: string) =>
    [...transfers.values()].filter((t) => t.destination === accountId).reduce((sum, t) => sum + (t.amount as number) - (t.amount_reversed as number), 0) - (paidOut.get(accountId) ?? 0);
  const requests: RecordedRequest[] = [];
  const events: Obj[] = [];
  const idempotent = new Map<string, { request: string; status: number; body: unknown }>();
  const now = () => Math.floor(Date.now() / 1000);
  let origin = "";

  function event(type: string, object: Obj): Obj {
    const e: Obj = {
      id: randomId("evt"),
      object: "event",
      api_version: "2026-10-28.endive",
      created: now(),
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      data: { object: structuredClone(object) },
    };
    events.push(e);
    return e;
  }

  function newIntent(p: Params): Obj {
    const id = randomId("pi");
    const currency = str(p.currency)?.toLowerCase();
    if (!currency) throw missing("currency");
    const amount = chargeAmount(p.amount, currency);
    const pi: Obj = {
      id,
      object: "payment_intent",
      amount,
      amount_capturable: 0,
      amount_received: 0,
      capture_method: str(p.capture_method) ?? "automatic_async",
      client_secret: `${id}_secret_${randomId("s").slice(2)}`,
      created: now(),
      currency,
      description: str(p.description) ?? null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata: record(p.metadata),
      next_action: null,
      payment_method: null,
      payment_method_types: Array.isArray(p.allowed_payment_method_types) ? p.allowed_payment_method_types : ["card"],
      status: "requires_payment_method",
      transfer_group: str(p.transfer_group) ?? null,
    };
    intents.set(id, pi);
    return pi;
  }

  function getIntent(id: string) {
    const pi = intents.get(id);
    if (!pi) throw noSuch("payment_intent", id, "intent");
    return pi;
  }

  function unexpectedState(pi: Obj, action: "captured" | "canceled", allowed: string[]) {
    const verb = action === "captured" ? "could not be captured because it has" : "cannot be canceled because it has";
    return new StripeFailure(400, {
      type: "invalid_request_error",
      code: "payment_intent_unexpected_state",
      message: `This PaymentIntent ${verb} a status of ${String(pi.status)}. Only a PaymentIntent with one of the following statuses may be ${action}: ${allowed.join(", ")}.`,
      payment_intent: structuredClone(pi),
    });
  }

  /** The browser confirming a card on an intent (what Stripe.js does), with Stripe's test cards. */
  function confirmIntent(pi: Obj, card: string, returnUrl = "http://localhost/return") {
    if (!["requires_payment_method", "requires_confirmation", "requires_action"].includes(String(pi.status))) {
      return unexpectedState(pi, "captured", ["requires_payment_method", "requires_confirmation", "requires_action"]);
    }
    const number = card.replace(/\s+/g, "");
    pi.payment_method = randomId("pm");
    const declines: Record<string, { code: string; decline_code: string; message: string }> = {
      [CARDS.declined]: { code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." },
      [CARDS.insufficientFunds]: { code: "card_declined", decline_code: "insufficient_funds", message: "Your card has insufficient funds." },
    };
    const decline = declines[number];
    if (decline) {
      const charge: Obj = { id: randomId("ch"), object: "charge", amount: pi.amount, currency: pi.currency, status: "failed", captured: false, payment_intent: pi.id, amount_refunded: 0, transferred: 0 };
      charges.set(charge.id, charge);
      pi.latest_charge = charge.id;
      pi.status = "requires_payment_method";
      pi.last_payment_error = { type: "card_error", charge: charge.id, ...decline };
      pi.payment_method = null;
      event("payment_intent.payment_failed", pi);
      return new StripeFailure(402, { type: "card_error", ...decline, payment_intent: structuredClone(pi) });
    }
    if (number === CARDS.authenticate && pi.status !== "requires_action") {
      pi.status = "requires_action";
      pi.next_action = { type: "redirect_to_url", redirect_to_url: { url: `${origin}/3ds/${pi.id}`, return_url: returnUrl } };
      event("payment_intent.requires_action", pi);
      return null;
    }
    if (number !== CARDS.ok && number !== CARDS.authenticate) {
      pi.last_payment_error = { type: "card_error", code: "incorrect_number", message: "Your card number is incorrect." };
      return new StripeFailure(402, { type: "card_error", code: "incorrect_number", message: "Your card number is incorrect." });
    }
    const charge: Obj = { id: randomId("ch"), object: "charge", amount: pi.amount, currency: pi.currency, status: "succeeded", captured: false, payment_intent: pi.id, amount_refunded: 0, transferred: 0, transfer_group: pi.transfer_group };
    charges.set(charge.id, charge);
    pi.latest_charge = charge.id;
    pi.last_payment_error = null;
    pi.next_action = null;
    if (pi.capture_method === "manual") {
      pi.status = "requires_capture";
      pi.amount_capturable = pi.amount;
      event("payment_intent.amount_capturable_updated", pi);
    } else {
      pi.status = "succeeded";
      pi.amount_received = pi.amount;
      charge.captured = true;
      event("payment_intent.succeeded", pi);
    }
    return null;
  }

  function getAccount(id: string, param = "account") {
    const account = accounts.get(id);
    if (!account) throw noSuch("account", id, param);
    return account;
  }

  /** One API call: the answer's status and body, or a StripeFailure thrown. */
  function route(method: string, path: string, p: Params, livemode: boolean): { status: number; body: unknown } {
    const parts = path.split("/").filter(Boolean);
    if (parts[0] !== "v1") throw new StripeFailure(404, { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` });
    const [, resource, id, action, sub] = parts;

    if (resource === "payment_intents") {
      if (method === "POST" && !id) return { status: 200, body: newIntent(p) };
      const pi = getIntent(id ?? "");
      if (method === "GET" && !action) return { status: 200, body: pi };
      if (method === "POST" && action === "capture") {
        if (pi.status !== "requires_capture") throw unexpectedState(pi, "captured", ["requires_capture"]);
        const amount = p.amount_to_capture === undefined ? (pi.amount as number) : integerAmount(p.amount_to_capture, "amount_to_capture");
        pi.status = "succeeded";
        pi.amount_capturable = 0;
        pi.amount_received = amount;
        const charge = charges.get(String(pi.latest_charge))!;
        charge.captured = true;
        charge.amount_captured = amount;
        event("payment_intent.succeeded", pi);
        return { status: 200, body: pi };
      }
      if (method === "POST" && action === "cancel") {
        if (!CANCELABLE.includes(String(pi.status))) throw unexpectedState(pi, "canceled", CANCELABLE);
        pi.status = "canceled";
        pi.amount_capturable = 0;
        pi.canceled_at = now();
        pi.cancellation_reason = str(p.cancellation_reason) ?? "requested_by_customer";
        event("payment_intent.canceled", pi);
        return { status: 200, body: pi };
      }
    }

    if (resource === "refunds" && method === "POST" && !id) {
      const intentId = str(p.payment_intent);
      if (!intentId) throw missing("payment_intent");
      const pi = intents.get(intentId);
      if (!pi) throw noSuch("payment_intent", intentId, "payment_intent");
      const charge = pi.latest_charge ? charges.get(String(pi.latest_charge)) : undefined;
      if (pi.status !== "succeeded" || !charge) {
        throw new StripeFailure(400, { type: "invalid_request_error", code: "charge_not_refundable", message: `This PaymentIntent (${pi.id}) does not have a successful charge to refund.` });
      }
      const left = (pi.amount_received as number) - (charge.amount_refunded as number);
      if (left <= 0) throw new StripeFailure(400, { type: "invalid_request_error", code: "charge_already_refunded", message: `Charge ${charge.id} has already been refunded.` });
      const amount = p.amount === undefined ? left : integerAmount(p.amount, "amount");
      if (amount > left) {
        throw new StripeFailure(400, { type: "invalid_request_error", code: "amount_too_large", param: "amount", message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})` });
      }
      charge.amount_refunded = (charge.amount_refunded as number) + amount;
      charge.refunded = charge.amount_refunded === pi.amount_received;
      const refund: Obj = { id: randomId("re"), object: "refund", amount, charge: charge.id, currency: pi.currency, payment_intent: pi.id, status: "succeeded", created: now(), metadata: record(p.metadata) };
      refunds.set(refund.id, refund);
      return { status: 200, body: refund };
    }

    if (resource === "refunds" && method === "GET" && !id) {
      const intentId = str(p.payment_intent);
      const data = [...refunds.values()].filter((r) => !intentId || r.payment_intent === intentId);
      return { status: 200, body: { object: "list", data, has_more: false, url: "/v1/refunds" } };
    }

    if (resource === "transfers") {
      if (method === "GET" && !id) {
        const group = str(p.transfer_group);
        const data = [...transfers.values()].filter((t) => !group || t.transfer_group === group);
        return { status: 200, body: { object: "list", data, has_more: false, url: "/v1/transfers" } };
      }
      if (method === "POST" && !id) {
        const amount = integerAmount(p.amount, "amount");
        const currency = str(p.currency)?.toLowerCase();
        const destination = str(p.destination);
        if (!currency) throw missing("currency");
        if (!destination) throw missing("destination");
        const account = getAccount(destination, "destination");
        if ((account.capabilities as Record<string, string>).transfers !== "active") {
          throw new StripeFailure(400, {
            type: "invalid_request_error",
            code: "insufficient_capabilities_for_transfer",
            param: "destination",
            message: "Your destination account needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments",
          });
        }
        const source = str(p.source_transaction);
        if (source) {
          const charge = charges.get(source);
          if (!charge) throw noSuch("charge", source, "source_transaction");
          if (!charge.captured) throw new StripeFailure(400, { type: "invalid_request_error", param: "source_transaction", message: `The charge ${source} has not been captured.` });
          // A transfer from a charge is in the charge's currency (no conversion here).
          if (charge.currency !== currency) throw new StripeFailure(400, { type: "invalid_request_error", param: "currency", message: `The currency of source_transaction's balance transaction (${String(charge.currency)}) must be the same as the transfer currency (${currency}).` });
          const available = (charge.amount as number) - (charge.amount_refunded as number) - (charge.transferred as number);
          if (amount > available) {
            throw new StripeFailure(400, { type: "invalid_request_error", code: "balance_insufficient", param: "amount", message: `Insufficient funds in Stripe account. The transfer amount exceeds what is left of ${source}.` });
          }
          charge.transferred = (charge.transferred as number) + amount;
        }
        const transfer: Obj = {
          id: randomId("tr"),
          object: "transfer",
          amount,
          amount_reversed: 0,
          currency,
          destination,
          source_transaction: source ?? null,
          transfer_group: str(p.transfer_group) ?? null,
          reversed: false,
          reversals: { object: "list", data: [], has_more: false },
          created: now(),
          metadata: record(p.metadata),
        };
        transfers.set(transfer.id, transfer);
        return { status: 200, body: transfer };
      }
      const transfer = transfers.get(id ?? "");
      if (!transfer) throw noSuch("transfer", id ?? "");
      if (method === "GET" && !action) return { status: 200, body: transfer };
      if (method === "POST" && action === "reversals" && !sub) {
        const left = (transfer.amount as number) - (transfer.amount_reversed as number);
        const amount = p.amount === undefined ? left : integerAmount(p.amount, "amount");
        if (left <= 0 || amount > left) {
          throw new StripeFailure(400, { type: "invalid_request_error", code: "transfer_already_reversed", message: `Transfer ${transfer.id} has already been reversed, or the amount is greater than what is left of it (${left}).` });
        }
        // Stripe reverses a transfer only when the destination account's balance covers the reversal.
        if (balanceOf(String(transfer.destination)) < amount) {
          throw new StripeFailure(400, { type: "invalid_request_error", code: "balance_insufficient", message: `Insufficient funds in the destination account's balance to cover the reversal of ${amount} from ${transfer.id}.` });
        }
        transfer.amount_reversed = (transfer.amount_reversed as number) + amount;
        transfer.reversed = transfer.amount_reversed === transfer.amount;
        if (transfer.source_transaction) {
          const charge = charges.get(String(transfer.source_transaction));
          if (charge) charge.transferred = (charge.transferred as number) - amount;
        }
        const reversal: Obj = { id: randomId("trr"), object: "transfer_reversal", amount, currency: transfer.currency, transfer: transfer.id, created: now(), metadata: record(p.metadata) };
        (transfer.reversals as { data: Obj[] }).data.push(reversal);
        return { status: 200, body: reversal };
      }
    }

    if (resource === "checkout" && id === "sessions") {
      const sessionId = action;
      if (method === "POST" && !sessionId) {
        if (str(p.mode) !== "payment") throw missing("mode");
        const items = Array.isArray(p.line_items) ? (p.line_items as Params[]) : [];
        if (!items.length) throw missing("line_items");
        const lines = items.map((item) => {
          const price = (item.price_data ?? {}) as Params;
          const currency = str(price.currency)?.toLowerCase();
          if (!currency) throw missing("line_items[0][price_data][currency]");
          const amount = chargeAmount(price.unit_amount, currency, "line_items[0][price_data][unit_amount]");
          return { amount: amount * (int(item.quantity) ?? 1), currency, name: str(((price.product_data ?? {}) as Params).name) };
        });
        if (!str(p.success_url)) throw missing("success_url");
        const sid = randomId("cs_test", 40);
        const session: Obj = {
          id: sid,
          object: "checkout.session",
          mode: "payment",
          status: "open",
          payment_status: "unpaid",
          amount_total: lines.reduce((sum, l) => sum + l.amount, 0),
          currency: lines[0]!.currency,
          line_items_summary: lines,
          payment_intent: null,
          payment_intent_data: p.payment_intent_data ?? {},
          metadata: record(p.metadata),
          success_url: str(p.success_url),
          cancel_url: str(p.cancel_url) ?? null,
          url: `${origin}/c/pay/${sid}`,
          created: now(),
          livemode,
        };
        sessions.set(sid, session);
        return { status: 200, body: session };
      }
      const session = sessions.get(sessionId ?? "");
      if (!session) throw noSuch("checkout.session", sessionId ?? "", "session");
      if (method === "GET" && !sub) return { status: 200, body: session };
      if (method === "POST" && sub === "expire") {
        // Only an open session can be expired; nobody can pay on it afterwards.
        if (session.status !== "open") {
          throw new StripeFailure(400, { type: "invalid_request_error", message: `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of \`${String(session.status)}\`.` });
        }
        session.status = "expired";
        session.expires_at = now();
        // A payment tried and refused on it is cancelled with it.
        const pi = session.payment_intent ? intents.get(String(session.payment_intent)) : undefined;
        if (pi && ["requires_payment_method", "requires_confirmation", "requires_action"].includes(String(pi.status))) {
          pi.status = "canceled";
          pi.canceled_at = now();
          pi.cancellation_reason = "abandoned";
          event("payment_intent.canceled", pi);
        }
        event("checkout.session.expired", session);
        return { status: 200, body: session };
      }
    }

    if (resource === "accounts") {
      if (method === "POST" && !id) {
        if (str(p.type) !== "express") throw new StripeFailure(400, { type: "invalid_request_error", param: "type", message: "Only Express accounts are created here." });
        const account: Obj = {
          id: randomId("acct", 16),
          object: "account",
          type: "express",
          email: str(p.email) ?? null,
          metadata: record(p.metadata),
          charges_enabled: false,
          payouts_enabled: false,
          details_submitted: false,
          capabilities: { transfers: "inactive" },
          requested_capabilities: p.capabilities ?? {},
          requirements: { currently_due: ["business_type", "external_account", "individual.dob.day", "individual.id_number", "tos_acceptance.date"], disabled_reason: "requirements.past_due" },
          created: now(),
        };
        accounts.set(account.id, account);
        return { status: 200, body: account };
      }
      if (method === "GET" && id && !action) return { status: 200, body: getAccount(id) };
    }

    if (resource === "account_links" && method === "POST" && !id) {
      const accountId = str(p.account);
      if (!accountId) throw missing("account");
      getAccount(accountId);
      if (str(p.type) !== "account_onboarding" && str(p.type) !== "account_update") throw missing("type");
      for (const param of ["refresh_url", "return_url"]) {
        const url = str(p[param]);
        if (!url) throw missing(param);
        if (livemode && !url.startsWith("https://")) {
          throw new StripeFailure(400, { type: "invalid_request_error", param, message: "Livemode requests must always be redirected via HTTPS." });
        }
      }
      const link: Obj = { id: randomId("al"), object: "account_link", account: accountId, url: `${origin}/setup/e/${randomId("link").slice(5)}`, created: now(), expires_at: now() + 300 };
      accountLinks.push(link);
      return { status: 200, body: { object: link.object, url: link.url, created: link.created, expires_at: link.expires_at } };
    }

    throw new StripeFailure(404, { type: "invalid_request_error", message: `Unrecognized request URL (${method}: ${path}).` });
  }

  /** How long every answer takes (a round trip to Stripe); requests run concurrently meanwhile. */
  let latencyMs = 0;
  /** Calls that act and then lose their answer, by method and path pattern, with how many are left. */
  const losing: { method: string; re: RegExp; left: number; hang: boolean }[] = [];
  /** Calls to refuse with a 400 without acting (`refuse`). */
  const refusing: { method: string; re: RegExp; left: number; status: number }[] = [];
  /** Idempotency keys of requests still being processed: another request with one is answered 409. */
  const inFlight = new Set<string>();
  /** Answers held back (`hang`), let go when the fake stops. */
  const held: (() => void)[] = [];
  const patternOf = (pattern: string) => new RegExp(`^${pattern.replace(/:[a-z]+/g, "[^/]+")}$`);

  /** One API request, as Stripe answers it once its idempotency key is free. */
  async function handle(req: Request): Promise<Response> {
    {
      const url = new URL(req.url);
      const params = req.method === "GET" ? parseStripeForm(url.search.slice(1)) : parseStripeForm(await req.text());
      if (latencyMs > 0) await Bun.sleep(latencyMs);
      const key = req.headers.get("idempotency-key");
      const recorded: RecordedRequest = { method: req.method, path: url.pathname, params, idempotencyKey: key, status: 0 };
      requests.push(recorded);
      const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        recorded.status = status;
        return Response.json(body, { status, headers: { "Request-Id": randomId("req", 14), ...headers } });
      };

      const auth = req.headers.get("authorization") ?? "";
      if (auth !== `Bearer ${secretKey}`) {
        return answer(401, { error: { type: "invalid_request_error", message: "Invalid API Key provided." } });
      }
      const requestId = `${req.method} ${url.pathname} ${JSON.stringify(params)}`;
      if (key && req.method === "POST") {
        const first = idempotent.get(key);
        if (first) {
          if (first.request !== requestId) {
            return answer(400, {
              error: { type: "idempotency_error", message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.` },
            });
          }
          return answer(first.status, first.body, { "Idempotent-Replayed": "true" });
        }
      }
      const refuse = refusing.find((r) => r.left > 0 && r.method === req.method && r.re.test(url.pathname));
      if (refuse) {
        // Refused having done nothing: its key stays free.
        refuse.left--;
        if (refuse.status >= 500) return answer(refuse.status, { error: { type: "api_error", message: "An unknown error occurred." } }, { "Stripe-Should-Retry": "false" });
        return answer(refuse.status, { error: { type: "invalid_request_error", message: "This request could not be processed." } });
      }
      let status: number;
      let body: unknown;
      let save = true;
      try {
        ({ status, body } = route(req.method, url.pathname, params, secretKey.startsWith("sk_live_")));
        body = structuredClone(body);
      } catch (err) {
        if (!(err instanceof StripeFailure)) throw err;
        status = err.status;
        body = { error: err.error };
        // A request refused for its parameters never ran: its key stays free, as with Stripe.
        save = !err.error.param || err.error.code === "insufficient_capabilities_for_transfer";
      }
      if (key && req.method === "POST" && save) idempotent.set(key, { request: requestId, status, body });
      const lose = status < 400 ? losing.find((l) => l.left > 0 && l.method === req.method && l.re.test(url.pathname)) : undefined;
      if (lose) {
        // Acted, but the answer never arrives as sent: what a timeout or a crash on our side looks like.
        lose.left--;
        if (lose.hang) await new Promise<void>((resolve) => held.push(resolve));
        return answer(500, { error: { type: "api_error", message: "An unknown error occurred (the answer was lost)." } }, { "Stripe-Should-Retry": "false" });
      }
      return answer(status, body);
    }
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req): Promise<Response> {
      const key = req.method === "POST" ? req.headers.get("idempotency-key") : null;
      if (key && inFlight.has(key)) {
        // As Stripe does while the first request with a key has not finished (the SDK retries it).
        const message = `There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ${key}. Please try again later.`;
        requests.push({ method: req.method, path: new URL(req.url).pathname, params: {}, idempotencyKey: key, status: 409 });
        return Response.json({ error: { type: "idempotency_error", message } }, { status: 409, headers: { "Stripe-Should-Retry": "true" } });
      }
      if (key) inFlight.add(key);
      try {
        return await handle(req);
      } finally {
        if (key) inFlight.delete(key);
      }
    },
  });
  origin = `http://127.0.0.1:${server.port}`;

  return {
    /** For STRIPE_API_BASE and the provider's `apiBase`. */
    apiBase: origin,
    secretKey,
    webhookSecret,
    env: { STRIPE_SECRET_KEY: secretKey, STRIPE_PUBLISHABLE_KEY: FAKE_PUBLISHABLE_KEY, STRIPE_WEBHOOK_SECRET: webhookSecret, STRIPE_API_BASE: origin },
    requests,
    events,
    intents,
    charges,
    refunds,
    transfers,
    accounts,
    sessions,
    accountLinks,
    /** Every answer waits this long from now on (0: none). */
    setLatency(ms: number) {
      latencyMs = ms;
    },
    /**
     * The next `times` successful calls to one endpoint act, then answer 500 as if the answer were
     * lost; with `hang`, they answer nothing until the fake stops (the caller is killed meanwhile).
     */
    loseAnswer(method: string, pattern: string, times = 1, opts: { hang?: boolean } = {}) {
      losing.push({ method, re: patternOf(pattern), left: times, hang: opts.hang ?? false });
    },
    /**
     * The next `times` calls to one endpoint (`:id` matches any id; a literal path, one object) do
     * nothing and answer `status`: a 4xx refuses the request for sure, a 5xx is no answer.
     * Refusals asked for earlier are used up first.
     */
    refuse(method: string, pattern: string, times = 1, status = 400) {
      refusing.push({ method, re: patternOf(pattern), left: times, status });
    },
    /** Forgets the recorded calls and events (not the intents, accounts and the rest): for a test that counts what it made itself. */
    forgetRecorded() {
      requests.length = 0;
      events.length = 0;
    },
    /** Recorded calls to one endpoint (`POST /v1/payment_intents`); `:id` matches any id. */
    requestsTo(method: string, pattern: string) {
      const re = patternOf(pattern);
      return requests.filter((r) => r.method === method && re.test(r.path));
    },
    /** Stripe.js confirming a card on an intent; throws Stripe's error for a refused card. */
    confirm(intentId: string, card: string) {
      const pi = intents.get(intentId);
      if (!pi) throw new Error(`no such intent ${intentId}`);
      const failure = confirmIntent(pi, card);
      if (failure) throw Object.assign(new Error(failure.error.message), { stripe: failure.error });
      return structuredClone(pi);
    },
    /** The guest paying on the hosted Checkout page: an intent made from the session's payment_intent_data, confirmed. */
    completeCheckout(sessionId: string, card: string = CARDS.ok) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no such session ${sessionId}`);
      // Stripe's page of an expired (or paid) session takes no payment.
      if (session.status !== "open") throw new Error(`the checkout session ${sessionId} is ${String(session.status)}`);
      const data = session.payment_intent_data as Params;
      const pi = session.payment_intent
        ? intents.get(String(session.payment_intent))!
        : newIntent({
            amount: String(session.amount_total),
            currency: String(session.currency),
            capture_method: str(data.capture_method),
            metadata: data.metadata,
            transfer_group: data.transfer_group,
          });
      // The session keeps the intent of a payment tried on it, refused or not.
      session.payment_intent = pi.id;
      const failure = confirmIntent(pi, card);
      if (failure) throw Object.assign(new Error(failure.error.message), { stripe: failure.error });
      session.status = "complete";
      session.payment_status = "unpaid";
      event("checkout.session.completed", session);
      return structuredClone(session);
    },
    /** A connected account's balance (transfers in, less reversals and payouts to its bank). */
    balanceOf,
    /** Stripe's automatic payout: the account's whole balance sent to its bank. Answers the amount. */
    payOutBalance(accountId: string) {
      if (!accounts.has(accountId)) throw new Error(`no such account ${accountId}`);
      const balance = Math.max(0, balanceOf(accountId));
      paidOut.set(accountId, (paidOut.get(accountId) ?? 0) + balance);
      return balance;
    },
    /** The host finishing (or Stripe suspending) onboarding. */
    setPayoutsEnabled(accountId: string, enabled: boolean) {
      const account = accounts.get(accountId);
      if (!account) throw new Error(`no such account ${accountId}`);
      account.payouts_enabled = enabled;
      account.charges_enabled = enabled;
      account.details_submitted = enabled || account.details_submitted;
      account.capabilities = { transfers: enabled ? "active" : "inactive" };
      account.requirements = enabled ? { currently_due: [], disabled_reason: null } : { currently_due: ["external_account"], disabled_reason: "requirements.past_due" };
      return event("account.updated", account);
    },
    /** A Stripe event object around `object`, also added to `events`. */
    event,
    /** The Stripe-Signature header for a payload: `t={seconds},v1={HMAC-SHA256(secret, t + "." + payload)}`. */
    sign(payload: string, secret = webhookSecret, timestamp = now()) {
      const v1 = createHmac("sha256", secret).update(`${timestamp}.${payload}`).digest("hex");
      return `t=${timestamp},v1=${v1}`;
    },
    /** Delivers an event as Stripe does: a JSON POST, signed with the webhook secret (or `secret`). */
    async sendWebhook(url: string, evt: Obj, o: { secret?: string; signature?: string; handle?: (req: Request) => Promise<Response> } = {}) {
      const payload = JSON.stringify(evt, null, 2);
      const signature = o.signature ?? this.sign(payload, o.secret ?? webhookSecret);
      const request = new Request(url, {
        method: "POST",
        headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": signature, "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)" },
        body: payload,
      });
      return o.handle ? o.handle(request) : fetch(request);
    },
    stop: () => {
      for (const resolve of held.splice(0)) resolve();
      void server.stop(true);
    },
  };
}

export type FakeStripe = ReturnType<typeof startFakeStripe>;
