/**
 * `npm test`: type-check, scan the views for unescaped content, build the browser files, run
 * the bun test suites, then the browser tests in Chromium. Stops at the first failing step and
 * ends with one summary line.
 */
import { Glob } from "bun";

const root = new URL("..", import.meta.url).pathname;
const bin = (name: string) => `${root}node_modules/.bin/${name}`;
let passed = 0;
let failed = 0;

async function step(name: string, cmd: string[], opts: { countTests?: boolean } = {}) {
  const started = performance.now();
  console.log(`\n▶ ${name}`);
  const proc = Bun.spawn(cmd, { cwd: root, stdout: "pipe", stderr: "pipe", env: { ...process.env, FORCE_COLOR: "0" } });
  let output = "";
  const pump = async (stream: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream) => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      output += text;
      sink.write(text);
    }
  };
  await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr)]);
  const code = await proc.exited;
  if (opts.countTests) {
    passed += Number(/^\s*(\d+) pass$/m.exec(output)?.[1] ?? 0);
    failed += Number(/^\s*(\d+) fail$/m.exec(output)?.[1] ?? 0);
  }
  console.log(`◀ ${name}: ${code === 0 ? "ok" : `failed (exit ${code})`} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (code !== 0) {
    console.log(`\ntests: ${passed} passed, ${Math.max(failed, 1)} failed`);
    process.exit(code || 1);
  }
}

/**
 * The Debian packages the tests drive (Chromium for the browser tests, redis-server for the tests
 * of several processes) are installed when missing, as a newcomer runs this and not `.ci/run`.
 */
function ensureDebianPackages() {
  const wanted = [
    { pkg: "chromium", path: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" },
    { pkg: "redis-server", path: process.env.REDIS_SERVER_PATH ?? "/usr/bin/redis-server" },
  ];
  const missing = wanted.filter((w) => !Bun.file(w.path).size).map((w) => w.pkg);
  if (!missing.length) return;
  console.log(`\n▶ installing Debian's ${missing.join(" ")} for the tests`);
  const sudo = process.getuid?.() === 0 ? [] : ["sudo"];
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const cmd of [[...sudo, "apt-get", "update", "-qq"], [...sudo, "apt-get", "install", "-y", "-qq", ...missing]]) {
    const run = Bun.spawnSync(cmd, { stdout: "inherit", stderr: "inherit", env });
    if (run.exitCode !== 0) {
      console.log(`\nCould not install ${missing.join(" ")} (${cmd.join(" ")} exited ${run.exitCode}): install them, or set CHROMIUM_PATH / REDIS_SERVER_PATH.`);
      process.exit(1);
    }
  }
}

ensureDebianPackages();
await step("type-check", [bin("tsc"), "--noEmit", "-p", "."]);
await step("type-check islands", [bin("tsc"), "--noEmit", "-p", "islands"]);
await step("type-check service worker", [bin("tsc"), "--noEmit", "-p", "islands/worker"]);
await step("xss-scan", [bin("xss-scan"), "-s"]);
await step("build", [process.execPath, "scripts/build.ts"]);
await step("bun test", [process.execPath, "test", "--timeout", "20000", "./tests/"], { countTests: true });
const e2e: string[] = [];
for await (const file of new Glob("tests/e2e/*.e2e.ts").scan(root)) e2e.push(`./${file}`);
if (e2e.length) await step("browser tests", [process.execPath, "test", "--timeout", "60000", ...e2e.sort()], { countTests: true });
console.log(`\ntests: ${passed} passed, ${failed} failed`);
