// Access tokens in tests, for both transports: reading their claims, and forging them with the
// service's real key (expired, tampered, signed for someone else).
import jwt from 'jsonwebtoken';
import { SignJWT } from 'jose';
import { randomUUID, type KeyObject } from 'node:crypto';

/**
 * Fixed in tests so that they can forge tokens (expired, tampered) with the real key. Here rather than
 * in server.ts, which needs jest: the benchmark's WebSocket clients use this module outside jest.
 */
export const TEST_JWT_SECRET = 'test-secret-that-is-at-least-32-characters-long';

/** The claims of the service's access tokens. */
export interface Claims {
  sub: string;
  sid: string;
  iss: string;
  aud: string;
  jti: string;
  iat: number;
  exp: number;
  /** How the session was signed in (RFC 8176). */
  amr?: string[];
  /** When the methods of `amr` were last proven: the session's sign-in or latest step-up (OIDC Core). */
  auth_time?: number;
}

/** The claims of an access token (decoded, not verified). */
export function claimsOf(accessToken: string): Claims {
  return jwt.decode(accessToken) as Claims;
}

/** What a forged token changes from the service's own. */
export interface Forgery {
  secret?: string;
  issuer?: string;
  audience?: string;
  algorithm?: jwt.Algorithm;
  /** The header's kid; none unless given. */
  kid?: string;
  /** Seconds from now; negative for an expired token. 900 (the access TTL) unless given. */
  expiresIn?: number;
  /** Claims set as given, over the ones above (iat, exp, jti ...). */
  claims?: Record<string, unknown>;
}

/** The claims the service would put in a token for `subject`, with the `change`s. */
function claimsFor(subject: { sub: string; sid: string }, change: Forgery): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    sub: subject.sub,
    sid: subject.sid,
    iss: change.issuer ?? 'meeting-accounts',
    aud: change.audience ?? 'meeting-app',
    jti: randomUUID(),
    iat: now,
    exp: now + (change.expiresIn ?? 900),
    ...change.claims,
  };
}

/** Signs an access token for `subject`'s user and session as the service would, or with the `change`s. */
export function forgeToken(subject: { sub: string; sid: string }, change: Forgery = {}): string {
  const options: jwt.SignOptions = { algorithm: change.algorithm ?? 'HS256', ...(change.kid ? { keyid: change.kid } : {}) };
  return jwt.sign(claimsFor(subject, change), change.secret ?? TEST_JWT_SECRET, options);
}

/** Signs a token for `subject` as the service would, with a private key: ES256 by jsonwebtoken, EdDSA by jose. */
export async function forgeSigned(
  subject: { sub: string; sid: string },
  key: { privateKey: KeyObject; alg: 'ES256' | 'EdDSA'; kid?: string },
  change: Omit<Forgery, 'secret' | 'algorithm' | 'kid'> = {},
): Promise<string> {
  const payload = claimsFor(subject, change);
  if (key.alg === 'ES256') return jwt.sign(payload, key.privateKey, { algorithm: 'ES256', ...(key.kid ? { keyid: key.kid } : {}) });
  return new SignJWT(payload).setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', ...(key.kid ? { kid: key.kid } : {}) }).sign(key.privateKey);
}

/** The decoded header of a JWT. */
export function headerOf(token: string): { alg: string; kid?: string; typ?: string } {
  return decodeSegment(token.split('.')[0]!);
}

/** One JSON segment of a JWT, decoded. */
export function decodeSegment(segment: string): any {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
}

/** `value` as a JWT segment (base64url JSON). */
export function encodeSegment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
