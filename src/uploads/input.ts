import { z } from "zod";
import { IMAGE_URL_MAX } from "../../shared/limits";

/**
 * `PUT /api/profile-images` and `/api/activity-images`: `imageURL`, the upload URL handed out
 * by `POST /api/objects/upload`. Anything else is an upload we never handed out (404).
 */
export const photoInput = z.object({ imageURL: z.string().max(IMAGE_URL_MAX) });
export type PhotoInput = z.infer<typeof photoInput>;

/**
 * What those routes declare: never refused as input, since anything but an `imageURL` we could
 * have handed out is answered as an unknown upload (404); `imageURL` is null then.
 */
export const photoBody = z.unknown().transform((body) => {
  const read = photoInput.safeParse(body);
  return { imageURL: read.success ? read.data.imageURL : null };
});

/** The signed upload URL's query: its expiry and signature (checked by the service). */
export const uploadQuery = z.object({ expires: z.string().optional(), sig: z.string().optional() });
