import { and, eq, inArray } from "drizzle-orm";
import { one, type Db, type WriteTx } from "../../db/client";
import { testPaymentOperations } from "../../db/schema";

/**
 * The built-in test provider's record of the money it moved (test-provider.ts): each capture,
 * release, refund, transfer, reversal and payout of an account's balance to its bank is a row under its idempotency key, written in the
 * transaction that changes what it acted on, so the same key finds the first call's operation.
 */

/** An id of the test provider's, in the shape of Stripe's: a prefix and 32 hex digits. */
export const testId = (prefix: string) => `${prefix}_${crypto.randomUUID().replace(/-/g, "")}`;

/** An operation already made with this key, inside a transaction. */
export async function operationWithKey(tx: WriteTx, key: string) {
  return await one(tx.select().from(testPaymentOperations).where(eq(testPaymentOperations.idempotencyKey, key))) ?? null;
}

/** Records an operation in the transaction that also changes what it acted on: a crash never splits them. */
export async function recordOperation(
  tx: WriteTx,
  now: number,
  kind: (typeof testPaymentOperations.$inferInsert)["kind"],
  target: string,
  amountCents: number,
  key: string,
  extra: { destination?: string; transferGroup?: string } = {},
) {
  const opId = testId(kind === "refund" ? "tre" : kind === "transfer" ? "ttr" : kind === "reverse" ? "trv" : kind === "payout" ? "tpo" : "top");
  await tx.insert(testPaymentOperations)
    .values({ id: opId, kind, target, amountCents, destination: extra.destination ?? null, transferGroup: extra.transferGroup ?? null, idempotencyKey: key, createdAt: now });
  return opId;
}

/** The operations made on a payment or a transfer. */
export async function operationsOn(db: Db, target: string) {
  return await db.select().from(testPaymentOperations).where(eq(testPaymentOperations.target, target));
}

/** How much of a transfer was reversed. */
export async function reversedOf(db: Db, transferId: string) {
  return (await operationsOn(db, transferId)).filter((o) => o.kind === "reverse").reduce((sum, o) => sum + o.amountCents, 0);
}

/**
 * A payout account's balance, as Stripe keeps a connected account's: the transfers it received,
 * less what was reversed of them and what was paid out to its bank.
 */
export async function balanceOf(db: Db, accountId: string) {
  const received = await db.select().from(testPaymentOperations).where(and(eq(testPaymentOperations.kind, "transfer"), eq(testPaymentOperations.destination, accountId)));
  const ids = received.map((t) => t.id);
  const reversed = ids.length ? await db.select().from(testPaymentOperations).where(and(eq(testPaymentOperations.kind, "reverse"), inArray(testPaymentOperations.target, ids))) : [];
  const paidOut = await db.select().from(testPaymentOperations).where(and(eq(testPaymentOperations.kind, "payout"), eq(testPaymentOperations.target, accountId)));
  const sum = (xs: { amountCents: number }[]) => xs.reduce((s, x) => s + x.amountCents, 0);
  return sum(received) - sum(reversed) - sum(paidOut);
}
