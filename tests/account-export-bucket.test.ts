/**
 * A copy of a person's data with photos in an S3-compatible bucket (docs/decisions/0056): the
 * photos are read from the bucket into the zip, and a large copy is prepared into the bucket and
 * removed from it once downloaded.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { strFromU8, unzipSync } from "fflate";
import { dataExports } from "../db/schema";
import { userRow, insert } from "../src/demo/factories";
import { startFakeS3 } from "./fakes/s3";
import { makeTestApp, pathOfLink, waitForOutboxEmail } from "./helpers";

const HOUR = 60 * 60 * 1000;

let s3: ReturnType<typeof startFakeS3>;
beforeAll(() => {
  s3 = startFakeS3("photos");
});
afterAll(() => s3.stop());

const bucketEnv = () => ({ S3_BUCKET: "photos", S3_ENDPOINT: s3.endpoint, S3_REGION: "us-east-1", S3_ACCESS_KEY_ID: "key", S3_SECRET_ACCESS_KEY: "secret" });

/** A person whose profile photo is in the bucket; answers them signed in, and the photo's bytes. */
async function personWithBucketPhoto(t: Awaited<ReturnType<typeof makeTestApp>>) {
  const photoId = crypto.randomUUID();
  const bytes = new Uint8Array(2048).map((_, i) => (i * 7) % 251);
  await t.deps.storage.write(`photos/${photoId}/large.webp`, bytes, "image/webp");
  const person = await insert(t.db).user(userRow({ photos: [`/objects/${photoId}`], photo: `/objects/${photoId}` }));
  const c = t.client();
  await c.signInAs(person.id);
  return { c, person, photoId, bytes };
}

describe("photos in a bucket", () => {
  let clock = Date.UTC(2026, 10, 20, 12, 0);

  test("are read from the bucket into the zip", async () => {
    const t = await makeTestApp({ now: () => clock, env: bucketEnv() });
    try {
      const { c, photoId, bytes } = await personWithBucketPhoto(t);
      const res = await c.get("/api/account/export");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/zip");
      const entries = unzipSync(new Uint8Array(await res.arrayBuffer()));
      expect(entries[`photos/profile/${photoId}.webp`]).toEqual(bytes);
      expect(JSON.parse(strFromU8(entries["data.json"]!)).photos).toEqual([`photos/profile/${photoId}.webp`]);
    } finally {
      t.cleanup();
    }
  });

  test("a large copy is prepared into the bucket, and removed from it an hour after its download", async () => {
    // More than 1 KB of photos: prepared by the job.
    const t = await makeTestApp({ now: () => clock, env: { ...bucketEnv(), EXPORT_AT_ONCE_MAX_BYTES: "1024" } });
    try {
      const { c, person, bytes } = await personWithBucketPhoto(t);
      expect((await c.get("/api/account/export")).status).toBe(202);
      await t.deps.jobs.runDue();
      const mail = await waitForOutboxEmail(t.dataDir, person.email!, "data-export");
      const [row] = await t.db.select().from(dataExports).where(eq(dataExports.userId, person.id));
      expect(row!.fileKey).toBe(`exports/${row!.id}.zip`);
      expect(s3.objects.get(row!.fileKey!)?.data.length).toBe(row!.bytes!);
      const link = pathOfLink(mail.links.find((l) => l.includes("/account/export/"))!);
      const got = await c.postForm(link, {});
      expect(got.status).toBe(200);
      const entries = unzipSync(new Uint8Array(await got.arrayBuffer()));
      expect(Object.values(entries).some((e) => e.length === bytes.length)).toBe(true);
      expect((await c.postForm(link, {})).status).toBe(410);
      clock += HOUR + 1;
      await t.deps.jobs.runDue();
      expect(s3.objects.has(row!.fileKey!)).toBe(false);
      // The person's photo is untouched.
      expect([...s3.objects.keys()].some((k) => k.startsWith("photos/"))).toBe(true);
    } finally {
      t.cleanup();
    }
  });
});
