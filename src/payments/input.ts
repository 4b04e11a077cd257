import { z } from "zod";

/** The test provider's card confirmation (`POST /api/payments/test/confirm`). */
export const testConfirmInput = z.object({ clientSecret: z.string().max(300), cardNumber: z.string().max(40), expiry: z.string().max(10), cvc: z.string().max(8) });
