import type { Database } from '../../db/database.js';
import { AppError, ErrorCode, assertThat, msg } from '../../shared/errors/app-error.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import { parsePhone } from '../../shared/phone.js';
import type { AccountService } from '../account/account.service.js';
import { defaultNickname, normaliseNickname } from '../account/nickname.js';
import { SignInMethod } from '../security-event/security-event-type.js';
import type { Amr } from './amr.js';
import { CodePurpose } from './code-purpose.js';
import type { ExternalIdentities, ProvenIdentity } from './second-factor.js';
import { codeGone, type AuthPayload, type SignIns } from './sign-ins.js';

export interface ExternalSignInDependencies {
  db: Database;
  accounts: AccountService;
  identities: ExternalIdentities;
  signIns: SignIns;
}

export interface ExternalSignInSettings {
  defaultPhoneRegion: string;
  registrationEnabled: boolean;
}

/** What a link by phone proves: the provider's identity and the phone's code (RFC 8176 `fed` and `sms`). */
const LINK_AMR: Amr[] = ['fed', 'sms'];

/** The link by phone code of API.md 9.1: a link token, and the phone's sign-in code. */
export interface LinkByPhoneInput {
  linkToken: string;
  phone: string;
  code: string;
}

/**
 * Sign-in through an external OpenID Connect provider (API.md 9.1): by a web flow's one-time result
 * or by a platform SDK's ID token. A linked identity signs in to its account, as any first factor
 * (then MFA_REQUIRED when the account has TOTP; ACCOUNT_BLOCKED when blocked). An unknown one is
 * never matched to an account by its email or phone claims: it gets PHONE_VERIFICATION_REQUIRED with
 * a link token, and only a phone proven by its SMS code then signs in to (or creates) that phone's
 * account and links the identity, after the account's second factor when it has one.
 */
export class ExternalSignInService {
  constructor(
    private readonly deps: ExternalSignInDependencies,
    private readonly settings: ExternalSignInSettings,
  ) {}

  /**
   * The provider's authorization URL of a new web flow returning to `returnTo` (one of
   * OIDC_RETURN_URLS), bound by `codeChallenge` (required unless OIDC_REQUIRE_BINDING=false): its
   * result is exchanged with the verifier only.
   */
  authorizationUrl(provider: string, returnTo: string, client: ClientInfo, codeChallenge?: string): Promise<string> {
    return this.deps.identities.authorizationUrl(provider, returnTo, client, undefined, codeChallenge);
  }

  /** Signs in with the identity of a web flow's one-time result and the verifier of its challenge (none: only with OIDC_REQUIRE_BINDING=false). */
  completeWebFlow(result: string, codeVerifier: string | undefined, client: ClientInfo): Promise<AuthPayload> {
    return this.deps.signIns.counted('oidc', async () => this.signIn(await this.deps.identities.takeSignInResult(result, codeVerifier), client));
  }

  /** Signs in with a platform SDK's ID token. */
  signInWithIdToken(provider: string, idToken: string, nonce: string | undefined, client: ClientInfo): Promise<AuthPayload> {
    return this.deps.signIns.counted('oidc', async () => this.signIn(await this.deps.identities.verifyIdToken(provider, idToken, nonce, client), client));
  }

  /**
   * Proves a phone for an identity no account has: the link token is checked (its code is not spent
   * on a dead one), the code used up (a wrong one is a failed sign-in, the link token stays), then the
   * link token; the phone's account signs in, created when there is none and registration is on, and
   * the identity is linked when the sign-in completes (after the second factor, when it has one).
   */
  linkByPhone(input: LinkByPhoneInput, client: ClientInfo): Promise<AuthPayload> {
    return this.deps.signIns.counted('oidc', () => this.linkAndSignIn(input, client));
  }

  private async signIn(identity: ProvenIdentity, client: ClientInfo): Promise<AuthPayload> {
    const { identities, signIns } = this.deps;
    const userId = await identities.accountOf(identity);
    if (userId) return signIns.complete(userId, SignInMethod.OIDC, client, { isNewUser: false, gate: true, external: { provider: identity.provider } });
    const linkToken = await identities.newLinkToken(identity);
    throw new AppError(ErrorCode.PHONE_VERIFICATION_REQUIRED, msg('auth.phoneVerificationRequired'), {
      details: { linkToken, identity: { provider: identity.provider, email: identity.email, name: identity.name } },
    });
  }

  private async linkAndSignIn(input: LinkByPhoneInput, client: ClientInfo): Promise<AuthPayload> {
    const { accounts, identities, signIns } = this.deps;
    const phone = parsePhone(input.phone, this.settings.defaultPhoneRegion);
    await identities.assertLinkToken(input.linkToken);
    const existing = await accounts.findByPhone(phone.e164);
    await signIns.consumeCode(phone, CodePurpose.LOGIN, input.code, existing, client);
    const identity = await identities.takeLinkToken(input.linkToken);
    const external = { provider: identity.provider, link: identity };
    const options = { isNewUser: false, gate: true, amr: LINK_AMR, external };
    if (existing) return signIns.complete(existing.id, SignInMethod.OIDC, client, options);
    assertThat(this.settings.registrationEnabled, ErrorCode.REGISTRATION_DISABLED, msg('auth.registrationDisabled'));
    // The account and the sign-in that links its identity in one transaction: an identity linked
    // elsewhere meanwhile (IDENTITY_ALREADY_LINKED) leaves no account behind either.
    const created = await this.deps.db.transaction(async () => {
      const account = await accounts.createIfAbsent({ phone: phone.e164, nickname: nicknameOf(identity, phone.e164), passwordHash: null });
      return account && signIns.complete(account.id, SignInMethod.OIDC, client, { ...options, isNewUser: true, gate: false });
    });
    if (created) return created;
    // Created by a concurrent request between our lookup and insert: sign in to that account.
    const raced = await accounts.findByPhone(phone.e164);
    if (!raced) throw codeGone();
    return signIns.complete(raced.id, SignInMethod.OIDC, client, options);
  }
}

/** A new account's nickname: the provider's name when it is one, else the phone's default. */
function nicknameOf(identity: ProvenIdentity, e164: string): string {
  if (!identity.name) return defaultNickname(e164);
  try {
    return normaliseNickname(identity.name);
  } catch {
    return defaultNickname(e164);
  }
}
