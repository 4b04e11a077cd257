import { SQL } from "bun";
import { chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "./helpers";
import { postgresBin } from "./postgres-bin";
import { freePort } from "./server-process";

/**
 * A throwaway PostgreSQL cluster for the tests, as `redis-server` is for live updates: Debian's
 * `postgresql` package, a new cluster in a temporary folder, on a free port of 127.0.0.1,
 * nothing kept. PostgreSQL refuses to run as root, so as root it runs as the package's
 * `postgres` user.
 */

export interface Postgres {
  /** `postgres://…` of the cluster's `postgres` database. */
  url: string;
  /** A new empty database in the cluster, by its URL. */
  createDatabase(name: string): Promise<string>;
  /**
   * Stops the cluster as an operator's restart does (a fast shutdown: every session is ended with
   * "terminating connection due to administrator command"), and starts it again on the same port
   * and data after `downMs`; resolves once it answers again.
   */
  restart(downMs?: number): Promise<void>;
  /** Stops every process of the cluster where it stands (SIGSTOP): connections stay open, nothing answers, as with a machine that hangs. */
  freeze(): void;
  /** Lets a frozen cluster go on (SIGCONT). */
  thaw(): void;
  stop(): Promise<void>;
}

export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBin();
  if (!bin) throw new Error("PostgreSQL is not installed: apt-get install postgresql (npm test installs it), or set POSTGRES_BIN");
  const asRoot = process.getuid?.() === 0;
  // setpriv runs the program itself as postgres (no process in between), so signals reach it.
  const as = (cmd: string[]) => (asRoot ? ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--", ...cmd] : cmd);
  const folder = mkdtempSync(join(tmpdir(), "offline-pg-"));
  if (asRoot) {
    chownSync(folder, Number(Bun.spawnSync(["id", "-u", "postgres"]).stdout.toString()), Number(Bun.spawnSync(["id", "-g", "postgres"]).stdout.toString()));
    chmodSync(folder, 0o700);
  }
  const data = join(folder, "data");
  const init = Bun.spawnSync(as([`${bin}/initdb`, "-D", data, "-U", "offline", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]), { stdout: "pipe", stderr: "pipe" });
  if (init.exitCode !== 0) throw new Error(`initdb failed: ${init.stderr.toString()}`);
  const port = freePort();
  // Durability is not wanted here: a throwaway cluster need not survive a crash of the machine.
  const launch = () =>
    Bun.spawn(
      as([`${bin}/postgres`, "-D", data, "-p", String(port), "-k", folder, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=1000"]),
      { stdout: "ignore", stderr: "pipe" },
    );
  let proc = launch();
  const url = `postgres://offline@127.0.0.1:${port}/postgres`;
  const answering = () =>
    until(
      "postgres",
      async () => {
        const probe = new SQL(url, { max: 1, connectionTimeout: 1 });
        try {
          await probe`select 1`;
          return true;
        } catch {
          return false;
        } finally {
          await probe.close();
        }
      },
      20_000,
      50,
    );
  await answering();
  /** The cluster's processes: the postmaster and the backends and workers it started. */
  const processes = () => {
    const children: number[] = [];
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        // The parent's id is the fourth field, after the name in parentheses (which may hold spaces).
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === proc.pid) children.push(Number(entry));
      } catch {}
    }
    return [proc.pid, ...children];
  };
  /** A backend may end between being listed and being signalled. */
  const signal = (pid: number, name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {}
  };
  return {
    url,
    async createDatabase(name) {
      const admin = new SQL(url, { max: 1 });
      try {
        await admin.unsafe(`CREATE DATABASE "${name.replace(/"/g, "")}"`);
      } finally {
        await admin.close();
      }
      return `postgres://offline@127.0.0.1:${port}/${name}`;
    },
    async restart(downMs = 0) {
      // SIGINT: PostgreSQL's fast shutdown, which ends every session and exits at once.
      proc.kill("SIGINT");
      await proc.exited;
      if (downMs > 0) await Bun.sleep(downMs);
      proc = launch();
      await answering();
    },
    freeze() {
      // The postmaster first, so that it starts no new backend meanwhile.
      for (const pid of processes()) signal(pid, "SIGSTOP");
    },
    thaw() {
      for (const pid of processes()) signal(pid, "SIGCONT");
    },
    async stop() {
      proc.kill("SIGINT");
      await proc.exited;
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
