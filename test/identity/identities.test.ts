// The signed-in user's external identities (API.md 9.1): listed, added with an ID token (a recent
// second factor asked first on an account with TOTP), one per provider and one account each,
// removed; and everything else a provider sign-in touches: the second factor, account deletion, the
// operators' view, PublicConfig, security events, webhooks, the sign-in metric and amr. Both transports.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { withRole } from '../admin/support.js';
import { AdminUserIdentitiesDocument, ConfigDocument, DeleteAccountDocument, MySecurityEventsDocument } from '../generated/graphql.js';
import { dataOf } from '../graphql/support.js';
import { ISO_UTC } from '../helpers/assertions.js';
import { registerUser, requestCode, signInWithCode, type Session } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { waitFor } from '../helpers/wait.js';
import { scrape } from '../metrics/support.js';
import { codeAt, enrolledUser, steadyStep } from '../mfa/support.js';
import { eventsOf as webhookEvents, startReceiver, webhookEnv, type Receiver } from '../webhooks/support.js';
import { startProvider, type TestProvider } from './provider.js';
import {
  accepted,
  addIdentity,
  idToken,
  linkedRows,
  linkTokenOf,
  listIdentities,
  mfaTokenOf,
  providersEnv,
  refusal,
  removeIdentity,
  sessionCount,
  signInWithIdToken,
  TRANSPORTS,
  verifyMfa,
} from './support.js';

const ACCOUNTS = {
  alice: { email: 'alice@corp.example', email_verified: true, name: 'Alice Corp' },
  bob: { email: 'bob@corp.example', email_verified: true, name: 'Bob Corp' },
};
const REDIRECT = 'http://127.0.0.1:9/callback';

let op: TestProvider;
let receiver: Receiver;
beforeAll(async () => {
  op = await startProvider({
    clients: [
      { clientId: 'web', clientSecret: 'web-secret', redirectUris: [REDIRECT] },
      { clientId: 'kiosk', clientSecret: 'kiosk-secret', redirectUris: [REDIRECT] },
    ],
    accounts: ACCOUNTS,
  });
  receiver = await startReceiver();
});
afterAll(async () => {
  await op?.stop();
  await receiver?.close();
});

const t = useTestServer(() => ({
  ...providersEnv([
    { id: 'corp', name: 'Corp SSO', issuer: op.issuer, clientId: 'web', clientSecret: 'web-secret' },
    { id: 'kiosk', name: 'Corp kiosk', issuer: op.issuer, clientId: 'kiosk', clientSecret: 'kiosk-secret' },
  ]),
  ...webhookEnv([receiver.url]),
  METRICS_PORT: '0',
}));

const token = (sub: string) => idToken(op, sub);
const aliceView = { provider: 'corp', email: 'alice@corp.example', name: 'Alice Corp' };

/** A code account with `sub`'s identity at corp, added over REST. */
async function withIdentity(sub = 'alice', session?: Session): Promise<Session> {
  const account = session ?? (await signInWithCode(t));
  accepted(await addIdentity(t, account.accessToken, 'corp', await token(sub), 'REST'));
  return account;
}

describe.each(TRANSPORTS)('the signed-in identities over %s', (transport) => {
  it('lists none, then the identity added with an ID token (201 on REST), never used until a sign-in with it', async () => {
    const account = await signInWithCode(t);
    expect(accepted(await listIdentities(t, account.accessToken, transport))).toEqual([]);
    const added = await addIdentity(t, account.accessToken, 'corp', await token('alice'), transport);
    expect(added.status).toBe(transport === 'REST' ? 201 : 200);
    const identity = accepted(added);
    expect(identity).toEqual({ ...aliceView, linkedAt: expect.stringMatching(ISO_UTC), lastUsedAt: null });
    expect(accepted(await listIdentities(t, account.accessToken, transport))).toEqual([identity]);

    const signedIn = accepted(await signInWithIdToken(t, 'corp', await token('alice'), transport));
    expect(signedIn.user.id).toBe(account.userId);
    expect(claimsOf(signedIn.accessToken).amr).toEqual(['fed']);
    const [used] = accepted(await listIdentities(t, account.accessToken, transport));
    expect(used).toEqual({ ...identity, lastUsedAt: expect.stringMatching(ISO_UTC) });
  });

  it('answers UNAUTHENTICATED without a token, and NOT_FOUND for a provider that is not configured', async () => {
    expect(refusal(await listIdentities(t, '', transport), transport)).toEqual({ code: 'UNAUTHENTICATED' });
    expect(refusal(await addIdentity(t, '', 'corp', await token('alice'), transport), transport)).toEqual({ code: 'UNAUTHENTICATED' });
    expect(refusal(await removeIdentity(t, '', 'corp', transport), transport)).toEqual({ code: 'UNAUTHENTICATED' });
    const account = await signInWithCode(t);
    expect(refusal(await addIdentity(t, account.accessToken, 'nobody', await token('alice'), transport), transport)).toEqual({ code: 'NOT_FOUND' });
    expect(refusal(await removeIdentity(t, account.accessToken, 'nobody', transport), transport)).toEqual({ code: 'NOT_FOUND' });
    expect(await linkedRows(t)).toEqual([]);
  });

  it("refuses a blocked account's live token on every identity route (UNAUTHENTICATED), and changes nothing", async () => {
    const account = await withIdentity('alice');
    await t.sql(`update users set blocked_at = now(), blocked_reason = 'spam' where id = $1`, [account.userId]);
    expect(refusal(await listIdentities(t, account.accessToken, transport), transport)).toEqual({ code: 'UNAUTHENTICATED' });
    expect(refusal(await addIdentity(t, account.accessToken, 'kiosk', await idToken(op, 'bob', { clientId: 'kiosk' }), transport), transport)).toEqual({
      code: 'UNAUTHENTICATED',
    });
    expect(refusal(await removeIdentity(t, account.accessToken, 'corp', transport), transport)).toEqual({ code: 'UNAUTHENTICATED' });
    expect(await linkedRows(t)).toEqual([{ userId: account.userId, provider: 'corp', subject: 'alice' }]);
  });

  it("answers IDENTITY_ALREADY_LINKED for an identity of another account, and for a second identity of the same provider, linking nothing", async () => {
    const owner = await withIdentity('alice');
    const other = await signInWithCode(t);
    expect(refusal(await addIdentity(t, other.accessToken, 'corp', await token('alice'), transport), transport)).toEqual({ code: 'IDENTITY_ALREADY_LINKED' });
    expect(refusal(await addIdentity(t, owner.accessToken, 'corp', await token('bob'), transport), transport)).toEqual({ code: 'IDENTITY_ALREADY_LINKED' });
    expect(await linkedRows(t)).toEqual([{ userId: owner.userId, provider: 'corp', subject: 'alice' }]);
    // Another provider's identity is welcome.
    expect(accepted(await addIdentity(t, owner.accessToken, 'kiosk', await idToken(op, 'bob', { clientId: 'kiosk' }), transport))).toMatchObject({ provider: 'kiosk' });
  });

  it('removes the identity (204 on REST), after which a sign-in with it answers PHONE_VERIFICATION_REQUIRED; NOT_FOUND when there is none', async () => {
    const account = await signInWithCode(t);
    expect(refusal(await removeIdentity(t, account.accessToken, 'corp', transport), transport)).toEqual({ code: 'NOT_FOUND' });
    await withIdentity('alice', account);
    const removed = await removeIdentity(t, account.accessToken, 'corp', transport);
    if (transport === 'REST') expect({ status: removed.status, body: removed.data }).toEqual({ status: 204, body: '' });
    else expect(accepted(removed)).toBe(true);
    expect(accepted(await listIdentities(t, account.accessToken, transport))).toEqual([]);
    linkTokenOf(await signInWithIdToken(t, 'corp', await token('alice'), transport), transport, aliceView);
    expect(refusal(await removeIdentity(t, account.accessToken, 'corp', transport), transport)).toEqual({ code: 'NOT_FOUND' });
  });

  it('asks an account with TOTP for a recent second factor before adding (MFA_REQUIRED, nothing linked); the stepped-up token then adds with the same ID token', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const body = await token('alice');
    const mfaToken = mfaTokenOf(await addIdentity(t, user.accessToken, 'corp', body, transport), transport);
    expect(await linkedRows(t)).toEqual([]);

    const stepped = accepted(await verifyMfa(t, mfaToken, codeAt(user.secret, step), transport));
    expect(claimsOf(stepped.accessToken)).toMatchObject({ sid: claimsOf(user.accessToken).sid, amr: ['sms', 'otp', 'mfa'] });
    expect(accepted(await addIdentity(t, stepped.accessToken, 'corp', body, transport))).toMatchObject(aliceView);
    expect(await linkedRows(t)).toEqual([{ userId: user.userId, provider: 'corp', subject: 'alice' }]);
  });

  it('asks again once the second factor is more than 10 minutes old, even on a refreshed token', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const stepped = accepted(await verifyMfa(t, mfaTokenOf(await addIdentity(t, user.accessToken, 'corp', await token('alice'), transport), transport), codeAt(user.secret, step), transport));
    await t.sql(`update sessions set auth_time = auth_time - interval '11 minutes' where id = $1`, [claimsOf(stepped.accessToken).sid]);
    const refreshed = await t.http.post('/api/v1/auth/refresh', { refreshToken: stepped.refreshToken });
    expect(claimsOf(refreshed.body.accessToken).amr).toEqual(['sms', 'otp', 'mfa']);
    mfaTokenOf(await addIdentity(t, refreshed.body.accessToken, 'corp', await token('alice'), transport), transport);
    expect(await linkedRows(t)).toEqual([]);
  });

  it("asks for the second factor after a provider sign-in to an account with TOTP, then signs in with amr fed, otp, mfa", async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step, await withIdentity('alice', await registerUser(t)));
    const mfaToken = mfaTokenOf(await signInWithIdToken(t, 'corp', await token('alice'), transport), transport);
    const payload = accepted(await verifyMfa(t, mfaToken, codeAt(user.secret, step), transport));
    expect(payload.user.id).toBe(user.userId);
    expect(claimsOf(payload.accessToken).amr).toEqual(['fed', 'otp', 'mfa']);
    const signIns = await t.sql('select method, provider from security_events where user_id = $1 and type = $2 order by id', [user.userId, 'SIGN_IN']);
    expect(signIns.at(-1)).toEqual({ method: 'OIDC', provider: 'corp' });
  });

  it('removes an identity of an account with TOTP without a step-up: removing is always allowed', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step, await withIdentity('alice', await registerUser(t)));
    expect(claimsOf(user.accessToken).amr).toEqual(['sms']);
    accepted(await removeIdentity(t, user.accessToken, 'corp', transport));
    expect(await linkedRows(t)).toEqual([]);
  });

  it('answers ACCOUNT_BLOCKED to a provider sign-in to a blocked account, with TOTP or without, and signs nothing in', async () => {
    const plain = await withIdentity('alice');
    const step = await steadyStep();
    const withTotp = await enrolledUser(t, step, await withIdentity('bob', await registerUser(t)));
    await t.sql(`update users set blocked_at = now(), blocked_reason = 'spam' where id = any($1::uuid[])`, [[plain.userId, withTotp.userId]]);
    expect(refusal(await signInWithIdToken(t, 'corp', await token('alice'), transport), transport)).toEqual({ code: 'ACCOUNT_BLOCKED' });
    expect(refusal(await signInWithIdToken(t, 'corp', await token('bob'), transport), transport)).toEqual({ code: 'ACCOUNT_BLOCKED' });
    expect(await sessionCount(t, plain.userId)).toBe(1);
    expect(await sessionCount(t, withTotp.userId)).toBe(1);
  });

  it('takes the ID token that linked an identity: it cannot sign in afterwards', async () => {
    const account = await signInWithCode(t);
    const body = await token('alice');
    accepted(await addIdentity(t, account.accessToken, 'corp', body, transport));
    expect(refusal(await signInWithIdToken(t, 'corp', body, transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
    expect(await sessionCount(t, account.userId)).toBe(1);
  });

  it("removes an account's identities with the account: the same identity then links to another account", async () => {
    const account = await withIdentity('alice');
    const code = await requestCode(t, account.phone, 'delete-account');
    if (transport === 'REST') expect((await t.http.request('DELETE', '/api/v1/users/me', { token: account.accessToken, body: { code } })).status).toBe(204);
    else expect(dataOf(await t.http.gql(DeleteAccountDocument, { code }, { token: account.accessToken })).deleteAccount).toBe(true);
    expect(await linkedRows(t)).toEqual([]);
    linkTokenOf(await signInWithIdToken(t, 'corp', await token('alice'), transport), transport, aliceView);
    const next = await withIdentity('alice');
    expect(await linkedRows(t)).toEqual([{ userId: next.userId, provider: 'corp', subject: 'alice' }]);
  });

  it("shows an account's identities to operators", async () => {
    const admin = await withRole(t, 'ADMIN');
    const account = await withIdentity('alice');
    const [listed] = accepted(await listIdentities(t, account.accessToken, 'REST'));
    if (transport === 'REST') {
      const res = await t.http.get(`/api/v1/admin/users/${account.userId}`, { token: admin.accessToken });
      expect({ status: res.status, identities: res.body.identities }).toEqual({ status: 200, identities: [listed] });
    } else {
      const data = dataOf(await t.http.gql(AdminUserIdentitiesDocument, { id: account.userId }, { token: admin.accessToken }));
      expect(data.adminUser).toEqual({ id: account.userId, identities: [listed] });
    }
  });

  it('lists the configured providers in PublicConfig, in their order', async () => {
    const providers = [
      { id: 'corp', name: 'Corp SSO' },
      { id: 'kiosk', name: 'Corp kiosk' },
    ];
    if (transport === 'REST') {
      const res = await t.http.get('/api/v1/auth/config');
      expect({ status: res.status, identityProviders: res.body.identityProviders }).toEqual({ status: 200, identityProviders: providers });
    } else {
      expect(dataOf(await t.http.gql(ConfigDocument, {})).config.identityProviders).toEqual(providers);
    }
  });

  it("records IDENTITY_LINKED, SIGN_IN by OIDC and IDENTITY_UNLINKED with the provider in the user's security events", async () => {
    const account = await withIdentity('alice');
    const signedIn = accepted(await signInWithIdToken(t, 'corp', await token('alice'), transport));
    accepted(await removeIdentity(t, signedIn.accessToken, 'corp', transport));
    let events: { type: string; method: string | null; provider: string | null }[];
    if (transport === 'REST') {
      const res = await t.http.get('/api/v1/users/me/security-events?limit=50', { token: account.accessToken });
      events = res.body.items.map(({ type, method, provider }: any) => ({ type, method, provider }));
    } else {
      events = dataOf(await t.http.gql(MySecurityEventsDocument, { first: 50 }, { token: account.accessToken })).mySecurityEvents.edges.map(({ node: { type, method, provider } }) => ({ type, method, provider }));
    }
    expect(events.slice(0, 3)).toEqual([
      { type: 'IDENTITY_UNLINKED', method: null, provider: 'corp' },
      { type: 'SIGN_IN', method: 'OIDC', provider: 'corp' },
      { type: 'IDENTITY_LINKED', method: null, provider: 'corp' },
    ]);
  });

  it('announces the provider sign-in as session.created with method oidc and the provider, and each link and unlink as user.updated', async () => {
    const account = await signInWithCode(t);
    const aboutAccount = () => webhookEvents(receiver.delivered()).filter((e) => (e.data.user?.id ?? e.data.userId) === account.userId);
    expect(await waitFor(() => aboutAccount().length >= 2, 5000, 20)).toBe(true);
    accepted(await addIdentity(t, account.accessToken, 'corp', await token('alice'), transport));
    const signedIn = accepted(await signInWithIdToken(t, 'corp', await token('alice'), transport));
    accepted(await removeIdentity(t, account.accessToken, 'corp', transport));
    expect(await waitFor(() => aboutAccount().length >= 5, 5000, 20)).toBe(true);
    const events = aboutAccount();
    expect(events.map((e) => e.type)).toEqual(['user.created', 'session.created', 'user.updated', 'session.created', 'user.updated']);
    expect(events[3]!.data).toEqual({ userId: account.userId, sessionId: claimsOf(signedIn.accessToken).sid, method: 'oidc', provider: 'corp' });
    expect(events[2]!.data.user).toMatchObject({ id: account.userId, phone: account.phone });
    expect(events[4]!.data.user).toMatchObject({ id: account.userId, phone: account.phone });
    // Nothing of the provider's tokens travels in an event.
    for (const received of receiver.received) expect(received.body).not.toMatch(/eyJ[\w-]+\.eyJ/);
  });

  it('counts provider sign-ins in auth_sign_ins_total{method="oidc"} by outcome', async () => {
    const sample = async () => {
      const metrics = await scrape(t);
      return ['success', 'PHONE_VERIFICATION_REQUIRED', 'INVALID_CREDENTIALS'].map((outcome) => metrics.value('auth_sign_ins_total', { method: 'oidc', outcome }));
    };
    const before = await sample();
    await withIdentity('alice');
    const body = await token('alice');
    accepted(await signInWithIdToken(t, 'corp', body, transport));
    expect(refusal(await signInWithIdToken(t, 'corp', body, transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
    linkTokenOf(await signInWithIdToken(t, 'corp', await token('bob'), transport), transport);
    linkTokenOf(await signInWithIdToken(t, 'corp', await token('bob'), transport), transport);
    const after = await sample();
    expect(after.map((value, i) => value - before[i]!)).toEqual([1, 2, 1]);
  });
});
