import type { PendingSignIns } from '../auth/pending-sign-ins.js';
import type { MfaRepository } from './mfa.repository.js';

/**
 * The account's mfaTokens (sign-ins waiting for their second factor, and step-ups), as the changes of
 * its credentials end them. Beneath AccountService, which MfaService sits on.
 */
export class PendingMfaTokens implements PendingSignIns {
  constructor(private readonly mfa: MfaRepository) {}

  async endAllOf(userId: string): Promise<void> {
    await this.mfa.deleteChallengesOf(userId);
  }
}
