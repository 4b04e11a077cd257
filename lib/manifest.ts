import { assetFile } from "./assets";

/** Public URLs of the built, content-hashed files (written by scripts/build.ts). */
export interface AssetManifest {
  css: string | null;
  loader: string | null;
  htmx: string | null;
  leafletCss: string | null;
  /** Per island (islands/*.tsx), the files its mount loads: its own first, then what it imports. */
  islands: Record<string, string[]>;
  /** Every built file: URL path to project-relative file path. */
  files: Record<string, string>;
}

export async function loadManifest(): Promise<AssetManifest> {
  const file = assetFile("build/manifest.json");
  if (!file) return { css: null, loader: null, htmx: null, leafletCss: null, islands: {}, files: {} };
  return (await file.json()) as AssetManifest;
}
