/**
 * A local S3-compatible server at its HTTP boundary (path-style): PUT, GET, HEAD, DELETE of
 * objects. It checks that server calls are signed (SigV4 Authorization header) and that
 * browser uploads carry a presigned URL's signature and have not expired.
 */
export function startFakeS3(bucket: string) {
  const objects = new Map<string, { data: Uint8Array; type: string }>();
  const requests: { method: string; key: string; presigned: boolean }[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req): Promise<Response> {
      const url = new URL(req.url);
      const cors = { "Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "PUT, GET", "Access-Control-Allow-Headers": "*" };
      if (req.method === "OPTIONS") return new Response(null, { status: 204, headers: cors });
      const prefix = `/${bucket}/`;
      if (!url.pathname.startsWith(prefix)) return new Response("<Error><Code>NoSuchBucket</Code></Error>", { status: 404 });
      const key = decodeURIComponent(url.pathname.slice(prefix.length));
      const presigned = url.searchParams.has("X-Amz-Signature");
      const signed = (req.headers.get("authorization") ?? "").startsWith("AWS4-HMAC-SHA256");
      if (!presigned && !signed) return new Response("<Error><Code>AccessDenied</Code></Error>", { status: 403 });
      if (presigned) {
        const date = url.searchParams.get("X-Amz-Date")!; // 20261122T010203Z
        const iso = `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`;
        const expires = Date.parse(iso) + Number(url.searchParams.get("X-Amz-Expires")) * 1000;
        if (Date.now() > expires) return new Response("<Error><Code>AccessDenied</Code></Error>", { status: 403, headers: cors });
      }
      requests.push({ method: req.method, key, presigned });
      switch (req.method) {
        case "PUT": {
          objects.set(key, { data: new Uint8Array(await req.arrayBuffer()), type: req.headers.get("content-type") ?? "application/octet-stream" });
          return new Response(null, { status: 200, headers: { ...cors, ETag: '"fake"' } });
        }
        case "GET":
        case "HEAD": {
          const obj = objects.get(key);
          if (!obj) return new Response("<Error><Code>NoSuchKey</Code></Error>", { status: 404 });
          return new Response(req.method === "HEAD" ? null : new Blob([obj.data as Uint8Array<ArrayBuffer>]), {
            headers: { "Content-Type": obj.type, "Content-Length": String(obj.data.length), ETag: '"fake"', ...cors },
          });
        }
        case "DELETE":
          objects.delete(key);
          return new Response(null, { status: 204 });
      }
      return new Response("method", { status: 405 });
    },
  });
  return { endpoint: `http://127.0.0.1:${server.port}`, objects, requests, stop: () => server.stop(true) };
}
