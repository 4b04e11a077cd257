import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config";

export interface Secrets {
  sessionSecret: string;
  vapidPublicKey: string;
  vapidPrivateKey: string;
}

const base64url = (bytes: ArrayBuffer | Uint8Array) => Buffer.from(bytes as ArrayBuffer).toString("base64url");

/** A VAPID key pair in the form web push expects: raw P-256 public point and private scalar, base64url. */
export async function generateVapidKeys() {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"]);
  const publicKey = base64url(await crypto.subtle.exportKey("raw", pair.publicKey));
  const jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
  return { publicKey, privateKey: jwk.d! };
}

/**
 * Secrets that were not configured are generated on first start and kept in
 * DATA_DIR/secrets.json (mode 600), so sessions and push subscriptions survive restarts.
 */
export async function loadSecrets(config: Config): Promise<Secrets> {
  mkdirSync(config.dataDir, { recursive: true });
  const file = join(config.dataDir, "secrets.json");
  const stored: Partial<Secrets> = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
  let changed = false;
  if (!stored.sessionSecret) {
    stored.sessionSecret = base64url(crypto.getRandomValues(new Uint8Array(32)));
    changed = true;
  }
  if (!stored.vapidPublicKey || !stored.vapidPrivateKey) {
    const keys = await generateVapidKeys();
    stored.vapidPublicKey = keys.publicKey;
    stored.vapidPrivateKey = keys.privateKey;
    changed = true;
  }
  if (changed) {
    writeFileSync(file, JSON.stringify(stored, null, 2));
    chmodSync(file, 0o600);
  }
  return {
    sessionSecret: config.sessionSecret ?? stored.sessionSecret,
    vapidPublicKey: config.vapid.publicKey ?? stored.vapidPublicKey,
    vapidPrivateKey: config.vapid.privateKey ?? stored.vapidPrivateKey,
  };
}
