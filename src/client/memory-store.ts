import { type Exchange, Listeners, type IssuedTokens, type TokenChange, type Tokens, type TokenStore, tokensOf, type EndReason } from './tokens.js';

/**
 * A token store of one page, in memory only: a reload signs out, and nothing is left in the browser's
 * storage for a script of the page to read. One refresh at a time.
 */
export function memoryTokenStore(): TokenStore {
  let tokens: Tokens | undefined;
  let refreshing: Promise<Tokens | undefined> | undefined;
  const listeners = new Listeners();
  const set = (next: Tokens) => {
    tokens = next;
    listeners.tell({ type: 'tokens', tokens: next });
  };
  const renew = async (seen: Tokens, exchange: Exchange): Promise<Tokens | undefined> => {
    const issued = await exchange(seen.refreshToken);
    // Signed out, or signed in anew, while the exchange was on the wire: the newer state wins.
    if (tokens !== seen) return tokens;
    if (!issued) {
      end('session_ended');
      return undefined;
    }
    set(tokensOf(issued));
    return tokens;
  };
  const end = (reason: EndReason) => {
    if (!tokens) return;
    tokens = undefined;
    listeners.tell({ type: 'ended', reason });
  };
  return {
    current: () => tokens,
    signedIn: (issued: IssuedTokens) => set(tokensOf(issued)),
    end,
    refresh(seen, exchange) {
      if (!tokens) return Promise.resolve(undefined);
      if (seen !== undefined && seen !== tokens.accessToken) return Promise.resolve(tokens);
      const from = tokens;
      refreshing ??= renew(from, exchange).finally(() => (refreshing = undefined));
      return refreshing;
    },
    subscribe: (listener: (change: TokenChange) => void) => listeners.add(listener),
  };
}
