import { createHmac, timingSafeEqual } from "node:crypto";
import type { Deps } from "../deps";

/**
 * One-click unsubscribe links (RFC 8058): `/email/unsubscribe?t=TOKEN`, where the token names a
 * person and one kind of email, signed so nobody can make one for someone else:
 * `base64url("{userId}.{kind}").base64url(HMAC-SHA256)`, keyed with the session secret. It never
 * expires: the link of an old email still stops that kind of email. The kinds are the caller's
 * (the notification preferences, src/notifications/rules.ts): this module only signs and reads.
 */

const PURPOSE = "email.unsubscribe";

function signature(deps: Pick<Deps, "secrets">, payload: string) {
  return createHmac("sha256", deps.secrets.sessionSecret).update(`${PURPOSE}:${payload}`).digest();
}

export function unsubscribeToken(deps: Pick<Deps, "secrets">, userId: string, kind: string): string {
  const payload = Buffer.from(`${userId}.${kind}`).toString("base64url");
  return `${payload}.${signature(deps, payload).toString("base64url")}`;
}

/** The absolute address of the unsubscribe link for a person and a kind. */
export function unsubscribeUrl(deps: Pick<Deps, "secrets" | "config">, userId: string, kind: string): string {
  return `${deps.config.publicUrl}/email/unsubscribe?t=${unsubscribeToken(deps, userId, kind)}`;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** The person and kind a token names, when the kind is one of `kinds`; null when it is malformed, not ours, or of no such kind. */
export function readUnsubscribeToken<K extends string>(deps: Pick<Deps, "secrets">, token: string, kinds: readonly K[]): { userId: string; kind: K } | null {
  if (token.length > 400) return null;
  const [payload, sig, ...rest] = token.split(".");
  if (!payload || !sig || rest.length || !BASE64URL.test(payload) || !BASE64URL.test(sig)) return null;
  const given = Buffer.from(sig, "base64url");
  const expected = signature(deps, payload);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const text = Buffer.from(payload, "base64url").toString("utf8");
  const dot = text.lastIndexOf(".");
  const userId = text.slice(0, dot);
  const kind = text.slice(dot + 1);
  if (dot <= 0 || !(kinds as readonly string[]).includes(kind)) return null;
  return { userId, kind: kind as K };
}
