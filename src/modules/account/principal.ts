import type { Uuid } from '../../shared/ids.js';
import type { UserView } from './user.view.js';

/**
 * The signed-in caller of a request: the token's subject and session, and the account as the
 * per-request session check read it (role included). Below the authenticator, the session and the
 * security-event services, which all take it.
 */
export interface Principal {
  userId: Uuid;
  sessionId: Uuid;
  user: UserView;
}
