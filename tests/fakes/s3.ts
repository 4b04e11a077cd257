import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * A local S3-compatible server at its HTTP boundary (path-style): PUT, GET (with Range), HEAD,
 * DELETE of objects, and the browser's POST Object with a policy. It checks that server calls
 * are signed (SigV4 Authorization header), that presigned URLs carry a signature and have not
 * expired, and enforces a POST policy the way S3 does: the SigV4 signature of the policy with
 * the bucket's secret, its expiration, every condition (`bucket`, exact and `starts-with`
 * fields, `content-length-range`), and no form field the policy does not name. A file outside
 * the length range is refused with 400 EntityTooLarge / EntityTooSmall and not stored.
 *
 * `requests` records every call that got past the signature checks: its method, key, whether it
 * came from a browser (presigned URL or POST form), the Range asked for and the bytes sent back.
 */
export function startFakeS3(bucket: string, credentials = { accessKeyId: "key", secretAccessKey: "secret" }) {
  const objects = new Map<string, { data: Uint8Array; type: string }>();
  const requests: { method: string; key: string; presigned: boolean; range?: string | null; bytesSent?: number; status?: number }[] = [];
  const cors = { "Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "PUT, POST, GET", "Access-Control-Allow-Headers": "*" };
  const error = (status: number, code: string, message = code) =>
    new Response(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`, {
      status,
      headers: { ...cors, "Content-Type": "application/xml" },
    });

  async function postObject(req: Request): Promise<Response> {
    let form: FormData;
    try {
      form = await req.formData();
    } catch {
      return error(400, "MalformedPOSTRequest");
    }
    const fields = new Map<string, string>();
    let file: File | null = null;
    for (const [name, value] of form.entries()) {
      if (name.toLowerCase() === "file") {
        if (typeof value === "string") return error(400, "InvalidArgument", "file must be a file");
        file = value as File;
        break; // S3 ignores fields after the file
      }
      if (typeof value === "string") fields.set(name.toLowerCase(), value);
    }
    if (!file) return error(400, "InvalidArgument", "POST requires exactly one file upload per request.");
    const policyB64 = fields.get("policy");
    const signature = fields.get("x-amz-signature");
    const credential = fields.get("x-amz-credential");
    if (!policyB64 || !signature || !credential || fields.get("x-amz-algorithm") !== "AWS4-HMAC-SHA256") return error(403, "AccessDenied", "missing policy or signature");
    const [accessKeyId, day, region, service, terminal] = credential.split("/");
    if (accessKeyId !== credentials.accessKeyId || service !== "s3" || terminal !== "aws4_request") return error(403, "InvalidAccessKeyId");
    const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();
    const signingKey = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day!), region!), "s3"), "aws4_request");
    const expected = Buffer.from(createHmac("sha256", signingKey).update(policyB64).digest("hex"));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return error(403, "SignatureDoesNotMatch");
    let policy: { expiration: string; conditions: unknown[] };
    try {
      policy = JSON.parse(Buffer.from(policyB64, "base64").toString("utf8"));
    } catch {
      return error(400, "InvalidPolicyDocument");
    }
    if (!(Date.parse(policy.expiration) > Date.now())) return error(403, "AccessDenied", "Invalid according to Policy: Policy expired.");
    const values = new Map(fields);
    values.set("bucket", bucket);
    const named = new Set(["policy", "x-amz-signature", "file", "bucket"]);
    let range: [number, number] | null = null;
    for (const condition of policy.conditions) {
      if (Array.isArray(condition)) {
        const [op, field, value] = condition as [string, string | number, string | number];
        if (op === "content-length-range") {
          range = [Number(field), Number(value)];
          continue;
        }
        const name = String(field).replace(/^\$/, "").toLowerCase();
        named.add(name);
        const actual = values.get(name) ?? "";
        if (op === "eq" ? actual !== value : op === "starts-with" ? !actual.startsWith(String(value)) : true) {
          return error(403, "AccessDenied", `Invalid according to Policy: Policy Condition failed: ${JSON.stringify(condition)}`);
        }
      } else {
        for (const [field, value] of Object.entries(condition as Record<string, string>)) {
          const name = field.toLowerCase();
          named.add(name);
          if (values.get(name) !== value) return error(403, "AccessDenied", `Invalid according to Policy: Policy Condition failed: ${JSON.stringify(condition)}`);
        }
      }
    }
    for (const name of fields.keys()) {
      if (!named.has(name) && !name.startsWith("x-ignore-")) return error(403, "AccessDenied", `Invalid according to Policy: Extra input fields: ${name}`);
    }
    const key = fields.get("key");
    if (!key) return error(400, "InvalidArgument", "key is required");
    requests.push({ method: "POST", key, presigned: true });
    if (range && file.size > range[1]) return error(400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size");
    if (range && file.size < range[0]) return error(400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed size");
    objects.set(key, { data: new Uint8Array(await file.arrayBuffer()), type: fields.get("content-type") ?? "application/octet-stream" });
    return new Response(null, { status: 204, headers: { ...cors, ETag: '"fake"', Location: `${new URL(req.url).origin}/${bucket}/${key}` } });
  }

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    maxRequestBodySize: 1024 * 1024 * 1024,
    async fetch(req): Promise<Response> {
      const url = new URL(req.url);
      if (req.method === "OPTIONS") return new Response(null, { status: 204, headers: cors });
      if (req.method === "POST" && (url.pathname === `/${bucket}` || url.pathname === `/${bucket}/`)) return postObject(req);
      const prefix = `/${bucket}/`;
      if (!url.pathname.startsWith(prefix)) return error(404, "NoSuchBucket");
      const key = decodeURIComponent(url.pathname.slice(prefix.length));
      const presigned = url.searchParams.has("X-Amz-Signature");
      const signed = (req.headers.get("authorization") ?? "").startsWith("AWS4-HMAC-SHA256");
      if (!presigned && !signed) return error(403, "AccessDenied");
      if (presigned) {
        const date = url.searchParams.get("X-Amz-Date")!; // 20261122T010203Z
        const iso = `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`;
        const expires = Date.parse(iso) + Number(url.searchParams.get("X-Amz-Expires")) * 1000;
        if (Date.now() > expires) return error(403, "AccessDenied");
      }
      const record: (typeof requests)[number] = { method: req.method, key, presigned, range: req.headers.get("range") };
      requests.push(record);
      switch (req.method) {
        case "PUT": {
          objects.set(key, { data: new Uint8Array(await req.arrayBuffer()), type: req.headers.get("content-type") ?? "application/octet-stream" });
          return new Response(null, { status: 200, headers: { ...cors, ETag: '"fake"' } });
        }
        case "GET":
        case "HEAD": {
          const obj = objects.get(key);
          if (!obj) return (record.status = 404), error(404, "NoSuchKey");
          const headers: Record<string, string> = { "Content-Type": obj.type, ETag: '"fake"', "Accept-Ranges": "bytes", ...cors };
          let data = obj.data;
          let status = 200;
          const range = /^bytes=(\d+)-(\d*)$/.exec(record.range ?? "");
          if (range && req.method === "GET") {
            const start = Number(range[1]);
            const end = Math.min(range[2] ? Number(range[2]) : obj.data.length - 1, obj.data.length - 1);
            if (start >= obj.data.length) return (record.status = 416), error(416, "InvalidRange");
            data = obj.data.subarray(start, end + 1);
            status = 206;
            headers["Content-Range"] = `bytes ${start}-${end}/${obj.data.length}`;
          }
          headers["Content-Length"] = String(req.method === "HEAD" ? obj.data.length : data.length);
          record.status = status;
          record.bytesSent = req.method === "HEAD" ? 0 : data.length;
          return new Response(req.method === "HEAD" ? null : new Blob([data as Uint8Array<ArrayBuffer>]), { status, headers });
        }
        case "DELETE":
          objects.delete(key);
          return new Response(null, { status: 204 });
      }
      return new Response("method", { status: 405 });
    },
  });
  return { endpoint: `http://127.0.0.1:${server.port}`, bucket, credentials, objects, requests, stop: () => server.stop(true) };
}
