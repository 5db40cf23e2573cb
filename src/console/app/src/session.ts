import type { ApolloClient } from '@apollo/client';
import { ConsoleLogoutDocument, ConsoleRefreshDocument, type ConsoleAuthPayloadFragment, type Role } from '../generated/graphql';
import { problemOf } from './errors';

export interface Operator {
  id: string;
  phone: string;
  nickname: string;
  role: Exclude<Role, 'USER'>;
}

/** What the page shows: the signed-in operator, or the sign-in form with what ended the last session. */
export interface SessionState {
  operator?: Operator;
  notice?: string;
}

interface Tokens {
  access: string;
  refresh: string;
  /** When the access token expires (ms since the epoch, by this clock). */
  expiresAt: number;
}

/** How long before its expiry an access token is replaced: a quarter of its life, at most a minute. */
const earlyMs = (lifeMs: number) => Math.min(60_000, lifeMs / 4);

/**
 * The operator's session, in memory only (no localStorage, sessionStorage or cookie: a reload signs
 * out). The access token is refreshed before it expires, by a timer and again before any request
 * made close to its expiry (timers sleep in background tabs); a refusal of the refresh ends the
 * session with a notice for the sign-in form.
 */
export class Session {
  private tokens?: Tokens;
  private timer?: ReturnType<typeof setTimeout>;
  private refreshing?: Promise<string | undefined>;
  private state: SessionState = {};
  private readonly listeners = new Set<() => void>();
  private client?: ApolloClient;

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
      this.set({
        notice: `${payload.user.phone} has no operator role: the console is for SUPPORT and ADMIN accounts. ${ended ? 'It has been signed out again.' : 'Its session could not be ended; sign out of it elsewhere.'}`,
      });
      return;
    }
    this.keep(payload);
  }

  /** The access token for a request, refreshed first when it is about to expire; undefined when signed out. */
  async accessToken(): Promise<string | undefined> {
    if (!this.tokens) return undefined;
    if (this.tokens.expiresAt - Date.now() < 5_000) return this.refresh();
    return this.tokens.access;
  }

  /**
   * After the API refused `used` as not signed in: a newer token if another request has refreshed
   * meanwhile, else a refresh; undefined once the session is over.
   */
  async afterRefusal(used: string | undefined): Promise<string | undefined> {
    if (!this.tokens) return undefined;
    if (used !== this.tokens.access) return this.tokens.access;
    return this.refresh();
  }

  /** One refresh at a time: refresh tokens are single use. */
  refresh(): Promise<string | undefined> {
    this.refreshing ??= this.renew().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  async signOut(): Promise<void> {
    const access = this.tokens?.access;
    this.clear();
    const ended = access ? await this.logout(access) : true;
    this.set({ notice: ended ? 'You have signed out.' : 'You have left the console, but the service could not be told: the session ends when its tokens expire.' });
  }

  /** Ends the session here, with what to tell the operator on the sign-in form. */
  expire(notice: string): void {
    if (!this.tokens) return;
    this.clear();
    this.set({ notice });
  }

  private async renew(): Promise<string | undefined> {
    const tokens = this.tokens;
    if (!tokens || !this.client) return undefined;
    try {
      const { data } = await this.client.mutate({ mutation: ConsoleRefreshDocument, variables: { refreshToken: tokens.refresh }, context: { anonymous: true } });
      if (!data) throw new Error('no data');
      if (this.tokens !== tokens) return this.tokens?.access;
      const payload = data.refreshToken;
      if (payload.user.role === 'USER') {
        await this.logout(payload.accessToken);
        this.expire('Your account no longer has an operator role: the console has signed you out.');
        return undefined;
      }
      this.keep(payload);
      return payload.accessToken;
    } catch (error) {
      if (this.tokens !== tokens) return this.tokens?.access;
      const problem = problemOf(error);
      // No answer at all: the access token serves while it lasts, and the next request tries again.
      if (!problem.code && tokens.expiresAt > Date.now()) return tokens.access;
      this.expire(`Your session has ended${problem.code ? ` (${problem.code})` : ''}: sign in again to go on where you were.`);
      return undefined;
    }
  }

  private keep(payload: ConsoleAuthPayloadFragment): void {
    const lifeMs = payload.expiresIn * 1000;
    this.tokens = { access: payload.accessToken, refresh: payload.refreshToken, expiresAt: Date.now() + lifeMs };
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.refresh(), lifeMs - earlyMs(lifeMs));
    const { id, phone, nickname, role } = payload.user;
    this.set({ operator: { id, phone, nickname, role: role as Operator['role'] } });
  }

  private clear(): void {
    clearTimeout(this.timer);
    this.tokens = undefined;
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
