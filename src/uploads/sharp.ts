import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type SharpType from "sharp";
import { embeddedFiles } from "../../lib/assets";

export type Sharp = typeof SharpType;

let loaded: Promise<Sharp> | null = null;

/**
 * sharp is a native module on top of libvips. From source it loads as usual. In the single
 * binary, Bun embeds sharp and its addon, but the addon's libvips library is found through a
 * path relative to node_modules, which the binary does not have: so the binary carries libvips
 * too (scripts/build.ts), writes it once to the temp folder and loads it first, after which the
 * addon finds it already loaded.
 */
export function loadSharp(): Promise<Sharp> {
  loaded ??= (async () => {
    const files = embeddedFiles();
    const libvips = files && Object.entries(files).find(([path]) => /\/libvips-cpp\.so/.test(path));
    if (libvips) {
      const [path, embedded] = libvips;
      const dir = join(tmpdir(), "offline-runtime");
      const target = join(dir, basename(path));
      if (!existsSync(target)) {
        mkdirSync(dir, { recursive: true });
        const partial = `${target}.${process.pid}`;
        writeFileSync(partial, await Bun.file(embedded).bytes(), { mode: 0o755 });
        renameSync(partial, target);
      }
      const { dlopen } = await import("bun:ffi");
      // Any one symbol: bun:ffi needs one, and asking for the version also proves it loaded.
      dlopen(target, { vips_version: { args: ["int"], returns: "int" } });
    }
    // require, not import: the bundler would evaluate an imported module at start-up, before
    // libvips is loaded above.
    return require("sharp") as Sharp;
  })();
  return loaded;
}
