import type { Uuid } from '../../shared/ids.js';
import type { UserView } from './user.view.js';

/**
 * The signed-in caller of a request: the token's subject and session, how and when the session
 * proved its factors, and the account as the per-request session check read it (role included).
 * Below the authenticator, the session and the security-event services, which all take it.
 */
export interface Principal {
  userId: Uuid;
  sessionId: Uuid;
  /** The token's `amr` (RFC 8176): how its session was signed in, and `otp`/`mfa` after a second factor. */
  amr: readonly string[];
  /** The token's `auth_time`: when those methods were last proven; absent in tokens issued before the claim. */
  authTime?: Date;
  user: UserView;
}
