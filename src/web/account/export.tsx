import { Elysia } from "elysia";
import { z } from "zod";
import { context } from "../../context";
import type { Deps } from "../../deps";
import { json } from "../../../lib/http";
import { exportOfLink, prepareExportJob, removeExportJob, takeCopy, useExportLink, type CopyFile } from "../../account/export";
import { ExportLinkGone, ExportLinkPage } from "../../../views/account/DataExport";

/** The emailed link's token: 32 random bytes in base64url. Anything else is a link that does not work. */
const linkParams = z.object({ token: z.string().max(100) });

/** A copy as a download: saved by the browser under its name, never kept by a cache. */
function download(body: Uint8Array<ArrayBuffer> | Blob | ReadableStream, contentType: string, fileName: string, bytes?: number | null) {
  const headers: Record<string, string> = {
    "Content-Type": contentType,
    "Content-Disposition": `attachment; filename="${fileName}"`,
    "Cache-Control": "private, no-store",
    "X-Content-Type-Options": "nosniff",
  };
  if (bytes) headers["Content-Length"] = String(bytes);
  return new Response(body, { headers });
}

const fileAnswer = (file: CopyFile) => download(file.bytes, file.contentType, file.fileName, file.bytes.length);

/**
 * A copy of a person's data (docs/decisions/0056):
 * - `POST /settings/data-export` (Settings → "Download my data"): the file, or back to Settings
 *   saying the copy is being prepared and its link will be emailed;
 * - `GET /api/account/export`: the same for the API: the file, or 202 `{ status: "preparing", message }`;
 * - `GET /account/export/:token`: the emailed link's page; `POST` the same address: the file, once.
 * Each is for the signed-in person only, profile complete or not.
 */
export function accountExportRoutes(deps: Deps) {
  return new Elysia({ name: "offline.account.export", seed: deps.id })
    .use(context(deps))
    .post(
      "/settings/data-export",
      async ({ user, state, sendTo }) => {
        const answer = await takeCopy(deps, user, state.locale);
        if (answer.kind === "file") return fileAnswer(answer.file);
        return sendTo("/settings#data-export", { title: "dataExport.preparingTitle", body: "dataExport.preparing" });
      },
      { signedIn: true, refused: { title: "common.errorTitle", back: "/settings" } },
    )
    .get(
      "/api/account/export",
      async ({ user, state }) => {
        const answer = await takeCopy(deps, user, state.locale);
        if (answer.kind === "file") return fileAnswer(answer.file);
        return json({ status: "preparing", message: state.t("dataExport.preparing") }, 202);
      },
      { signedIn: true },
    )
    .get(
      "/account/export/:token",
      async ({ params, user, render }) => {
        const row = await exportOfLink(deps, user.id, params.token);
        if (!row) return render((view) => <ExportLinkGone view={view} />, { status: 410 });
        return render((view) => <ExportLinkPage view={view} token={params.token} expiresAt={row.expiresAt!} />);
      },
      { signedIn: true, params: linkParams },
    )
    .post(
      "/account/export/:token",
      async ({ params, user, render }) => {
        const used = await useExportLink(deps, user, params.token);
        if (!used) return render((view) => <ExportLinkGone view={view} />, { status: 410 });
        return download(used.body, used.fileKey.endsWith(".zip") ? "application/zip" : "application/json", used.fileName, used.bytes);
      },
      { signedIn: true, params: linkParams },
    );
}

/** The copy of a person's data: its routes and its jobs (preparing a large copy, removing its file). */
export const accountExportFeature = (deps: Deps) => {
  deps.jobs.register(prepareExportJob as never, removeExportJob as never);
  return new Elysia({ name: "offline.account.export.feature", seed: deps.id }).use(accountExportRoutes(deps));
};
