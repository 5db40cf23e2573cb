import { isForeignKeyViolation } from '../../db/database.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import { oneTimeTokenHash } from '../../shared/tokens/canonical.js';
import { randomToken, sha256Hex } from '../../shared/tokens/secrets.js';
import type { Amr } from '../auth/amr.js';
import type { ExternalSignIn, PassedSecondFactor } from '../auth/second-factor.js';
import type { ProofHolder, ProofTokens } from '../auth/second-proof.js';
import type { SignInMethod } from '../security-event/security-event-type.js';
import type { MfaRepository } from './mfa.repository.js';
import { CHALLENGE_TTL_SECONDS, MAX_ATTEMPTS, type MfaService } from './mfa.service.js';

/**
 * The proofTokens of dormant accounts' sign-ins (SECOND_PROOF_REQUIRED): rows of `mfa_challenges`
 * with purpose `second-proof`, so they share everything an mfaToken has (stored as SHA-256, looked up
 * in their canonical spelling only, single use, 5 minutes, bound to the account and to the sign-in's
 * first factor, dead after 5 wrong proofs, ended with the account's other half-finished sign-ins by a
 * block or a password change) and are never taken where an mfaToken is asked, nor the other way round.
 */
export class SecondProofTokens implements ProofTokens {
  constructor(
    private readonly mfa: MfaRepository,
    private readonly service: MfaService,
  ) {}

  async issue(userId: string, method: SignInMethod, amr: Amr[], external?: ExternalSignIn): Promise<string | undefined> {
    const token = randomToken();
    try {
      await this.mfa.createChallenge(sha256Hex(token), { userId, method, amr, external, purpose: 'second-proof' }, CHALLENGE_TTL_SECONDS);
    } catch (error) {
      // Deleted since its code passed: the sign-in then fails as for a missing account.
      if (isForeignKeyViolation(error)) return undefined;
      throw error;
    }
    return token;
  }

  async holder(proofToken: string): Promise<ProofHolder | undefined> {
    const hash = oneTimeTokenHash(proofToken);
    const found = hash && (await this.mfa.challengeWithFactor(hash, MAX_ATTEMPTS, 'second-proof'));
    if (!found || !found.method) return undefined;
    return { userId: found.userId, method: found.method as SignInMethod, amr: found.amr as Amr[], ...(found.external && { external: found.external }) };
  }

  async countWrong(proofToken: string): Promise<void> {
    const hash = oneTimeTokenHash(proofToken);
    if (hash) await this.mfa.countWrong(hash);
  }

  async use(proofToken: string): Promise<boolean> {
    const hash = oneTimeTokenHash(proofToken);
    return Boolean(hash && (await this.mfa.useChallenge(hash, MAX_ATTEMPTS)));
  }

  verifyCode<T>(proofToken: string, code: string, client: ClientInfo, complete: (passed: PassedSecondFactor) => Promise<T>): Promise<T> {
    return this.service.verify(proofToken, code, client, complete, 'second-proof');
  }
}
