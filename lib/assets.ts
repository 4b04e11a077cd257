import { statSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * Files the app ships with (migrations, public files, built CSS/JS), addressed by their path
 * from the project root. From source they are read from disk; the single binary registers the
 * copies embedded in it at start-up (see scripts/build.ts), so both run the same code.
 */
const projectRoot = resolve(import.meta.dir, "..");
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

/** Shipped files that the build also stores compressed (brotli and gzip). */
export const PRECOMPRESSED_EXTENSIONS = /\.(js|mjs|css|svg|json|webmanifest|txt|html|xml)$/;

/**
 * Where the build keeps the compressed copy of a shipped file: beside it for built files, and
 * under build/precompressed/ for files in the source tree (public/), which the build never writes to.
 */
export function precompressedPath(relPath: string, encoding: "br" | "gzip"): string {
  const suffix = encoding === "br" ? ".br" : ".gz";
  return relPath.startsWith("build/") ? `${relPath}${suffix}` : `build/precompressed/${relPath}${suffix}`;
}

export async function readAssetText(relPath: string): Promise<string> {
  const file = assetFile(relPath);
  if (!file) throw new Error(`Missing shipped file: ${relPath}`);
  return file.text();
}
