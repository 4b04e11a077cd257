import { Elysia } from "elysia";
import type { User } from "../../../db/schema";
import { context } from "../../context";
import { type Deps } from "../../deps";
import { DomainError } from "../../../lib/domain-error";
import { json } from "../../../lib/http";
import { photoBody } from "../../uploads/input";
import { createUpload, photoKey, processUpload, receiveUpload } from "../../uploads/service";
import { MAX_UPLOAD_BYTES } from "../../../shared/limits";

const IMMUTABLE = "public, max-age=31536000, immutable";

/**
 * Photo uploads (spec §7): signed upload URL, the PUT itself, turning it into a photo, serving.
 * Refusals are `DomainError`s, answered by the app's error handler (src/web/shell/error-answers.tsx).
 */
export function uploadRoutes(deps: Deps) {
  const makePhoto = async ({ body, request, user }: { body: { imageURL: string | null }; request: Request; user: User }) => {
    // Not a URL we could have handed out: the same answer as an unknown upload.
    if (body.imageURL === null) throw new DomainError("upload.invalid", 404);
    return json(await processUpload(deps, user.id, body.imageURL, new URL(request.url).origin));
  };

  return new Elysia({ name: "offline.uploads", seed: deps.id })
    .use(context(deps))
    .post("/api/objects/upload", async ({ user, state }) => {
      // The bucket answers a refused file in its own words: the browser shows this one instead.
      const started = await createUpload(deps, user.id);
      return json(started.method === "POST" ? { ...started, tooLargeMessage: state.t("upload.tooLarge") } : started);
    }, { signedIn: true })
    // The body is not parsed for this route (`rawBody`): the signed URL is checked first, then
    // the raw bytes are read, whatever type they are sent as, up to the upload limit.
    .put("/api/uploads/:id", async ({ params, query, request }) => {
      await receiveUpload(deps, params.id, query.expires, query.sig, request);
      return json({ ok: true });
    }, { public: true, rawBody: MAX_UPLOAD_BYTES, signedUrl: true })
    .put("/api/profile-images", makePhoto, { signedIn: true, body: photoBody })
    .put("/api/activity-images", makePhoto, { onboarded: true, body: photoBody })
    .get("/objects/:id", ({ params }) => serve(deps, params.id, "large"), { public: true })
    // Async, so that Elysia's own error handling sees a failure of the storage (an unreachable bucket).
    .get("/objects/:id/:file", async ({ params }) => {
      const size = params.file === "thumb.webp" ? "thumb" : params.file === "large.webp" ? "large" : null;
      return size ? await serve(deps, params.id, size) : new Response("Not found", { status: 404 });
    }, { public: true });
}

async function serve(deps: Deps, id: string, size: "thumb" | "large") {
  if (!/^[0-9a-f-]{36}$/.test(id)) return new Response("Not found", { status: 404 });
  const body = await deps.storage.body(photoKey(id, size));
  if (!body) return new Response("Not found", { status: 404 });
  return new Response(body, {
    headers: { "Content-Type": "image/webp", "Cache-Control": IMMUTABLE, "X-Content-Type-Options": "nosniff" },
  });
}
