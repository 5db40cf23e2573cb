// The client module (src/client/) as pure logic. Its token stores: one exchange at a time however many
// callers find the token stale, the newer state winning over a late answer, the end of a session on
// a refused refresh; the shared store's tabs (two stores of one name, with Node's BroadcastChannel)
// making one exchange between them and hearing each other's changes. Its sign-in steps, from the
// errors Apollo Client throws. In Chromium against the service: test/client/browser.test.ts.
import { describe, expect, it } from '@jest/globals';
import { BroadcastChannel } from 'node:worker_threads';
import { CombinedGraphQLErrors, ServerError } from '@apollo/client';
import { apiErrorOf, memoryTokenStore, sharedTokenStore, signInStep, type IssuedTokens, type SharedStorage, type TokenChange, type Tokens, type TokenStore } from '../../src/client/index.js';

const issued = (n: number): IssuedTokens => ({ accessToken: `access-${n}`, refreshToken: `refresh-${n}`, expiresIn: 900 });

/** An exchange that answers the next pair after `delayMs`, counting its calls. */
function exchanger(delayMs = 20, answer: (refreshToken: string) => IssuedTokens | undefined = (token) => issued(Number(token.split('-')[1]) + 1)) {
  const calls: string[] = [];
  const exchange = async (refreshToken: string) => {
    calls.push(refreshToken);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return answer(refreshToken);
  };
  return { calls, exchange };
}

/** Storage as IndexedDB behaves for tabs: a write is seen by every read made after it resolved. */
function memoryStorage(): SharedStorage {
  let kept: Tokens | undefined;
  return {
    read: async () => kept,
    write: async (tokens) => {
      kept = tokens;
    },
  };
}

describe('the memory store', () => {
  it('makes one exchange for many callers that found the same token stale, and hands them all its answer', async () => {
    const store = memoryTokenStore();
    store.signedIn(issued(1));
    const { calls, exchange } = exchanger();
    const answers = await Promise.all(Array.from({ length: 10 }, () => store.refresh('access-1', exchange)));
    expect(calls).toEqual(['refresh-1']);
    expect(new Set(answers.map((tokens) => tokens?.refreshToken))).toEqual(new Set(['refresh-2']));
  });

  it('answers the current tokens without an exchange to a caller that saw an older access token', async () => {
    const store = memoryTokenStore();
    store.signedIn(issued(3));
    const { calls, exchange } = exchanger();
    expect((await store.refresh('access-2', exchange))?.accessToken).toBe('access-3');
    expect(calls).toEqual([]);
  });

  it('ends the session when the service refuses the refresh, telling its listeners why', async () => {
    const store = memoryTokenStore();
    const changes: TokenChange[] = [];
    store.subscribe((change) => changes.push(change));
    store.signedIn(issued(1));
    expect(await store.refresh(undefined, exchanger(5, () => undefined).exchange)).toBeUndefined();
    expect(store.current()).toBeUndefined();
    expect(changes.at(-1)).toEqual({ type: 'ended', reason: 'session_ended' });
  });

  it('keeps a sign-out that happened while a refresh was on the wire: the late answer is dropped', async () => {
    const store = memoryTokenStore();
    store.signedIn(issued(1));
    const refreshing = store.refresh(undefined, exchanger(30).exchange);
    store.end('signed_out');
    expect(await refreshing).toBeUndefined();
    expect(store.current()).toBeUndefined();
  });

  it('keeps the session when the exchange got no answer (it rejects), for a later try', async () => {
    const store = memoryTokenStore();
    store.signedIn(issued(1));
    await expect(store.refresh(undefined, () => Promise.reject(new Error('offline')))).rejects.toThrow('offline');
    expect(store.current()?.accessToken).toBe('access-1');
  });
});

describe('the shared store', () => {
  // Jest's sandbox has neither `navigator` nor Node's Web Locks: an exclusive lock per name, granted in
  // turn, as Web Locks grant one (Chromium's are tested in test/client/browser.test.ts).
  const held = new Map<string, Promise<unknown>>();
  const locks = {
    request(name: string, callback: () => Promise<unknown>) {
      const granted = (held.get(name) ?? Promise.resolve()).then(callback, callback);
      held.set(name, granted.catch(() => undefined));
      return granted;
    },
  } as unknown as LockManager;
  const tab = (name: string, storage: SharedStorage) => {
    // Unreferenced: an open channel would keep the test process alive.
    const channel = new BroadcastChannel(name).unref();
    return sharedTokenStore({ name, storage, locks, channel: channel as unknown as globalThis.BroadcastChannel });
  };
  const tabs = (name: string, storage = memoryStorage()): [TokenStore, TokenStore] => [tab(name, storage), tab(name, storage)];

  it('makes one exchange between two tabs that woke with the same stale token, both ending with its answer', async () => {
    const [first, second] = tabs('shared-one-exchange');
    await first.signedIn(issued(1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { calls, exchange } = exchanger();
    const answers = await Promise.all([first.refresh('access-1', exchange), second.refresh('access-1', exchange)]);
    expect(calls).toEqual(['refresh-1']);
    expect(answers.map((tokens) => tokens?.accessToken)).toEqual(['access-2', 'access-2']);
    expect(second.current()?.refreshToken).toBe('refresh-2');
  });

  it('makes no second exchange in a tab that has not heard of the renewal: the lock holder reads the stored tokens first', async () => {
    const storage = memoryStorage();
    await storage.write({ accessToken: 'access-1', refreshToken: 'refresh-1', expiresAt: 0 });
    // Channels that carry nothing: the second tab's copy stays the old one, as a message still on its way would leave it.
    const deaf = { addEventListener: () => undefined, postMessage: () => undefined } as unknown as globalThis.BroadcastChannel;
    const [first, second] = [sharedTokenStore({ name: 'shared-deaf', storage, locks, channel: deaf }), sharedTokenStore({ name: 'shared-deaf', storage, locks, channel: deaf })];
    await Promise.all([first.ready, second.ready]);
    const { calls, exchange } = exchanger();
    expect((await first.refresh('access-1', exchange))?.accessToken).toBe('access-2');
    expect(second.current()?.accessToken).toBe('access-1');
    expect((await second.refresh('access-1', exchange))?.accessToken).toBe('access-2');
    expect(calls).toEqual(['refresh-1']);
  });

  it("tells one tab's listeners of the other's sign-in and sign-out", async () => {
    const [first, second] = tabs('shared-listeners');
    const heard: TokenChange['type'][] = [];
    second.subscribe((change) => heard.push(change.type));
    await first.signedIn(issued(1));
    await first.end('signed_out');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(heard).toEqual(['tokens', 'ended']);
    expect(second.current()).toBeUndefined();
  });
});

describe('the sign-in steps', () => {
  const refused = (code: string, extensions: Record<string, unknown> = {}) => new CombinedGraphQLErrors({ data: null, errors: [{ message: code, extensions: { code, ...extensions } }] });

  it('answers signedIn with the payload, kept in the store', async () => {
    const store = memoryTokenStore();
    expect(await signInStep(async () => issued(7), store)).toEqual({ step: 'signedIn', payload: issued(7) });
    expect(store.current()?.accessToken).toBe('access-7');
  });

  it('answers secondFactorRequired with the mfaToken and methods of MFA_REQUIRED, nothing stored', async () => {
    const store = memoryTokenStore();
    const step = await signInStep(() => Promise.reject(refused('MFA_REQUIRED', { mfaToken: 't'.repeat(43), mfaMethods: ['totp', 'recovery'] })), store);
    expect(step).toEqual({ step: 'secondFactorRequired', mfaToken: 't'.repeat(43), methods: ['totp', 'recovery'] });
    expect(store.current()).toBeUndefined();
  });

  it('answers phoneVerificationRequired with the linkToken and identity of PHONE_VERIFICATION_REQUIRED', async () => {
    const identity = { provider: 'acme', email: 'a@example.com', name: null };
    expect(await signInStep(() => Promise.reject(refused('PHONE_VERIFICATION_REQUIRED', { linkToken: 'l'.repeat(43), identity })))).toEqual({
      step: 'phoneVerificationRequired',
      linkToken: 'l'.repeat(43),
      identity,
    });
  });

  it('answers secondProofRequired with the proofToken and methods of SECOND_PROOF_REQUIRED, nothing stored', async () => {
    const store = memoryTokenStore();
    const step = await signInStep(() => Promise.reject(refused('SECOND_PROOF_REQUIRED', { proofToken: 'p'.repeat(43), methods: ['password', 'passkey'] })), store);
    expect(step).toEqual({ step: 'secondProofRequired', proofToken: 'p'.repeat(43), methods: ['password', 'passkey'] });
    expect(store.current()).toBeUndefined();
  });

  it('throws any other refusal as Apollo threw it, readable by apiErrorOf', async () => {
    const error = refused('INVALID_CODE');
    await expect(signInStep(() => Promise.reject(error))).rejects.toBe(error);
    expect(apiErrorOf(error)).toEqual({ code: 'INVALID_CODE', message: 'INVALID_CODE', extensions: { code: 'INVALID_CODE' } });
  });

  it('reads a refusal from the body of an HTTP error, and none from a page that is not the API', () => {
    const response = (status: number) => new Response(null, { status });
    const withBody = new ServerError('refused', { response: response(429), bodyText: JSON.stringify({ errors: [{ message: 'slow down', extensions: { code: 'RATE_LIMITED', retryAfter: 30 } }] }) });
    expect(apiErrorOf(withBody)).toEqual({ code: 'RATE_LIMITED', message: 'slow down', extensions: { code: 'RATE_LIMITED', retryAfter: 30 } });
    expect(apiErrorOf(new ServerError('bad gateway', { response: response(502), bodyText: '<html>' }))).toBeUndefined();
    expect(apiErrorOf(new TypeError('Failed to fetch'))).toBeUndefined();
  });
});
