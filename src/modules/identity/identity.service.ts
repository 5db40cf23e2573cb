import { createHash } from 'node:crypto';
import { isForeignKeyViolation, type Database } from '../../db/database.js';
import { AppError, ErrorCode, msg, type Message } from '../../shared/errors/app-error.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import type { RateLimiter, Rule } from '../../shared/rate-limit/rate-limiter.js';
import { unauthenticated } from '../../shared/tokens/access-token.js';
import { idTokenReplayKey, oneTimeTokenHash } from '../../shared/tokens/canonical.js';
import { randomToken, sha256Hex } from '../../shared/tokens/secrets.js';
import type { AccountService } from '../account/account.service.js';
import type { Principal } from '../account/principal.js';
import type { ExternalIdentities, ProvenIdentity } from '../auth/second-factor.js';
import type { RecentSecondFactor } from '../auth/step-up.js';
import { SecurityEventType } from '../security-event/security-event-type.js';
import type { SecurityEventService } from '../security-event/security-event.service.js';
import type { WebhookService } from '../webhook/webhook.service.js';
import type { IdentityRepository, LinkedIdentity } from './identity.repository.js';
import { ProviderRefusal, type Provider } from './providers.js';

/** What both transports show of a linked identity: never its subject or issuer. */
export interface IdentityView {
  provider: string;
  email: string | null;
  name: string | null;
  linkedAt: Date;
  lastUsedAt: Date | null;
}

export interface IdentityDependencies {
  db: Database;
  identities: IdentityRepository;
  providers: Provider[];
  accounts: AccountService;
  events: SecurityEventService;
  webhooks: WebhookService;
  limiter: RateLimiter;
  /** Linking an identity to an account with a second factor needs one proven recently, as adding a passkey does. */
  stepUp: RecentSecondFactor;
}

export interface IdentitySettings {
  /** The exact frontend URLs a web flow may return to. */
  returnUrls: string[];
  /** OIDC_REQUIRE_BINDING: a sign-in web flow is started with a codeChallenge, and exchanged with its verifier, or not at all. */
  requireBinding: boolean;
  /** ID tokens refused per address per day, as password failures are (LOGIN_FAILURES_PER_IP_DAILY). */
  failuresPerIpDaily: number;
}

/** A web flow's state lives 10 minutes (API.md 9.1), its result 60 s, an unknown identity's link token 10 minutes. */
const FLOW_TTL_SECONDS = 600;
const RESULT_TTL_SECONDS = 60;
const LINK_TTL_SECONDS = 600;
/** Web flows started per address per 10 minutes: each is a row, and a redirect a bot could farm. */
const STARTS_PER_IP = 30;

/**
 * External identities (OpenID Connect): the web flow (its start, its return to the callback, its
 * one-time result), the native flow's ID tokens (each taken once, on every instance), the link
 * tokens of identities no account has, and the signed-in user's identities (linked with a recent
 * second factor when the account has one, listed, unlinked). An identity is found by (provider,
 * issuer, subject) only: its email and phone claims never link or sign in to anything. The sign-ins
 * themselves are AuthService's; this is its ExternalIdentities port.
 */
export class IdentityService implements ExternalIdentities {
  private readonly providers: Map<string, Provider>;

  constructor(
    private readonly deps: IdentityDependencies,
    private readonly settings: IdentitySettings,
  ) {
    this.providers = new Map(deps.providers.map((provider) => [provider.id, provider]));
  }

  /** The configured providers, in their order: what a sign-in page shows. */
  list(): { id: string; name: string }[] {
    return this.deps.providers.map((provider) => ({ id: provider.id, name: provider.config.name }));
  }

  /**
   * The provider's authorization URL for a new web flow returning to `returnTo` (one of
   * OIDC_RETURN_URLS, checked before anything else is done). With `linking`, the flow links the
   * identity to the signed-in account (a recent second factor asked first, when it has one). With
   * `clientChallenge` (the S256 of a verifier the frontend keeps), its result is exchanged with that
   * verifier only: a result that an attacker's browser got cannot sign a victim's frontend in. A
   * sign-in without one is refused unless OIDC_REQUIRE_BINDING=false; a link flow needs none: its
   * result is taken by the account that started it only (completeLink), never by another.
   */
  async authorizationUrl(providerId: string, returnTo: string, client: ClientInfo, linking?: Principal, clientChallenge?: string): Promise<string> {
    const provider = this.provider(providerId);
    const fields: Record<string, Message> = {};
    if (!this.settings.returnUrls.includes(returnTo)) fields.returnTo = msg('identity.returnTo.field');
    if (!linking && !clientChallenge && this.settings.requireBinding) fields.codeChallenge = msg('identity.codeChallenge.field');
    if (Object.keys(fields).length > 0) {
      const message = msg(fields.returnTo ? 'identity.returnToRefused' : 'identity.bindingRequired');
      throw new AppError(ErrorCode.VALIDATION_FAILED, message, { fields });
    }
    if (linking) await this.deps.stepUp.requireRecentSecondFactor(linking);
    await this.deps.limiter.consume(
      [{ name: 'oidc-starts-per-ip', key: `oidc-start:ip:${client.ip ?? 'unknown'}`, limit: STARTS_PER_IP, windowSeconds: FLOW_TTL_SECONDS }],
      msg('identity.tooManyStarts'),
    );
    const start = await provider.start();
    try {
      await this.deps.identities.addFlow({
        stateHash: sha256Hex(start.state),
        provider: provider.id,
        codeVerifier: start.codeVerifier,
        nonce: start.nonce,
        returnTo,
        userId: linking?.userId ?? null,
        clientChallenge: clientChallenge ?? null,
        ttlSeconds: FLOW_TTL_SECONDS,
      });
    } catch (error) {
      if (linking && isForeignKeyViolation(error)) throw unauthenticated('session_ended', msg('account.gone'));
      throw error;
    }
    return start.url;
  }

  /**
   * The provider's return to the callback: where to send the browser. The flow of its `state` is used
   * up first (an unknown, used or expired state, a forged or replayed one, is VALIDATION_FAILED: there
   * is nowhere safe to send the browser); then `returnTo` gets `?result=` (one-time, 60 s) or
   * `?error=`: the provider's own error (`access_denied` when the user cancelled), or this service's
   * code (IDENTITY_PROVIDER_ERROR, INVALID_CREDENTIALS). No token ever travels in the URL.
   */
  async callback(providerId: string, answer: URLSearchParams): Promise<string> {
    const provider = this.provider(providerId);
    const state = answer.get('state');
    const flow = state && state.length <= 512 ? await this.deps.identities.takeFlow(sha256Hex(state), provider.id) : undefined;
    if (!state || !flow) {
      throw new AppError(ErrorCode.VALIDATION_FAILED, msg('identity.flowUnknown'), { fields: { state: msg('identity.flowUnknown.field') } });
    }
    let identity: ProvenIdentity;
    try {
      identity = await provider.finish(answer, { state, codeVerifier: flow.codeVerifier, nonce: flow.nonce });
    } catch (error) {
      if (error instanceof ProviderRefusal) return withParameter(flow.returnTo, 'error', error.error);
      if (error instanceof AppError) return withParameter(flow.returnTo, 'error', error.code);
      throw error;
    }
    const result = randomToken();
    try {
      await this.deps.identities.addTicket(sha256Hex(result), 'result', identity, flow.userId, RESULT_TTL_SECONDS, flow.clientChallenge);
    } catch (error) {
      // The account of a link flow was deleted meanwhile.
      if (isForeignKeyViolation(error)) return withParameter(flow.returnTo, 'error', ErrorCode.UNAUTHENTICATED);
      throw error;
    }
    return withParameter(flow.returnTo, 'result', result);
  }

  /**
   * The identity of a sign-in flow's result, used up; INVALID_CREDENTIALS for one unknown, used,
   * expired, of a link flow, or bound to another frontend's challenge than `codeVerifier`'s (a
   * verifier sent for a result that was bound to none is refused too; a refused result stays).
   * Unless OIDC_REQUIRE_BINDING=false, a result without a verifier is refused before it is looked up:
   * it is a bearer code (a flow started unbound, before the setting changed or on an instance with it
   * off), which a login CSRF would plant in a victim's browser.
   */
  async takeSignInResult(result: string, codeVerifier?: string): Promise<ProvenIdentity> {
    const challenge = codeVerifier === undefined ? null : s256(codeVerifier);
    const unbound = challenge === null && this.settings.requireBinding;
    const hash = oneTimeTokenHash(result);
    const identity = unbound || !hash ? undefined : await this.deps.identities.takeTicket(hash, 'result', null, challenge);
    if (!identity) throw new AppError(ErrorCode.INVALID_CREDENTIALS, msg('identity.resultUnknown'));
    return identity;
  }

  /**
   * The identity of an ID token from a platform SDK (see Provider.verify), taken once: the same token
   * again is INVALID_CREDENTIALS, on every instance. Refused tokens count against the address as
   * wrong passwords do.
   */
  async verifyIdToken(providerId: string, idToken: string, nonce: string | undefined, client: ClientInfo): Promise<ProvenIdentity> {
    const provider = this.provider(providerId);
    let refused: AppError | undefined;
    let identity: ProvenIdentity | undefined;
    await this.deps.limiter.attempt(this.failureRules(client), { locked: msg('identity.idTokensLocked'), busy: msg('identity.idTokensBusy') }, async () => {
      try {
        // Another spelling of a token (padding, whitespace, unused bits) is refused before it is verified, even the first time.
        const replayKey = idTokenReplayKey(idToken);
        if (!replayKey) throw new AppError(ErrorCode.INVALID_CREDENTIALS, msg('identity.idTokenNotJwt'));
        const verified = await provider.verify(idToken, nonce);
        // Taken once, until it expires (and a minute's leeway after): a replay fails on every instance.
        if (!(await this.deps.identities.useIdToken(replayKey, new Date(verified.expiresAt.getTime() + 60_000)))) {
          refused = new AppError(ErrorCode.INVALID_CREDENTIALS, msg('identity.idTokenUsed'));
          return false;
        }
        identity = verified.identity;
        return true;
      } catch (error) {
        if (error instanceof AppError && error.code === ErrorCode.INVALID_CREDENTIALS) {
          refused = error;
          return false;
        }
        throw error;
      }
    });
    if (!identity) throw refused ?? new AppError(ErrorCode.INVALID_CREDENTIALS, msg('identity.idTokenInvalid'));
    return identity;
  }

  /** The account a proven identity is linked to (its sign-in noted, with the provider's current email and name), if any. */
  accountOf(identity: ProvenIdentity): Promise<string | undefined> {
    return this.deps.identities.signIn(identity);
  }

  /** A link token for an identity no account has (10 minutes, single use), for PHONE_VERIFICATION_REQUIRED. */
  async newLinkToken(identity: ProvenIdentity): Promise<string> {
    const token = randomToken();
    await this.deps.identities.addTicket(sha256Hex(token), 'link', identity, null, LINK_TTL_SECONDS);
    return token;
  }

  /** The identity of a link token, used up; INVALID_CREDENTIALS for one unknown, used or expired. */
  async takeLinkToken(linkToken: string): Promise<ProvenIdentity> {
    const hash = oneTimeTokenHash(linkToken);
    const identity = hash && (await this.deps.identities.takeTicket(hash, 'link', null));
    if (!identity) throw linkTokenRefused();
    return identity;
  }

  /** INVALID_CREDENTIALS unless the link token is live (checked before its SMS code is spent; taken after). */
  async assertLinkToken(linkToken: string): Promise<void> {
    const hash = oneTimeTokenHash(linkToken);
    if (!hash || !(await this.deps.identities.hasTicket(hash, 'link'))) throw linkTokenRefused();
  }

  /**
   * Links the identity to the account, in the caller's transaction (the account's row taken):
   * IDENTITY_ALREADY_LINKED when another account has it, or this one has an identity of the provider.
   * Recorded as IDENTITY_LINKED, announced as `user.updated`. `signedIn`: the link is a sign-in's.
   */
  async link(userId: string, identity: ProvenIdentity, client: ClientInfo, { signedIn = false, sessionId }: { signedIn?: boolean; sessionId?: string } = {}): Promise<IdentityView> {
    const linked = await this.deps.identities.link(userId, identity, signedIn);
    if (linked === 'identity-taken') throw new AppError(ErrorCode.IDENTITY_ALREADY_LINKED, msg('identity.linkedElsewhere'));
    if (linked === 'provider-taken') throw new AppError(ErrorCode.IDENTITY_ALREADY_LINKED, msg('identity.providerLinkedAlready', { provider: identity.provider }));
    const user = await this.deps.accounts.findById(userId);
    await this.deps.events.record({ type: SecurityEventType.IDENTITY_LINKED, provider: identity.provider, userId, phone: user?.phone, sessionId, client });
    if (user) await this.deps.webhooks.enqueue({ type: 'user.updated', data: { user } });
    return toView(linked);
  }

  /** The signed-in user's identities, oldest link first. */
  async listFor(userId: string): Promise<IdentityView[]> {
    return (await this.deps.identities.listFor(userId)).map(toView);
  }

  /** The identities of several accounts (the operators' view), in one query; accounts without any are absent. */
  async listForUsers(userIds: string[]): Promise<Map<string, IdentityView[]>> {
    const byUser = new Map<string, IdentityView[]>();
    for (const row of await this.deps.identities.listForUsers(userIds)) byUser.set(row.userId, [...(byUser.get(row.userId) ?? []), toView(row)]);
    return byUser;
  }

  /** Links the identity of an ID token to the signed-in account (native flow), after a recent second factor when it has one. */
  async addWithIdToken(principal: Principal, providerId: string, idToken: string, nonce: string | undefined, client: ClientInfo): Promise<IdentityView> {
    this.provider(providerId);
    await this.deps.stepUp.requireRecentSecondFactor(principal);
    const identity = await this.verifyIdToken(providerId, idToken, nonce, client);
    return this.linkSignedIn(principal, identity, client);
  }

  /** Links the identity of a link flow's result to the signed-in account that started the flow. */
  async completeLink(principal: Principal, result: string, client: ClientInfo): Promise<IdentityView> {
    await this.deps.stepUp.requireRecentSecondFactor(principal);
    const hash = oneTimeTokenHash(result);
    const identity = hash && (await this.deps.identities.takeTicket(hash, 'result', principal.userId));
    if (!identity) throw new AppError(ErrorCode.INVALID_CREDENTIALS, msg('identity.linkResultUnknown'));
    return this.linkSignedIn(principal, identity, client);
  }

  /** Unlinks the account's identity at the provider: always allowed (every account signs in with its phone); NOT_FOUND without one. */
  async remove(principal: Principal, providerId: string, client: ClientInfo): Promise<void> {
    const { db, accounts, identities, events, webhooks } = this.deps;
    await db.transaction(async () => {
      await accounts.lockActive(principal.userId);
      const unlinked = await identities.unlink(principal.userId, providerId);
      if (!unlinked) throw new AppError(ErrorCode.NOT_FOUND, msg('identity.notLinked'));
      await events.recordOwn(SecurityEventType.IDENTITY_UNLINKED, principal, client, principal.sessionId, providerId);
      await webhooks.enqueue({ type: 'user.updated', data: { user: principal.user } });
    });
  }

  sweepExpired(): Promise<Record<string, number>> {
    return this.deps.identities.sweepExpired();
  }

  private linkSignedIn(principal: Principal, identity: ProvenIdentity, client: ClientInfo): Promise<IdentityView> {
    return this.deps.db.transaction(async () => {
      await this.deps.accounts.lockActive(principal.userId);
      return this.link(principal.userId, identity, client, { sessionId: principal.sessionId });
    });
  }

  /** The configured provider of this id; NOT_FOUND for any other. */
  private provider(id: string): Provider {
    const provider = this.providers.get(id);
    if (!provider) throw new AppError(ErrorCode.NOT_FOUND, msg('identity.providerNotFound'));
    return provider;
  }

  private failureRules(client: ClientInfo): Rule[] {
    return [{ name: 'oidc-failures-per-ip-daily', key: `oidc-fail:ip:${client.ip ?? 'unknown'}`, limit: this.settings.failuresPerIpDaily, windowSeconds: 86400 }];
  }
}

function toView(row: LinkedIdentity): IdentityView {
  return { provider: row.provider, email: row.email, name: row.name, linkedAt: new Date(row.linkedAt), lastUsedAt: row.lastUsedAt === null ? null : new Date(row.lastUsedAt) };
}

function linkTokenRefused(): AppError {
  return new AppError(ErrorCode.INVALID_CREDENTIALS, msg('identity.linkTokenUnknown'));
}

/** RFC 7636's S256: the base64url SHA-256 of a verifier, as a challenge is written. */
function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** `url` with one more query parameter (a fragment, which OIDC_RETURN_URLS cannot hold, stays absent). */
function withParameter(url: string, name: string, value: string): string {
  const target = new URL(url);
  target.searchParams.set(name, value);
  return target.href;
}
