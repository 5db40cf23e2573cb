import type { PendingSignIns } from '../auth/pending-sign-ins.js';
import type { PasskeyRepository } from './passkey.repository.js';

/**
 * What the services beneath PasskeyService ask of the passkey module's tables. PasskeyService itself
 * sits on the accounts and on the second factor (its step-up), so their questions come here instead
 * and the arrows keep pointing one way: the end of an account's registration challenges when its
 * credentials change. (How many passkeys it has, its MFA status counts with passkeyCountOf, handed to
 * the MFA repository by the composition root.) Sign-in challenges belong to no account and prove
 * nothing until a passkey signs them, in a sign-in that checks the account then: they stay.
 */
export class PasskeyRecords implements PendingSignIns {
  constructor(private readonly passkeys: PasskeyRepository) {}

  endAllOf(userId: string): Promise<void> {
    return this.passkeys.deleteRegistrationChallengesOf(userId);
  }
}
