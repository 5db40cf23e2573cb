// A provider sign-in as the account proof of a phone change (API.md 10.1): a session signed in with
// an ID token of a linked identity (amr fed) proves the account for 10 minutes, with a real OpenID
// Provider on loopback; the same session 11 minutes later proves nothing. Both transports.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signInWithCode } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { startProvider, type TestProvider } from '../identity/provider.js';
import { accepted as acceptedIdentity, addIdentity, idToken, providersEnv, signInWithIdToken } from '../identity/support.js';
import { accepted, phoneOf, provenNewPhone, refusal, SERVER_ENV, TRANSPORTS, verifyAccount } from './support.js';

const REDIRECT = 'http://127.0.0.1:9/callback';
let op: TestProvider;

beforeAll(async () => {
  op = await startProvider({
    clients: [{ clientId: 'web', clientSecret: 'web-secret', redirectUris: [REDIRECT] }],
    accounts: { alice: { email: 'alice@corp.example', email_verified: true, name: 'Alice' } },
  });
});
afterAll(async () => {
  await op?.stop();
});

const t = useTestServer(() => ({ ...providersEnv([{ id: 'corp', name: 'Corp SSO', issuer: op.issuer, clientId: 'web', clientSecret: 'web-secret' }]), ...SERVER_ENV }));

describe.each(TRANSPORTS)('a provider sign-in as the account proof, over %s', (transport) => {
  it('applies the change with the session of an ID-token sign-in (amr fed), and not once that sign-in is 11 minutes old', async () => {
    const user = await signInWithCode(t);
    acceptedIdentity(await addIdentity(t, user.accessToken, 'corp', await idToken(op, 'alice'), 'REST'));
    const signedIn = acceptedIdentity(await signInWithIdToken(t, 'corp', await idToken(op, 'alice'), transport));
    expect(claimsOf(signedIn.accessToken).amr).toEqual(['fed']);

    const first = newPhone();
    await provenNewPhone(t, signedIn.accessToken, first, transport);
    expect(accepted(await verifyAccount(t, signedIn.accessToken, {}, transport))).toMatchObject({ status: 'APPLIED', accountProven: true });
    expect(await phoneOf(t, user.userId)).toBe(first);

    // The session's proof ages: a token refreshed after 11 minutes carries the old auth_time.
    await t.sql(`update sessions set auth_time = auth_time - interval '11 minutes' where id = $1`, [claimsOf(signedIn.accessToken).sid]);
    const refreshed = (await t.http.post('/api/v1/auth/refresh', { refreshToken: signedIn.refreshToken })).body;
    await provenNewPhone(t, refreshed.accessToken, newPhone(), transport);
    expect(refusal(await verifyAccount(t, refreshed.accessToken, {}, transport))).toBe('VALIDATION_FAILED');
    expect(await phoneOf(t, user.userId)).toBe(first);
  });
});
