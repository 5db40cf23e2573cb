// The link by phone (API.md 9.1): an identity no account has gets PHONE_VERIFICATION_REQUIRED with a
// linkToken, and the phone's login code then signs in to that phone's account (or creates it) and
// links the identity, as a code login answers: isNewUser, MFA_REQUIRED, ACCOUNT_BLOCKED. The
// linkToken is single use and bound to its identity. Both transports, against a real OpenID Provider.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectAuthPayload, wrongCode } from '../helpers/assertions.js';
import { requestCode, signInWithCode } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { codeAt, enrolledUser, steadyStep } from '../mfa/support.js';
import { startProvider, type TestProvider } from './provider.js';
import {
  accepted,
  addIdentity,
  exchangeResult,
  idToken,
  linkByPhone,
  linkedRows,
  linkTokenOf,
  listIdentities,
  mfaTokenOf,
  providersEnv,
  refusal,
  sessionCount,
  signInWithIdToken,
  TRANSPORTS,
  type Transport,
  verifyMfa,
} from './support.js';

const ACCOUNTS = {
  alice: { email: 'alice@corp.example', email_verified: true, name: 'Alice Corp' },
  bob: { email: 'bob@corp.example', email_verified: true, name: 'Bob Corp' },
};

let op: TestProvider;
beforeAll(async () => {
  op = await startProvider({ clients: [{ clientId: 'web', clientSecret: 'web-secret', redirectUris: ['http://127.0.0.1:9/callback'] }], accounts: ACCOUNTS });
});
afterAll(() => op?.stop());

const env = (extra: Record<string, string> = {}) => () => ({
  ...providersEnv([{ id: 'corp', name: 'Corp SSO', issuer: op.issuer, clientId: 'web', clientSecret: 'web-secret' }]),
  ...extra,
});
const t = useTestServer(env());

/** The linkToken of a sign-in with a new ID token of `sub`, an identity no account has. */
async function newLinkToken(sub: string, transport: Transport, server = t): Promise<string> {
  return linkTokenOf(await signInWithIdToken(server, 'corp', await idToken(op, sub), transport), transport, { provider: 'corp', ...identityOf(sub) });
}

const identityOf = (sub: string) => {
  const claims = ACCOUNTS[sub as keyof typeof ACCOUNTS];
  return { email: claims.email, name: claims.name };
};

/** The account (if any) that a new ID token of `sub` signs in to; null when it answers PHONE_VERIFICATION_REQUIRED. */
async function signedInBy(sub: string, transport: Transport): Promise<string | null> {
  const result = await signInWithIdToken(t, 'corp', await idToken(op, sub), transport);
  if (result.code === 'PHONE_VERIFICATION_REQUIRED') return null;
  return accepted(result).user.id;
}

const eventsOf = (userId: string) =>
  t.sql<{ type: string; method: string | null; provider: string | null }>('select type, method, provider from security_events where user_id = $1 order by id', [userId]);

describe.each(TRANSPORTS)('the link by phone over %s', (transport) => {
  it("signs in to the phone's account with its login code and links the identity (isNewUser false, amr fed and sms)", async () => {
    const account = await signInWithCode(t);
    const linkToken = await newLinkToken('alice', transport);
    const code = await requestCode(t, account.phone);
    const before = (await eventsOf(account.userId)).length;
    const payload = accepted(await linkByPhone(t, { linkToken, phone: account.phone, code }, transport));
    expectAuthPayload(payload, transport, { isNewUser: false, user: { id: account.userId, phone: account.phone } });
    expect(claimsOf(payload.accessToken).amr).toEqual(['fed', 'sms']);
    expect(accepted(await listIdentities(t, payload.accessToken, transport))).toEqual([
      { provider: 'corp', ...identityOf('alice'), linkedAt: expect.any(String), lastUsedAt: expect.any(String) },
    ]);
    const events = (await eventsOf(account.userId)).slice(before);
    expect(events.sort((a, b) => a.type.localeCompare(b.type))).toEqual([
      { type: 'IDENTITY_LINKED', method: null, provider: 'corp' },
      { type: 'SIGN_IN', method: 'OIDC', provider: 'corp' },
    ]);
    expect(await signedInBy('alice', transport)).toBe(account.userId);
  });

  it('creates an account for a phone that has none (isNewUser true, named as the provider names the person), and links the identity', async () => {
    const phone = newPhone();
    const linkToken = await newLinkToken('alice', transport);
    const payload = accepted(await linkByPhone(t, { linkToken, phone, code: await requestCode(t, phone) }, transport));
    expectAuthPayload(payload, transport, { isNewUser: true, user: { phone, nickname: 'Alice Corp', hasPassword: false } });
    expect(claimsOf(payload.accessToken).amr).toEqual(['fed', 'sms']);
    expect(await linkedRows(t)).toEqual([{ userId: payload.user.id, provider: 'corp', subject: 'alice' }]);
    expect(await signedInBy('alice', transport)).toBe(payload.user.id);
  });

  it('takes a linkToken once: used again it is INVALID_CREDENTIALS, and the code sent for it stays unspent', async () => {
    const account = await signInWithCode(t);
    const linkToken = await newLinkToken('alice', transport);
    accepted(await linkByPhone(t, { linkToken, phone: account.phone, code: await requestCode(t, account.phone) }, transport));
    const other = await signInWithCode(t);
    const code = await requestCode(t, other.phone);
    expect(refusal(await linkByPhone(t, { linkToken, phone: other.phone, code }, transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
    expect(await sessionCount(t, other.userId)).toBe(1);
    expect((await t.http.post('/api/v1/auth/login', { phone: other.phone, code })).status).toBe(200);
  });

  it('links once when the same linkToken is sent for two phones at the same time', async () => {
    const first = await signInWithCode(t);
    const second = await signInWithCode(t);
    const linkToken = await newLinkToken('alice', transport);
    const codes = [await requestCode(t, first.phone), await requestCode(t, second.phone)];
    const results = await Promise.all([first, second].map((account, i) => linkByPhone(t, { linkToken, phone: account.phone, code: codes[i]! }, transport)));
    expect(results.map((r) => r.code ?? 'linked').sort()).toEqual(['INVALID_CREDENTIALS', 'linked']);
    const winner = results.findIndex((r) => r.code === undefined);
    expect(await linkedRows(t)).toEqual([{ userId: [first, second][winner]!.userId, provider: 'corp', subject: 'alice' }]);
    expect((await sessionCount(t, first.userId)) + (await sessionCount(t, second.userId))).toBe(3);
  });

  it('refuses an unknown or expired linkToken with INVALID_CREDENTIALS', async () => {
    const account = await signInWithCode(t);
    expect(refusal(await linkByPhone(t, { linkToken: 'not-a-link-token', phone: account.phone, code: await requestCode(t, account.phone) }, transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
    const linkToken = await newLinkToken('alice', transport);
    await t.sql(`update identity_tickets set expires_at = now() - interval '1 second' where kind = 'link'`);
    expect(refusal(await linkByPhone(t, { linkToken, phone: account.phone, code: await requestCode(t, account.phone) }, transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
    expect(await linkedRows(t)).toEqual([]);
  });

  it("links the identity its linkToken was given for and no other: each of two pending identities goes to the phone proven with its own token", async () => {
    const first = await signInWithCode(t);
    const second = await signInWithCode(t);
    const aliceToken = await newLinkToken('alice', transport);
    const bobToken = await newLinkToken('bob', transport);
    const signedIn = accepted(await linkByPhone(t, { linkToken: aliceToken, phone: first.phone, code: await requestCode(t, first.phone) }, transport));
    expect(accepted(await listIdentities(t, signedIn.accessToken, transport))).toEqual([expect.objectContaining({ provider: 'corp', ...identityOf('alice') })]);
    expect(await signedInBy('bob', transport)).toBeNull();

    accepted(await linkByPhone(t, { linkToken: bobToken, phone: second.phone, code: await requestCode(t, second.phone) }, transport));
    expect(await linkedRows(t)).toEqual([
      { userId: first.userId, provider: 'corp', subject: 'alice' },
      { userId: second.userId, provider: 'corp', subject: 'bob' },
    ]);
    expect([await signedInBy('alice', transport), await signedInBy('bob', transport)]).toEqual([first.userId, second.userId]);
  });

  it('does not take a linkToken for the one-time result of a web flow', async () => {
    const linkToken = await newLinkToken('alice', transport);
    expect(refusal(await exchangeResult(t, linkToken, transport), transport)).toEqual({ code: 'INVALID_CREDENTIALS' });
    const account = await signInWithCode(t);
    accepted(await linkByPhone(t, { linkToken, phone: account.phone, code: await requestCode(t, account.phone) }, transport));
  });

  it('answers INVALID_CODE to a wrong code and leaves the linkToken usable with the right one', async () => {
    const account = await signInWithCode(t);
    const linkToken = await newLinkToken('alice', transport);
    const code = await requestCode(t, account.phone);
    expect(refusal(await linkByPhone(t, { linkToken, phone: account.phone, code: wrongCode(code) }, transport), transport)).toEqual({ code: 'INVALID_CODE' });
    expect(await linkedRows(t)).toEqual([]);
    expect(await sessionCount(t, account.userId)).toBe(1);
    expect(accepted(await linkByPhone(t, { linkToken, phone: account.phone, code }, transport)).user.id).toBe(account.userId);
  });

  it("answers ACCOUNT_BLOCKED for a blocked account's phone, and links nothing", async () => {
    const account = await signInWithCode(t);
    const linkToken = await newLinkToken('alice', transport);
    const code = await requestCode(t, account.phone);
    await t.sql(`update users set blocked_at = now(), blocked_reason = 'spam' where id = $1`, [account.userId]);
    expect(refusal(await linkByPhone(t, { linkToken, phone: account.phone, code }, transport), transport)).toEqual({ code: 'ACCOUNT_BLOCKED' });
    expect(await linkedRows(t)).toEqual([]);
    expect(await sessionCount(t, account.userId)).toBe(1);
  });

  it('asks an account with TOTP for its second factor (MFA_REQUIRED), links nothing until /auth/mfa/verify, then links and signs in with amr fed, sms, otp, mfa', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const linkToken = await newLinkToken('alice', transport);
    const mfaToken = mfaTokenOf(await linkByPhone(t, { linkToken, phone: user.phone, code: await requestCode(t, user.phone) }, transport), transport);
    expect(await linkedRows(t)).toEqual([]);
    expect(await sessionCount(t, user.userId)).toBe(1);
    expect(await signedInBy('alice', transport)).toBeNull();

    const payload = accepted(await verifyMfa(t, mfaToken, codeAt(user.secret, step), transport));
    expect(payload.user.id).toBe(user.userId);
    expect(claimsOf(payload.accessToken).amr).toEqual(['fed', 'sms', 'otp', 'mfa']);
    expect(await linkedRows(t)).toEqual([{ userId: user.userId, provider: 'corp', subject: 'alice' }]);
    expect(await sessionCount(t, user.userId)).toBe(2);
  });

  it('answers IDENTITY_ALREADY_LINKED at /auth/mfa/verify, with no session, when the identity was linked to another account meanwhile', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const mfaToken = mfaTokenOf(await linkByPhone(t, { linkToken: await newLinkToken('alice', transport), phone: user.phone, code: await requestCode(t, user.phone) }, transport), transport);
    const other = await signInWithCode(t);
    accepted(await linkByPhone(t, { linkToken: await newLinkToken('alice', transport), phone: other.phone, code: await requestCode(t, other.phone) }, transport));

    expect(refusal(await verifyMfa(t, mfaToken, codeAt(user.secret, step), transport), transport)).toEqual({ code: 'IDENTITY_ALREADY_LINKED' });
    expect(await sessionCount(t, user.userId)).toBe(1);
    expect(await linkedRows(t)).toEqual([{ userId: other.userId, provider: 'corp', subject: 'alice' }]);
  });

  it("answers IDENTITY_ALREADY_LINKED, with no session, when another account took the identity between its two linkTokens", async () => {
    const first = await signInWithCode(t);
    const second = await signInWithCode(t);
    const earlier = await newLinkToken('alice', transport);
    const later = await newLinkToken('alice', transport);
    accepted(await linkByPhone(t, { linkToken: later, phone: first.phone, code: await requestCode(t, first.phone) }, transport));
    expect(refusal(await linkByPhone(t, { linkToken: earlier, phone: second.phone, code: await requestCode(t, second.phone) }, transport), transport)).toEqual({ code: 'IDENTITY_ALREADY_LINKED' });
    expect(await sessionCount(t, second.userId)).toBe(1);
    expect(await linkedRows(t)).toEqual([{ userId: first.userId, provider: 'corp', subject: 'alice' }]);
  });

  // A refusal changes nothing: the phone proven for an identity that another account took meanwhile
  // gets no account of its own (nor a user.created event), as it gets no session.
  it('answers IDENTITY_ALREADY_LINKED to a phone without an account when another account took the identity meanwhile, and creates no account for it', async () => {
    const first = await signInWithCode(t);
    const earlier = await newLinkToken('alice', transport);
    accepted(await linkByPhone(t, { linkToken: await newLinkToken('alice', transport), phone: first.phone, code: await requestCode(t, first.phone) }, transport));
    const phone = newPhone();
    expect(refusal(await linkByPhone(t, { linkToken: earlier, phone, code: await requestCode(t, phone) }, transport), transport)).toEqual({ code: 'IDENTITY_ALREADY_LINKED' });
    expect(await t.sql('select id from users where phone = $1', [phone])).toEqual([]);
  });

  it('answers IDENTITY_ALREADY_LINKED, with no session, when the account has an identity of this provider already', async () => {
    const account = await signInWithCode(t);
    accepted(await addIdentity(t, account.accessToken, 'corp', await idToken(op, 'alice'), 'REST'));
    const linkToken = await newLinkToken('bob', transport);
    expect(refusal(await linkByPhone(t, { linkToken, phone: account.phone, code: await requestCode(t, account.phone) }, transport), transport)).toEqual({ code: 'IDENTITY_ALREADY_LINKED' });
    expect(await sessionCount(t, account.userId)).toBe(1);
    expect(await linkedRows(t)).toEqual([{ userId: account.userId, provider: 'corp', subject: 'alice' }]);
  });
});

describe('with registration switched off', () => {
  const off = useTestServer(env({ REGISTRATION_ENABLED: 'false' }));

  it.each(TRANSPORTS)('%s: answers REGISTRATION_DISABLED for a phone without an account, creating and linking nothing; an existing account still links', async (transport: Transport) => {
    const phone = newPhone();
    // Sent while registration was on (the other instance): off, send-code refuses a new phone.
    const code = await requestCode(t, phone);
    expect((await off.http.post('/api/v1/auth/send-code', { phone, purpose: 'login' })).body.code).toBe('REGISTRATION_DISABLED');
    expect(refusal(await linkByPhone(off, { linkToken: await newLinkToken('alice', transport, off), phone, code }, transport), transport)).toEqual({ code: 'REGISTRATION_DISABLED' });
    expect(await off.sql('select 1 from users where phone = $1', [phone])).toEqual([]);
    expect(await linkedRows(off)).toEqual([]);

    const account = await signInWithCode(t);
    const payload = accepted(await linkByPhone(off, { linkToken: await newLinkToken('alice', transport, off), phone: account.phone, code: await requestCode(off, account.phone) }, transport));
    expect({ user: payload.user.id, isNewUser: payload.isNewUser }).toEqual({ user: account.userId, isNewUser: false });
  });
});
