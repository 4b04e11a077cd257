import { CodeChallengeMethod, decodeIdToken, GitHub, Google, OAuth2Client } from "arctic";
import type { OAuthProviderConfig } from "../config";
import type { OAuthProfile } from "./service";

/** One OAuth / OpenID Connect provider, as the sign-in routes use it. */
export interface OAuthFlow {
  config: OAuthProviderConfig;
  authorizationUrl(state: string, codeVerifier: string): Promise<URL>;
  /** Exchanges the callback's code and reads who signed in. */
  profile(code: string, codeVerifier: string): Promise<OAuthProfile>;
}

const str = (v: unknown) => (typeof v === "string" ? v : null);

async function getJson(url: string, accessToken: string): Promise<unknown> {
  const res = await fetch(url, {
    headers: { Authorization: `Bearer ${accessToken}`, Accept: "application/json", "User-Agent": "Offline" },
  });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return res.json();
}

function googleFlow(config: OAuthProviderConfig, redirectUri: string): OAuthFlow {
  const google = new Google(config.clientId, config.clientSecret, redirectUri);
  return {
    config,
    authorizationUrl: async (state, verifier) => google.createAuthorizationURL(state, verifier, ["openid", "email", "profile"]),
    async profile(code, verifier) {
      const tokens = await google.validateAuthorizationCode(code, verifier);
      const claims = decodeIdToken(tokens.idToken()) as Record<string, unknown>;
      return {
        provider: "google",
        subject: String(claims.sub),
        email: str(claims.email),
        emailVerified: claims.email_verified === true,
        firstName: str(claims.given_name),
        lastName: str(claims.family_name),
      };
    },
  };
}

function githubFlow(config: OAuthProviderConfig, redirectUri: string): OAuthFlow {
  const github = new GitHub(config.clientId, config.clientSecret, redirectUri);
  return {
    config,
    authorizationUrl: async (state) => github.createAuthorizationURL(state, ["read:user", "user:email"]),
    async profile(code) {
      const tokens = await github.validateAuthorizationCode(code);
      const user = (await getJson("https://api.github.com/user", tokens.accessToken())) as Record<string, unknown>;
      const emails = (await getJson("https://api.github.com/user/emails", tokens.accessToken())) as {
        email: string;
        primary: boolean;
        verified: boolean;
      }[];
      const primary = Array.isArray(emails) ? emails.find((e) => e.primary && e.verified) : undefined;
      const [firstName, ...rest] = (str(user.name) ?? "").split(" ");
      return {
        provider: "github",
        subject: String(user.id),
        email: primary?.email ?? null,
        emailVerified: Boolean(primary),
        firstName: firstName || null,
        lastName: rest.join(" ") || null,
      };
    },
  };
}

interface OidcDiscovery {
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
}

/** Any OpenID Connect issuer, found through its discovery document; uses PKCE. */
function oidcFlow(config: OAuthProviderConfig, redirectUri: string): OAuthFlow {
  const client = new OAuth2Client(config.clientId, config.clientSecret || null, redirectUri);
  let discovery: Promise<OidcDiscovery> | null = null;
  const discover = () => {
    discovery ??= fetch(`${config.issuer}/.well-known/openid-configuration`)
      .then((res) => {
        if (!res.ok) throw new Error(`OpenID discovery answered ${res.status}`);
        return res.json() as Promise<OidcDiscovery>;
      })
      .catch((err) => {
        discovery = null; // try again on the next sign-in
        throw err;
      });
    return discovery;
  };
  return {
    config,
    async authorizationUrl(state, verifier) {
      const d = await discover();
      return client.createAuthorizationURLWithPKCE(d.authorization_endpoint, state, CodeChallengeMethod.S256, verifier, [
        "openid",
        "email",
        "profile",
      ]);
    },
    async profile(code, verifier) {
      const d = await discover();
      const tokens = await client.validateAuthorizationCode(d.token_endpoint, code, verifier);
      const info = (await getJson(d.userinfo_endpoint, tokens.accessToken())) as Record<string, unknown>;
      if (typeof info.sub !== "string" || !info.sub) throw new Error("userinfo has no subject");
      return {
        provider: "oidc",
        subject: info.sub,
        email: str(info.email),
        emailVerified: info.email_verified === true,
        firstName: str(info.given_name),
        lastName: str(info.family_name),
      };
    },
  };
}

export function oauthFlows(providers: OAuthProviderConfig[], publicUrl: string): Map<string, OAuthFlow> {
  const flows = new Map<string, OAuthFlow>();
  for (const p of providers) {
    const redirectUri = `${publicUrl}/api/callback/${p.id}`;
    flows.set(p.id, p.id === "google" ? googleFlow(p, redirectUri) : p.id === "github" ? githubFlow(p, redirectUri) : oidcFlow(p, redirectUri));
  }
  return flows;
}
