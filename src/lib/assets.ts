import { statSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * Files the app ships with (migrations, public files, built CSS/JS), addressed by their path
 * from the project root. From source they are read from disk; the single binary registers the
 * copies embedded in it at start-up (see scripts/build.ts), so both run the same code.
 */
const projectRoot = resolve(import.meta.dir, "../..");
let embedded: Record<string, string> | null = null;

export function registerEmbeddedFiles(files: Record<string, string>) {
  embedded = files;
}

/** The files embedded in the single binary, or null when running from source. */
export function embeddedFiles(): Readonly<Record<string, string>> | null {
  return embedded;
}

/**
 * The file for a project-relative path, or null when the app does not ship it. Only files:
 * a folder is not something to serve (the binary embeds files alone, so it has none).
 */
export function assetFile(relPath: string): ReturnType<typeof Bun.file> | null {
  if (relPath.includes("..")) return null;
  if (embedded) {
    const path = embedded[relPath];
    return path ? Bun.file(path) : null;
  }
  const path = join(projectRoot, relPath);
  return statSync(path, { throwIfNoEntry: false })?.isFile() ? Bun.file(path) : null;
}

export async function readAssetText(relPath: string): Promise<string> {
  const file = assetFile(relPath);
  if (!file) throw new Error(`Missing shipped file: ${relPath}`);
  return file.text();
}
