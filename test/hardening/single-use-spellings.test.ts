// An ID token is taken once in whatever spelling it comes back (API.md 10.0): padded, with
// whitespace around it, its last characters changed in their unused bits, or (ES256) with the other
// of its two valid signatures, a used token is INVALID_CREDENTIALS on the native sign-in and on the
// signed-in add-identity route, on both transports and on another instance; a fresh token in any
// spelling but its canonical one is refused the first time too, and stays unused. Against a real
// OpenID Provider on loopback.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { compactVerify } from 'jose';
import { createPublicKey, randomUUID } from 'node:crypto';
import { signInWithCode, type Session } from '../helpers/factories.js';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { flipUnusedBits, spellingsOf } from '../helpers/spellings.js';
import { startProvider, type TestProvider } from '../identity/provider.js';
import { accepted, addIdentity, idToken, type IdTokenBody, linkedRows, providersEnv, refusal, sessionCount, signInWithIdToken, TRANSPORTS, type Transport } from '../identity/support.js';

const ACCOUNTS = { alice: { name: 'Alice' }, bob: { name: 'Bob' }, carol: { name: 'Carol' } };
const REDIRECT = 'http://127.0.0.1:9/callback';

let rs: TestProvider;
let es: TestProvider;
beforeAll(async () => {
  rs = await startProvider({ clients: [{ clientId: 'web', clientSecret: 'web-secret', redirectUris: [REDIRECT] }], accounts: ACCOUNTS });
  es = await startProvider({ alg: 'ES256', clients: [{ clientId: 'web', clientSecret: 'web-secret', redirectUris: [REDIRECT] }], accounts: ACCOUNTS });
});
afterAll(async () => {
  await rs?.stop();
  await es?.stop();
});

// Every spelling refused counts against the address as a wrong password does: room for all of them.
const env = () => ({
  ...providersEnv([
    { id: 'corp', name: 'Corp SSO', issuer: rs.issuer, clientId: 'web', clientSecret: 'web-secret' },
    { id: 'ecorp', name: 'EC SSO', issuer: es.issuer, clientId: 'web', clientSecret: 'web-secret' },
  ]),
  LOGIN_FAILURES_PER_IP_DAILY: '100000',
});
const t = useTestServer(env);
const b = useTestServer(env);

const PROVIDERS = { corp: () => rs, ecorp: () => es };
type ProviderId = keyof typeof PROVIDERS;

/** A new ID token of `sub` whose payload and signature both end in a character with unused bits (so that every spelling exists). */
async function spareToken(sub: string, provider: ProviderId = 'corp'): Promise<IdTokenBody> {
  for (let pad = 0; ; pad++) {
    const issued = await idToken(PROVIDERS[provider](), sub, { nonce: `nonce-${randomUUID()}${'n'.repeat(pad)}` });
    const [, payload, signature] = issued.idToken.split('.');
    if (flipUnusedBits(payload!) && flipUnusedBits(signature!)) return issued;
  }
}

/** A code account with `sub`'s identity at `provider` linked by the signed-in route. */
async function linkedAccount(sub: string, provider: ProviderId = 'corp'): Promise<Session> {
  const session = await signInWithCode(t);
  accepted(await addIdentity(t, session.accessToken, provider, await spareToken(sub, provider), 'REST'));
  return session;
}

/** `token` with the other of its two valid ES256 signatures: s becomes n - s (n: the order of P-256). */
function malleated(token: string): string {
  const n = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const bytes = Buffer.from(signature, 'base64url');
  const s = BigInt(`0x${bytes.subarray(32).toString('hex')}`);
  const other = Buffer.from((n - s).toString(16).padStart(64, '0'), 'hex');
  return `${header}.${payload}.${Buffer.concat([bytes.subarray(0, 32), other]).toString('base64url')}`;
}

/** What each spelling of `body`'s token got from `call`: its code, by the spelling's name. */
async function codesOf(body: IdTokenBody, call: (body: IdTokenBody) => Promise<{ code?: string }>): Promise<Record<string, string | undefined>> {
  const codes: Record<string, string | undefined> = {};
  for (const spelling of spellingsOf(body.idToken)) codes[spelling.name] = (await call({ ...body, idToken: spelling.value })).code;
  return codes;
}

/** Every spelling refused with `code`. */
const allRefused = (body: IdTokenBody, code = 'INVALID_CREDENTIALS') => Object.fromEntries(spellingsOf(body.idToken).map(({ name }) => [name, code]));

describe.each(TRANSPORTS)('an ID token over %s', (transport: Transport) => {
  const signIn = (server: TestServer, provider: ProviderId) => async (body: IdTokenBody) => refusalOrData(await signInWithIdToken(server, provider, body, transport), transport);
  const add = (server: TestServer, session: Session, provider: ProviderId) => async (body: IdTokenBody) =>
    refusalOrData(await addIdentity(server, session.accessToken, provider, body, transport), transport);

  it('once used to sign in, is refused in every other spelling on sign-in and on the add-identity route', async () => {
    const account = await linkedAccount('alice');
    const other = await signInWithCode(t);
    const used = await spareToken('alice');
    expect(accepted(await signInWithIdToken(t, 'corp', used, transport)).user.id).toBe(account.userId);

    expect(await codesOf(used, signIn(t, 'corp'))).toEqual(allRefused(used));
    // Not IDENTITY_ALREADY_LINKED: the token is spent before its identity is looked at.
    expect(await codesOf(used, add(t, other, 'corp'))).toEqual(allRefused(used));
    expect(await sessionCount(t, account.userId)).toBe(2);
    expect(await linkedRows(t)).toHaveLength(1);
  });

  it('once used to add an identity, is refused in every other spelling on both routes', async () => {
    const session = await signInWithCode(t);
    const used = await spareToken('bob');
    accepted(await addIdentity(t, session.accessToken, 'corp', used, transport));
    // Not IDENTITY_ALREADY_LINKED nor a sign-in: the token is spent before its identity is looked at.
    expect(await codesOf(used, add(t, session, 'corp'))).toEqual(allRefused(used));
    expect(await codesOf(used, signIn(t, 'corp'))).toEqual(allRefused(used));
    expect(await sessionCount(t, session.userId)).toBe(1);
    expect(await linkedRows(t)).toHaveLength(1);
  });

  it('fresh, in a spelling other than its own, is refused the first time, and stays unused for its own spelling', async () => {
    const account = await linkedAccount('alice');
    const fresh = await spareToken('alice');
    expect(await codesOf(fresh, signIn(t, 'corp'))).toEqual(allRefused(fresh));
    expect(await sessionCount(t, account.userId)).toBe(1);
    expect(accepted(await signInWithIdToken(t, 'corp', fresh, transport)).user.id).toBe(account.userId);

    const other = await signInWithCode(t);
    const toAdd = await spareToken('carol');
    expect(await codesOf(toAdd, add(t, other, 'corp'))).toEqual(allRefused(toAdd));
    expect(await linkedRows(t)).toHaveLength(1);
    accepted(await addIdentity(t, other.accessToken, 'corp', toAdd, transport));
  });

  it('signed with ES256 is one token under either of its two valid signatures (s and n - s)', async () => {
    const account = await linkedAccount('alice', 'ecorp');
    const used = await spareToken('alice', 'ecorp');
    const twin = malleated(used.idToken);
    // The twin is another string, canonical, and a valid signature of the same content by the provider's key.
    expect(twin).not.toBe(used.idToken);
    expect(spellingsOf(twin).map((s) => s.value)).not.toContain(used.idToken);
    await compactVerify(twin, createPublicKey({ key: es.keys[0]!.jwk as any, format: 'jwk' }));

    expect(accepted(await signInWithIdToken(t, 'ecorp', used, transport)).user.id).toBe(account.userId);
    const other = await signInWithCode(t);
    for (const call of [signIn(t, 'ecorp'), add(t, other, 'ecorp'), signIn(b, 'ecorp')]) {
      expect((await call({ ...used, idToken: twin })).code).toBe('INVALID_CREDENTIALS');
      expect(await codesOf({ ...used, idToken: twin }, call)).toEqual(allRefused({ ...used, idToken: twin }));
    }

    // Fresh, whichever signature comes first is the one use.
    const fresh = await spareToken('alice', 'ecorp');
    expect(accepted(await signInWithIdToken(t, 'ecorp', { ...fresh, idToken: malleated(fresh.idToken) }, transport)).user.id).toBe(account.userId);
    expect(refusal(await signInWithIdToken(t, 'ecorp', fresh, transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
    expect(await sessionCount(t, account.userId)).toBe(3);
  });

  it('used on one instance is refused in every spelling on the other, and fresh spellings are refused there too', async () => {
    const account = await linkedAccount('alice');
    const used = await spareToken('alice');
    expect(accepted(await signInWithIdToken(t, 'corp', used, transport)).user.id).toBe(account.userId);
    expect(refusal(await signInWithIdToken(b, 'corp', used, transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
    expect(await codesOf(used, signIn(b, 'corp'))).toEqual(allRefused(used));
    const other = await signInWithCode(b);
    expect(await codesOf(used, add(b, other, 'corp'))).toEqual(allRefused(used));

    const fresh = await spareToken('alice');
    expect(await codesOf(fresh, signIn(b, 'corp'))).toEqual(allRefused(fresh));
    expect(await sessionCount(t, account.userId)).toBe(2);
  });
});

/** A refusal's code (checked against its transport's status), or no code for an answer with data. */
function refusalOrData(result: Awaited<ReturnType<typeof signInWithIdToken>>, transport: Transport): { code?: string } {
  return result.code === undefined ? {} : { code: refusal(result, transport).code };
}
