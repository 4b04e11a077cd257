import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError, type Config } from "../config";

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
  const stored = existsSync(file) ? readStoredSecrets(file) : {};
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
  if (changed) writeFileAtomically(file, JSON.stringify(stored, null, 2), 0o600);
  return {
    sessionSecret: config.sessionSecret ?? stored.sessionSecret,
    vapidPublicKey: config.vapid.publicKey ?? stored.vapidPublicKey,
    vapidPrivateKey: config.vapid.privateKey ?? stored.vapidPrivateKey,
  };
}

/**
 * The stored secrets. A file that is empty or not a JSON object (a write cut short by a crash or
 * a full disk before writes were atomic, a hand edit) stops the server with what to do: new
 * secrets would silently cut every browser off push notifications, so nothing is regenerated.
 */
function readStoredSecrets(file: string): Partial<Secrets> {
  let stored: unknown;
  try {
    stored = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
  }
  if (stored && typeof stored === "object" && !Array.isArray(stored)) return stored as Partial<Secrets>;
  throw new ConfigError(
    `${file} is empty or damaged (not a JSON object): restore it from a backup (README, "Backup and restore"), or delete it to have new secrets made (browsers then have to turn push notifications on again).`,
  );
}

/**
 * Writes a file so that it is either the old one or the new one, whatever happens: the content
 * goes to a temporary file in the same folder (created with `mode`, so never readable by others
 * even for a moment), is flushed to the disk, then renamed over the file; the folder is flushed
 * too, so the rename itself survives a power cut. A crash or a full disk mid-way leaves the old
 * file and at most a stray `.tmp`.
 */
export function writeFileAtomically(file: string, content: string, mode = 0o644) {
  const temp = `${file}.${process.pid}-${crypto.randomUUID().slice(0, 8)}.tmp`;
  try {
    const fd = openSync(temp, "wx", mode);
    try {
      const bytes = Buffer.from(content);
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  try {
    const dir = openSync(dirname(file), "r");
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  } catch {
    // Some systems cannot open or flush a folder; the file itself is already complete.
  }
}
