// The oidc-provider configuration of the test provider: its clients, accounts, keys and lifetimes,
// with every default that would print a development notice replaced, so that it runs quietly.
import type { ClientMetadata, Configuration } from 'oidc-provider';
import type { SigningKey } from './provider-keys.js';

export interface ProviderClient {
  clientId: string;
  /** Required unless tokenEndpointAuthMethod is `none` (a public client, such as a phone app). */
  clientSecret?: string;
  redirectUris: string[];
  /**
   * `client_secret_post` unless given: openid-client 6's default for a client with a secret, and
   * oidc-provider refuses any method but the one registered.
   */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post' | 'none';
}

/** An account's claims besides `sub`: email, email_verified, name, phone_number, ... */
export type AccountClaims = Record<string, unknown>;

/** The standard claims (OIDC Core 5.4) in the ID token of each scope granted. */
const SCOPE_CLAIMS: Record<string, string[]> = {
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
  address: ['address'],
  profile: ['name', 'given_name', 'family_name', 'middle_name', 'nickname', 'preferred_username', 'profile', 'picture', 'website', 'gender', 'birthdate', 'zoneinfo', 'locale', 'updated_at'],
};

export interface ConfigurationInput {
  keys: readonly SigningKey[];
  clients: readonly ProviderClient[];
  accounts: Readonly<Record<string, AccountClaims>>;
  idTokenTtl: number;
  cookieKeys: string[];
  adapter: NonNullable<Configuration['adapter']>;
}

export function providerConfiguration(input: ConfigurationInput): Configuration {
  const standard = new Set(Object.values(SCOPE_CLAIMS).flat());
  // Claims of no standard scope (a provider's own, such as Google's `hd`) go in every ID token.
  const own = [...new Set(Object.values(input.accounts).flatMap(Object.keys))].filter((claim) => !standard.has(claim) && claim !== 'sub');
  const clients: ClientMetadata[] = input.clients.map((client) => ({
    client_id: client.clientId,
    ...(client.clientSecret ? { client_secret: client.clientSecret } : {}),
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod ?? 'client_secret_post',
    response_types: ['code'],
    grant_types: ['authorization_code'],
    id_token_signed_response_alg: input.keys[0]!.alg,
  }));
  return {
    clients,
    jwks: { keys: input.keys.map((key) => key.jwk as never) },
    adapter: input.adapter,
    cookies: { keys: input.cookieKeys },
    claims: { ...SCOPE_CLAIMS, openid: ['sub', ...own] },
    // Claims of the granted scopes in the ID token itself, as Google and Apple put them there (the
    // native flow has nothing else); oidc-provider's default keeps them for userinfo.
    conformIdTokenClaims: false,
    findAccount: (_ctx, sub) => {
      const claims = input.accounts[sub];
      return claims ? { accountId: sub, claims: () => ({ ...claims, sub }) } : undefined;
    },
    // The web flow of the service always sends S256 PKCE: required here of every client, not only public ones.
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    ttl: { IdToken: input.idTokenTtl, AccessToken: 600, AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 3600 },
    clientBasedCORS: () => false,
    // An error that cannot go back to the client (an unknown client or redirect URI), without the web font of the default page.
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Error</title></head><body><main><h1>${out.error}</h1><p>${String(out.error_description ?? '').replace(/[&<>"']/g, '')}</p></main></body></html>`;
    },
  };
}
