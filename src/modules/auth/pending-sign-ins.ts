/**
 * An account's half-finished sign-ins: mfaTokens waiting for a second factor (of sign-ins and of
 * step-ups) and passkey registration challenges. A change of the account's credentials (a block, a
 * password change or reset, TOTP switched off) ends them in its own transaction, so that nothing
 * begun under the old credentials finishes under the new ones. The modules that own them end them.
 */
export interface PendingSignIns {
  /** Ends every half-finished sign-in of the account, in the caller's transaction. */
  endAllOf(userId: string): Promise<void>;
}

/** The pending sign-ins of several modules, ended one after the other. */
export function allPendingSignIns(parts: readonly PendingSignIns[]): PendingSignIns {
  return {
    async endAllOf(userId) {
      for (const part of parts) await part.endAllOf(userId);
    },
  };
}
