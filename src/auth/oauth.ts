import { CodeChallengeMethod, decodeIdToken, GitHub, Google, OAuth2Client } from "arctic";
import type { OAuthProviderConfig } from "../config";
import type { SentIssuer } from "./input";
import type { OAuthProfile } from "./service";

/** One OAuth / OpenID Connect provider, as the sign-in routes use it. */
export interface OAuthFlow {
  config: OAuthProviderConfig;
  authorizationUrl(state: string, codeVerifier: string): Promise<URL>;
  /**
   * Whether the callback's `iss` (RFC 9207; one value, absent, or null for anything else a query
   * holds) is acceptable: checked before the code is exchanged, so a code sent back by another
   * provider (a mix-up attack) is never redeemed with this one.
   */
  acceptsIssuer(iss: SentIssuer): Promise<boolean>;
  /** Exchanges the callback's code and reads who signed in. */
  profile(code: string, codeVerifier: string): Promise<OAuthProfile>;
}

const str = (v: unknown) => (typeof v === "string" ? v : null);

/**
 * RFC 9207, section 2.4: an `iss` sent back must be the provider's issuer identifier, compared as
 * strings; one that says it always sends it (`required`) must have sent it. `expected` is null
 * for a provider with no issuer identifier (GitHub is not an OpenID provider and names none).
 */
export function issuerAccepted(iss: SentIssuer, expected: string | null, required: boolean): boolean {
  if (iss === undefined) return !required;
  if (iss === null) return false; // repeated (?iss=a&iss=b) or otherwise malformed
  return expected === null ? !required : iss === expected;
}

/** Google's issuer identifier (its OpenID discovery document names it). */
const GOOGLE_ISSUER = "https://accounts.google.com";

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
    acceptsIssuer: async (iss) => issuerAccepted(iss, GOOGLE_ISSUER, false),
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
    // GitHub names no issuer identifier to compare with; its own callback path and the state
    // cookie (which names the provider) keep its codes apart from the others'.
    acceptsIssuer: async (iss) => iss !== null,
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
  issuer?: string;
  /** RFC 9207: the provider always sends `iss` back with the code. */
  authorization_response_iss_parameter_supported?: boolean;
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
    async acceptsIssuer(iss) {
      const d = await discover();
      // The configured issuer, as the provider writes it (OIDC_ISSUER is kept without a
      // trailing slash; some providers' identifiers end with one).
      const expected = typeof d.issuer === "string" && d.issuer.replace(/\/+$/, "") === config.issuer ? d.issuer : (config.issuer ?? null);
      return issuerAccepted(iss, expected, d.authorization_response_iss_parameter_supported === true);
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
