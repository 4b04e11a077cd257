/**
 * deploy/compose.yaml, the README's example of several machines: its app servers must start as
 * configured (the app's own configuration check passes on their settings, with no refusal), on
 * the same database, Redis, bucket and secrets, behind one load balancer. (Running it needs the
 * images, which the test machines cannot pull; tests/two-machines.test.ts runs the same setup.)
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../src/config";

type Service = { image: string; environment?: Record<string, string>; depends_on?: Record<string, unknown> | string[]; command?: string | string[] };
const compose = Bun.YAML.parse(await Bun.file(join(import.meta.dir, "..", "deploy", "compose.yaml")).text()) as { services: Record<string, Service> };
const example = Object.fromEntries(
  (await Bun.file(join(import.meta.dir, "..", "deploy", "example.env")).text())
    .split("\n")
    .filter((line) => /^[A-Z_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf("=")), ""]),
);

/** A setting as compose reads it, with `${NAME:?…}` filled from the operator's .env. */
const filled = (value: string, env: Record<string, string>) => value.replace(/\$\{(\w+)(:\?[^}]*)?\}/g, (_, name: string) => env[name] ?? "");

describe("deploy/compose.yaml", () => {
  const apps = Object.entries(compose.services).filter(([, s]) => s.image === "offline");
  const operator = { POSTGRES_PASSWORD: "pg-secret", MINIO_PASSWORD: "minio-secret", SESSION_SECRET: "s".repeat(64), VAPID_PUBLIC_KEY: "public", VAPID_PRIVATE_KEY: "private" };

  test("the example .env names every secret compose asks for", () => {
    const asked = new Set([...JSON.stringify(compose).matchAll(/\$\{(\w+):\?/g)].map((m) => m[1]!));
    expect([...asked].sort()).toEqual(Object.keys(example).sort());
    expect(Object.keys(operator).sort()).toEqual(Object.keys(example).sort());
  });

  test("two app servers start on PostgreSQL, with Redis, the bucket and the same secrets", () => {
    expect(apps.map(([name]) => name)).toEqual(["app-a", "app-b"]);
    const configs = apps.map(([, app]) => {
      const env = Object.fromEntries(Object.entries(app.environment!).map(([k, v]) => [k, filled(String(v), operator)]));
      return { env, config: loadConfig(env) };
    });
    for (const { config } of configs) {
      expect(config.databaseUrl).toBe("postgres://offline:pg-secret@postgres:5432/offline");
      expect(config.redisUrl).toBe("redis://redis:6379");
      expect(config.s3?.bucket).toBe("photos");
    }
    const shared = ["DATABASE_URL", "REDIS_URL", "S3_BUCKET", "S3_ENDPOINT", "SESSION_SECRET", "VAPID_PUBLIC_KEY", "VAPID_PRIVATE_KEY", "PUBLIC_URL"];
    for (const name of shared) expect(configs[1]!.env[name]).toBe(configs[0]!.env[name]!);
    // One machine loads the demo data, and the other starts once it answers.
    expect(configs.map(({ env }) => env.DEMO_DATA)).toEqual(["true", "false"]);
    expect(compose.services["app-b"]!.depends_on).toMatchObject({ "app-a": { condition: "service_healthy" } });
  });

  test("the load balancer sends requests to both", () => {
    const command = String(compose.services.caddy!.command);
    for (const [name] of apps) expect(command).toContain(`--to ${name}:3000`);
  });
});
