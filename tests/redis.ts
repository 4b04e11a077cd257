/**
 * A throwaway Redis for the tests that share live updates and limits between processes
 * (Debian's `redis-server`, installed by the test command), on a free port, saving nothing.
 */
import { RedisClient } from "bun";
import { until } from "./helpers";
import { freePort } from "./server-process";

const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? "/usr/bin/redis-server";

export async function startRedis(port = freePort()) {
  const proc = Bun.spawn([REDIS_SERVER, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdout: "ignore", stderr: "inherit" });
  const url = `redis://127.0.0.1:${port}`;
  await until(
    "redis-server",
    async () => {
      const probe = new RedisClient(url, { autoReconnect: false, connectionTimeout: 500 });
      try {
        await probe.connect();
        return (await probe.send("PING", [])) === "PONG";
      } catch {
        return false;
      } finally {
        probe.close();
      }
    },
    15_000,
    50,
  );
  return { url, port, proc };
}
