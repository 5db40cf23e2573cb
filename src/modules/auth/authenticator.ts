import { unauthenticated, type AccessTokens } from '../../shared/tokens/access-token.js';
import type { Principal } from '../account/principal.js';
import type { SessionService } from '../session/session.service.js';

/** `Bearer <token>` (scheme case-insensitive); the token's shape is checked by the JWT decoder. */
function bearerToken(authorization: string | undefined): string | undefined {
  const value = authorization?.trim();
  if (!value || value.length <= 7 || value[6] !== ' ' || value.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  return value.slice(7);
}

/** Turns an `Authorization` header into the signed-in principal, or throws UNAUTHENTICATED. */
export class Authenticator {
  constructor(
    private readonly tokens: AccessTokens,
    private readonly sessions: SessionService,
  ) {}

  /**
   * `reason` of a refusal: no header (or a blank one) is `missing`; a header that holds no bearer
   * token, or a token that does not verify, `invalid`; a verified token past its expiry, `expired`
   * (even when its session ended too: the refresh then tells that); a verified token whose session is
   * no longer live (revoked, expired, its account blocked or deleted), `session_ended`.
   */
  async authenticate(authorization: string | undefined): Promise<Principal> {
    const token = bearerToken(authorization);
    if (!token) throw unauthenticated(authorization?.trim() ? 'invalid' : 'missing');
    const verified = this.tokens.verify(token);
    const claims = verified instanceof Promise ? await verified : verified;
    const user = await this.sessions.liveUser(claims.sessionId, claims.userId);
    if (!user) throw unauthenticated('session_ended');
    return { ...claims, user };
  }
}
