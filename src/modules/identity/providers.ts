import { createHash } from 'node:crypto';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { IdentityProviderConfig } from '../../config/identity-providers.js';
import { AppError, ErrorCode, msg, type Message } from '../../shared/errors/app-error.js';
import type { Logger } from '../../shared/logger.js';
import { hasControlCharacters, unstorable } from '../../shared/text.js';
import type { ProvenIdentity } from '../auth/second-factor.js';

/** How long discovered metadata is kept before it is asked for again (served meanwhile, kept on a failed refresh). */
const METADATA_TTL_MS = 60 * 60 * 1000;
/** After a failed discovery, the next try waits this long: a provider that is down is not asked on every request. */
const RETRY_AFTER_FAILURE_MS = 2_000;
/** A token whose key the JWKS lacks makes the JWKS be fetched again, at most this often (a rotation at the provider). */
const JWKS_REFETCH_MS = 5_000;
/** Clock skew tolerated on `exp`, `iat` and `nbf`. */
const CLOCK_TOLERANCE_SECONDS = 60;

export interface ProviderSettings {
  /** Every request to a provider (discovery, JWKS, token endpoint) gives up after this long. */
  timeoutMs: number;
  /** Where the provider sends the browser back: `${publicUrl}/api/v1/auth/oidc/${id}/callback`. */
  publicUrl: string;
  logger: Logger;
}

/** What a web flow's start needs to keep, and the URL to send the browser to. */
export interface AuthorizationStart {
  url: string;
  state: string;
  codeVerifier: string;
  nonce: string;
}

interface Discovered {
  config: oidc.Configuration;
  jwks: JWTVerifyGetKey;
  at: number;
}

function providerError(reason: Message, cause?: unknown): AppError {
  return new AppError(ErrorCode.IDENTITY_PROVIDER_ERROR, msg('identity.providerFailed', { reason }), { cause });
}

function invalidToken(reason: Message, cause?: unknown): AppError {
  return new AppError(ErrorCode.INVALID_CREDENTIALS, msg('identity.providerTokenInvalid', { reason }), { cause });
}

/**
 * One configured provider at run time: its metadata discovered on first use and again every hour
 * (the last good one kept while it is down), its keys (jose's remote JWKS: fetched again when a
 * token names a key it lacks, so a rotation needs no restart), the web flow's requests
 * (openid-client: PKCE S256, state, nonce, ID token validation) and the native flow's ID token
 * check. A provider that is down fails its own sign-ins with IDENTITY_PROVIDER_ERROR and nothing else.
 */
export class Provider {
  private discovered: Discovered | undefined;
  private discovering: Promise<Discovered> | undefined;
  private failedAt = 0;

  constructor(
    readonly config: IdentityProviderConfig,
    private readonly settings: ProviderSettings,
  ) {}

  get id(): string {
    return this.config.id;
  }

  get callbackUrl(): string {
    return `${this.settings.publicUrl}/api/v1/auth/oidc/${this.config.id}/callback`;
  }

  /** The authorization URL of a new web flow, with its PKCE verifier, state and nonce. */
  async start(): Promise<AuthorizationStart> {
    const { config } = await this.metadata();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const parameters: Record<string, string> = {
      redirect_uri: this.callbackUrl,
      scope: this.config.scopes.join(' '),
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    };
    if (this.config.responseMode === 'form_post') parameters.response_mode = 'form_post';
    return { url: oidc.buildAuthorizationUrl(config, parameters).href, state, codeVerifier, nonce };
  }

  /**
   * The identity of a web flow's return to the callback (`answer`: its query, or its form for
   * form_post): the code exchanged with the verifier, the ID token checked against the flow's state
   * and nonce. The provider's own refusal (`access_denied` when the user cancelled) is thrown as
   * ProviderRefusal, to go back to the frontend as it is.
   */
  async finish(answer: URLSearchParams, flow: { state: string; codeVerifier: string; nonce: string }): Promise<ProvenIdentity> {
    // The provider's refusal first: a user who cancelled is told so even while its metadata cannot be had.
    const error = answer.get('error');
    if (error) throw new ProviderRefusal(/^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}$/.test(error) ? error : 'server_error');
    const { config, jwks } = await this.metadata();
    const current = new URL(this.callbackUrl);
    for (const [name, value] of answer) current.searchParams.append(name, value);
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
    } catch (cause) {
      throw codeFlowError(cause);
    }
    // openid-client checked the token's claims against the flow (iss, aud, nonce, times); its
    // signature is checked here against the provider's keys, as the native flow's, so that a key
    // rotation is followed as soon (openid-client's own key cache waits a minute before it looks again).
    const idToken = tokens.id_token;
    if (!idToken) throw invalidToken(msg('identity.reason.noIdToken'));
    const metadata = config.serverMetadata();
    try {
      await jwtVerify(idToken, jwks, { issuer: metadata.issuer, audience: this.config.clientId, algorithms: this.algorithms(metadata), clockTolerance: CLOCK_TOLERANCE_SECONDS });
    } catch (cause) {
      throw nativeError(cause);
    }
    return this.identityOf(tokens.claims()!);
  }

  /**
   * The identity of an ID token a platform SDK obtained (Sign in with Apple, Google on Android):
   * signed by a key of the issuer's JWKS with an algorithm it announces, `iss` the issuer, `aud` the
   * client id or one of the extra audiences, live (`exp`, `nbf`, `iat` not in the future, with a
   * minute of leeway). A token that carries `nonce` must carry the request's nonce or its SHA-256
   * (hex), as Apple's SDK sends it; a token without one must come without one.
   */
  async verify(idToken: string, nonce: string | undefined): Promise<{ identity: ProvenIdentity; expiresAt: Date }> {
    const { config, jwks } = await this.metadata();
    const metadata = config.serverMetadata();
    const algorithms = this.algorithms(metadata);
    const audiences = [this.config.clientId, ...this.config.extraAudiences];
    this.assertMeantForUs(idToken, metadata.issuer, audiences);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, jwks, {
        issuer: metadata.issuer,
        audience: audiences,
        algorithms,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        // With a maximum age, jose also refuses an `iat` in the future.
        maxTokenAge: '1d',
        requiredClaims: ['sub', 'iat', 'exp'],
      }));
    } catch (cause) {
      throw nativeError(cause);
    }
    const carried = payload.nonce;
    if (carried !== undefined || nonce !== undefined) {
      if (typeof carried !== 'string' || nonce === undefined) throw invalidToken(msg(carried === undefined ? 'identity.reason.nonceMissing' : 'identity.reason.nonceUnsent'));
      if (carried !== nonce && carried !== createHash('sha256').update(nonce).digest('hex')) throw invalidToken(msg('identity.reason.nonceWrong'));
    }
    return { identity: this.identityOf(payload), expiresAt: new Date((payload.exp as number) * 1000) };
  }

  /** The asymmetric algorithms the provider announces for ID tokens: never `none`, never an HMAC keyed by a public secret. */
  private algorithms(metadata: oidc.ServerMetadata): string[] {
    return (metadata.id_token_signing_alg_values_supported ?? ['RS256']).filter((alg) => alg !== 'none' && !alg.startsWith('HS'));
  }

  /**
   * INVALID_CREDENTIALS for a token that is not even meant for this provider and client (another
   * issuer's, another audience's, or no JWT at all), read before its key is looked for: only a token
   * that names this issuer and client, and whose key the JWKS lacks, is the provider's fault.
   */
  private assertMeantForUs(idToken: string, issuer: string, audiences: string[]): void {
    let claims: JWTPayload;
    try {
      claims = decodeJwt(idToken);
    } catch (cause) {
      throw invalidToken(msg('identity.reason.notJwt'), cause);
    }
    const aud = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud : [];
    if (claims.iss !== issuer) throw invalidToken(msg('identity.reason.issuer'));
    if (!aud.some((a) => audiences.includes(a))) throw invalidToken(msg('identity.reason.audience'));
  }

  /** Discovers the provider if it was not, or if its metadata is an hour old (kept when the refresh fails). */
  private async metadata(): Promise<Discovered> {
    const known = this.discovered;
    if (known && Date.now() - known.at < METADATA_TTL_MS) return known;
    if (known) {
      this.refresh().catch(() => undefined);
      return known;
    }
    if (Date.now() - this.failedAt < RETRY_AFTER_FAILURE_MS) throw providerError(msg('identity.reason.discovery'));
    return this.refresh();
  }

  private refresh(): Promise<Discovered> {
    this.discovering ??= this.discover().finally(() => (this.discovering = undefined));
    return this.discovering;
  }

  private async discover(): Promise<Discovered> {
    const { issuer, clientId, clientSecret } = this.config;
    const insecure = new URL(issuer).protocol === 'http:';
    // Every request to the provider gives up after OIDC_TIMEOUT_MS to the millisecond (openid-client's
    // own timeout counts whole seconds): discovery, and the configuration's token requests after it.
    const timeoutMs = this.settings.timeoutMs;
    const options: oidc.DiscoveryRequestOptions = {
      // (Its body type, a Uint8Array of any buffer, is fetch's under Node's types but not the DOM's.)
      [oidc.customFetch]: (url, init) =>
        fetch(url, { ...(init as RequestInit), signal: init.signal ? AbortSignal.any([init.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs) }),
      ...(insecure && { execute: [oidc.allowInsecureRequests] }),
    };
    try {
      const config = await oidc.discovery(new URL(issuer), clientId, clientSecret, clientSecret ? undefined : oidc.None(), options);
      const jwksUri = config.serverMetadata().jwks_uri;
      if (!jwksUri) throw new Error('the discovery document names no jwks_uri');
      const jwks = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: this.settings.timeoutMs, cooldownDuration: JWKS_REFETCH_MS, cacheMaxAge: METADATA_TTL_MS });
      const discovered = { config, jwks, at: Date.now() };
      if (!this.discovered) this.settings.logger.info({ provider: this.id, issuer }, 'identity provider discovered');
      this.discovered = discovered;
      return discovered;
    } catch (cause) {
      this.failedAt = Date.now();
      this.settings.logger.warn({ provider: this.id, issuer, err: cause }, 'identity provider discovery failed; its sign-ins answer IDENTITY_PROVIDER_ERROR until it answers');
      throw providerError(msg('identity.reason.discovery'), cause);
    }
  }

  /** The identity an ID token names; its email and name only where they are text the database can hold. */
  private identityOf(claims: { sub?: unknown; email?: unknown; name?: unknown }): ProvenIdentity {
    const { sub } = claims;
    if (typeof sub !== 'string' || sub.length === 0 || sub.length > 255 || unstorable(sub) || hasControlCharacters(sub)) throw invalidToken(msg('identity.reason.subject'));
    return { provider: this.id, issuer: this.config.issuer, subject: sub, email: shown(claims.email, 320), name: shown(claims.name, 200) };
  }
}

/** A provider's `error` answer to the authorization request (`access_denied`: the user said no). */
export class ProviderRefusal extends Error {
  constructor(readonly error: string) {
    super(`The identity provider answered ${error}`);
    this.name = 'ProviderRefusal';
  }
}

/** A claim kept for display: text of at most `max` characters, or nothing. */
function shown(value: unknown, max: number): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return text.length > 0 && text.length <= max && !unstorable(text) && !hasControlCharacters(text) ? text : null;
}

/** The ID token's own faults of the code flow; anything else is the provider's (unreachable, or it refused). */
const TOKEN_FAULTS = new Set(['OAUTH_JWT_CLAIM_COMPARISON_FAILED', 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED', 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED']);

function codeFlowError(cause: unknown): AppError {
  const { code, message } = (cause ?? {}) as { code?: unknown; message?: unknown };
  const badSignature = code === 'OAUTH_INVALID_RESPONSE' && typeof message === 'string' && /signature verification failed/.test(message);
  if ((typeof code === 'string' && TOKEN_FAULTS.has(code)) || badSignature) return invalidToken(msg('identity.reason.flow'), cause);
  return providerError(cause instanceof oidc.ResponseBodyError ? msg('identity.reason.tokenEndpoint', { error: cause.error }) : msg('identity.reason.exchange'), cause);
}

function nativeError(cause: unknown): AppError {
  // The keys could not be had, or none of them is the token's (a rotation not yet published, or a
  // JWKS served without it): the provider's fault as far as the caller can tell.
  if (cause instanceof joseErrors.JWKSNoMatchingKey || cause instanceof joseErrors.JWKSTimeout || cause instanceof joseErrors.JWKSInvalid) {
    return providerError(msg('identity.reason.unknownKey'), cause);
  }
  // The generic JOSEError is jose's own HTTP failure (the JWKS answered other than 200 OK).
  if (cause instanceof joseErrors.JOSEError && cause.code !== 'ERR_JOSE_GENERIC') return invalidToken(msg('identity.reason.library', { detail: cause.message }), cause);
  return providerError(msg('identity.reason.keys'), cause);
}
