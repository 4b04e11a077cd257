import { z } from "zod";
import { safeNext } from "../../lib/http";

/**
 * The activity named in the address (`/saved/{activityId}`, `/api/saved/{activityId}`): any text.
 * Something that is not an activity id is an activity that does not exist (404, as any unknown id),
 * answered by the service, so ids are never confirmed or refused by their shape alone.
 */
export const savedParams = z.object({ activityId: z.string() });

/**
 * The heart's post (`POST /saved/{activityId}`): `save` says the state wanted, `1` saved or `0`
 * not, so sending it twice (a double tap, a replay after being offline) lands in the same
 * state; `back`, when given, is the page to return to without JavaScript (a path of this site;
 * otherwise the page the post came from).
 */
export const heartForm = z.object({
  save: z.enum(["1", "0"], { message: "saved.error.choice" }).transform((v) => v === "1"),
  back: z.unknown().optional().transform((back) => (back === undefined ? undefined : safeNext(back, "/saved"))),
});
export type HeartForm = z.infer<typeof heartForm>;
