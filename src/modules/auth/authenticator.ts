import { unauthenticated, type AccessTokens } from '../../shared/tokens/access-token.js';
import type { UserView } from '../account/user.view.js';
import type { Sessions } from './sessions.js';

export interface Principal {
  userId: string;
  sessionId: string;
  user: UserView;
}

const BEARER = /^Bearer ([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*)$/i;

/** Turns an `Authorization` header into the signed-in principal, or throws UNAUTHENTICATED. */
export class Authenticator {
  constructor(
    private readonly tokens: AccessTokens,
    private readonly sessions: Sessions,
  ) {}

  async authenticate(authorization: string | undefined): Promise<Principal> {
    const match = authorization ? BEARER.exec(authorization.trim()) : null;
    if (!match) throw unauthenticated();
    const claims = this.tokens.verify(match[1]!);
    const user = await this.sessions.liveUser(claims.sessionId, claims.userId);
    if (!user) throw unauthenticated('The session has ended; sign in again');
    return { ...claims, user };
  }
}
