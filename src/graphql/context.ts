import type { Principal } from '../modules/auth/authenticator.js';
import type { ClientInfo } from '../modules/auth/sessions.js';
import type { Services } from '../services.js';

export interface GraphQLContext {
  services: Services;
  requestId: string;
  client: ClientInfo;
  /** Authenticates on first use and remembers the answer for the rest of the operation. */
  principal(): Promise<Principal>;
}
