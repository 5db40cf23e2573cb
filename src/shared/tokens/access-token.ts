import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import jwt from 'jsonwebtoken';
import { AppError, ErrorCode, msg, type Message } from '../errors/app-error.js';
import { isCanonicalJws } from './canonical.js';
import { toUuid, type Uuid } from '../ids.js';
import type { KeyRing, TokenKey } from './signing-keys.js';

/** What a verified token says: its subject and session, and how and when the session proved its factors. */
export interface AccessClaims {
  userId: Uuid;
  sessionId: Uuid;
  /** How the session was signed in (`amr`, RFC 8176); empty in a token without the claim. */
  amr: readonly string[];
  /** When those methods were last proven (`auth_time`, OpenID Connect Core 1.0); absent in tokens issued before the claim. */
  authTime?: Date;
}

/** What a new token says: the claims above, every one of them (ids as the session row has them). */
export interface NewAccessToken {
  userId: string;
  sessionId: string;
  amr: readonly string[];
  authTime: Date;
}

export interface AccessTokenOptions {
  issuer: string;
  audience: string;
  ttlSeconds: number;
}


/**
 * Access tokens: JWTs with `kid` in the header, signed by the key ring's signing key. HS256 and ES256
 * go through jsonwebtoken; EdDSA, which it does not implement, through jose. A token is verified
 * only by the key its `kid` names, with that key's algorithm: the header's `alg` is never trusted.
 */
export class AccessTokens {
  /**
   * Header segments of tokens that verified, and their kid: every token of a key carries the same
   * header, so the per-request check rarely decodes one. Only valid tokens add to it, and a few.
   */
  private readonly kids = new Map<string, string | undefined>();
  /**
   * Tokens that verified, until they expire: a client sends the same token with every request for
   * its lifetime, and the signature, issuer and audience of the same string verify the same way each
   * time. A remembered token still needs its key live in the ring (a retired key ends its tokens at
   * once) and its expiry ahead; the session behind it is checked by the caller on every request.
   */
  private readonly verified = new Map<string, { claims: AccessClaims; key: TokenKey; kid: string | undefined; expiresAt: number }>();

  constructor(
    private readonly keys: { current(): KeyRing },
    private readonly options: AccessTokenOptions,
  ) {}

  get ttlSeconds(): number {
    return this.options.ttlSeconds;
  }

  async sign(claims: NewAccessToken): Promise<string> {
    const { issuer, audience, ttlSeconds } = this.options;
    const key = this.keys.current().signing;
    const payload = {
      sid: claims.sessionId,
      ...(claims.amr.length > 0 && { amr: [...claims.amr] }),
      auth_time: Math.floor(claims.authTime.getTime() / 1000),
    };
    if (key.alg === 'EdDSA') {
      return new SignJWT(payload)
        .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: key.kid })
        .setSubject(claims.userId)
        .setIssuer(issuer)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .setJti(randomUUID())
        .sign(key.signWith);
    }
    return jwt.sign(payload, key.signWith, {
      algorithm: key.alg,
      keyid: key.kid,
      subject: claims.userId,
      issuer,
      audience,
      expiresIn: ttlSeconds,
      jwtid: randomUUID(),
    });
  }

  /**
   * Verifies signature, algorithm, issuer, audience and expiry; an unknown `kid` is UNAUTHENTICATED.
   * Synchronous but for EdDSA (jose checks asynchronously): the per-request check awaits only that.
   */
  verify(token: string): AccessClaims | Promise<AccessClaims> {
    const ring = this.keys.current();
    const known = this.verified.get(token);
    if (known) {
      const { claims, key, kid, expiresAt } = known;
      if (Date.now() < expiresAt && (kid === undefined ? ring.withoutKid : ring.find(kid)) === key) return claims;
      this.verified.delete(token);
    }
    // Only on a miss: every remembered token passed this. Another spelling of a token (padding,
    // whitespace, unused bits) is refused, so one token is one entry of the map, never many.
    if (!isCanonicalJws(token)) throw unauthenticated('invalid');
    const header = token.slice(0, Math.max(0, token.indexOf('.')));
    const kid = this.kids.has(header) ? this.kids.get(header) : headerKid(header);
    const key = kid === undefined ? ring.withoutKid : ring.find(kid);
    if (!key) throw unauthenticated('invalid');
    if (key.alg === 'EdDSA') {
      return this.checkEdDSA(token, key).then(
        (payload) => this.claims(token, payload, header, key, kid),
        (error: unknown) => {
          // jose checks issuer and audience before the expiry, and gives the payload of an expired token.
          const expired = (error as { code?: unknown }).code === 'ERR_JWT_EXPIRED' && claimsOf((error as { payload?: jwt.JwtPayload }).payload ?? '');
          return Promise.reject(unauthenticated(expired ? 'expired' : 'invalid'));
        },
      );
    }
    let payload: jwt.JwtPayload | string;
    try {
      payload = this.check(token, key, key.alg);
    } catch (error) {
      throw unauthenticated(error instanceof jwt.TokenExpiredError && this.wellFormedButExpired(token, key, key.alg) ? 'expired' : 'invalid');
    }
    return this.claims(token, payload, header, key, kid);
  }

  /**
   * jsonwebtoken judges the expiry before issuer and audience: a token is `expired` (worth a refresh)
   * only when everything but its expiry holds, so the rest is checked again without it.
   */
  private wellFormedButExpired(token: string, key: TokenKey, alg: 'HS256' | 'ES256'): boolean {
    try {
      return Boolean(claimsOf(this.check(token, key, alg, true)));
    } catch {
      return false;
    }
  }

  /** The claims of a token whose signature checked out; remembers its header's kid, and the token until it expires. */
  private claims(token: string, payload: jwt.JwtPayload | string, header: string, key: TokenKey, kid: string | undefined): AccessClaims {
    const claims = claimsOf(payload);
    if (!claims || typeof payload === 'string') throw unauthenticated('invalid');
    if (!this.kids.has(header) && this.kids.size < KNOWN_HEADERS) this.kids.set(header, kid);
    const { exp } = payload;
    if (typeof exp === 'number') {
      // The oldest out first: a full map of live tokens gives up one entry for each newcomer.
      if (this.verified.size >= VERIFIED_TOKENS) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, { claims, key, kid, expiresAt: exp * 1000 });
    }
    return claims;
  }

  private check(token: string, key: TokenKey, alg: 'HS256' | 'ES256', ignoreExpiration = false): jwt.JwtPayload | string {
    const { issuer, audience } = this.options;
    return jwt.verify(token, key.verifyWith, { algorithms: [alg], issuer, audience, complete: false, ignoreExpiration });
  }

  private async checkEdDSA(token: string, key: TokenKey): Promise<jwt.JwtPayload> {
    const { issuer, audience } = this.options;
    return (await jwtVerify(token, key.verifyWith, { algorithms: ['EdDSA'], issuer, audience })).payload;
  }
}

/** Verified tokens remembered (about 1 KB each): the live tokens of that many clients at once. */
const VERIFIED_TOKENS = 10_000;

/** Distinct headers remembered: one per key and signing library, so a few suffice. */
const KNOWN_HEADERS = 16;

/** The claims of a verified payload, frozen (the same claims answer every request of a remembered token); undefined when one is missing or malformed. */
function claimsOf(payload: jwt.JwtPayload | string): AccessClaims | undefined {
  if (typeof payload === 'string') return undefined;
  // This service signs ids in lower case; the check makes any other spelling the same id anyway.
  const userId = typeof payload.sub === 'string' ? toUuid(payload.sub) : undefined;
  const sessionId = typeof payload.sid === 'string' ? toUuid(payload.sid) : undefined;
  const { amr = [], auth_time: authTime } = payload as { amr?: unknown; auth_time?: unknown };
  if (!userId || !sessionId || !isStringArray(amr) || (authTime !== undefined && !Number.isSafeInteger(authTime))) return undefined;
  return Object.freeze({
    userId,
    sessionId,
    amr: Object.freeze([...amr]),
    ...(authTime !== undefined && { authTime: new Date((authTime as number) * 1000) }),
  });
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** The `kid` of a token's header segment; undefined when there is none or it cannot be read. */
function headerKid(segment: string): string | undefined {
  if (segment === '') return undefined;
  try {
    const header: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    const kid = (header as { kid?: unknown } | null)?.kid;
    return typeof kid === 'string' ? kid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why a caller is UNAUTHENTICATED (API.md 10.5), told as `reason`: `missing` (no token), `invalid`
 * (malformed, a bad signature, unknown), `expired` (a well-signed access token past its `exp`: refresh
 * and retry), `session_ended` (its session was revoked, logged out, blocked or deleted: sign in again).
 */
export type UnauthenticatedReason = 'missing' | 'invalid' | 'expired' | 'session_ended';

const REASON_MESSAGES: Record<UnauthenticatedReason, Message> = {
  missing: msg('token.missing'),
  invalid: msg('token.invalid'),
  expired: msg('token.expired'),
  session_ended: msg('token.sessionEnded'),
};

/** UNAUTHENTICATED with its `reason` (a problem member, a GraphQL `extensions` member). */
export function unauthenticated(reason: UnauthenticatedReason = 'invalid', message: Message = REASON_MESSAGES[reason]): AppError {
  return new AppError(ErrorCode.UNAUTHENTICATED, message, { details: { reason } });
}
