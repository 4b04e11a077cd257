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

/** Uploads a file the way spec §7 describes; returns the stored photo's path. */
export async function uploadPhoto(file: File, endpoint: string): Promise<string> {
  const { uploadURL } = await callJson<{ uploadURL: string }>("/api/objects/upload", { method: "POST", body: {} });
  const put = await fetch(uploadURL, { method: "PUT", body: file, headers: { "Content-Type": file.type || "application/octet-stream" } });
  if (!put.ok) throw new Error(await errorMessage(put));
  await put.text(); // read it through, so nothing is left pending when the page moves on
  const { objectPath } = await callJson<{ objectPath: string }>(endpoint, { method: "PUT", body: { imageURL: uploadURL } });
  return objectPath;
}

/** Uploaded photos come in sizes; shipped ones are used as they are. */
export function photoSrc(path: string, size: "thumb" | "large" = "thumb") {
  return /^\/objects\/[0-9a-f-]{36}$/.test(path) ? `${path}/${size}.webp` : path;
}
