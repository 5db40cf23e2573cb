// The dormant-account rule on the other sign-in that proves only the phone: the link of an identity
// no account has by a phone's login code (the identity is new, so only the phone speaks for the
// account). Its second proof completes the sign-in and links the identity; the linked identity then
// signs in without the phone. Both transports, against a real OpenID Provider.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GOOD_PASSWORD, registerUser, requestCode } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { startProvider, type TestProvider } from '../identity/provider.js';
import { accepted, idToken, linkedRows, linkTokenOf, providersEnv, signInWithIdToken } from '../identity/support.js';
import { expectRefused, linkByPhone, makeDormant, secondProof, signedIn, TRANSPORTS } from './support.js';

let op: TestProvider;
beforeAll(async () => {
  op = await startProvider({
    clients: [{ clientId: 'web', clientSecret: 'web-secret', redirectUris: ['http://127.0.0.1:9/callback'] }],
    accounts: { alice: { email: 'alice@corp.example', email_verified: true, name: 'Alice Corp' } },
  });
});
afterAll(() => op?.stop());

const t = useTestServer(() => ({
  ...providersEnv([{ id: 'corp', name: 'Corp SSO', issuer: op.issuer, clientId: 'web', clientSecret: 'web-secret' }]),
  SEND_CODE_INTERVAL_SECONDS: '0',
}));

describe.each(TRANSPORTS)('linking an identity to a dormant account by its phone, over %s', (transport) => {
  it('asks the second proof before anything is linked; the password then signs in and links it, and the identity signs in alone', async () => {
    const user = await registerUser(t);
    await makeDormant(t, user.userId);
    const linkToken = linkTokenOf(await signInWithIdToken(t, 'corp', await idToken(op, 'alice'), transport), transport, {
      provider: 'corp',
      email: 'alice@corp.example',
      name: 'Alice Corp',
    });
    const code = await requestCode(t, user.phone, 'login');
    const asked = expectRefused(await linkByPhone(t, { linkToken, phone: user.phone, code }, transport), transport, 401, 'SECOND_PROOF_REQUIRED');
    expect(asked.methods).toEqual(['password']);
    expect(await linkedRows(t)).toEqual([]);
    const payload = signedIn(await secondProof(t, { proofToken: asked.proofToken, password: GOOD_PASSWORD }, transport));
    expect(payload.user.id).toBe(user.userId);
    expect(claimsOf(payload.accessToken).amr).toEqual(['fed', 'sms', 'pwd']);
    expect(await linkedRows(t)).toEqual([{ userId: user.userId, provider: 'corp', subject: 'alice' }]);
    // Dormant again: a linked identity's sign-in never rested on the phone, and is not asked.
    await makeDormant(t, user.userId);
    const again = accepted(await signInWithIdToken(t, 'corp', await idToken(op, 'alice'), transport));
    expect(again.user.id).toBe(user.userId);
  });
});
