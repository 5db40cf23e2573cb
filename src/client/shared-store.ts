import { type EndReason, type Exchange, Listeners, type IssuedTokens, type TokenChange, type Tokens, type TokenStore, tokensOf } from './tokens.js';

/**
 * Where the shared store keeps the tokens for every tab of the origin. A write must be visible to a
 * read of any tab once it resolved: IndexedDB's are (a transaction commits in the browser's own
 * process), where `localStorage` reaches another tab's process only some time later.
 */
export interface SharedStorage {
  read(): Promise<Tokens | undefined>;
  write(tokens: Tokens | undefined): Promise<void>;
}

export interface SharedStoreOptions {
  /** Names the database, the lock and the channel; one per frontend of an origin (default `meeting-accounts`). */
  name?: string;
  storage?: SharedStorage;
  locks?: LockManager;
  channel?: BroadcastChannel;
}

/** A store shared by tabs, whose tokens another tab kept are known once `ready` resolved. */
export interface SharedTokenStore extends TokenStore {
  ready: Promise<void>;
}

/**
 * A token store shared by every tab of the origin: the tokens are kept in IndexedDB (they outlive a
 * reload, and a script that runs in the page can read them, as with any token kept in the browser);
 * a refresh runs under a Web Lock, and the tab holding it first reads what is stored, so that tabs
 * woken together make one exchange between them; every change is posted on a BroadcastChannel, so
 * the other tabs' listeners hear of it. A change is stored before the lock is released.
 */
export function sharedTokenStore(options: SharedStoreOptions = {}): SharedTokenStore {
  const name = options.name ?? 'meeting-accounts';
  const storage = options.storage ?? indexedDbStorage(name);
  const locks = options.locks ?? globalThis.navigator.locks;
  const channel = options.channel ?? new BroadcastChannel(name);
  const listeners = new Listeners();
  let tokens: Tokens | undefined;
  let changed = false;

  channel.addEventListener('message', (event: MessageEvent<TokenChange>) => {
    changed = true;
    tokens = event.data.type === 'tokens' ? event.data.tokens : undefined;
    listeners.tell(event.data);
  });
  const announce = async (change: TokenChange): Promise<void> => {
    changed = true;
    tokens = change.type === 'tokens' ? change.tokens : undefined;
    await storage.write(tokens);
    listeners.tell(change);
    channel.postMessage(change);
  };
  // What another tab kept, unless this one heard of something newer meanwhile.
  const ready = storage.read().then((stored) => {
    if (!changed) tokens = stored;
  });
  const end = (reason: EndReason): Promise<void> => (tokens ? announce({ type: 'ended', reason }) : Promise.resolve());
  const adopt = (stored: Tokens | undefined) => {
    tokens = stored;
    return stored;
  };
  const renew = (from: Tokens, exchange: Exchange): Promise<Tokens | undefined> =>
    locks.request(`${name}:refresh`, async () => {
      const stored = await storage.read();
      // Another tab renewed the tokens (or signed out) while this one waited for the lock.
      if (stored?.refreshToken !== from.refreshToken) return adopt(stored);
      const issued = await exchange(from.refreshToken);
      const now = await storage.read();
      if (now?.refreshToken !== from.refreshToken) return adopt(now);
      if (!issued) {
        await end('session_ended');
        return undefined;
      }
      const next = tokensOf(issued);
      await announce({ type: 'tokens', tokens: next });
      return next;
    });

  let refreshing: Promise<Tokens | undefined> | undefined;
  return {
    ready,
    current: () => tokens,
    signedIn: (issued: IssuedTokens) => announce({ type: 'tokens', tokens: tokensOf(issued) }),
    end,
    refresh(seen, exchange) {
      if (!tokens) return Promise.resolve(undefined);
      if (seen !== undefined && seen !== tokens.accessToken) return Promise.resolve(tokens);
      refreshing ??= renew(tokens, exchange).finally(() => (refreshing = undefined));
      return refreshing;
    },
    subscribe: (listener: (change: TokenChange) => void) => listeners.add(listener),
  };
}

/** The tokens in an IndexedDB database of this name (one object store, one record). */
export function indexedDbStorage(name: string, factory: IDBFactory = globalThis.indexedDB): SharedStorage {
  let opened: Promise<IDBDatabase> | undefined;
  const open = () =>
    (opened ??= new Promise<IDBDatabase>((resolve, reject) => {
      const request = factory.open(name, 1);
      request.onupgradeneeded = () => request.result.createObjectStore('tokens');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    }));
  const run = async (mode: IDBTransactionMode, act: (store: IDBObjectStore) => IDBRequest): Promise<unknown> => {
    const transaction = (await open()).transaction('tokens', mode);
    const request = act(transaction.objectStore('tokens'));
    return new Promise((resolve, reject) => {
      // Resolved once committed: a tab that reads after this sees it.
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
  };
  return {
    read: () => run('readonly', (store) => store.get('current')) as Promise<Tokens | undefined>,
    write: async (tokens) => {
      await run('readwrite', (store) => (tokens ? store.put(tokens, 'current') : store.delete('current')));
    },
  };
}
