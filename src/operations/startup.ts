import { statfsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ConfigError } from "../config";

/** Where start-up failures happen, for the sentences that name them. */
export interface StartupPlace {
  dataDir: string;
  port?: number;
  host?: string;
}

/** The SQLite database file in a data directory. */
export const databaseFile = (dataDir: string) => join(dataDir, "offline.db");

/** bun:sqlite's errors and Node's system errors carry a `code`; drizzle wraps the first in `cause`. */
function codedErrors(err: unknown): { code: string; message: string; path?: string }[] {
  const found: { code: string; message: string; path?: string }[] = [];
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const coded = e as Error & { code?: unknown; path?: unknown };
    if (typeof coded.code !== "string") continue;
    // SQLite's extended codes (SQLITE_IOERR_SHORT_READ, SQLITE_READONLY_DIRECTORY) count as their primary one.
    const code = coded.code.startsWith("SQLITE_") ? coded.code.split("_").slice(0, 2).join("_") : coded.code;
    found.push({ code, message: e.message, path: typeof coded.path === "string" ? coded.path : undefined });
  }
  return found;
}

/** The nearest existing part of `path` that is a file where a folder is needed, if any. */
function fileInTheWay(path: string): string | null {
  for (let p = resolve(path); ; p = dirname(p)) {
    try {
      return statSync(p).isDirectory() ? null : p;
    } catch {
      if (dirname(p) === p) return null;
    }
  }
}

/** Under this many free bytes, a disk that fails a write is taken to be full. */
const ALMOST_FULL_BYTES = 1024 * 1024;

/** Whether the disk holding `path` (or the nearest folder of it that exists) has almost no room left. */
function almostFull(path: string): boolean {
  for (let p = resolve(path); ; p = dirname(p)) {
    try {
      const disk = statfsSync(p);
      return disk.bavail * disk.bsize < ALMOST_FULL_BYTES;
    } catch {
      if (dirname(p) === p) return false;
    }
  }
}

const whoRuns = () => (process.getuid ? `the user running the server (uid ${process.getuid()})` : "the user running the server");

/**
 * The sentence for a start-up failure an operator can fix (configuration, the data directory,
 * the disk, the database file, the port), or null for anything else, which is a bug and keeps
 * its stack trace.
 */
export function explainStartupFailure(err: unknown, place: StartupPlace): string | null {
  if (err instanceof ConfigError) return err.message;
  const { dataDir } = place;
  const db = databaseFile(dataDir);
  for (const { code, message, path } of codedErrors(err)) {
    switch (code) {
      case "SQLITE_NOTADB":
        return `${db} is not a SQLite database (${message}): restore it from a backup (README, "Backup and restore") or move it away to start with an empty database.`;
      case "SQLITE_CORRUPT":
        return `${db} is damaged (${message}): restore it from a backup (README, "Backup and restore").`;
      case "SQLITE_FULL":
      case "ENOSPC":
      case "EDQUOT":
        return `The disk holding DATA_DIR (${dataDir}) is full: free some space there and start the server again.`;
      case "SQLITE_IOERR":
      case "EIO":
        // SQLite says "disk I/O error" when it cannot grow a file it maps (SQLITE_IOERR_SHMSIZE),
        // which a full disk does too: whether the disk has room tells the two apart.
        if (almostFull(dataDir)) return `The disk holding DATA_DIR (${dataDir}) is full: free some space there and start the server again.`;
        return `The disk holding DATA_DIR (${dataDir}) failed a read or a write (${message}): check the disk, then start the server again.`;
      case "ENOTDIR":
      case "EEXIST": {
        const file = fileInTheWay(dataDir);
        if (file) return `DATA_DIR (${dataDir}) cannot be created: ${file} is a file, not a folder; set DATA_DIR to a folder.`;
        break;
      }
      case "EACCES":
      case "EPERM":
      case "EROFS":
      case "SQLITE_READONLY":
      case "SQLITE_CANTOPEN":
      case "SQLITE_PERM":
        return `DATA_DIR (${dataDir}) cannot be written${path ? ` (${path})` : ""}: make it and the files in it readable and writable by ${whoRuns()}, or set DATA_DIR to a folder that is.`;
      case "EADDRINUSE":
        if (place.port !== undefined)
          return `PORT ${place.port} is already in use on ${place.host ?? "this machine"}: stop the other server or set PORT to a free port (REUSE_PORT=true shares it on purpose).`;
        break;
    }
  }
  return null;
}

/**
 * A short reason for the health probe, which anyone may read: what kind of trouble, never a
 * path or a query (those are in the server's log).
 */
export function troubleKind(err: unknown): string {
  for (const { code } of codedErrors(err)) {
    if (code === "SQLITE_FULL" || code === "ENOSPC") return "the disk is full";
    if (["SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "EACCES", "EPERM", "EROFS"].includes(code)) return "the database cannot be written";
    if (code === "SQLITE_BUSY") return "the database is locked by another process";
    if (code === "SQLITE_CORRUPT" || code === "SQLITE_NOTADB") return "the database is damaged";
    if (code === "SQLITE_IOERR" || code === "EIO") return "the disk cannot be read or written";
  }
  return "an unexpected error (see the server's log)";
}
