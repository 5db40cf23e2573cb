// The authorization-code flow against the test provider without a browser: an authorization request
// (S256 PKCE, state, nonce) followed over HTTP with a cookie jar through the provider's login and
// consent pages to the code at the redirect URI (read from the Location header, never requested),
// then the code exchanged at the token endpoint. What a phone's sign-in SDK hands the app, for the
// native flow: an ID token the provider issued.
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt, type JWTPayload } from 'jose';
import type { ProviderClient } from './provider-config.js';

const random = () => randomBytes(32).toString('base64url');

export interface AuthorizationOptions {
  clientId: string;
  /** The client's first redirect URI unless given. */
  redirectUri?: string;
  /** `openid email profile phone` unless given. */
  scope?: string;
  /** Sent as given; none unless given. */
  nonce?: string;
  /** A fresh random one unless given. */
  state?: string;
}

export interface AuthorizationRequest {
  /** The authorization endpoint's URL with every parameter, to open in a browser. */
  url: string;
  clientId: string;
  redirectUri: string;
  state: string;
  nonce?: string;
  /** The PKCE verifier of the request's S256 code_challenge. */
  codeVerifier: string;
}

export interface IdTokenOptions extends Omit<AuthorizationOptions, 'state'> {
  /** The account that signs in at the provider's login page. */
  sub: string;
}

export interface IssuedIdToken {
  idToken: string;
  /** The ID token's claims (decoded, not verified). */
  claims: JWTPayload & Record<string, unknown>;
  /** The token endpoint's whole answer (access_token, token_type, expires_in, scope, id_token). */
  response: Record<string, unknown>;
}

interface Issuer {
  issuer: string;
  clients: readonly ProviderClient[];
}

function clientOf(op: Issuer, clientId: string): ProviderClient {
  const client = op.clients.find((c) => c.clientId === clientId);
  if (!client) throw new Error(`the test provider has no client "${clientId}"`);
  return client;
}

export function authorizationRequest(op: Issuer, options: AuthorizationOptions): AuthorizationRequest {
  const redirectUri = options.redirectUri ?? clientOf(op, options.clientId).redirectUris[0]!;
  const state = options.state ?? random();
  const codeVerifier = random();
  const url = new URL('/auth', op.issuer);
  url.search = new URLSearchParams({
    client_id: options.clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: options.scope ?? 'openid email profile phone',
    state,
    code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
  }).toString();
  return { url: url.href, clientId: options.clientId, redirectUri, state, nonce: options.nonce, codeVerifier };
}

/** fetch without following redirects, keeping the provider's cookies by name (their paths do not matter to it). */
export function cookieJar() {
  const cookies = new Map<string, string>();
  return async (url: string, form?: Record<string, string>): Promise<Response> => {
    const response = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
      body: form ? new URLSearchParams(form) : undefined,
    });
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(';');
      const name = pair!.slice(0, pair!.indexOf('=')).trim();
      const value = pair!.slice(pair!.indexOf('=') + 1).trim();
      const expired = attributes.some((a) => /^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) <= Date.now());
      if (!value || expired) cookies.delete(name);
      else cookies.set(name, value);
    }
    return response;
  };
}

/** Where the provider sent the user agent: the next URL, or the failure to report. */
async function nextUrl(response: Response, at: string): Promise<URL> {
  const location = response.headers.get('location');
  if (response.status >= 300 && response.status < 400 && location) return new URL(location, at);
  throw new Error(`the test provider answered ${response.status} at ${at}: ${(await response.text()).slice(0, 500)}`);
}

/** The authorization code of `request`, signed in as `sub` and consenting, by the provider's own pages. */
async function authorizationCode(request: AuthorizationRequest, sub: string): Promise<string> {
  const fetchWithCookies = cookieJar();
  let at = request.url;
  let response = await fetchWithCookies(at);
  for (let step = 0; step < 8; step++) {
    const next = await nextUrl(response, at);
    if (`${next.origin}${next.pathname}` === request.redirectUri) {
      const error = next.searchParams.get('error');
      if (error) throw new Error(`the test provider refused the authorization request: ${error} (${next.searchParams.get('error_description')})`);
      if (next.searchParams.get('state') !== request.state) throw new Error(`the test provider returned another state: ${next.href}`);
      return next.searchParams.get('code')!;
    }
    at = next.href;
    // Each page of the provider (login, then consent) is completed by the same form post.
    response = await fetchWithCookies(at, next.pathname.startsWith('/interaction/') ? { login: sub } : undefined);
  }
  throw new Error(`the test provider did not return to ${request.redirectUri} (last at ${at})`);
}

/** Exchanges `code` at the token endpoint, authenticating as the client does. */
async function exchangeCode(op: Issuer, request: AuthorizationRequest, code: string): Promise<Record<string, unknown>> {
  const client = clientOf(op, request.clientId);
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: request.redirectUri, code_verifier: request.codeVerifier });
  const headers: Record<string, string> = {};
  const method = client.tokenEndpointAuthMethod ?? 'client_secret_post';
  if (method === 'client_secret_basic') {
    const credentials = `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret ?? '')}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  } else {
    form.set('client_id', client.clientId);
    if (method === 'client_secret_post') form.set('client_secret', client.clientSecret ?? '');
  }
  const response = await fetch(new URL('/token', op.issuer), { method: 'POST', headers, body: form });
  const body = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200) throw new Error(`the test provider's token endpoint answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

export async function issueIdToken(op: Issuer, options: IdTokenOptions): Promise<IssuedIdToken> {
  const request = authorizationRequest(op, options);
  const response = await exchangeCode(op, request, await authorizationCode(request, options.sub));
  const idToken = response.id_token as string;
  return { idToken, claims: decodeJwt(idToken), response };
}
