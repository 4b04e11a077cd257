import { Database } from "bun:sqlite";
import { chmodSync, closeSync, copyFileSync, constants, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { ConfigError, loadConfig } from "../config";
import { databaseFile } from "./startup";

/**
 * A copy of DATA_DIR that is safe to take while the server runs, laid out as DATA_DIR itself, so
 * that restoring is putting its files back into an empty DATA_DIR
 * (docs/decisions/0029-operations-that-keep-data.md):
 *   - `offline.db`: a consistent snapshot made by SQLite itself (`VACUUM INTO`, which reads inside
 *     one read transaction, so writers go on and nothing half-written is copied), checked with
 *     `PRAGMA integrity_check`. A plain file copy of a database being written (`cp -a`) can be
 *     damaged: the file and its `-wal` are copied at different moments.
 *   - `secrets.json`: as it is (it is only ever replaced whole, src/operations/secrets.ts).
 *   - `uploads/photos/`: the photos, copied after the database, so every photo the copied
 *     database names is complete (a photo is written before any row names it, and never
 *     changed). Uploads not yet turned into photos (`uploads/tmp/`) are left out.
 * The target is a folder, or a tar archive when its name ends in `.tar` (made with the system's
 * `tar`). It is first made under a temporary name beside the target and renamed once complete,
 * so a target that exists is always a whole backup.
 */

/**
 * A backup that cannot be made as asked: the command cannot run as configured, and its one
 * sentence, for the operator, is printed before it exits 1.
 */
const refused = (sentence: string) => new ConfigError(sentence);

export interface BackupResult {
  target: string;
  format: "folder" | "tar";
  databaseBytes: number;
  secrets: boolean;
  photoFiles: number;
}

export interface BackupOptions {
  /** Photos are kept in an S3 bucket, not under DATA_DIR: there are none to copy. */
  photosElsewhere?: boolean;
}

export async function backUp(dataDir: string, target: string, options: BackupOptions = {}): Promise<BackupResult> {
  const to = resolve(target);
  const format = to.endsWith(".tar") ? "tar" : "folder";
  if (existsOrLink(to)) throw refused(`${target} already exists: give a new name (a backup never replaces anything).`);
  const dbFile = databaseFile(dataDir);
  if (!existsSync(dbFile)) throw refused(`DATA_DIR (${dataDir}) has no database (offline.db): nothing to back up; is DATA_DIR the server's?`);
  if (!isFolder(dirname(to))) throw refused(`The folder ${dirname(to)} for ${target} does not exist: create it first.`);

  // Made under a temporary name in the target's folder (same disk, so the last rename is instant).
  const staging = join(dirname(to), `.${basename(to)}.partial-${process.pid}-${crypto.randomUUID().slice(0, 8)}`);
  mkdirSync(staging, { mode: 0o700 });
  try {
    const databaseBytes = copyDatabase(dbFile, join(staging, "offline.db"));
    const secrets = copySecrets(join(dataDir, "secrets.json"), join(staging, "secrets.json"));
    const photoFiles = options.photosElsewhere ? 0 : copyTree(join(dataDir, "uploads", "photos"), join(staging, "uploads", "photos"));
    if (format === "tar") await writeTar(staging, to);
    else renameSync(staging, to);
    return { target: to, format, databaseBytes, secrets, photoFiles };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function existsOrLink(path: string) {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function isFolder(path: string) {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The consistent snapshot: `VACUUM INTO` copies the database as of one read transaction (in WAL
 * mode, writers are not held up), compacted. The copy is made a single self-contained file
 * (journal_mode DELETE: no `-wal` beside it; the server turns WAL on again when it opens it),
 * flushed to the disk and checked whole before it counts.
 */
function copyDatabase(from: string, to: string): number {
  const source = new Database(from, { readwrite: true, create: false });
  try {
    source.run("PRAGMA busy_timeout = 5000");
    source.run("VACUUM INTO ?", [to]);
  } finally {
    source.close();
  }
  const copy = new Database(to, { readwrite: true, create: false });
  try {
    copy.run("PRAGMA journal_mode = DELETE");
    const problems = copy.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all().map((row) => row.integrity_check);
    if (problems.length !== 1 || problems[0] !== "ok") {
      throw refused(`The copy of ${from} fails PRAGMA integrity_check (${problems[0]}): the database itself is damaged; keep your earlier backups.`);
    }
  } finally {
    copy.close();
  }
  // It holds what the live one does (sessions, password hashes): for its owner only.
  chmodSync(to, 0o600);
  flush(to);
  return statSync(to).size;
}

function copySecrets(from: string, to: string): boolean {
  if (!existsSync(from)) return false;
  copyFileSync(from, to, constants.COPYFILE_EXCL);
  flush(to);
  return true;
}

/**
 * Copies the files under `from`, leaving out what disappears while it runs (a photo deleted
 * meanwhile). Each file is cloned where the file system can (copy-on-write), copied otherwise.
 */
function copyTree(from: string, to: string): number {
  let entries;
  try {
    entries = readdirSync(from, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw err;
  }
  mkdirSync(to, { recursive: true });
  let files = 0;
  for (const entry of entries) {
    const source = join(from, entry.name);
    if (entry.isDirectory()) files += copyTree(source, join(to, entry.name));
    else if (entry.isFile()) {
      try {
        copyFileSync(source, join(to, entry.name), constants.COPYFILE_FICLONE);
        files++;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      }
    }
  }
  return files;
}

function flush(file: string) {
  const fd = openSync(file, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The folder's contents as a tar archive at `to` (entries at the top: `offline.db`, ...). */
async function writeTar(folder: string, to: string) {
  const partial = `${folder}.tar`;
  const entries = readdirSync(folder).sort();
  let proc;
  try {
    proc = Bun.spawn(["tar", "-cf", partial, "-C", folder, ...entries], { stdout: "ignore", stderr: "pipe" });
  } catch {
    throw refused(`Writing ${to} needs the system's tar command, which was not found: give a folder name instead (without .tar).`);
  }
  const [code, errors] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  try {
    if (code !== 0) throw new Error(`tar exited with ${code}: ${errors.trim()}`);
    chmodSync(partial, 0o600);
    flush(partial);
    if (existsOrLink(to)) throw refused(`${to} appeared while the backup was made: give a new name.`);
    renameSync(partial, to);
  } finally {
    rmSync(partial, { force: true });
  }
}

/**
 * `offline backup <target>` (the single binary) and `bun run backup <target>`: backs DATA_DIR
 * (from the environment, as the server reads it) up to `target`, a new folder or `.tar` file.
 * Says what it did, or in one sentence why not, and exits 0 or 1.
 */
export async function backupCommand(args: string[]): Promise<never> {
  if (args.length !== 1 || args[0]!.startsWith("-")) {
    console.error("Usage: offline backup <target>   (bun run backup <target>): a new folder, or a new file ending in .tar; DATA_DIR as for the server.");
    process.exit(1);
  }
  const target = args[0]!;
  let dataDir = "";
  try {
    const config = loadConfig();
    dataDir = config.dataDir;
    const result = await backUp(config.dataDir, target, { photosElsewhere: !!config.s3 });
    const parts = [
      `the database (${(result.databaseBytes / 1024 / 1024).toFixed(1)} MB, integrity checked)`,
      result.secrets ? "secrets.json" : "no secrets.json (none yet)",
      config.s3 ? `no photos (they are in the S3 bucket ${config.s3.bucket}: back that up on its own)` : `${result.photoFiles} photo file${result.photoFiles === 1 ? "" : "s"}`,
    ];
    console.log(`Backed up ${config.dataDir} to ${result.target} (${result.format === "tar" ? "a tar archive" : "a folder"}): ${parts.join(", ")}.`);
    process.exit(0);
  } catch (err) {
    if (err instanceof ConfigError) console.error(err.message);
    else console.error(`The backup of ${dataDir || "DATA_DIR"} to ${target} failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
