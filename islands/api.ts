/** Small helpers islands share: calls with the CSRF token, errors as the spec phrases them. */

export function csrfToken(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? "";
}

/** A non-2xx answer becomes an Error whose message is the server's, or "status: text". */
export async function callJson<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(path, {
    method: init.method ?? "GET",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrfToken() },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    credentials: "same-origin",
  });
  if (!res.ok) throw new Error(await errorMessage(res));
  return (await res.json()) as T;
}

export async function errorMessage(res: Response): Promise<string> {
  const text = await res.text();
  try {
    const data = JSON.parse(text) as { message?: string };
    if (data.message) return data.message;
  } catch {}
  return `${res.status}: ${text || res.statusText}`;
}

export function toast(title: string, body?: string, variant: "success" | "error" = "error") {
  document.body.dispatchEvent(new CustomEvent("toast", { detail: { title, body, variant } }));
}

/**
 * What `POST /api/objects/upload` answers: where and how to send the file (a PUT of the raw bytes
 * to our own URL, or, with a bucket, a POST form whose policy limits the size), then the
 * `imageURL` to turn into a photo.
 */
type StartedUpload = {
  method?: "PUT" | "POST";
  uploadURL: string;
  imageURL?: string;
  fields?: Record<string, string>;
  maxBytes?: number;
  tooLargeMessage?: string;
};

/** Uploads a file the way spec §7 describes; returns the stored photo's path. */
export async function uploadPhoto(file: File, endpoint: string): Promise<string> {
  const started = await callJson<StartedUpload>("/api/objects/upload", { method: "POST", body: {} });
  let sent: Response;
  if (started.method === "POST") {
    // Straight to the bucket, which refuses a file over the limit itself (its answer is XML).
    const tooLarge = started.tooLargeMessage ?? "413";
    if (started.maxBytes && file.size > started.maxBytes) throw new Error(tooLarge);
    const form = new FormData();
    for (const [name, value] of Object.entries(started.fields ?? {})) form.append(name, value);
    form.append("file", file); // last: the bucket ignores fields after the file
    sent = await fetch(started.uploadURL, { method: "POST", body: form });
    if (!sent.ok) throw new Error((await sent.text()).includes("EntityTooLarge") ? tooLarge : `${sent.status}: ${sent.statusText}`);
  } else {
    sent = await fetch(started.uploadURL, { method: "PUT", body: file, headers: { "Content-Type": file.type || "application/octet-stream" } });
    if (!sent.ok) throw new Error(await errorMessage(sent));
  }
  await sent.text(); // read it through, so nothing is left pending when the page moves on
  const { objectPath } = await callJson<{ objectPath: string }>(endpoint, { method: "PUT", body: { imageURL: started.imageURL ?? started.uploadURL } });
  return objectPath;
}

/** Uploaded photos come in sizes; shipped ones are used as they are. */
export function photoSrc(path: string, size: "thumb" | "large" = "thumb") {
  return /^\/objects\/[0-9a-f-]{36}$/.test(path) ? `${path}/${size}.webp` : path;
}

/** A refused call: the server's message and its refusals by field (`{ message, fields }`). */
export class RefusedCall extends Error {
  constructor(
    message: string,
    readonly fields: Record<string, string>,
  ) {
    super(message);
  }
}

/** As `callJson`, but a refusal keeps the server's messages by field, for a form to show each under its field. */
export async function sendJson<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(path, {
    method: init.method ?? "GET",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrfToken() },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    credentials: "same-origin",
  });
  if (res.ok) return (await res.json()) as T;
  const text = await res.text();
  let data: { message?: unknown; fields?: unknown } = {};
  try {
    data = JSON.parse(text) as typeof data;
  } catch {}
  const fields = data.fields && typeof data.fields === "object" ? Object.fromEntries(Object.entries(data.fields).filter((e): e is [string, string] => typeof e[1] === "string")) : {};
  throw new RefusedCall(typeof data.message === "string" && data.message ? data.message : `${res.status}: ${text || res.statusText}`, fields);
}
