import type { PendingSignIns } from '../auth/pending-sign-ins.js';
import type { IdentityRepository } from './identity.repository.js';

/**
 * The account's half-finished links of external identities: its web link flows and the results
 * waiting for it. Ended, with the other pending sign-ins, by a change of the account's credentials.
 * Beneath AccountService, as the account's other pending sign-ins are.
 */
export class PendingIdentityFlows implements PendingSignIns {
  constructor(private readonly identities: IdentityRepository) {}

  endAllOf(userId: string): Promise<void> {
    return this.identities.endPendingOf(userId);
  }
}
