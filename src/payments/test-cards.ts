import type { PaymentIntentStatus } from "../ports/payments";

/**
 * The built-in test provider's cards (test-provider.ts): the usual test numbers, the declines
 * worded as Stripe words them, the check every real card number passes, and what the card form
 * sends and is answered.
 */

/** The test cards and what each does (README "Payments"). */
export const TEST_CARDS = {
  success: "4242424242424242",
  declined: "4000000000000002",
  insufficientFunds: "4000000000009995",
  authentication: "4000002500003155",
} as const;

/** What the test provider says of a card it refuses, worded as Stripe words it. */
export const CARD_MESSAGES = {
  declined: "Your card was declined.",
  insufficientFunds: "Your card has insufficient funds.",
  authenticationFailed: "We are unable to authenticate your payment method. Please choose a different payment method and try again.",
  invalidNumber: "Your card number is invalid.",
  unknownCard: "This is test mode: use a test card such as 4242 4242 4242 4242.",
  invalidExpiry: "Your card's expiration date is invalid. Use MM/YY.",
  expired: "Your card has expired.",
  invalidCvc: "Your card's security code is invalid.",
  canceled: "This payment was canceled. Please start again.",
  notFound: "This payment was not found.",
} as const;

/** The Luhn check every real card number passes. */
export function luhnValid(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** A card as the test card form sends it, for the intent its client secret names. */
export interface CardInput {
  clientSecret: string;
  cardNumber: string;
  expiry: string;
  cvc: string;
}

/** The answer to a card confirmed: the intent's status, and the card's refusal in Stripe's words. */
export interface ConfirmResult {
  status: PaymentIntentStatus;
  paymentIntentId: string;
  error?: string;
  /** Where the browser goes to authenticate (requires_action). */
  nextActionUrl?: string;
}
