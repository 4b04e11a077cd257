import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { eq } from "drizzle-orm";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync, closeSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDb, migrate, one, openDb, writeTransaction, writerClient } from "../db/client";
import { insert, userRow } from "../src/demo/factories";
import { jobs, leases, uploads, users } from "../db/schema";
import { createSession } from "../src/auth/service";
import { ConfigError, loadConfig } from "../src/config";
import { backUp } from "../src/operations/backup";
import { defineJob, scheduleJob, UNHEALTHY_AFTER_FAILED_PASSES } from "../src/jobs";
import { loadSecrets, writeFileAtomically } from "../src/operations/secrets";
import { shutDown } from "../src/shutdown";
import { explainStartupFailure } from "../src/operations/startup";
import { makeJpeg } from "./images";
import { makeTestApp, until } from "./helpers";
import { freePort } from "./server-process";

/**
 * Operations that keep the data: backups taken while the server writes, refusing to start on a
 * damaged database or an unusable DATA_DIR (one sentence, no stack trace), secrets.json written
 * whole, /health reporting a job runner that keeps failing, and a graceful stop on SIGTERM.
 * The server and the backup command run as real processes (`bun src/server.ts`,
 * `bun scripts/backup.ts`) wherever what is tested is the process's own behaviour.
 */
const root = join(import.meta.dir, "..");
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) {
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  }
});

function tempDir(name: string) {
  const dir = mkdtempSync(join(tmpdir(), `offline-ops-${name}-`));
  dirs.push(dir);
  return dir;
}



/** Hands each piece of text a process prints to `onText`, as it comes. */
async function readText(stream: ReadableStream<Uint8Array>, onText: (text: string) => void) {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    onText(decoder.decode(value, { stream: true }));
  }
}

/** Runs a command of the project to its end: exit code and what it printed. */
async function run(args: string[], env: Record<string, string>, options: { asUser?: number } = {}) {
  const command = [process.execPath, ...args];
  // Run as another user (root ignores file permissions): setpriv drops to that user.
  if (options.asUser !== undefined) command.unshift("setpriv", `--reuid=${options.asUser}`, `--regid=${options.asUser}`, "--clear-groups");
  const proc = Bun.spawn(command, { cwd: root, env: { ...process.env, DEMO_DATA: "false", PORT: "0", HOST: "127.0.0.1", ...env }, stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, stdout, stderr };
}

/** What an operator must see: exit 1 and one sentence, no stack trace. */
function expectOneSentence(result: { code: number; stderr: string }, ...mentions: string[]) {
  expect(result.code).toBe(1);
  // Start-up may warn first that the browser files are not built (a checkout without `npm start`).
  const lines = result.stderr.trim().split("\n").filter((line) => !line.startsWith("Built CSS/JS not found"));
  expect(lines).toHaveLength(1);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  for (const mention of mentions) expect(result.stderr).toContain(mention);
}

/** A migrated database with some rows, then a page near its end overwritten: `quick_check` fails. */
async function damagedDatabase(file: string) {
  const db = openDb(file);
  await migrate(db);
  const sqlite = writerClient(db);
  sqlite.run("CREATE TABLE filler (id INTEGER PRIMARY KEY, body TEXT)");
  sqlite.run("CREATE INDEX filler_body ON filler (body)");
  const add = sqlite.prepare("INSERT INTO filler (body) VALUES (?)");
  sqlite.transaction(() => {
    for (let i = 0; i < 3000; i++) add.run(`row ${i} ${"x".repeat(200)}`);
  })();
  const { page_count } = sqlite.query<{ page_count: number }, []>("PRAGMA page_count").get()!;
  const { page_size } = sqlite.query<{ page_size: number }, []>("PRAGMA page_size").get()!;
  sqlite.run("PRAGMA wal_checkpoint(TRUNCATE)");
  await closeDb(db);
  const fd = openSync(file, "r+");
  writeSync(fd, Buffer.alloc(page_size, 0xa5), 0, page_size, (page_count - 5) * page_size);
  closeSync(fd);
}

const quickCheck = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all().map((r) => r.integrity_check);
  } finally {
    db.close();
  }
};

describe("backup", () => {
  /**
   * A writer in its own process keeps inserting, updating and deleting 4 KB rows (the database
   * grows, checkpoints and reuses pages) while backups are taken with the real command.
   */
  const WRITER = `
    import { Database } from "bun:sqlite";
    const db = new Database(process.env.DB, { readwrite: true });
    db.run("PRAGMA busy_timeout = 5000");
    db.run("PRAGMA journal_mode = WAL");
    db.run("PRAGMA synchronous = NORMAL");
    db.run("CREATE TABLE IF NOT EXISTS backup_probe (id INTEGER PRIMARY KEY, body BLOB NOT NULL)");
    const add = db.prepare("INSERT INTO backup_probe (body) VALUES (randomblob(4000))");
    const change = db.prepare("UPDATE backup_probe SET body = randomblob(4000) WHERE id = ?");
    const trim = db.prepare("DELETE FROM backup_probe WHERE id <= (SELECT max(id) FROM backup_probe) - 4000");
    const batch = db.transaction((n) => {
      for (let i = 0; i < 50; i++) add.run();
      for (let i = 0; i < 10; i++) change.run(Math.max(1, n - Math.floor(Math.random() * 3000)));
      trim.run();
    });
    for (let n = 50; ; n += 50) {
      batch(n);
      if (n % 1000 === 0) console.log(n);
      await Bun.sleep(1);
    }
  `;

  test("copies a consistent database while a writer writes, with secrets.json and the photos, as a folder or a .tar", async () => {
    const dataDir = tempDir("backup-data");
    const out = tempDir("backup-out");
    const db = openDb(join(dataDir, "offline.db"));
    await migrate(db);
    await insert(db).user(userRow({ firstName: "Ada" }));
    await closeDb(db);
    await loadSecrets(loadConfig({ DATA_DIR: dataDir }));
    mkdirSync(join(dataDir, "uploads/photos/0b7c1a9e-6a8e-4c53-9a76-6a1f7c1d2e3f"), { recursive: true });
    writeFileSync(join(dataDir, "uploads/photos/0b7c1a9e-6a8e-4c53-9a76-6a1f7c1d2e3f/thumb.webp"), "a photo");
    mkdirSync(join(dataDir, "uploads/tmp"), { recursive: true });
    writeFileSync(join(dataDir, "uploads/tmp/0b7c1a9e-6a8e-4c53-9a76-6a1f7c1d2e40"), "an upload not yet a photo");

    const writer = Bun.spawn([process.execPath, "-e", WRITER], { env: { ...process.env, DB: join(dataDir, "offline.db") }, stdout: "pipe", stderr: "inherit" });
    let written = 0;
    void readText(writer.stdout, (text) => {
      for (const line of text.trim().split("\n")) written = Math.max(written, Number(line) || 0);
    });
    try {
      await until("the writer to fill the database", () => written >= 3000, 30_000);
      let previous = 0;
      for (const name of ["first", "second.tar", "third", "fourth.tar"]) {
        const target = join(out, name);
        const result = await run(["scripts/backup.ts", target], { DATA_DIR: dataDir });
        expect(result.stderr).toBe("");
        expect(result.code).toBe(0);
        expect(result.stdout).toContain(`to ${target}`);
        expect(writer.exitCode).toBeNull();

        let folder = target;
        if (name.endsWith(".tar")) {
          expect(statSync(target).mode & 0o777).toBe(0o600);
          folder = join(out, `${name}.extracted`);
          mkdirSync(folder);
          expect(Bun.spawnSync(["tar", "-xf", target, "-C", folder]).exitCode).toBe(0);
        }
        // Laid out as DATA_DIR: the database, the secrets and the photos; uploads in progress left out.
        expect(readdirSync(folder).sort()).toEqual(["offline.db", "secrets.json", "uploads"]);
        expect(readdirSync(join(folder, "uploads"))).toEqual(["photos"]);
        expect(readFileSync(join(folder, "uploads/photos/0b7c1a9e-6a8e-4c53-9a76-6a1f7c1d2e3f/thumb.webp"), "utf8")).toBe("a photo");
        expect(readFileSync(join(folder, "secrets.json"), "utf8")).toBe(readFileSync(join(dataDir, "secrets.json"), "utf8"));
        // A single self-contained file that passes the full check, as of one moment of the writer's.
        expect(existsSync(join(folder, "offline.db-wal"))).toBe(false);
        expect(quickCheck(join(folder, "offline.db"))).toEqual(["ok"]);
        const copy = new Database(join(folder, "offline.db"), { readonly: true });
        const rows = copy.query<{ n: number; top: number }, []>("SELECT count(*) AS n, max(id) AS top FROM backup_probe").get()!;
        expect(copy.query<{ firstName: string }, []>("SELECT first_name AS firstName FROM users").all()).toEqual([{ firstName: "Ada" }]);
        copy.close();
        expect(rows.n).toBeGreaterThan(0);
        expect(rows.top).toBeGreaterThanOrEqual(previous);
        previous = rows.top;
      }
      // The writer never stopped and kept writing through every backup.
      expect(written).toBeGreaterThan(3000);
    } finally {
      writer.kill();
      await writer.exited;
    }
  }, 60_000);

  test("refuses in one sentence when the target exists or DATA_DIR has no database", async () => {
    const empty = tempDir("backup-empty");
    const out = tempDir("backup-refused");
    expectOneSentence(await run(["scripts/backup.ts", join(out, "backup.tar")], { DATA_DIR: empty }), empty, "no database");
    expect(readdirSync(out)).toEqual([]);

    const dataDir = tempDir("backup-twice");
    const db = openDb(join(dataDir, "offline.db"));
    await migrate(db);
    await closeDb(db);
    for (const target of [join(out, "taken"), join(out, "taken.tar")]) {
      mkdirSync(join(out, "taken"), { recursive: true });
      writeFileSync(join(out, "taken.tar"), "something precious");
      expectOneSentence(await run(["scripts/backup.ts", target], { DATA_DIR: dataDir }), target, "already exists");
    }
    expect(readFileSync(join(out, "taken.tar"), "utf8")).toBe("something precious");
    // Nothing half-made is left beside them.
    expect(readdirSync(out).sort()).toEqual(["taken", "taken.tar"]);
    expectOneSentence(await run(["scripts/backup.ts"], { DATA_DIR: dataDir }), "Usage");
  });

  test("the server's own command does the same (the single binary runs src/server.ts)", async () => {
    const dataDir = tempDir("backup-binary");
    const out = tempDir("backup-binary-out");
    const db = openDb(join(dataDir, "offline.db"));
    await migrate(db);
    await closeDb(db);
    const result = await run(["src/server.ts", "backup", join(out, "nightly")], { DATA_DIR: dataDir });
    expect(result.code).toBe(0);
    expect(quickCheck(join(out, "nightly/offline.db"))).toEqual(["ok"]);
  });

  test("restoring is putting the files back in DATA_DIR: people, photos and secrets are all there", async () => {
    const t = await makeTestApp();
    dirs.push(t.dataDir);
    const person = t.client();
    const { email, password } = await person.signUpComplete();
    const photo = await person.uploadPhoto(await makeJpeg({ width: 640, height: 480 }));
    const photoBytes = new Uint8Array(await (await person.get(photo)).arrayBuffer());
    const out = tempDir("restore");
    await backUp(t.dataDir, join(out, "backup.tar"));

    // The server is stopped, its DATA_DIR lost; the archive is unpacked into a new one.
    const restored = join(out, "data");
    mkdirSync(restored);
    expect(Bun.spawnSync(["tar", "-xf", join(out, "backup.tar"), "-C", restored]).exitCode).toBe(0);
    const again = await makeTestApp({ dataDir: restored });
    expect(again.deps.secrets).toEqual(t.deps.secrets);
    const back = again.client();
    expect((await back.postJson("/api/login", { email, password })).status).toBe(200);
    const served = await back.get(photo);
    expect(served.status).toBe(200);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(photoBytes);
  });
});

describe("start-up failures are one sentence naming the folder, file or setting", () => {
  test("a DATA_DIR that cannot be created (a file stands where a folder should)", async () => {
    const dir = tempDir("not-a-folder");
    writeFileSync(join(dir, "file"), "");
    expectOneSentence(await run(["src/server.ts"], { DATA_DIR: join(dir, "file/data") }), join(dir, "file/data"), `${join(dir, "file")} is a file`);
  });

  test("a read-only DATA_DIR, empty or holding a database", async () => {
    // Root writes through any permission: the server then runs as the unprivileged `nobody`,
    // when setpriv can drop to it and `nobody` can read the project.
    const asUser = process.getuid?.() === 0 ? 65534 : undefined;
    if (asUser !== undefined) {
      const probe = Bun.spawnSync(["setpriv", `--reuid=${asUser}`, `--regid=${asUser}`, "--clear-groups", "sh", "-c", 'test -r "$1" && test -x "$2"', "probe", join(root, "src/server.ts"), process.execPath]);
      if (!probe.success) {
        console.warn("skipped: running as root, and the project cannot be run as nobody (setpriv), so no folder is read-only to the server");
        return;
      }
    }
    const dir = tempDir("read-only");
    chmodSync(dir, 0o755);
    const empty = join(dir, "empty");
    const withDb = join(dir, "with-db");
    try {
      mkdirSync(empty);
      chmodSync(empty, 0o555);
      expectOneSentence(await run(["src/server.ts"], { DATA_DIR: empty }, { asUser }), `DATA_DIR (${empty}) cannot be written`);

      const db = openDb(join(withDb, "offline.db"));
      await migrate(db);
      await closeDb(db);
      chmodSync(withDb, 0o555);
      chmodSync(join(withDb, "offline.db"), 0o444);
      expectOneSentence(await run(["src/server.ts"], { DATA_DIR: withDb }, { asUser }), `DATA_DIR (${withDb}) cannot be written`);
    } finally {
      for (const folder of [empty, withDb]) if (existsSync(folder)) chmodSync(folder, 0o755);
    }
  });

  test("a file that is not a database, and a damaged database", async () => {
    const notDb = tempDir("not-a-db");
    writeFileSync(join(notDb, "offline.db"), "These are my notes, not a database.\n".repeat(200));
    expectOneSentence(await run(["src/server.ts"], { DATA_DIR: notDb }), join(notDb, "offline.db"), "is not a SQLite database", "Backup and restore");

    const damaged = tempDir("damaged");
    await damagedDatabase(join(damaged, "offline.db"));
    const result = await run(["src/server.ts"], { DATA_DIR: damaged });
    expectOneSentence(result, join(damaged, "offline.db"), "is damaged", "quick_check");
  });

  test("an empty or unparsable secrets.json", async () => {
    for (const content of ["", "{\"sessionSecret\": \"abc", "[]"]) {
      const dir = tempDir("secrets");
      writeFileSync(join(dir, "secrets.json"), content);
      expectOneSentence(await run(["src/server.ts"], { DATA_DIR: dir }), join(dir, "secrets.json"), "restore it from a backup");
      // Left as it was for the operator to look at.
      expect(readFileSync(join(dir, "secrets.json"), "utf8")).toBe(content);
    }
  });

  test("a port already in use, and a wrong setting", async () => {
    const taken = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    try {
      expectOneSentence(await run(["src/server.ts"], { DATA_DIR: tempDir("port"), PORT: String(taken.port) }), `PORT ${taken.port} is already in use`);
    } finally {
      await taken.stop(true);
    }
    const result = await run(["src/server.ts"], { DATA_DIR: tempDir("setting"), PORT: "eighty" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("PORT");
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  test("a full disk: SQLite's SQLITE_FULL (also wrapped by drizzle) and the system's ENOSPC", async () => {
    const dataDir = tempDir("full");
    const db = openDb(join(dataDir, "offline.db"));
    await migrate(db);
    // The database may not grow by a page: as on a full disk, SQLite answers SQLITE_FULL.
    const { page_count } = db.$client.query<{ page_count: number }, []>("PRAGMA page_count").get()!;
    // A limit of the connection it is set on: the writer's, where the inserts go.
    writerClient(db).run(`PRAGMA max_page_count = ${page_count}`);
    let full: unknown;
    try {
      for (let i = 0; i < 200; i++) await insert(db).user(userRow({ bio: "x".repeat(2000) }));
    } catch (err) {
      full = err;
    }
    await closeDb(db);
    expect(full).toBeDefined();
    expect(explainStartupFailure(full, { dataDir })).toBe(`The disk holding DATA_DIR (${dataDir}) is full: free some space there and start the server again.`);

    if (existsSync("/dev/full")) {
      let enospc: unknown;
      try {
        writeFileSync("/dev/full", "x");
      } catch (err) {
        enospc = err;
      }
      expect(explainStartupFailure(enospc, { dataDir })).toContain("is full");
    }
    // A bug is not an operator's to fix: it keeps its stack trace.
    expect(explainStartupFailure(new TypeError("x is undefined"), { dataDir })).toBeNull();
  });
});

describe("secrets.json", () => {
  test("is written whole: no temporary file left, readable by its owner only, kept across restarts", async () => {
    const dir = tempDir("secrets-write");
    const config = loadConfig({ DATA_DIR: dir });
    const first = await loadSecrets(config);
    expect(readdirSync(dir)).toEqual(["secrets.json"]);
    expect(statSync(join(dir, "secrets.json")).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dir, "secrets.json"), "utf8"))).toMatchObject({ sessionSecret: first.sessionSecret });
    expect(await loadSecrets(config)).toEqual(first);

    // A file missing its VAPID keys gets them added, through the same atomic write.
    writeFileSync(join(dir, "secrets.json"), JSON.stringify({ sessionSecret: first.sessionSecret }));
    const completed = await loadSecrets(config);
    expect(completed.sessionSecret).toBe(first.sessionSecret);
    expect(completed.vapidPublicKey).not.toBe(first.vapidPublicKey);
    expect(readdirSync(dir)).toEqual(["secrets.json"]);
  });

  test("a write that fails leaves the old file and no temporary one", () => {
    const dir = tempDir("secrets-fail");
    writeFileAtomically(join(dir, "kept.json"), "old");
    // The rename cannot replace a folder: the write fails after the temporary file was made.
    mkdirSync(join(dir, "folder.json"));
    expect(() => writeFileAtomically(join(dir, "folder.json"), "new")).toThrow();
    expect(readdirSync(dir).sort()).toEqual(["folder.json", "kept.json"]);
    expect(readFileSync(join(dir, "kept.json"), "utf8")).toBe("old");
  });

  test("an unparsable one is refused with the file's name and what to do", async () => {
    const dir = tempDir("secrets-bad");
    writeFileSync(join(dir, "secrets.json"), "");
    const refusal = await loadSecrets(loadConfig({ DATA_DIR: dir })).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as Error).message).toStartWith(`${join(dir, "secrets.json")} is empty or damaged`);
  });
});

describe("/health", () => {
  test("answers 503 with the reason while the job runner keeps failing, and 200 again once a pass succeeds", async () => {
    const t = await makeTestApp();
    dirs.push(t.dataDir);
    const health = async () => {
      const res = await t.app.handle(new Request("http://localhost/health"));
      return { status: res.status, body: (await res.json()) as { ok: boolean; reason?: string } };
    };
    expect(await health()).toEqual({ status: 200, body: { ok: true } });
    t.deps.jobs.start(5);
    try {
      await until("a first pass", async () => (await t.db.select().from(leases)).length === 1);
      // The database turns read-only under the runner (as a remounted or full disk would).
      writerClient(t.db).run("PRAGMA query_only = ON");
      await until("the runner to report", async () => (await health()).status === 503);
      const failing = await health();
      expect(failing.body.ok).toBe(false);
      expect(Number(/failed its last (\d+) passes/.exec(failing.body.reason ?? "")?.[1])).toBeGreaterThanOrEqual(UNHEALTHY_AFTER_FAILED_PASSES);
      expect(failing.body.reason).toContain("the database cannot be written");

      writerClient(t.db).run("PRAGMA query_only = OFF");
      await until("the runner to recover", async () => (await health()).status === 200);
      expect(await health()).toEqual({ status: 200, body: { ok: true } });
    } finally {
      await t.deps.jobs.stop();
    }
  });

  test("a job whose handler fails is that job's trouble, not the runner's", async () => {
    const t = await makeTestApp();
    dirs.push(t.dataDir);
    const broken = defineJob({ kind: "test.broken", run: () => Promise.reject(new Error("the push service is down")) });
    await t.deps.jobs.register(broken);
    await writeTransaction(t.db, (tx) => scheduleJob(tx, broken, {}, { at: Date.now(), key: "broken:1" }));
    t.deps.jobs.start(5);
    try {
      await until("the job to fail", async () => (await one(t.db.select().from(jobs).where(eq(jobs.key, "broken:1"))))?.lastError === "the push service is down");
      // Many passes later the runner is still healthy; the job waits for its retry, visible.
      await Bun.sleep(100);
      const res = await t.app.handle(new Request("http://localhost/health"));
      expect(res.status).toBe(200);
      expect(await one(t.db.select().from(jobs).where(eq(jobs.key, "broken:1")))).toMatchObject({ attempts: 1, lastError: "the push service is down" });
    } finally {
      await t.deps.jobs.stop();
    }
  });
});

describe("graceful stop", () => {
  test("in process: requests, the work after commits and the job pass under way finish; the lease is handed over", async () => {
    const t = await makeTestApp();
    dirs.push(t.dataDir);
    const done: string[] = [];
    // A listener that takes a while, as a notification sent to a slow push service does.
    t.deps.events.on(async (event) => {
      if (event.type !== "sessions.ended") return;
      await Bun.sleep(300);
      done.push("notified");
    });
    let jobStarted = false;
    const slowJob = defineJob({
      kind: "test.slow",
      run: async () => {
        jobStarted = true;
        await Bun.sleep(300);
        done.push("job");
      },
    });
    await t.deps.jobs.register(slowJob);
    await writeTransaction(t.db, (tx) => scheduleJob(tx, slowJob, {}, { at: Date.now(), key: "slow:1" }));
    t.app.listen({ port: 0, hostname: "127.0.0.1" });
    t.deps.jobs.start(5);
    await until("the job to start", () => jobStarted);
    expect(await t.db.select().from(leases)).toHaveLength(1);
    t.deps.events.emit({ type: "sessions.ended", userId: "someone", sessionIds: "all" });

    const finished = await shutDown(t.app.server, t.deps, { log: () => {} });
    expect(finished).toBe(true);
    expect(done.sort()).toEqual(["job", "notified"]);
    expect(await t.db.select().from(jobs).where(eq(jobs.key, "slow:1"))).toEqual([]);
    expect(await t.db.select().from(leases)).toEqual([]);
  });

  test("in process: the wait is bounded; what is still running at the deadline is cut", async () => {
    const t = await makeTestApp();
    dirs.push(t.dataDir);
    t.deps.events.on(() => new Promise<void>(() => {}));
    t.deps.events.emit({ type: "sessions.ended", userId: "someone", sessionIds: "all" });
    const started = performance.now();
    const lines: string[] = [];
    expect(await shutDown(null, t.deps, { graceMs: 200, log: (line) => lines.push(line) })).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(lines.join("\n")).toContain("was cut");
  });

  test("SIGTERM: the request under way completes with 200, new connections are refused, the lease is handed over, exit 0", async () => {
    const dataDir = tempDir("sigterm");
    const db = openDb(join(dataDir, "offline.db"));
    await migrate(db);
    const user = await insert(db).user(userRow());
    const session = await createSession(db, user.id);
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = Bun.spawn([process.execPath, "src/server.ts"], {
      cwd: root,
      env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: base, DEMO_DATA: "false" },
      stdout: "pipe",
      stderr: "pipe",
    });
    let output = "";
    void readText(proc.stdout, (text) => (output += text));
    const errors = new Response(proc.stderr).text();
    try {
      await until("the server to run the jobs", () => /runs the durable jobs/.test(output) || proc.exitCode !== null);
      expect(await db.select().from(leases).where(eq(leases.name, "jobs"))).toHaveLength(1);

      // A photo upload, its body sent slowly (a phone on a poor connection): a real slow request.
      const created = await fetch(`${base}/api/objects/upload`, {
        method: "POST",
        headers: { cookie: `sid=${session.token}`, "x-csrf-token": session.csrf, origin: base, "content-type": "application/json" },
        body: "{}",
      });
      expect(created.status).toBe(200);
      const { uploadURL } = (await created.json()) as { uploadURL: string };
      const body = await makeJpeg();
      const socket = connect(port, "127.0.0.1");
      let answer = "";
      socket.on("data", (data) => (answer += data.toString("latin1")));
      const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
      await new Promise<void>((resolve) => socket.on("connect", () => resolve()));
      const half = Math.floor(body.length / 2);
      socket.write(`PUT ${uploadURL} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: image/jpeg\r\nContent-Length: ${body.length}\r\n\r\n`);
      socket.write(body.subarray(0, half));
      await Bun.sleep(300);

      proc.kill("SIGTERM");
      // The listening socket closes at once: new connections are refused while the upload goes on.
      await until("new connections to be refused", async () => {
        try {
          await fetch(`${base}/health`);
          return false;
        } catch {
          return true;
        }
      }, 5_000);
      expect(proc.exitCode).toBeNull();
      await Bun.sleep(500);
      expect(proc.exitCode).toBeNull();

      socket.write(body.subarray(half));
      await closed;
      expect(answer).toStartWith("HTTP/1.1 200");
      expect(answer).toContain('{"ok":true}');
      expect(await proc.exited).toBe(0);
      expect(await db.select({ status: uploads.status }).from(uploads)).toEqual([{ status: "received" }]);
      expect(await db.select().from(leases).where(eq(leases.name, "jobs"))).toEqual([]);
      expect(output).toContain("Stopped.");
      // Nothing failed on the way (a warning about unbuilt browser files may be there).
      expect(await errors).not.toMatch(/error|fail|cut/i);
      expect(await db.select({ id: users.id }).from(users)).toEqual([{ id: user.id }]);
    } finally {
      proc.kill("SIGKILL");
      await proc.exited;
      await closeDb(db);
    }
  }, 30_000);
});
