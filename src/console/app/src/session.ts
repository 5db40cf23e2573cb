import type { ApolloClient } from '@apollo/client';
import { apiErrorOf, memoryTokenStore, type Exchange, type IssuedTokens, type TokenStore } from '../../../client/index';
import { ConsoleLogoutDocument, ConsoleRefreshDocument, type ConsoleAuthPayloadFragment, type Role } from '../generated/graphql';
import type { Message } from './i18n/messages';

export interface Operator {
  id: string;
  phone: string;
  nickname: string;
  role: Exclude<Role, 'USER'>;
}

/**
 * What the page shows: the signed-in operator, or the sign-in form with what ended the last session
 * (a message of the catalogues, shown in the console's language of the moment).
 */
export interface SessionState {
  operator?: Operator;
  notice?: Message;
}

/** How long before its expiry an access token is replaced: a quarter of its life, at most a minute. */
const earlyMs = (lifeMs: number) => Math.min(60_000, lifeMs / 4);

const ENDED = (code: string): Message => ({ key: 'session.ended', values: { code } });
const ELSEWHERE: Message = { key: 'session.signedOutElsewhere' };

/** How long before its expiry an access token is renewed before it opens the live socket. */
const SOCKET_EARLY_MS = 5_000;

/**
 * The operator's session, in the client module's memory store (no localStorage, sessionStorage or
 * cookie: a reload signs out), whose link (client.ts) signs the requests and renews the token. The
 * access token is also renewed by a timer before it expires; a refresh the service refuses, or a
 * request it answers with `reason: session_ended`, ends the session with a notice for the sign-in form.
 */
export class Session {
  readonly store: TokenStore = memoryTokenStore();
  private timer?: ReturnType<typeof setTimeout>;
  private state: SessionState = {};
  private readonly listeners = new Set<() => void>();
  private client?: ApolloClient;
  /** What to tell the operator when the store's session ends next (the reason a refresh was refused). */
  private endNotice?: Message;
  /** A refresh under way because the live socket closed 4401: its refusal means the session ended elsewhere. */
  private confirming = false;

  constructor() {
    this.store.subscribe((change) => {
      if (change.type !== 'ended') return;
      this.forget();
      if (change.reason === 'session_ended') this.set({ notice: this.endNotice ?? ENDED('UNAUTHENTICATED') });
      this.endNotice = undefined;
    });
  }

  /** The client the session's own requests (refresh, sign-out) go through. */
  attach(client: ApolloClient): void {
    this.client = client;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly snapshot = (): SessionState => this.state;

  /** A sign-in's tokens: an operator's are kept; anyone else's session is ended at once. */
  async begin(payload: ConsoleAuthPayloadFragment): Promise<void> {
    if (payload.user.role === 'USER') {
      const ended = await this.logout(payload.accessToken);
      this.set({ notice: { key: ended ? 'session.notOperator' : 'session.notOperator.stillSignedIn', values: { phone: payload.user.phone } } });
      return;
    }
    this.store.signedIn(payload);
    this.keep(payload);
  }

  /**
   * Exchanges the refresh token with the console's own document: the new tokens, or undefined when
   * the service refused it or the account is no longer an operator's (signed out again).
   */
  readonly exchange: Exchange = async (refreshToken) => {
    let payload: ConsoleAuthPayloadFragment;
    try {
      const { data } = await this.client!.mutate({ mutation: ConsoleRefreshDocument, variables: { refreshToken }, context: { anonymous: true } });
      payload = data!.refreshToken;
    } catch (error) {
      const refusal = apiErrorOf(error);
      // No answer at all: the access token serves while it lasts, and the next request tries again.
      if (!refusal) throw error;
      this.endNotice = this.confirming ? ELSEWHERE : ENDED(refusal.code);
      return undefined;
    }
    if (payload.user.role === 'USER') {
      await this.logout(payload.accessToken);
      this.endNotice = { key: 'session.demoted' };
      return undefined;
    }
    this.keep(payload);
    return payload;
  };

  async signOut(): Promise<void> {
    const access = this.store.current()?.accessToken;
    this.store.end('signed_out');
    const ended = access ? await this.logout(access) : true;
    this.set({ notice: { key: ended ? 'session.signedOut' : 'session.signedOutLocally' } });
  }

  /** The access token for the live socket's `connection_init`, renewed first when it is about to expire. */
  async freshAccessToken(): Promise<string | undefined> {
    const tokens = this.store.current();
    if (!tokens || tokens.expiresAt - Date.now() > SOCKET_EARLY_MS) return tokens?.accessToken;
    return (await this.store.refresh(tokens.accessToken, this.exchange))?.accessToken;
  }

  /**
   * The live socket told of this session's end (its own revocation, or every session's): back to the
   * sign-in form at once, without a request to find out.
   */
  endedElsewhere(): void {
    if (!this.store.current()) return;
    this.endNotice = ELSEWHERE;
    void this.store.end('session_ended');
  }

  /**
   * The live socket closed 4401: the session ended, or the service did not take the token (its key
   * retired). A refresh tells which; its refusal ends the session with the same notice. True while
   * the session lives (no answer at all counts as living: the next request finds out).
   */
  async stillSignedIn(): Promise<boolean> {
    const tokens = this.store.current();
    if (!tokens) return false;
    this.confirming = true;
    try {
      return (await this.store.refresh(tokens.accessToken, this.exchange)) !== undefined;
    } catch {
      return this.store.current() !== undefined;
    } finally {
      this.confirming = false;
    }
  }

  /** Renews the tokens before the access token of `issued` expires, and shows the operator. */
  private keep(payload: IssuedTokens & Pick<ConsoleAuthPayloadFragment, 'user'>): void {
    const lifeMs = payload.expiresIn * 1000;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.store.refresh(undefined, this.exchange).catch(() => undefined), lifeMs - earlyMs(lifeMs));
    const { id, phone, nickname, role } = payload.user;
    this.set({ operator: { id, phone, nickname, role: role as Operator['role'] } });
  }

  private forget(): void {
    clearTimeout(this.timer);
    // Nothing one operator read stays in memory for the next one who signs in here.
    void this.client?.clearStore();
  }

  private async logout(accessToken: string): Promise<boolean> {
    try {
      await this.client?.mutate({ mutation: ConsoleLogoutDocument, context: { anonymous: true, headers: { authorization: `Bearer ${accessToken}` } } });
      return true;
    } catch {
      return false;
    }
  }

  private set(state: SessionState): void {
    this.state = state;
    for (const listener of this.listeners) listener();
  }
}
