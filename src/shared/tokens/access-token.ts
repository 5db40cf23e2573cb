import { randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { AppError, ErrorCode } from '../errors/app-error.js';

export interface AccessClaims {
  userId: string;
  sessionId: string;
}

export interface AccessTokenOptions {
  key: KeyObject;
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

const ALGORITHM = 'HS256';
// Session and user ids are UUIDs; anything else would reach a uuid column and fail there as a 500.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** HS256 JWTs signed with a KeyObject built once (a string secret is rebuilt on every call). */
export class AccessTokens {
  constructor(private readonly options: AccessTokenOptions) {}

  get ttlSeconds(): number {
    return this.options.ttlSeconds;
  }

  sign(claims: AccessClaims): string {
    const { key, issuer, audience, ttlSeconds } = this.options;
    return jwt.sign({ sid: claims.sessionId }, key, {
      algorithm: ALGORITHM,
      subject: claims.userId,
      issuer,
      audience,
      expiresIn: ttlSeconds,
      jwtid: randomUUID(),
    });
  }

  /** Verifies signature, algorithm, issuer, audience and expiry; never trusts the token's header. */
  verify(token: string): AccessClaims {
    const { key, issuer, audience } = this.options;
    let payload: jwt.JwtPayload | string;
    try {
      payload = jwt.verify(token, key, { algorithms: [ALGORITHM], issuer, audience, complete: false });
    } catch {
      throw unauthenticated();
    }
    if (typeof payload === 'string' || typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || !UUID.test(payload.sub) || !UUID.test(payload.sid)) {
      throw unauthenticated();
    }
    return { userId: payload.sub, sessionId: payload.sid };
  }
}

export function unauthenticated(message = 'A valid access token is required'): AppError {
  return new AppError(ErrorCode.UNAUTHENTICATED, message);
}
