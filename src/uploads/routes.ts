import { Elysia } from "elysia";
import type { User } from "../../db/schema";
import { context } from "../context";
import { type Deps, type RequestState } from "../deps";
import { json } from "../lib/http";
import { createUpload, leftoverUploadCleanup, processUpload, receiveUpload, staleUploadsCleanup, UploadError } from "./service";

const IMMUTABLE = "public, max-age=31536000, immutable";

export function uploadError(state: RequestState, err: unknown) {
  if (err instanceof UploadError) {
    if (!err.retryAfterMs) return json({ message: state.t(err.messageKey) }, err.status);
    const message = state.t(err.messageKey, { minutes: Math.ceil(err.retryAfterMs / 60_000) });
    return json({ message }, err.status, { "Retry-After": String(Math.ceil(err.retryAfterMs / 1000)) });
  }
  throw err;
}

/** Photo uploads (spec §7): signed upload URL, the PUT itself, turning it into a photo, serving. */
export function uploadRoutes(deps: Deps) {
  const makePhoto = async ({ body, request, user, state }: { body: unknown; request: Request; user: User; state: RequestState }) => {
    const imageURL = body && typeof body === "object" ? (body as Record<string, unknown>).imageURL : undefined;
    try {
      return json(await processUpload(deps, user.id, imageURL, new URL(request.url).origin));
    } catch (err) {
      return uploadError(state, err);
    }
  };

  deps.jobs.register(staleUploadsCleanup);
  deps.jobs.register(leftoverUploadCleanup);

  return new Elysia({ name: "offline.uploads", seed: deps.id })
    .use(context(deps))
    .post("/api/objects/upload", async ({ user, state }) => {
      try {
        // The bucket answers a refused file in its own words: the browser shows this one instead.
        const started = await createUpload(deps, user.id);
        return json(started.method === "POST" ? { ...started, tooLargeMessage: state.t("upload.tooLarge") } : started);
      } catch (err) {
        return uploadError(state, err);
      }
    }, { signedIn: true })
    // The body is not parsed for this route (see app.tsx): the signed URL is checked first,
    // then the raw bytes are read, whatever type they are sent as, up to the upload limit.
    .put("/api/uploads/:id", async ({ params, query, request, state }) => {
      try {
        await receiveUpload(deps, params.id, query.expires, query.sig, request);
        return json({ ok: true });
      } catch (err) {
        return uploadError(state, err);
      }
    }, { public: true })
    .put("/api/profile-images", makePhoto, { signedIn: true })
    .put("/api/activity-images", makePhoto, { onboarded: true })
    .get("/objects/:id", ({ params }) => serve(deps, params.id, "large"), { public: true })
    // Async, so that Elysia's own error handling sees a failure of the storage (an unreachable bucket).
    .get("/objects/:id/:file", async ({ params }) => {
      const size = params.file === "thumb.webp" ? "thumb" : params.file === "large.webp" ? "large" : null;
      return size ? await serve(deps, params.id, size) : new Response("Not found", { status: 404 });
    }, { public: true });
}

async function serve(deps: Deps, id: string, size: "thumb" | "large") {
  if (!/^[0-9a-f-]{36}$/.test(id)) return new Response("Not found", { status: 404 });
  const body = await deps.storage.body(`photos/${id}/${size}.webp`);
  if (!body) return new Response("Not found", { status: 404 });
  return new Response(body, {
    headers: { "Content-Type": "image/webp", "Cache-Control": IMMUTABLE, "X-Content-Type-Options": "nosniff" },
  });
}
