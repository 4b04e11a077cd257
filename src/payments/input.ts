import { z } from "zod";
import { textOrNone } from "../../lib/validation";

/** A text the test card form sends, at most `max` characters; anything else is refused as no card. */
const cardText = (max: number) => z.string({ error: "payments.confirmInvalid" }).max(max, "payments.confirmInvalid");

/** A value read only when it is text (an address to return to): anything else is none. */

/**
 * The test provider's card confirmation (`POST /api/payments/test/confirm`): the intent's client
 * secret and the card; a plain form also sends `returnUrl`, the page to go back to.
 */
export const testConfirmInput = z.object({
  clientSecret: cardText(300),
  cardNumber: cardText(40),
  expiry: cardText(10),
  cvc: cardText(8),
  returnUrl: textOrNone,
});

/** A field of the hosted test checkout's card form, as typed (its first 40 characters); missing is empty. */
const typedCardField = z.unknown().optional().transform((v) => (typeof v === "string" ? v.slice(0, 40) : ""));

/** The hosted test checkout's card form (`POST /payments/test/checkout/:id`): the provider judges the card. */
export const testCheckoutCard = z.object({ cardNumber: typedCardField, expiry: typedCardField, cvc: typedCardField });

/** The test authentication page's buttons: approve (`outcome` "approve") or fail, and the page to return to (`return`). */
export const testAuthenticateInput = z
  .object({ outcome: z.unknown().optional(), return: textOrNone })
  .transform(({ outcome, return: returnTo }) => ({ approve: outcome === "approve", returnTo }));

/** The test payout onboarding page's button: the page to return to. */
export const testOnboardingInput = z.object({ return: textOrNone });
