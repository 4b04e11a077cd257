/**
 * Fills the database in DATA_DIR for benchmarks: `bun run seed --activities 10000`.
 * Makes the demo first when the database is empty, then adds generated activities spread over
 * the demo hosts, cities and categories.
 */
import { join } from "node:path";
import { migrate, openDb } from "../db/client";
import { demoCities } from "../db/demo-data";
import { activities, users } from "../db/schema";
import { seededRandom, seedDemo } from "../db/seed";
import { categories } from "../src/activities/categories";
import { loadConfig } from "../src/config";

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const count = Number(arg("activities") ?? 0);
if (!Number.isInteger(count) || count < 0 || count > 1_000_000) {
  console.error("Usage: bun run seed --activities N   (N from 0 to 1000000)");
  process.exit(1);
}

const config = loadConfig();
const db = openDb(join(config.dataDir, "offline.db"));
await migrate(db);
await seedDemo(db);

const hosts = await db.select({ id: users.id, city: users.city, country: users.country }).from(users);
const random = seededRandom(count);
const adjectives = ["Relaxed", "Beginner", "Advanced", "Evening", "Morning", "Weekend", "Private", "Small-group"];
const nouns = ["session", "class", "workshop", "walk", "lesson", "meetup", "tour", "practice"];
const now = Date.now();
const started = performance.now();

await db.transaction(async (tx) => {
  for (let i = 0; i < count; i += 500) {
    const batch = [];
    for (let k = i; k < Math.min(count, i + 500); k++) {
      const host = hosts[Math.floor(random() * hosts.length)]!;
      const city = random() < 0.5 && host.city ? { city: host.city, country: host.country! } : demoCities[k % demoCities.length]!;
      const category = categories[k % categories.length]!;
      batch.push({
        id: crypto.randomUUID(),
        hostId: host.id,
        country: city.country,
        city: city.city,
        category,
        title: `${adjectives[k % adjectives.length]} ${category} ${nouns[(k >> 3) % nouns.length]} #${k + 1}`,
        description: `A generated ${category} activity for load testing.`,
        hourlyRateCents: 1500 + Math.floor(random() * 80) * 100,
        photos: [`/static/photos/${category}-${(k % 3) + 1}.svg`],
        createdAt: now - k * 1000,
        updatedAt: now - k * 1000,
      });
    }
    await tx.insert(activities).values(batch);
  }
});
console.log(`Added ${count} activities in ${Math.round(performance.now() - started)} ms to ${join(config.dataDir, "offline.db")}.`);
