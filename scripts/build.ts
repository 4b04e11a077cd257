/**
 * Builds what the browser loads, into build/public/assets with content hashes:
 *   - the page script (islands/loader.ts) with each island (islands/*.tsx, named after it) and
 *     React in split chunks; the manifest lists each island's files (its own and every chunk it
 *     imports), which a screen whose island is needed at once links as modulepreload,
 *   - the stylesheet: public/base.css plus UnoCSS utilities generated from views/ and islands/,
 *   - htmx, copied from its package,
 *   - the service worker (islands/worker/sw.ts) as build/public/sw.js, with the names above,
 * and writes build/manifest.json, which the server reads to link them. Every compressible file
 * the server ships (built CSS/JS, and the SVG, scripts and styles under public/) gets a brotli
 * and a gzip copy at maximum quality, so serving one costs no compression work.
 * With --compile it then makes the single executable dist/offline, with every shipped file
 * (migrations, public/, the built files) embedded.
 */
import { createGenerator } from "@unocss/core";
import { Glob } from "bun";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { PRECOMPRESSED_EXTENSIONS, precompressedPath } from "../lib/assets";
import { compressBytes, type Encoding } from "../lib/compression/encoding";
import { locales } from "../src/texts";
import unoConfig from "../uno.config";

const root = join(import.meta.dir, "..");
const outDir = join(root, "build/public/assets");
const started = performance.now();

rmSync(join(root, "build"), { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

const hash = (data: string | Uint8Array) => new Bun.CryptoHasher("sha256").update(data).digest("hex").slice(0, 10);
const files: Record<string, string> = {};
const emit = (name: string, ext: string, data: string | Uint8Array) => {
  const fileName = `${name}-${hash(data)}.${ext}`;
  writeFileSync(join(outDir, fileName), data);
  files[`/assets/${fileName}`] = `build/public/assets/${fileName}`;
  return `/assets/${fileName}`;
};

// 1. Scripts. Each island is an entry point too, so its file carries its name for the manifest.
const islandEntries: string[] = [];
for await (const file of new Glob("islands/*.tsx").scan(root)) islandEntries.push(join(root, file));
const result = await Bun.build({
  entrypoints: [join(root, "islands/loader.ts"), ...islandEntries.sort()],
  outdir: outDir,
  target: "browser",
  format: "esm",
  splitting: true,
  minify: true,
  sourcemap: "none",
  publicPath: "/assets/",
  naming: { entry: "[name]-[hash].[ext]", chunk: "chunk-[hash].[ext]", asset: "[name]-[hash].[ext]" },
  define: { "process.env.NODE_ENV": '"production"' },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
let loader: string | null = null;
const islandFiles: Record<string, string> = {};
for (const output of result.outputs) {
  const name = basename(output.path);
  files[`/assets/${name}`] = relative(root, output.path);
  if (output.kind !== "entry-point") continue;
  const entry = name.replace(/-[a-z0-9]+\.js$/, "");
  if (entry === "loader") loader = `/assets/${name}`;
  else islandFiles[entry] = `/assets/${name}`;
}
if (!loader) throw new Error("the build made no page script");

// 2. Styles: every class name used in views and islands.
const uno = await createGenerator(unoConfig);
const sources: string[] = [];
for (const pattern of ["views/**/*.tsx", "islands/**/*.tsx", "islands/**/*.ts", "src/**/*.tsx"]) {
  for await (const file of new Glob(pattern).scan(root)) sources.push(await Bun.file(join(root, file)).text());
}
const { css: utilities } = await uno.generate(sources.join("\n"), { minify: true });
const base = await Bun.file(join(root, "public/base.css")).text();
const css = emit("app", "css", `${base.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\s*\n\s*/g, "")}\n${utilities}`);

// Leaflet's stylesheet, linked only by pages that show a map.
const leafletCss = emit("leaflet", "css", await Bun.file(join(root, "node_modules/leaflet/dist/leaflet.css")).text());

// 3. htmx, served from our own files.
const htmx = emit("htmx", "js", await Bun.file(join(root, "node_modules/htmx.org/dist/htmx.min.js")).bytes());

/** Every file `asset` imports statically, directly or not (not what it imports on demand). */
const staticImports = (asset: string, seen = new Set<string>()): Set<string> => {
  const code = readFileSync(join(root, files[asset]!), "utf8");
  for (const m of code.matchAll(/\bimport\s*(?:[\w$*{}\s,]+from\s*)?"(\/assets\/[^"]+\.js)"/g)) {
    if (!seen.has(m[1]!)) staticImports(m[1]!, seen.add(m[1]!));
  }
  return seen;
};
// Per island, the files its mount needs: its own, then what it imports (React among them).
const islands = Object.fromEntries(Object.entries(islandFiles).map(([name, file]) => [name, [file, ...staticImports(file)]]));

writeFileSync(join(root, "build/manifest.json"), JSON.stringify({ css, loader, htmx, leafletCss, islands, files }, null, 2));

// 4. The service worker, at the site's root (/sw.js), told the shell's hashed names to store on
// install and a version that changes with any of them, with its own code, or with a shipped image.
const precache = [
  css,
  htmx,
  loader,
  ...staticImports(loader),
  ...["icon.svg", "icon-192.png", "icon-512.png", "badge-96.png"].map((name) => `/static/${name}`),
  ...locales.map((lang) => `/offline?lang=${lang}`),
];
const versionInputs = [JSON.stringify(precache)];
for (const pattern of ["islands/worker/**/*.ts", "public/**/*"]) {
  for await (const file of new Glob(pattern).scan(root)) versionInputs.push(file, hash(await Bun.file(join(root, file)).bytes()));
}
const worker = await Bun.build({
  entrypoints: [join(root, "islands/worker/sw.ts")],
  target: "browser",
  format: "esm",
  minify: true,
  define: { __VERSION__: JSON.stringify(hash(versionInputs.join("\n"))), __PRECACHE__: JSON.stringify(precache), __LOCALES__: JSON.stringify(locales) },
});
if (!worker.success) {
  for (const log of worker.logs) console.error(log);
  process.exit(1);
}
writeFileSync(join(root, "build/public/sw.js"), await worker.outputs[0]!.text());

// 5. Compressed copies, once and at maximum quality; kept only when smaller than the file.
let compressed = 0;
for (const pattern of ["build/public/**/*", "public/**/*"]) {
  for await (const file of new Glob(pattern).scan(root)) {
    if (!PRECOMPRESSED_EXTENSIONS.test(file)) continue;
    const data = await Bun.file(join(root, file)).bytes();
    for (const encoding of ["br", "gzip"] as Encoding[]) {
      const out = compressBytes(data, encoding, "max");
      if (out.length >= data.length) continue;
      const target = join(root, precompressedPath(file, encoding));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, out);
      compressed++;
    }
  }
}
console.log(`Built ${Object.keys(files).length} files (${compressed} compressed copies) in ${Math.round(performance.now() - started)} ms.`);

if (process.argv.includes("--compile")) {
  // Every file the server reads at run time, embedded by import so the binary needs nothing else.
  const shipped: string[] = ["build/manifest.json"];
  for (const pattern of ["db/migrations/**/*", "db/migrations-pg/**/*", "public/**/*", "build/public/**/*", "build/precompressed/**/*"]) {
    for await (const file of new Glob(pattern).scan(root)) shipped.push(file);
  }
  // sharp's libvips is loaded from a path relative to node_modules, which the binary lacks:
  // it rides along and is loaded first at run time (src/uploads/sharp.ts).
  for await (const file of new Glob("node_modules/@img/sharp-libvips-*/lib/libvips-cpp.so*").scan(root)) shipped.push(file);
  const lines = shipped.map((file, i) => `import f${i} from ${JSON.stringify(`../${file}`)} with { type: "file" };`);
  lines.push(`export default {`, ...shipped.map((file, i) => `  ${JSON.stringify(file)}: f${i},`), `} as Record<string, string>;`);
  writeFileSync(join(root, "build/embedded.gen.ts"), `${lines.join("\n")}\n`);
  writeFileSync(
    join(root, "build/entry.gen.ts"),
    [
      `import { registerEmbeddedFiles } from "../lib/assets";`,
      `import files from "./embedded.gen";`,
      `registerEmbeddedFiles(files);`,
      `await import("../src/server");`,
      "",
    ].join("\n"),
  );
  mkdirSync(join(root, "dist"), { recursive: true });
  // Worker threads' modules are entry points of their own, embedded under their path from the
  // project root, where src/availability/busy-calendar.ts asks for its worker in the binary.
  const workers = ["src/availability/busy-times.worker.ts"];
  const proc = Bun.spawnSync(
    [process.execPath, "build", "--compile", "--minify", "--sourcemap", join(root, "build/entry.gen.ts"), ...workers.map((file) => join(root, file)), "--outfile", join(root, "dist/offline")],
    { stdout: "inherit", stderr: "inherit", cwd: root },
  );
  if (proc.exitCode !== 0) process.exit(proc.exitCode ?? 1);
  console.log(`Single executable: dist/offline (${shipped.length} embedded files).`);
}
