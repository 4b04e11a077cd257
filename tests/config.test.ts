import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../src/config";

describe("configuration", () => {
  test("runs with nothing set, on its embedded defaults", () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.dataDir).toBe("./data");
    expect(c.publicUrl).toBe("http://localhost:3000");
    expect(c.demoData).toBe(true);
    expect(c.secureCookies).toBe(false);
    expect(c.oauth).toEqual([]);
    expect(c.stripe).toBeUndefined();
    expect(c.adminEmails).toEqual([]);
    expect(c.reusePort).toBe(false);
    expect(c.redisUrl).toBeUndefined();
  });

  test("ADMIN_EMAILS lists the operators: comma-separated, trimmed, lowercased, each once", () => {
    expect(loadConfig({ ADMIN_EMAILS: " Ops@Offline.test, moderator@example.com,,ops@offline.test " }).adminEmails).toEqual(["ops@offline.test", "moderator@example.com"]);
    expect(loadConfig({ ADMIN_EMAILS: "" }).adminEmails).toEqual([]);
  });

  test("several processes: REUSE_PORT shares the port, REDIS_URL joins their live updates", () => {
    const c = loadConfig({ REUSE_PORT: "true", REDIS_URL: "redis://127.0.0.1:6379/0" });
    expect(c.reusePort).toBe(true);
    expect(c.redisUrl).toBe("redis://127.0.0.1:6379/0");
  });

  test("DEMO_DATA=false turns the demo off", () => {
    expect(loadConfig({ DEMO_DATA: "false" }).demoData).toBe(false);
    expect(loadConfig({ DEMO_DATA: "0" }).demoData).toBe(false);
  });

  test("an https public URL makes cookies Secure", () => {
    expect(loadConfig({ PUBLIC_URL: "https://offline.example/" }).secureCookies).toBe(true);
    expect(loadConfig({ PUBLIC_URL: "https://offline.example/" }).publicUrl).toBe("https://offline.example");
  });

  test.each([
    [{ PORT: "eighty" }, "PORT"],
    [{ PUBLIC_URL: "offline.example" }, "PUBLIC_URL"],
    [{ DEMO_DATA: "maybe" }, "DEMO_DATA"],
    [{ SESSION_SECRET: "short" }, "SESSION_SECRET"],
    [{ GOOGLE_CLIENT_ID: "id-only" }, "GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET"],
    [{ STRIPE_SECRET_KEY: "sk_test_x" }, "STRIPE_SECRET_KEY and STRIPE_PUBLISHABLE_KEY"],
    [{ S3_BUCKET: "photos" }, "S3_BUCKET"],
    [{ ADMIN_EMAILS: "ops@offline.test, not-an-email" }, "ADMIN_EMAILS"],
    [{ REDIS_URL: "localhost:6379" }, "REDIS_URL"],
    [{ REUSE_PORT: "sometimes" }, "REUSE_PORT"],
    [{ DATABASE_URL: "mysql://offline@db/offline", ONE_MACHINE: "true" }, "DATABASE_URL must be a postgres:// URL"],
    // Several machines: what stays in one machine is refused at start, unless it is one machine.
    [{ DATABASE_URL: "postgres://offline@db:5432/offline", REDIS_URL: "redis://cache:6379" }, "DATABASE_URL needs S3_BUCKET"],
    [{ DATABASE_URL: "postgres://offline@db:5432/offline", S3_BUCKET: "photos", S3_ACCESS_KEY_ID: "k", S3_SECRET_ACCESS_KEY: "s" }, "DATABASE_URL needs REDIS_URL"],
  ])("%j fails fast naming the setting", (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(name);
  });

  test("PostgreSQL runs with Redis and a bucket for several machines, or alone with ONE_MACHINE", () => {
    const shared = { DATABASE_URL: "postgres://offline:secret@db:5432/offline", REDIS_URL: "redis://cache:6379", S3_BUCKET: "photos", S3_ACCESS_KEY_ID: "k", S3_SECRET_ACCESS_KEY: "s" };
    expect(loadConfig(shared).databaseUrl).toBe("postgres://offline:secret@db:5432/offline");
    expect(loadConfig({ DATABASE_URL: "postgresql://offline@localhost/offline", ONE_MACHINE: "true" }).databaseUrl).toBe("postgresql://offline@localhost/offline");
    expect(loadConfig({}).databaseUrl).toBeUndefined();
  });

  test("providers are enabled by their settings", () => {
    const c = loadConfig({
      GOOGLE_CLIENT_ID: "g",
      GOOGLE_CLIENT_SECRET: "gs",
      OIDC_ISSUER: "https://id.example/",
      OIDC_CLIENT_ID: "o",
      OIDC_NAME: "Example ID",
    });
    expect(c.oauth.map((p) => p.id)).toEqual(["google", "oidc"]);
    expect(c.oauth[1]).toMatchObject({ issuer: "https://id.example", name: "Example ID" });
  });
});
