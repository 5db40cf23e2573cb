import { AppError, ErrorCode, msg } from '../../shared/errors/app-error.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import type { AccountService } from '../account/account.service.js';
import { SignInMethod } from '../security-event/security-event-type.js';
import type { PasswordCheck } from './password-check.js';
import type { SecondProofInput } from './second-proof.inputs.js';
import type { ProofTokens } from './second-proof.js';
import { invalidCredentials, type AuthPayload, type SignIns } from './sign-ins.js';

export interface SecondProofDependencies {
  accounts: Pick<AccountService, 'findById' | 'findByPhone'>;
  passwords: PasswordCheck;
  tokens: ProofTokens;
  signIns: SignIns;
}

/**
 * Finishes what answered SECOND_PROOF_REQUIRED (a dormant account's sign-in by its phone alone) with
 * a proof of the account. A TOTP or recovery code is the second proof and the second factor at once:
 * it completes the sign-in (the MFA module judges it, as verifyMfa's, and counts a wrong one against
 * the token and the account's MFA failure limits). A password replaces the phone's weakness only: the
 * account's second factor is then asked as after any first factor (MFA_REQUIRED), and a wrong one
 * counts against the token and the password failure limits. A blocked account is told so only once
 * the proof was right.
 */
export class SecondProofService {
  constructor(private readonly deps: SecondProofDependencies) {}

  complete(input: SecondProofInput, client: ClientInfo): Promise<AuthPayload> {
    return this.deps.signIns.counted('second-proof', () => this.prove(input, client));
  }

  private async prove(input: SecondProofInput, client: ClientInfo): Promise<AuthPayload> {
    const { tokens, signIns } = this.deps;
    const code = input.totp ?? input.recoveryCode;
    if (code !== undefined) {
      return tokens.verifyCode(input.proofToken, code, client, (passed) => {
        // A proofToken is never a step-up's: it has no session.
        if (passed.kind !== 'sign-in') throw deadToken();
        return signIns.complete(passed.userId, passed.method, client, { isNewUser: false, amr: passed.amr, external: passed.external });
      });
    }
    return this.withPassword(input.proofToken, input.password!, client);
  }

  private async withPassword(proofToken: string, password: string, client: ClientInfo): Promise<AuthPayload> {
    const { accounts, passwords, tokens, signIns } = this.deps;
    const holder = await tokens.holder(proofToken);
    if (!holder) throw deadToken();
    const phone = (await accounts.findById(holder.userId))?.phone;
    const account = phone === undefined ? undefined : await accounts.findByPhone(phone);
    // Deleted (or its number given to another account) since the token was issued: as dead as its sign-in.
    if (!account || account.id !== holder.userId) throw deadToken();
    if (!(await passwords.verify(account.phone, client.ip, password, account.passwordHash))) {
      await tokens.countWrong(proofToken);
      await signIns.recordFailure(SignInMethod.PASSWORD, account.phone, account, client);
      throw invalidCredentials();
    }
    if (!(await tokens.use(proofToken))) throw deadToken();
    // The phone and the password: the account's second factor, if it has one, is asked as usual.
    return signIns.complete(holder.userId, holder.method, client, { isNewUser: false, gate: true, amr: [...holder.amr, 'pwd'], external: holder.external });
  }
}

/** An unknown, used, expired or dead proofToken (or another spelling of one): as an unknown mfaToken. */
function deadToken(): AppError {
  return new AppError(ErrorCode.INVALID_CODE, msg('auth.proofTokenInvalid'));
}
