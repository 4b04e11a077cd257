/**
 * A local OpenID Connect provider at its HTTP boundary: discovery, authorize, token (with
 * PKCE S256 checked), userinfo. The app's real arctic client talks to it.
 */
export interface FakeOidcUser {
  sub: string;
  email?: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
}

/**
 * RFC 9207: what the fake sends back as `iss` with the code: its own issuer ("own", as a provider
 * that supports it does), nothing ("none", the default, like most providers), or another value
 * (a provider's issuer in a mix-up attack). `advertiseIss` puts
 * `authorization_response_iss_parameter_supported: true` in its discovery document.
 */
export type IssParameter = "own" | "none" | { value: string };

export function startFakeOidc(opts: { clientId: string; clientSecret: string; advertiseIss?: boolean; iss?: IssParameter }) {
  let issParameter: IssParameter = opts.iss ?? "none";
  const codes = new Map<string, { challenge: string; redirectUri: string; user: FakeOidcUser }>();
  const tokens = new Map<string, FakeOidcUser>();
  let nextUser: FakeOidcUser = { sub: "user-1", email: "oidc@example.com", email_verified: true, given_name: "Olivia", family_name: "Idc" };
  const tokenRequests: URLSearchParams[] = [];

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req): Promise<Response> {
      const url = new URL(req.url);
      const issuer = url.origin;
      if (url.pathname === "/.well-known/openid-configuration") {
        return Response.json({
          issuer,
          authorization_endpoint: `${issuer}/authorize`,
          token_endpoint: `${issuer}/token`,
          userinfo_endpoint: `${issuer}/userinfo`,
          ...(opts.advertiseIss ? { authorization_response_iss_parameter_supported: true } : {}),
        });
      }
      if (url.pathname === "/authorize") {
        const p = url.searchParams;
        if (p.get("client_id") !== opts.clientId || p.get("response_type") !== "code" || p.get("code_challenge_method") !== "S256") {
          return new Response("bad authorize request", { status: 400 });
        }
        const code = crypto.randomUUID();
        codes.set(code, { challenge: p.get("code_challenge")!, redirectUri: p.get("redirect_uri")!, user: nextUser });
        const back = new URL(p.get("redirect_uri")!);
        back.searchParams.set("code", code);
        back.searchParams.set("state", p.get("state")!);
        if (issParameter === "own") back.searchParams.set("iss", issuer);
        else if (issParameter !== "none") back.searchParams.set("iss", issParameter.value);
        return Response.redirect(back.toString(), 302);
      }
      if (url.pathname === "/token" && req.method === "POST") {
        const body = new URLSearchParams(await req.text());
        tokenRequests.push(body);
        const auth = req.headers.get("authorization") ?? "";
        const [id, secret] = Buffer.from(auth.replace(/^Basic /, ""), "base64").toString().split(":");
        if (decodeURIComponent(id ?? "") !== opts.clientId || decodeURIComponent(secret ?? "") !== opts.clientSecret) {
          return Response.json({ error: "invalid_client" }, { status: 401 });
        }
        const entry = codes.get(body.get("code") ?? "");
        if (!entry) return Response.json({ error: "invalid_grant" }, { status: 400 });
        codes.delete(body.get("code")!);
        const verifier = body.get("code_verifier") ?? "";
        const challenge = new Bun.CryptoHasher("sha256").update(verifier).digest("base64url");
        if (challenge !== entry.challenge || body.get("redirect_uri") !== entry.redirectUri) {
          return Response.json({ error: "invalid_grant" }, { status: 400 });
        }
        const accessToken = crypto.randomUUID();
        tokens.set(accessToken, entry.user);
        return Response.json({ access_token: accessToken, token_type: "Bearer", expires_in: 3600 });
      }
      if (url.pathname === "/userinfo") {
        const user = tokens.get((req.headers.get("authorization") ?? "").replace(/^Bearer /, ""));
        return user ? Response.json(user) : new Response("unauthorized", { status: 401 });
      }
      return new Response("not found", { status: 404 });
    },
  });

  return {
    issuer: `http://127.0.0.1:${server.port}`,
    setUser(user: FakeOidcUser) {
      nextUser = user;
    },
    setIss(iss: IssParameter) {
      issParameter = iss;
    },
    tokenRequests,
    stop: () => server.stop(true),
  };
}
