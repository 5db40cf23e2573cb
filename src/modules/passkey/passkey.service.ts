import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticatorTransport,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import { COSEALG } from '@simplewebauthn/server/helpers';
import type { Database } from '../../db/database.js';
import { AppError, ErrorCode, msg, type Message } from '../../shared/errors/app-error.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import type { Logger } from '../../shared/logger.js';
import type { RateLimiter } from '../../shared/rate-limit/rate-limiter.js';
import type { Uuid } from '../../shared/ids.js';
import type { AccountService } from '../account/account.service.js';
import type { Principal } from '../account/principal.js';
import type { PasskeySignIn } from '../auth/second-factor.js';
import type { SignInFailureLog } from '../auth/sign-in-failure-log.js';
import type { RecentSecondFactor } from '../auth/step-up.js';
import { SecurityEventType, SignInMethod } from '../security-event/security-event-type.js';
import type { SecurityEventService } from '../security-event/security-event.service.js';
import type { AddPasskeyInput, AuthenticationResponseInput, RegistrationResponseInput } from './passkey.inputs.js';
import type { Passkey } from './passkey.entity.js';
import type { PasskeyRepository, SignInPasskey } from './passkey.repository.js';

/** What both transports show of a passkey: never its key or counter. */
export interface PasskeyView {
  id: string;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  backedUp: boolean;
}

export interface PasskeySettings {
  rpId: string;
  rpName: string;
  /** Every origin (scheme://host[:port]) whose pages may register and use passkeys. */
  origins: string[];
}

export interface PasskeyDependencies {
  db: Database;
  passkeys: PasskeyRepository;
  accounts: AccountService;
  events: SecurityEventService;
  limiter: RateLimiter;
  /** Refused sign-ins that name a registered passkey are its owner's SIGN_IN_FAILED, as wrong passwords are. */
  failures: SignInFailureLog;
  /**
   * Adding, renaming and removing a passkey of an account with a second factor on need one proven
   * recently: otherwise a stolen access token could add a passkey, a sign-in that outlives the token
   * and skips the second factor.
   */
  stepUp: RecentSecondFactor;
  logger: Logger;
}

/** A challenge lives 5 minutes (API.md 8.4). */
const CHALLENGE_TTL_SECONDS = 300;
/** Passkeys per account: every one is in each registration's excludeCredentials. */
const MAX_PASSKEYS = 20;
/**
 * Sign-in options per address: the route is open to anyone and each answer is a row, so an address
 * can hold at most this many live sign-in challenges (one window is the challenges' lifetime).
 */
const SIGN_IN_OPTIONS_PER_IP = 30;
/** Registration options per account and hour: a signed-in user cannot fill the table either. */
const REGISTRATION_OPTIONS_PER_USER_HOURLY = 30;
/**
 * EdDSA, ES256 and RS256, the library's classic defaults, named so that it never probes for ML-DSA-44:
 * Node 24 prints an ExperimentalWarning on standard error for that probe.
 */
const ALGORITHMS = [COSEALG.EdDSA, COSEALG.ES256, COSEALG.RS256];
const KNOWN_TRANSPORTS = new Set(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']);

/**
 * Passkeys (WebAuthn): registration by the signed-in user, their list, names and removal, and the
 * sign-in without a phone (the PasskeySignIn port of AuthService). Challenges are rows in PostgreSQL,
 * used up by a single DELETE ... RETURNING, so that every instance shares them and none serves twice.
 */
export class PasskeyService implements PasskeySignIn {
  constructor(
    private readonly deps: PasskeyDependencies,
    private readonly settings: PasskeySettings,
  ) {}

  /**
   * Creation options for a discoverable credential of the signed-in user, under a single-use
   * challenge. The step-up is asked here already, so that no ceremony is made only to be refused.
   */
  async registrationOptions(principal: Principal): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const { passkeys, limiter, stepUp } = this.deps;
    const { user } = principal;
    await stepUp.requireRecentSecondFactor(principal);
    const existing = await passkeys.listFor(user.id);
    if (existing.length >= MAX_PASSKEYS) throw tooMany();
    await limiter.consume(
      [{ name: 'passkey-registration-options-per-user', key: `passkey-registration-options:user:${user.id}`, limit: REGISTRATION_OPTIONS_PER_USER_HOURLY, windowSeconds: 3600 }],
      msg('passkey.tooManyRegistrations'),
    );
    const options = await generateRegistrationOptions({
      rpName: this.settings.rpName,
      rpID: this.settings.rpId,
      userID: uuidBytes(user.id),
      userName: user.phone,
      userDisplayName: user.nickname,
      timeout: CHALLENGE_TTL_SECONDS * 1000,
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports as AuthenticatorTransport[] })),
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
      supportedAlgorithmIDs: ALGORITHMS,
    });
    await this.deps.db.transaction(async () => {
      // The account's row first: a deletion running meanwhile either finished (UNAUTHENTICATED, as
      // the token is void now) or waits, and then takes the challenge with the account.
      await this.deps.accounts.lockActive(user.id);
      await passkeys.addChallenge({ userId: user.id, purpose: 'registration', challenge: options.challenge, ttlSeconds: CHALLENGE_TTL_SECONDS });
    });
    return options;
  }

  /**
   * Verifies a new credential against a live registration challenge of this user (used up first,
   * whatever the outcome) and stores it. Anything that does not verify is VALIDATION_FAILED on
   * `response`: the user is signed in, nothing here is a guess at someone else's account.
   */
  async add(principal: Principal, input: AddPasskeyInput, client: ClientInfo): Promise<PasskeyView> {
    const { db, passkeys, accounts, events, stepUp } = this.deps;
    const { response } = input;
    // Before the challenge is used up: after the step-up, the same response can still be sent.
    await stepUp.requireRecentSecondFactor(principal);
    const challenge = challengeOf(response.response.clientDataJSON);
    if (!challenge) throw notVerified(msg('passkey.reason.notRegistration'));
    if (!(await passkeys.takeRegistrationChallenge(principal.userId, challenge))) {
      throw notVerified(msg('passkey.reason.challenge'));
    }
    const info = await this.verifyRegistration(response, challenge);
    const { credential } = info;
    return db.transaction(async () => {
      // The account's row first, as every change of what hangs off it: the limit holds under concurrency.
      await accounts.lockActive(principal.userId);
      if ((await passkeys.countFor(principal.userId)) >= MAX_PASSKEYS) throw tooMany();
      const created = await passkeys.addIfAbsent({
        userId: principal.userId,
        credentialId: credential.id,
        publicKey: credential.publicKey,
        counter: credential.counter,
        transports: [...new Set(response.response.transports ?? [])].filter((t) => KNOWN_TRANSPORTS.has(t)),
        deviceType: info.credentialDeviceType,
        backedUp: info.credentialBackedUp,
        name: input.name ?? defaultName(),
      });
      if (!created) throw notVerified(msg('passkey.reason.registered'));
      await events.recordOwn(SecurityEventType.PASSKEY_ADDED, principal, client);
      return toView(created);
    });
  }

  async list(userId: string): Promise<PasskeyView[]> {
    return (await this.deps.passkeys.listFor(userId)).map(toView);
  }

  /** How many passkeys each of these accounts has, for operators' pages; accounts without any are absent. */
  countsOf(userIds: string[]): Promise<Map<string, number>> {
    return userIds.length === 0 ? Promise.resolve(new Map()) : this.deps.passkeys.countsFor(userIds);
  }

  /** NOT_FOUND for any id that is not one of the user's passkeys, text that is no id at all (null) included. */
  async rename(principal: Principal, id: Uuid | null, name: string): Promise<PasskeyView> {
    const { db, passkeys, accounts, stepUp } = this.deps;
    await stepUp.requireRecentSecondFactor(principal);
    return db.transaction(async () => {
      await accounts.lockActive(principal.userId);
      const renamed = id ? await passkeys.rename(principal.userId, id, name) : undefined;
      if (!renamed) throw notFound();
      return toView(renamed);
    });
  }

  /** Removes one of the user's passkeys, recorded with it; NOT_FOUND for any other id. */
  async remove(principal: Principal, id: Uuid | null, client: ClientInfo): Promise<void> {
    const { db, passkeys, accounts, events, stepUp } = this.deps;
    await stepUp.requireRecentSecondFactor(principal);
    await db.transaction(async () => {
      await accounts.lockActive(principal.userId);
      if (!id || !(await passkeys.delete(principal.userId, id))) throw notFound();
      await events.recordOwn(SecurityEventType.PASSKEY_REMOVED, principal, client);
    });
  }

  /** Request options for any discoverable credential (empty allowCredentials), limited per address. */
  async options(client: ClientInfo): Promise<{ challengeId: string; options: PublicKeyCredentialRequestOptionsJSON }> {
    await this.deps.limiter.consume(
      [{ name: 'passkey-options-per-ip', key: `passkey-options:ip:${client.ip ?? 'unknown'}`, limit: SIGN_IN_OPTIONS_PER_IP, windowSeconds: CHALLENGE_TTL_SECONDS }],
      msg('passkey.tooManySignIns'),
    );
    const options = await generateAuthenticationOptions({
      rpID: this.settings.rpId,
      allowCredentials: [],
      userVerification: 'preferred',
      timeout: CHALLENGE_TTL_SECONDS * 1000,
    });
    const challengeId = await this.deps.passkeys.addChallenge({ userId: null, purpose: 'authentication', challenge: options.challenge, ttlSeconds: CHALLENGE_TTL_SECONDS });
    return { challengeId, options };
  }

  /**
   * The account whose passkey signed the challenge. The challenge is used up first, whatever
   * follows; then the credential is looked up, the assertion verified, and the counter moved
   * forward by a conditional update. Every refusal is INVALID_CREDENTIALS, and when the response
   * names a registered passkey it is its owner's SIGN_IN_FAILED too.
   */
  async verify(challengeId: string, response: AuthenticationResponseInput, client: ClientInfo): Promise<{ userId: string }> {
    const { passkeys, logger } = this.deps;
    const { challenge, passkey } = await passkeys.takeSignInChallenge(challengeId, response.id);
    if (!passkey) throw invalidCredentials();
    const { userId } = passkey;
    if (!challenge) return this.refuse(userId, client);
    if (response.response.userHandle && response.response.userHandle !== Buffer.from(uuidBytes(userId)).toString('base64url')) {
      return this.refuse(userId, client);
    }
    let verified;
    try {
      // The stored counter is checked below, after the signature: a counter only judges a genuine assertion.
      verified = await verifyAuthenticationResponse({
        response: { ...response, clientExtensionResults: response.clientExtensionResults ?? {} } as never,
        expectedChallenge: challenge,
        expectedOrigin: this.settings.origins,
        expectedRPID: this.settings.rpId,
        credential: { id: passkey.credentialId, publicKey: new Uint8Array(passkey.publicKey), counter: 0 },
        requireUserVerification: false,
      });
    } catch (error) {
      logger.debug({ err: error }, 'passkey assertion refused');
      return this.refuse(userId, client);
    }
    if (!verified.verified) return this.refuse(userId, client);
    const { newCounter, credentialBackedUp } = verified.authenticationInfo;
    // A counter that does not move forward (while either is non-zero) is a copy of the key at work,
    // or a replay of an assertion that slipped past its challenge: refused however the library judged it.
    const stored = passkey.counter;
    if ((newCounter > 0 || stored > 0) && newCounter <= stored) return this.cloned(passkey, newCounter, client);
    if (!(await passkeys.advance(passkey.id, newCounter, credentialBackedUp))) {
      // Removed meanwhile (by its owner, or with the account): no clone, just a passkey that is gone.
      if (!(await passkeys.exists(passkey.id))) throw invalidCredentials();
      return this.cloned(passkey, newCounter, client);
    }
    return { userId };
  }

  /** Expired challenges. */
  sweepExpired(): Promise<Record<string, number>> {
    return this.deps.passkeys.sweepExpired();
  }

  private async verifyRegistration(response: RegistrationResponseInput, challenge: string) {
    try {
      const result = await verifyRegistrationResponse({
        response: { ...response, clientExtensionResults: response.clientExtensionResults ?? {} } as never,
        expectedChallenge: challenge,
        expectedOrigin: this.settings.origins,
        expectedRPID: this.settings.rpId,
        requireUserVerification: false,
        supportedAlgorithmIDs: ALGORITHMS,
      });
      if (result.verified) return result.registrationInfo;
    } catch (error) {
      this.deps.logger.debug({ err: error }, 'passkey registration refused');
    }
    throw notVerified(msg('passkey.reason.notVerified'));
  }

  private async cloned(passkey: SignInPasskey, newCounter: number, client: ClientInfo): Promise<never> {
    this.deps.logger.warn(
      { passkeyId: passkey.id, userId: passkey.userId, storedCounter: passkey.counter, newCounter },
      'passkey sign-in refused: its signature counter did not move forward (a cloned authenticator?)',
    );
    return this.refuse(passkey.userId, client);
  }

  private async refuse(userId: string, client: ClientInfo): Promise<never> {
    const owner = await this.deps.accounts.findById(userId);
    if (owner) await this.deps.failures.record(SignInMethod.PASSKEY, owner.phone, owner, client);
    throw invalidCredentials();
  }
}

/** The 16 bytes of a UUID: the WebAuthn user handle of the account. */
function uuidBytes(id: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(id.replace(/-/g, ''), 'hex'));
}

/** The challenge a clientDataJSON answers, or `undefined` when it is not such a JSON object. */
function challengeOf(clientDataJSON: string): string | undefined {
  try {
    const data: unknown = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8'));
    const challenge = (data as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === 'string' && challenge.length > 0 && challenge.length <= 128 ? challenge : undefined;
  } catch {
    return undefined;
  }
}

/** `Passkey 2026-11-25`: the day it was added, until its owner names it. */
function defaultName(): string {
  return `Passkey ${new Date().toISOString().slice(0, 10)}`;
}

function toView(passkey: Passkey): PasskeyView {
  return { id: passkey.id, name: passkey.name, createdAt: passkey.createdAt, lastUsedAt: passkey.lastUsedAt, backedUp: passkey.backedUp };
}

function notVerified(reason: Message): AppError {
  return new AppError(ErrorCode.VALIDATION_FAILED, msg('passkey.notAccepted', { reason }), { fields: { response: reason } });
}

function tooMany(): AppError {
  const max = String(MAX_PASSKEYS);
  return new AppError(ErrorCode.VALIDATION_FAILED, msg('passkey.tooMany', { max }), { fields: { passkeys: msg('passkey.tooMany.field', { max }) } });
}

function notFound(): AppError {
  return new AppError(ErrorCode.NOT_FOUND, msg('passkey.notFound'));
}

function invalidCredentials(): AppError {
  return new AppError(ErrorCode.INVALID_CREDENTIALS, msg('passkey.invalid'));
}
