/** The tokens of one signed-in session, as a sign-in or a refresh returned them. */
export interface Tokens {
  accessToken: string;
  refreshToken: string;
  /** When the access token expires, in milliseconds since the epoch by this device's clock. */
  expiresAt: number;
}

/** What a sign-in or refresh answers (`AuthPayload`): the fields the store keeps. */
export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  /** Seconds the access token lives. */
  expiresIn: number;
}

/** Why a session ended here: signed out by the user, or refused by the service (sign in again). */
export type EndReason = 'signed_out' | 'session_ended';

/** What the store tells its listeners: new tokens, or the end of the session. */
export type TokenChange = { type: 'tokens'; tokens: Tokens } | { type: 'ended'; reason: EndReason };

/**
 * Keeps a session's tokens and renews them one refresh at a time. A refresh token is single use (a
 * second refresh of it after the service's grace window ends the session), so every caller that
 * finds the access token stale goes through `refresh`, which runs at most one exchange at a time and
 * hands its answer to everyone waiting.
 */
export interface TokenStore {
  /** The current tokens, or undefined when signed out. */
  current(): Tokens | undefined;
  /** Keeps the tokens of a sign-in (kept when the promise a shared store answers resolves). */
  signedIn(issued: IssuedTokens): void | Promise<void>;
  /** Forgets the session, telling the listeners why. */
  end(reason: EndReason): void | Promise<void>;
  /** Resolves once the store knows the tokens it was given before this page (a shared store reads them). */
  ready?: Promise<void>;
  /**
   * Renews the tokens with `exchange` (which sends the refresh token and answers the new pair, or
   * undefined when the service refused it: the session then ends). `seen` is the access token the
   * caller found stale: when another caller renewed meanwhile, its tokens are answered without a
   * second exchange.
   */
  refresh(seen: string | undefined, exchange: Exchange): Promise<Tokens | undefined>;
  /** Called on every change, from this tab or (for a shared store) another; returns the unsubscribe. */
  subscribe(listener: (change: TokenChange) => void): () => void;
}

/** Sends a refresh token to the service: the new tokens, or undefined when it refused the token. */
export type Exchange = (refreshToken: string) => Promise<IssuedTokens | undefined>;

export function tokensOf(issued: IssuedTokens, now = Date.now()): Tokens {
  return { accessToken: issued.accessToken, refreshToken: issued.refreshToken, expiresAt: now + issued.expiresIn * 1000 };
}

/** Listeners of a store, each called once per change. */
export class Listeners {
  private readonly all = new Set<(change: TokenChange) => void>();

  add(listener: (change: TokenChange) => void): () => void {
    this.all.add(listener);
    return () => void this.all.delete(listener);
  }

  tell(change: TokenChange): void {
    for (const listener of this.all) listener(change);
  }
}
