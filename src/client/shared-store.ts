import { type EndReason, type Exchange, Listeners, type IssuedTokens, type TokenChange, type Tokens, type TokenStore, tokensOf } from './tokens.js';

/** Where the shared store keeps the tokens: `localStorage` by default, which every tab of the origin sees. */
export interface SharedStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface SharedStoreOptions {
  /** Names the storage key, the lock and the channel; one per frontend of an origin (default `meeting-accounts`). */
  name?: string;
  storage?: SharedStorage;
  locks?: LockManager;
  channel?: BroadcastChannel;
}

/**
 * A token store shared by every tab of the origin: the tokens are kept in `storage`, a refresh runs
 * under a Web Lock so that tabs woken together make one exchange between them (each tab, once it
 * holds the lock, first looks whether another renewed the tokens it saw), and every change is posted
 * on a BroadcastChannel so the other tabs' listeners hear of it. The tokens outlive a reload, so a
 * script that runs in the page can read them, as with any token kept in the browser.
 */
export function sharedTokenStore(options: SharedStoreOptions = {}): TokenStore {
  const name = options.name ?? 'meeting-accounts';
  const key = `${name}:tokens`;
  const storage = options.storage ?? globalThis.localStorage;
  const locks = options.locks ?? globalThis.navigator.locks;
  const channel = options.channel ?? new BroadcastChannel(name);
  const listeners = new Listeners();
  channel.addEventListener('message', (event: MessageEvent<TokenChange>) => listeners.tell(event.data));

  const read = (): Tokens | undefined => {
    const text = storage.getItem(key);
    if (!text) return undefined;
    try {
      return JSON.parse(text) as Tokens;
    } catch {
      return undefined;
    }
  };
  const announce = (change: TokenChange) => {
    if (change.type === 'tokens') storage.setItem(key, JSON.stringify(change.tokens));
    else storage.removeItem(key);
    listeners.tell(change);
    channel.postMessage(change);
  };
  const end = (reason: EndReason) => {
    if (read()) announce({ type: 'ended', reason });
  };
  const renew = (from: Tokens, exchange: Exchange): Promise<Tokens | undefined> =>
    locks.request(`${name}:refresh`, async () => {
      const now = read();
      // Another tab renewed the tokens (or signed out) while this one waited for the lock.
      if (now?.refreshToken !== from.refreshToken) return now;
      const issued = await exchange(from.refreshToken);
      if (read()?.refreshToken !== from.refreshToken) return read();
      if (!issued) {
        end('session_ended');
        return undefined;
      }
      const tokens = tokensOf(issued);
      announce({ type: 'tokens', tokens });
      return tokens;
    });

  let refreshing: Promise<Tokens | undefined> | undefined;
  return {
    current: read,
    signedIn: (issued: IssuedTokens) => announce({ type: 'tokens', tokens: tokensOf(issued) }),
    end,
    refresh(seen, exchange) {
      const tokens = read();
      if (!tokens) return Promise.resolve(undefined);
      if (seen !== undefined && seen !== tokens.accessToken) return Promise.resolve(tokens);
      refreshing ??= renew(tokens, exchange).finally(() => (refreshing = undefined));
      return refreshing;
    },
    subscribe: (listener: (change: TokenChange) => void) => listeners.add(listener),
  };
}
