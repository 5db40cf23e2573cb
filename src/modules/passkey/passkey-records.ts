import type { PasskeyRepository } from './passkey.repository.js';

/**
 * What the services beneath PasskeyService ask of the passkey module's tables. PasskeyService itself
 * sits on the second factor (its step-up), so the second factor's own questions come here instead,
 * and the arrows keep pointing one way: how many passkeys an account has (its MFA status).
 */
export class PasskeyRecords {
  constructor(private readonly passkeys: PasskeyRepository) {}

  countOf(userId: string): Promise<number> {
    return this.passkeys.countFor(userId);
  }
}
