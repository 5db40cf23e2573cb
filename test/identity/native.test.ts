// The native flow (an ID token from a platform SDK, API.md 9.1) against a real OpenID Provider on
// loopback: tokens it issued sign in to the account their identity is linked to, and every forged,
// misdirected, stale or replayed token is INVALID_CREDENTIALS with nothing signed in. Both transports.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SignJWT, decodeJwt, type JWTPayload } from 'jose';
import { createPublicKey, randomUUID } from 'node:crypto';
import { expectAuthPayload } from '../helpers/assertions.js';
import { registerUser, signInWithCode, type Session } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { claimsOf, encodeSegment } from '../helpers/tokens.js';
import { generateSigningKey, signIdToken } from './provider-keys.js';
import { startProvider, type TestProvider } from './provider.js';
import {
  accepted,
  addIdentity,
  idToken,
  type IdTokenBody,
  linkedRows,
  linkTokenOf,
  nowSeconds,
  OIDC,
  providersEnv,
  refusal,
  sessionCount,
  sha256Hex,
  signInWithIdToken,
  TRANSPORTS,
  type Transport,
} from './support.js';

/** The phone of an account that an identity's claims name, to show they are never trusted. */
const VICTIM_PHONE = newPhone();
const ACCOUNTS = {
  alice: { email: 'alice@corp.example', email_verified: true, name: 'Alice Corp' },
  bob: { email: 'bob@corp.example', email_verified: true, name: 'Bob Corp' },
  mallory: { email: 'owner@corp.example', email_verified: true, name: 'The Owner', phone_number: VICTIM_PHONE, phone_number_verified: true },
};
/** Never requested: the harness reads the code from the Location header. */
const REDIRECT = 'http://127.0.0.1:9/callback';

let op: TestProvider;
/** Another issuer, with a client of the same id as `op`'s web client. */
let other: TestProvider;

beforeAll(async () => {
  op = await startProvider({
    clients: [
      { clientId: 'web', clientSecret: 'web-secret', redirectUris: [REDIRECT] },
      { clientId: 'ios', tokenEndpointAuthMethod: 'none', redirectUris: [REDIRECT] },
      { clientId: 'kiosk', clientSecret: 'kiosk-secret', redirectUris: [REDIRECT] },
      { clientId: 'stranger', clientSecret: 'stranger-secret', redirectUris: [REDIRECT] },
    ],
    accounts: ACCOUNTS,
  });
  other = await startProvider({ clients: [{ clientId: 'web', clientSecret: 'other-secret', redirectUris: [REDIRECT] }], accounts: ACCOUNTS });
});
afterAll(async () => {
  await op?.stop();
  await other?.stop();
});

const env = () =>
  providersEnv([
    { id: 'corp', name: 'Corp SSO', issuer: op.issuer, clientId: 'web', clientSecret: 'web-secret', extraAudiences: ['ios'] },
    { id: 'kiosk', name: 'Corp kiosk', issuer: op.issuer, clientId: 'kiosk', clientSecret: 'kiosk-secret' },
    { id: 'partner', name: 'Partner', issuer: other.issuer, clientId: 'web', clientSecret: 'other-secret' },
  ]);
const t = useTestServer(env);

/** An ID token `op` issues to its web client (the `corp` provider, unless told) for `sub`, with a fresh nonce unless told. */
const token = (sub = 'alice', options?: Parameters<typeof idToken>[2]) => idToken(op, sub, options);

/** A token `op` issued, its claims changed by `change`, signed again with `op`'s own key; with its nonce. */
async function forge(change: (claims: JWTPayload) => JWTPayload, sub = 'alice'): Promise<IdTokenBody> {
  const nonce = `nonce-${randomUUID()}`;
  const { claims } = await op.issueIdToken({ clientId: 'web', sub, nonce });
  return { idToken: await signIdToken(op.keys[0]!, change({ ...claims })), nonce };
}

/** A code account with `sub`'s identity at `corp` linked by the signed-in route. */
async function linkedAccount(sub = 'alice'): Promise<Session> {
  const session = await signInWithCode(t);
  accepted(await addIdentity(t, session.accessToken, 'corp', await token(sub), 'REST'));
  return session;
}

describe.each(TRANSPORTS)('the native flow over %s', (transport) => {
  it('answers PHONE_VERIFICATION_REQUIRED for an identity no account has, then signs in to the account it is linked to with amr fed', async () => {
    linkTokenOf(await signInWithIdToken(t, 'corp', await token('alice'), transport), transport, { provider: 'corp', email: 'alice@corp.example', name: 'Alice Corp' });
    expect(await sessionCount(t)).toBe(0);

    const account = await linkedAccount('alice');
    const payload = accepted(await signInWithIdToken(t, 'corp', await token('alice'), transport));
    expectAuthPayload(payload, transport, { isNewUser: false, user: { id: account.userId, phone: account.phone } });
    expect(claimsOf(payload.accessToken)).toMatchObject({ sub: account.userId, amr: ['fed'] });
    expect(await sessionCount(t, account.userId)).toBe(2);
  });

  it('accepts a token without a nonce sent without one, the nonce sent raw when the token carries it raw, or when it carries its SHA-256 in hex', async () => {
    const account = await linkedAccount();
    const none = accepted(await signInWithIdToken(t, 'corp', await token('alice', { nonce: null }), transport));
    const raw = accepted(await signInWithIdToken(t, 'corp', await token('alice', { nonce: 'raw-nonce-1' }), transport));
    const hashed = await forge((claims) => ({ ...claims, nonce: sha256Hex('raw-nonce-2') }));
    expect(decodeJwt(hashed.idToken).nonce).toBe(sha256Hex('raw-nonce-2'));
    const viaHash = accepted(await signInWithIdToken(t, 'corp', { idToken: hashed.idToken, nonce: 'raw-nonce-2' }, transport));
    expect([none.user.id, raw.user.id, viaHash.user.id]).toEqual([account.userId, account.userId, account.userId]);
  });

  it("signs in with a token forged with the provider's own key and unchanged claims: the forgeries refused below differ from it only in what they change", async () => {
    const account = await linkedAccount();
    expect(accepted(await signInWithIdToken(t, 'corp', await forge((claims) => claims), transport)).user.id).toBe(account.userId);
  });

  it('accepts exp and iat within the minute of leeway', async () => {
    await linkedAccount();
    const now = nowSeconds();
    accepted(await signInWithIdToken(t, 'corp', await forge((c) => ({ ...c, iat: now - 3600, exp: now - 30 })), transport));
    accepted(await signInWithIdToken(t, 'corp', await forge((c) => ({ ...c, iat: now + 30, exp: now + 3600 })), transport));
  });

  it('accepts a token issued to an app whose client id is among extraAudiences, and refuses one issued to another client of the provider', async () => {
    const account = await linkedAccount();
    expect(accepted(await signInWithIdToken(t, 'corp', await token('alice', { clientId: 'ios' }), transport)).user.id).toBe(account.userId);
    expect(refusal(await signInWithIdToken(t, 'corp', await token('alice', { clientId: 'stranger' }), transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
    expect(await sessionCount(t, account.userId)).toBe(2);
  });

  const attacks: [string, () => Promise<IdTokenBody>][] = [
    [
      "signed by another key under the provider's kid",
      async () => {
        const { idToken, nonce } = await forge((c) => c);
        return { idToken: await signIdToken(await generateSigningKey('RS256', op.keys[0]!.kid), decodeJwt(idToken)), nonce };
      },
    ],
    [
      'with alg none and no signature',
      async () => {
        const { idToken, nonce } = await token('alice');
        return { idToken: `${encodeSegment({ alg: 'none', kid: op.keys[0]!.kid })}.${encodeSegment(decodeJwt(idToken))}.`, nonce };
      },
    ],
    [
      "signed HS256 with the provider's public key as the secret",
      async () => {
        const { idToken, nonce } = await token('alice');
        const pem = createPublicKey({ key: op.keys[0]!.jwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
        return { idToken: await new SignJWT(decodeJwt(idToken)).setProtectedHeader({ alg: 'HS256', kid: op.keys[0]!.kid }).sign(new TextEncoder().encode(pem)), nonce };
      },
    ],
    [
      "whose claims were changed after signing (another identity's sub)",
      async () => {
        const { idToken, nonce } = await token('bob');
        const [header, , signature] = idToken.split('.');
        return { idToken: `${header}.${encodeSegment({ ...decodeJwt(idToken), sub: 'alice' })}.${signature}`, nonce };
      },
    ],
    ['issued to another audience', () => forge((c) => ({ ...c, aud: 'someone-else' }))],
    ['naming another issuer', () => forge((c) => ({ ...c, iss: 'https://accounts.example.com' }))],
    ['expired more than a minute ago', () => forge((c) => ({ ...c, iat: nowSeconds() - 3720, exp: nowSeconds() - 120 }))],
    ['issued more than a minute in the future', () => forge((c) => ({ ...c, iat: nowSeconds() + 120, exp: nowSeconds() + 3720 }))],
    ['without a nonce, while one is sent', async () => ({ ...(await token('alice', { nonce: null })), nonce: 'sent-nonce' })],
    ['carrying a nonce, while none is sent', async () => ({ idToken: (await token('alice')).idToken })],
    ['carrying another nonce than the one sent', async () => ({ ...(await token('alice')), nonce: 'another-nonce' })],
    ['not valid before a time more than a minute ahead', () => forge((c) => ({ ...c, nbf: nowSeconds() + 120 }))],
    ['without a sub', () => forge(({ sub: _sub, ...claims }) => claims)],
    ['whose sub holds a character the database cannot store', () => forge((c) => ({ ...c, sub: 'alice\u0000' }))],
    ['carrying the hash of another nonce than the one sent', async () => ({ ...(await forge((c) => ({ ...c, nonce: sha256Hex('carried-nonce') }))), nonce: 'sent-nonce' })],
  ];

  it.each(attacks)('refuses a token %s with INVALID_CREDENTIALS, and signs nothing in', async (_name, attack) => {
    const account = await linkedAccount();
    expect(refusal(await signInWithIdToken(t, 'corp', await attack(), transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
    expect(await sessionCount(t)).toBe(1);
    expect(await sessionCount(t, account.userId)).toBe(1);
  });

  it('takes a token once: the same token again is INVALID_CREDENTIALS, whether it signed in or asked for a phone', async () => {
    const account = await linkedAccount('alice');
    const signedIn = await token('alice');
    expect(accepted(await signInWithIdToken(t, 'corp', signedIn, transport)).user.id).toBe(account.userId);
    expect(refusal(await signInWithIdToken(t, 'corp', signedIn, transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
    expect(await sessionCount(t, account.userId)).toBe(2);

    const unknown = await token('bob');
    linkTokenOf(await signInWithIdToken(t, 'corp', unknown, transport), transport);
    expect(refusal(await signInWithIdToken(t, 'corp', unknown, transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
  });

  it("refuses a token issued to another client of the same issuer at the route of the provider configured with that issuer", async () => {
    const account = await linkedAccount('alice');
    const fromKiosk = await token('alice', { clientId: 'kiosk' });
    const fromCorp = await token('alice');
    expect(refusal(await signInWithIdToken(t, 'corp', fromKiosk, transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
    expect(refusal(await signInWithIdToken(t, 'kiosk', fromCorp, transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
    expect(await sessionCount(t)).toBe(1);

    // Each at its own route: the same sub at kiosk is another identity, which no account has.
    linkTokenOf(await signInWithIdToken(t, 'kiosk', fromKiosk, transport), transport, { provider: 'kiosk', email: 'alice@corp.example', name: 'Alice Corp' });
    expect(accepted(await signInWithIdToken(t, 'corp', fromCorp, transport)).user.id).toBe(account.userId);
  });

  it('takes the same sub at another issuer for another identity, which no account has', async () => {
    await linkedAccount('alice');
    const nonce = `nonce-${randomUUID()}`;
    const fromPartner = { idToken: (await other.issueIdToken({ clientId: 'web', sub: 'alice', nonce })).idToken, nonce };
    linkTokenOf(await signInWithIdToken(t, 'partner', fromPartner, transport), transport, { provider: 'partner', email: 'alice@corp.example', name: 'Alice Corp' });
    expect(await sessionCount(t)).toBe(1);
  });

  // A token of another issuer names a key this provider does not have. It is a bad token, not an
  // outage of this provider: INVALID_CREDENTIALS (counted against the address like any other), never
  // IDENTITY_PROVIDER_ERROR, which is for a provider that is unreachable or refused.
  it("refuses a token of another issuer (the same client id there) at this provider's route, and this provider's token at the other's, with INVALID_CREDENTIALS", async () => {
    await linkedAccount('alice');
    const nonce = `nonce-${randomUUID()}`;
    const fromPartner = { idToken: (await other.issueIdToken({ clientId: 'web', sub: 'alice', nonce })).idToken, nonce };
    expect(refusal(await signInWithIdToken(t, 'corp', fromPartner, transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
    expect(refusal(await signInWithIdToken(t, 'partner', await token('alice'), transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
    expect(await sessionCount(t)).toBe(1);
  });

  it("never signs in to the account whose phone the token's verified phone_number claim names: PHONE_VERIFICATION_REQUIRED, nothing linked", async () => {
    const victim = await registerUser(t, VICTIM_PHONE);
    expect(decodeJwt((await token('mallory')).idToken)).toMatchObject({ phone_number: VICTIM_PHONE, phone_number_verified: true, email_verified: true });
    linkTokenOf(await signInWithIdToken(t, 'corp', await token('mallory'), transport), transport, { provider: 'corp', email: 'owner@corp.example', name: 'The Owner' });
    expect(await sessionCount(t, victim.userId)).toBe(1);
    expect(await sessionCount(t)).toBe(1);
    expect(await linkedRows(t)).toEqual([]);
  });

  it('shows no email or name that the database cannot hold or that is too long, and answers PHONE_VERIFICATION_REQUIRED as for any identity', async () => {
    const odd = await forge((c) => ({ ...c, email: `${'a'.repeat(320)}@corp.example`, name: 'Alice\u0000Corp' }));
    linkTokenOf(await signInWithIdToken(t, 'corp', odd, transport), transport, { provider: 'corp', email: null, name: null });
  });

  it('answers NOT_FOUND for a provider that is not configured', async () => {
    expect(refusal(await signInWithIdToken(t, 'nobody', await token('alice'), transport), transport)).toEqual({ code: 'NOT_FOUND' });
  });
});

describe('malformed native-flow requests', () => {
  const restCases: [string, Record<string, unknown>, string][] = [
    ['no idToken', {}, 'idToken'],
    ['an idToken that is a number', { idToken: 42 }, 'idToken'],
    ['an idToken above 16 KiB', { idToken: 'a'.repeat(16 * 1024 + 1) }, 'idToken'],
    ['an empty nonce', { idToken: 'a.b.c', nonce: '' }, 'nonce'],
    ['a nonce that is a number', { idToken: 'a.b.c', nonce: 7 }, 'nonce'],
    ['a nonce above 512 characters', { idToken: 'a.b.c', nonce: 'n'.repeat(513) }, 'nonce'],
  ];
  it.each(restCases)('REST: %s is VALIDATION_FAILED naming the field', async (_name, body, field) => {
    const result = await signInWithIdToken(t, 'corp', body, 'REST');
    expect(refusal(result, 'REST')).toEqual({ code: 'VALIDATION_FAILED', fields: { [field]: expect.any(String) } });
  });

  // Required strings take empty values across the API (an empty code is INVALID_CODE): an empty ID
  // token is one that does not verify.
  it.each(TRANSPORTS)('%s: an empty idToken is INVALID_CREDENTIALS', async (transport: Transport) => {
    expect(refusal(await signInWithIdToken(t, 'corp', { idToken: '' }, transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
  });

  it('REST: a body that is not JSON is VALIDATION_FAILED', async () => {
    const res = await t.http.request('POST', `${OIDC}/corp/id-token`, { rawBody: '{"idToken": ', headers: { 'content-type': 'application/json' } });
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
  });

  const gqlCases: [string, { idToken: string; nonce?: string }, string][] = [
    ['an idToken above 16 KiB', { idToken: 'a'.repeat(16 * 1024 + 1) }, 'idToken'],
    ['an empty nonce', { idToken: 'a.b.c', nonce: '' }, 'nonce'],
  ];
  it.each(gqlCases)('GraphQL: %s is VALIDATION_FAILED naming the field', async (_name, body, field) => {
    const result = await signInWithIdToken(t, 'corp', body, 'GraphQL');
    expect(refusal(result, 'GraphQL')).toEqual({ code: 'VALIDATION_FAILED', fields: { [field]: expect.any(String) } });
  });
});

describe('refused ID tokens from one address', () => {
  const limited = useTestServer(() => ({ ...env(), LOGIN_FAILURES_PER_IP_DAILY: '3' }));

  it.each(TRANSPORTS)('%s: count as failed sign-ins: past the daily limit the address is RATE_LIMITED, a genuine token too', async (transport: Transport) => {
    for (let i = 0; i < 3; i++) {
      expect(refusal(await signInWithIdToken(limited, 'corp', await forge((c) => ({ ...c, aud: 'someone-else' })), transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
    }
    const result = await signInWithIdToken(limited, 'corp', await token('alice'), transport);
    expect(refusal(result, transport)).toEqual({ code: 'RATE_LIMITED' });
  });
});

describe('two instances on one database', () => {
  const b = useTestServer(env);

  it.each(TRANSPORTS)('take each token once across instances (%s): replayed on the other, or sent to both at once', async (transport: Transport) => {
    const account = await linkedAccount('alice');
    const replayed = await token('alice');
    expect(accepted(await signInWithIdToken(t, 'corp', replayed, transport)).user.id).toBe(account.userId);
    expect(refusal(await signInWithIdToken(b, 'corp', replayed, transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });

    const raced = await token('alice');
    const results = await Promise.all([signInWithIdToken(t, 'corp', raced, transport), signInWithIdToken(b, 'corp', raced, transport)]);
    expect(results.map((r) => r.code ?? 'signed in').sort()).toEqual(['INVALID_CREDENTIALS', 'signed in']);
    expect(await sessionCount(t, account.userId)).toBe(3);
  });
});
