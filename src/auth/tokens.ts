import { one, writeTransaction } from "../../db/client";
import { dialect } from "../../db/dialect";
import { and, desc, eq, gt, isNull, lt } from "drizzle-orm";
import type { Db, WriteTx } from "../../db/client";
import { emailTokens, type EmailToken, type EmailTokenData, type EmailTokenPurpose } from "../../db/schema";
import { defineJob } from "../jobs";

/**
 * Tokens sent by email (docs/decisions/0034): a random 32-byte token goes in the link (read back
 * by `tokenFrom`, src/auth/input.ts), only its SHA-256 is stored. A token is used once, by a
 * compare-and-set run in the write transaction of the change it makes, so two clicks (or two
 * tabs) never both succeed.
 */

const HOUR = 60 * 60 * 1000;

/** How long a link works, by purpose. */
export const TOKEN_TTL_MS: Record<EmailTokenPurpose, number> = {
  /** Verifying an address (sign-up, an email change): a week, as people read mail late. */
  verify: 7 * 24 * HOUR,
  /** A password reset: one hour. */
  reset: HOUR,
  /** Joining a provider's account to an existing one: one hour. */
  link: HOUR,
};

export const hashToken = (token: string) => new Bun.CryptoHasher("sha256").update(token).digest("hex");

const randomToken = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");

/** Writes a new token (in the caller's transaction) and answers the raw token for the link. */
export async function issueToken(
  tx: WriteTx,
  t: { userId: string; purpose: EmailTokenPurpose; email: string; data?: EmailTokenData | null; now: number },
): Promise<string> {
  const token = randomToken();
  await tx
    .insert(emailTokens)
    .values({
      tokenHash: hashToken(token),
      userId: t.userId,
      purpose: t.purpose,
      email: t.email,
      data: t.data ?? null,
      expiresAt: t.now + TOKEN_TTL_MS[t.purpose],
      createdAt: t.now,
    });
  return token;
}

/**
 * Uses a token: a compare-and-set that succeeds once, while the token is unused and unexpired.
 * Run it inside the write transaction of the change it makes; answers the row, or undefined.
 */
export async function consumeToken(tx: WriteTx, token: string | null, purpose: EmailTokenPurpose, now: number): Promise<EmailToken | undefined> {
  if (!token) return undefined;
  return await one(
    tx
      .update(emailTokens)
      .set({ usedAt: now })
      .where(and(eq(emailTokens.tokenHash, hashToken(token)), eq(emailTokens.purpose, purpose), isNull(emailTokens.usedAt), gt(emailTokens.expiresAt, now)))
      .returning(),
  );
}

/** Reads a token that would still work, without using it (a page shown from a link: mail scanners fetch links too). */
export async function findToken(db: Db | WriteTx, token: string | null, purpose: EmailTokenPurpose, now: number): Promise<EmailToken | undefined> {
  if (!token) return undefined;
  return await one(db
    .select()
    .from(emailTokens)
    .where(and(eq(emailTokens.tokenHash, hashToken(token)), eq(emailTokens.purpose, purpose), isNull(emailTokens.usedAt), gt(emailTokens.expiresAt, now))));
}

/** A token as stored, used or not, expired or not (until the daily cleanup removes it): what a link was for. */
export async function storedToken(db: Db | WriteTx, token: string | null, purpose: EmailTokenPurpose): Promise<EmailToken | undefined> {
  if (!token) return undefined;
  return await one(db.select().from(emailTokens).where(and(eq(emailTokens.tokenHash, hashToken(token)), eq(emailTokens.purpose, purpose))));
}

/** Voids the account's unused tokens of a purpose (`changes` only: the pending email changes among the verify ones). */
export async function voidTokens(tx: WriteTx, userId: string, purpose: EmailTokenPurpose, now: number, only?: "changes" | "addressChecks") {
  await tx
    .update(emailTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(emailTokens.userId, userId),
        eq(emailTokens.purpose, purpose),
        isNull(emailTokens.usedAt),
        only === "changes" ? dialect.jsonFieldIsTrue(emailTokens.data, "change") : only === "addressChecks" ? dialect.jsonFieldIsNull(emailTokens.data, "change") : undefined,
      ),
    );
}

/** Whether a verify token is for an email change (rather than confirming the current address). */
export const isChange = (row: Pick<EmailToken, "data">) => !!row.data && "change" in row.data && row.data.change === true;

/** The new address of the account's pending email change, if one waits for its link. */
export async function pendingEmailChange(db: Db, userId: string, now: number): Promise<string | null> {
  const rows = await db
    .select()
    .from(emailTokens)
    .where(and(eq(emailTokens.userId, userId), eq(emailTokens.purpose, "verify"), isNull(emailTokens.usedAt), gt(emailTokens.expiresAt, now)))
    .orderBy(desc(emailTokens.createdAt));
  return rows.find(isChange)?.email ?? null;
}

/** Daily: tokens expired for a day are removed (they are refused anyway; this keeps the table small). */
export const expiredTokensCleanup = defineJob({
  kind: "email-tokens.cleanup",
  every: 24 * HOUR,
  run: async (_, { deps }) => {
    await writeTransaction(deps.db, (tx) => tx.delete(emailTokens).where(lt(emailTokens.expiresAt, deps.now() - 24 * HOUR)));
  },
});
