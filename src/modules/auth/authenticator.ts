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

  async authenticate(authorization: string | undefined): Promise<Principal> {
    const token = bearerToken(authorization);
    if (!token) throw unauthenticated();
    const verified = this.tokens.verify(token);
    const claims = verified instanceof Promise ? await verified : verified;
    const user = await this.sessions.liveUser(claims.sessionId, claims.userId);
    if (!user) throw unauthenticated('The session has ended; sign in again');
    return { ...claims, user };
  }
}
