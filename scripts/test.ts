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
