import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import jwt from 'jsonwebtoken';
import { AppError, ErrorCode } from '../errors/app-error.js';
import type { KeyRing, TokenKey } from './signing-keys.js';

export interface AccessClaims {
  userId: string;
  sessionId: string;
}

export interface AccessTokenOptions {
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

// Session and user ids are UUIDs; anything else would reach a uuid column and fail there as a 500.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Access tokens: JWTs with `kid` in the header, signed by the key ring's signing key. HS256 and ES256
 * go through jsonwebtoken; EdDSA, which it does not implement, through jose. A token is verified
 * only by the key its `kid` names, with that key's algorithm: the header's `alg` is never trusted.
 */
export class AccessTokens {
  constructor(
    private readonly keys: { current(): KeyRing },
    private readonly options: AccessTokenOptions,
  ) {}

  get ttlSeconds(): number {
    return this.options.ttlSeconds;
  }

  async sign(claims: AccessClaims): Promise<string> {
    const { issuer, audience, ttlSeconds } = this.options;
    const key = this.keys.current().signing;
    if (key.alg === 'EdDSA') {
      return new SignJWT({ sid: claims.sessionId })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: key.kid })
        .setSubject(claims.userId)
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .setJti(randomUUID())
        .sign(key.signWith);
    }
    return jwt.sign({ sid: claims.sessionId }, key.signWith, {
      algorithm: key.alg,
      keyid: key.kid,
      subject: claims.userId,
      issuer,
      audience,
      expiresIn: ttlSeconds,
      jwtid: randomUUID(),
    });
  }

  /** Verifies signature, algorithm, issuer, audience and expiry; an unknown `kid` is UNAUTHENTICATED. */
  async verify(token: string): Promise<AccessClaims> {
    const ring = this.keys.current();
    const kid = headerKid(token);
    const key = kid === undefined ? ring.withoutKid : ring.find(kid);
    if (!key) throw unauthenticated();
    let payload: jwt.JwtPayload | string;
    try {
      payload = await this.check(token, key);
    } catch {
      throw unauthenticated();
    }
    if (typeof payload === 'string' || typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || !UUID.test(payload.sub) || !UUID.test(payload.sid)) {
      throw unauthenticated();
    }
    return { userId: payload.sub, sessionId: payload.sid };
  }

  private async check(token: string, key: TokenKey): Promise<jwt.JwtPayload | string> {
    const { issuer, audience } = this.options;
    if (key.alg === 'EdDSA') return (await jwtVerify(token, key.verifyWith, { algorithms: ['EdDSA'], issuer, audience })).payload;
    return jwt.verify(token, key.verifyWith, { algorithms: [key.alg], issuer, audience, complete: false });
  }
}

/** The `kid` of the token's header; undefined when there is none or the header cannot be read. */
function headerKid(token: string): string | undefined {
  const dot = token.indexOf('.');
  if (dot <= 0) return undefined;
  try {
    const header: unknown = JSON.parse(Buffer.from(token.slice(0, dot), 'base64url').toString('utf8'));
    const kid = (header as { kid?: unknown } | null)?.kid;
    return typeof kid === 'string' ? kid : undefined;
  } catch {
    return undefined;
  }
}

export function unauthenticated(message = 'A valid access token is required'): AppError {
  return new AppError(ErrorCode.UNAUTHENTICATED, message);
}
