import { existsSync, readdirSync } from "node:fs";

/**
 * Where the tests find PostgreSQL's programs: POSTGRES_BIN, or the newest version Debian's
 * `postgresql` installed (each major version has its own folder). Undefined when there is none.
 * Its own module, with nothing else imported, so the test runner can ask before it installs.
 */
export function postgresBin(): string | undefined {
  const has = (bin: string) => existsSync(`${bin}/postgres`);
  if (process.env.POSTGRES_BIN) return has(process.env.POSTGRES_BIN) ? process.env.POSTGRES_BIN : undefined;
  try {
    const versions = readdirSync("/usr/lib/postgresql").filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    return versions.map((v) => `/usr/lib/postgresql/${v}/bin`).find(has);
  } catch {
    return undefined;
  }
}
