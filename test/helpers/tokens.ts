// Access tokens in tests, for both transports: reading their claims, and forging them with the
// service's real key (expired, tampered, signed for someone else).
import jwt from 'jsonwebtoken';
import { randomUUID } from 'node:crypto';
import { TEST_JWT_SECRET } from './server.js';

/** The claims of the service's access tokens. */
export interface Claims {
  sub: string;
  sid: string;
  iss: string;
  aud: string;
  jti: string;
  iat: number;
  exp: number;
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
  /** Seconds from now; negative for an expired token. 900 (the access TTL) unless given. */
  expiresIn?: number;
  /** Claims set as given, over the ones above (iat, exp, jti ...). */
  claims?: Record<string, unknown>;
}

/** Signs an access token for `subject`'s user and session as the service would, or with the `change`s. */
export function forgeToken(subject: { sub: string; sid: string }, change: Forgery = {}): string {
  const now = Math.floor(Date.now() / 1000);
  const payload = {
    sub: subject.sub,
    sid: subject.sid,
    iss: change.issuer ?? 'meeting-accounts',
    aud: change.audience ?? 'meeting-app',
    jti: randomUUID(),
    iat: now,
    exp: now + (change.expiresIn ?? 900),
    ...change.claims,
  };
  return jwt.sign(payload, change.secret ?? TEST_JWT_SECRET, { algorithm: change.algorithm ?? 'HS256' });
}

/** One JSON segment of a JWT, decoded. */
export function decodeSegment(segment: string): any {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
}

/** `value` as a JWT segment (base64url JSON). */
export function encodeSegment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
