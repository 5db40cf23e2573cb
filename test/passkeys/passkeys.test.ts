// Passkeys end to end with a software authenticator (no browser): registration, sign-in, the list,
// and every way a response can be refused, on both transports with the same codes.
import { describe, expect, it } from '@jest/globals';
import { sweepExpired } from '../../src/db/janitor.js';
import { signInWithCode, type Session } from '../helpers/factories.js';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { claimsOf } from '../helpers/tokens.js';
import { withRole } from '../admin/support.js';
import { codeAt, enrolledUser, MFA, mfaTokenByPassword, steadyStep } from '../mfa/support.js';
import {
  accepted,
  addPasskey,
  eventsOf,
  listPasskeys,
  loginOptions,
  newLoginChallenge,
  passkeyLogin,
  refusal,
  registrationOptions,
  removePasskey,
  renamePasskey,
  TRANSPORTS,
  type Transport,
  verifyMfa,
} from './support.js';

/** The page origin the software authenticator signs for, and the one the service accepts. */
const ORIGIN = 'https://meet.example.com:8443';
const s = useTestServer({ WEBAUTHN_ORIGINS: `http://localhost:5173,${ORIGIN}` }, { captureLogs: true });
const originOf = () => ORIGIN;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** A signed-in account with one passkey of a new software authenticator, added over `transport`. */
async function withPasskey(server: TestServer, transport: Transport = 'REST', counting = true): Promise<{ session: Session; authenticator: SoftAuthenticator; passkey: any }> {
  const session = await signInWithCode(server);
  const authenticator = new SoftAuthenticator(ORIGIN, 'localhost', counting);
  const options = accepted(await registrationOptions(server, session.accessToken, transport));
  const passkey = accepted(await addPasskey(server, session.accessToken, authenticator.register(options), transport));
  return { session, authenticator, passkey };
}

describe.each(TRANSPORTS)('passkeys over %s', (transport) => {
  it('registers a discoverable passkey and signs in with it, with amr hwk and no second factor', async () => {
    const session = await signInWithCode(s);
    const options = accepted(await registrationOptions(s, session.accessToken, transport));
    expect(options).toMatchObject({
      rp: { id: 'localhost', name: 'Meeting' },
      user: { id: Buffer.from(session.userId.replace(/-/g, ''), 'hex').toString('base64url'), name: session.phone },
      attestation: 'none',
      excludeCredentials: [],
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    const authenticator = new SoftAuthenticator(originOf());
    const added = accepted(await addPasskey(s, session.accessToken, authenticator.register(options), transport));
    expect(added).toEqual({ id: expect.any(String), name: `Passkey ${new Date().toISOString().slice(0, 10)}`, createdAt: expect.any(String), lastUsedAt: null, backedUp: true });
    expect(await eventsOf(s, session.userId, 'PASSKEY_ADDED')).toHaveLength(1);

    // A second registration excludes the first credential.
    const again = accepted(await registrationOptions(s, session.accessToken, transport));
    expect(again.excludeCredentials).toEqual([{ id: authenticator.id, type: 'public-key', transports: ['internal'] }]);

    const { challengeId, options: request } = await newLoginChallenge(s, transport);
    expect(request).toMatchObject({ rpId: 'localhost', allowCredentials: [], userVerification: 'preferred' });
    const signedIn = accepted(await passkeyLogin(s, challengeId, authenticator.assert(request), transport));
    expect(signedIn).toMatchObject({ tokenType: 'Bearer', isNewUser: false, user: { id: session.userId } });
    expect(claimsOf(signedIn.accessToken).amr).toEqual(['hwk']);
    // The session keeps how it was signed in: a refreshed token says hwk too.
    const refreshed = await s.http.post('/api/v1/auth/refresh', { refreshToken: signedIn.refreshToken });
    expect({ status: refreshed.status, amr: claimsOf(refreshed.body.accessToken).amr }).toEqual({ status: 200, amr: ['hwk'] });
    expect(await eventsOf(s, session.userId, 'SIGN_IN')).toEqual(expect.arrayContaining([{ type: 'SIGN_IN', method: 'PASSKEY' }]));
    const [listed] = accepted(await listPasskeys(s, signedIn.accessToken, transport));
    expect(listed).toMatchObject({ id: added.id, lastUsedAt: expect.any(String) });
    const [{ counter }] = await s.sql<{ counter: string }>('select counter from passkeys where id = $1', [added.id]);
    expect(Number(counter)).toBe(1);
  });

  it('refuses a challenge used twice: the same assertion replayed, and a registration sent again', async () => {
    const session = await signInWithCode(s);
    const authenticator = new SoftAuthenticator(originOf());
    const options = accepted(await registrationOptions(s, session.accessToken, transport));
    const registration = authenticator.register(options);
    accepted(await addPasskey(s, session.accessToken, registration, transport));
    expect(refusal(await addPasskey(s, session.accessToken, registration, transport))).toEqual({ code: 'VALIDATION_FAILED', fields: { response: expect.stringContaining('challenge') } });

    const { challengeId, options: request } = await newLoginChallenge(s, transport);
    const assertion = authenticator.assert(request);
    accepted(await passkeyLogin(s, challengeId, assertion, transport));
    expect(refusal(await passkeyLogin(s, challengeId, assertion, transport))).toEqual({ code: 'INVALID_CREDENTIALS' });
    expect(await eventsOf(s, session.userId, 'SIGN_IN_FAILED')).toEqual([{ type: 'SIGN_IN_FAILED', method: 'PASSKEY' }]);
  });

  it('refuses an expired challenge and a registration challenge at sign-in', async () => {
    const { authenticator } = await withPasskey(s, transport);
    const { challengeId, options } = await newLoginChallenge(s, transport);
    await s.sql(`update webauthn_challenges set expires_at = now() - interval '1 second' where id = $1`, [challengeId]);
    expect(refusal(await passkeyLogin(s, challengeId, authenticator.assert(options), transport))).toEqual({ code: 'INVALID_CREDENTIALS' });

    const other = await signInWithCode(s);
    const registration = accepted(await registrationOptions(s, other.accessToken, transport));
    const [{ id }] = await s.sql<{ id: string }>(`select id from webauthn_challenges where purpose = 'registration' and challenge = $1`, [registration.challenge]);
    expect(refusal(await passkeyLogin(s, id, authenticator.assert(registration), transport))).toEqual({ code: 'INVALID_CREDENTIALS' });

    await s.sql(`update webauthn_challenges set expires_at = now() - interval '1 second'`);
    const late = new SoftAuthenticator(originOf());
    expect(refusal(await addPasskey(s, other.accessToken, late.register(registration), transport))).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('refuses a counter that does not move forward (a cloned authenticator), records it for the owner and warns', async () => {
    const { session, authenticator, passkey } = await withPasskey(s, transport);
    const first = await newLoginChallenge(s, transport);
    accepted(await passkeyLogin(s, first.challengeId, authenticator.assert(first.options, { counter: 5 }), transport));
    for (const counter of [5, 3, 0]) {
      const next = await newLoginChallenge(s, transport);
      expect({ counter, ...refusal(await passkeyLogin(s, next.challengeId, authenticator.assert(next.options, { counter }), transport)) }).toEqual({ counter, code: 'INVALID_CREDENTIALS' });
    }
    expect(await eventsOf(s, session.userId, 'SIGN_IN_FAILED')).toEqual([{ type: 'SIGN_IN_FAILED', method: 'PASSKEY' }]);
    expect(s.logs()).toContain('its signature counter did not move forward');
    expect(s.logs()).toContain(passkey.id);
    const [{ counter }] = await s.sql<{ counter: string }>('select counter from passkeys where id = $1', [passkey.id]);
    expect(Number(counter)).toBe(5);
    const onward = await newLoginChallenge(s, transport);
    accepted(await passkeyLogin(s, onward.challengeId, authenticator.assert(onward.options, { counter: 6 }), transport));
  });

  it('signs in again and again with an authenticator that keeps no counter (always 0)', async () => {
    const { authenticator } = await withPasskey(s, transport, false);
    for (let i = 0; i < 2; i++) {
      const { challengeId, options } = await newLoginChallenge(s, transport);
      accepted(await passkeyLogin(s, challengeId, authenticator.assert(options), transport));
    }
  });

  it('refuses assertions that do not verify: another origin, RP ID or type, a bad signature, an unknown credential, a foreign user handle, truncated data', async () => {
    const { authenticator } = await withPasskey(s, transport);
    const stranger = new SoftAuthenticator(originOf());
    const cases: [string, (options: { challenge: string }) => unknown][] = [
      ['other origin', (o) => authenticator.assert(o, { origin: 'http://localhost:1' })],
      ['other RP ID', (o) => authenticator.assert(o, { rpId: 'example.com' })],
      ['create instead of get', (o) => authenticator.assert(o, { type: 'webauthn.create' })],
      ['other challenge', (o) => authenticator.assert(o, { challenge: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })],
      ['bad signature', (o) => {
        const a = authenticator.assert(o);
        const signature = Buffer.from(a.response.signature, 'base64url');
        signature[signature.length - 1]! ^= 1;
        return { ...a, response: { ...a.response, signature: signature.toString('base64url') } };
      }],
      ['unknown credential', (o) => stranger.assert(o)],
      ['user handle of another account', (o) => {
        const a = authenticator.assert(o);
        return { ...a, response: { ...a.response, userHandle: Buffer.alloc(16, 7).toString('base64url') } };
      }],
      ['truncated authenticatorData', (o) => {
        const a = authenticator.assert(o);
        return { ...a, response: { ...a.response, authenticatorData: a.response.authenticatorData.slice(0, 20) } };
      }],
      ['clientDataJSON not JSON', (o) => {
        const a = authenticator.assert(o);
        return { ...a, response: { ...a.response, clientDataJSON: Buffer.from('{"type":').toString('base64url') } };
      }],
      ['signature not DER', (o) => {
        const a = authenticator.assert(o);
        return { ...a, response: { ...a.response, signature: 'AAAA' } };
      }],
    ];
    for (const [name, make] of cases) {
      const { challengeId, options } = await newLoginChallenge(s, transport);
      expect({ name, ...refusal(await passkeyLogin(s, challengeId, make(options), transport)) }).toEqual({ name, code: 'INVALID_CREDENTIALS' });
    }
    const { challengeId, options } = await newLoginChallenge(s, transport);
    accepted(await passkeyLogin(s, challengeId, authenticator.assert(options), transport));
  });

  it('answers VALIDATION_FAILED with fields for responses of the wrong shape, at sign-in and registration', async () => {
    const session = await signInWithCode(s);
    const authenticator = new SoftAuthenticator(originOf());
    const options = accepted(await registrationOptions(s, session.accessToken, transport));
    const good = authenticator.register(options);
    const { challengeId } = await newLoginChallenge(s, transport);
    const assertion = authenticator.assert({ challenge: 'x' });
    const huge = 'A'.repeat(16 * 1024 + 4);
    const loginCases: [string, unknown, unknown, string][] = [
      ['not an object', challengeId, 'hello', 'response'],
      ['an array', challengeId, [assertion], 'response'],
      ['no response member', challengeId, { ...assertion, response: undefined }, 'response.response'],
      ['wrong type', challengeId, { ...assertion, type: 'password' }, 'response.type'],
      ['number id', challengeId, { ...assertion, id: 42 }, 'response.id'],
      ['rawId differs', challengeId, { ...assertion, rawId: 'AAAA' }, 'response.rawId'],
      ['not base64url', challengeId, { ...assertion, response: { ...assertion.response, signature: 'a+b/c=' } }, 'response.response.signature'],
      ['huge field', challengeId, { ...assertion, response: { ...assertion.response, authenticatorData: huge } }, 'response.response.authenticatorData'],
      ['missing signature', challengeId, { ...assertion, response: { ...assertion.response, signature: undefined } }, 'response.response.signature'],
      ['challengeId not a uuid', 'abc', assertion, 'challengeId'],
    ];
    for (const [name, id, response, field] of loginCases) {
      const result = refusal(await passkeyLogin(s, id, response, transport));
      expect({ name, code: result.code, field: Object.keys(result.fields ?? {}) }).toEqual({ name, code: 'VALIDATION_FAILED', field: [field] });
    }
    const addCases: [string, unknown, string][] = [
      ['not an object', 42, 'response'],
      ['no attestationObject', { ...good, response: { ...good.response, attestationObject: undefined } }, 'response.response.attestationObject'],
      ['transports not strings', { ...good, response: { ...good.response, transports: [1] } }, 'response.response.transports.0'],
      ['huge clientDataJSON', { ...good, response: { ...good.response, clientDataJSON: huge } }, 'response.response.clientDataJSON'],
    ];
    for (const [name, response, field] of addCases) {
      const result = refusal(await addPasskey(s, session.accessToken, response, transport));
      expect({ name, code: result.code, field: Object.keys(result.fields ?? {}) }).toEqual({ name, code: 'VALIDATION_FAILED', field: [field] });
    }
    // Well formed, but its CBOR is cut short, or its origin is not ours: it does not verify.
    const cut = { ...good, response: { ...good.response, attestationObject: good.response.attestationObject.slice(0, 60) } };
    expect(refusal(await addPasskey(s, session.accessToken, cut, transport))).toMatchObject({ code: 'VALIDATION_FAILED', fields: { response: expect.any(String) } });
    const fresh = accepted(await registrationOptions(s, session.accessToken, transport));
    const foreign = new SoftAuthenticator('http://localhost:1').register(fresh);
    expect(refusal(await addPasskey(s, session.accessToken, foreign, transport))).toMatchObject({ code: 'VALIDATION_FAILED', fields: { response: expect.stringContaining('verify') } });
    expect(accepted(await listPasskeys(s, session.accessToken, transport))).toEqual([]);
    expect(s.logs()).not.toMatch(/"level":(50|60)/);
  });

  it('lists, renames and removes passkeys; a removed passkey signs in no more', async () => {
    const { session, authenticator, passkey } = await withPasskey(s, transport);
    const renamed = accepted(await renamePasskey(s, session.accessToken, passkey.id, '  Work laptop  ', transport));
    expect(renamed).toMatchObject({ id: passkey.id, name: 'Work laptop' });
    for (const [name, why] of [['   ', 'must not be empty'], ['x'.repeat(65), 'must be at most 64 characters'], ['a\u0001b', 'must not contain control characters'], ['a\u0000b', 'must not contain NUL characters (U+0000)']] as const) {
      expect(refusal(await renamePasskey(s, session.accessToken, passkey.id, name, transport))).toEqual({ code: 'VALIDATION_FAILED', fields: { name: why } });
    }
    expect(accepted(await listPasskeys(s, session.accessToken, transport))).toEqual([expect.objectContaining({ id: passkey.id, name: 'Work laptop' })]);
    expect(accepted(await removePasskey(s, session.accessToken, passkey.id, transport))).toBe(transport === 'REST' ? '' : true);
    expect(await eventsOf(s, session.userId, 'PASSKEY_REMOVED')).toHaveLength(1);
    expect(accepted(await listPasskeys(s, session.accessToken, transport))).toEqual([]);
    expect(refusal(await removePasskey(s, session.accessToken, passkey.id, transport))).toEqual({ code: 'NOT_FOUND' });
    const { challengeId, options } = await newLoginChallenge(s, transport);
    expect(refusal(await passkeyLogin(s, challengeId, authenticator.assert(options), transport))).toEqual({ code: 'INVALID_CREDENTIALS' });
  });

  it("answers NOT_FOUND for another user's passkey, an unknown id and a malformed one", async () => {
    const { session, passkey } = await withPasskey(s, transport);
    const other = await signInWithCode(s);
    for (const id of [passkey.id, UNKNOWN_ID, 'not-a-uuid']) {
      expect({ id, ...refusal(await renamePasskey(s, other.accessToken, id, 'Mine now', transport)) }).toEqual({ id, code: 'NOT_FOUND' });
      expect({ id, ...refusal(await removePasskey(s, other.accessToken, id, transport)) }).toEqual({ id, code: 'NOT_FOUND' });
    }
    expect(accepted(await listPasskeys(s, session.accessToken, transport))).toEqual([expect.objectContaining({ id: passkey.id, name: passkey.name })]);
  });

  it('refuses every passkey route of the signed-in user without a valid token', async () => {
    const calls = [
      () => registrationOptions(s, undefined, transport),
      () => addPasskey(s, 'not-a-token', {}, transport),
      () => listPasskeys(s, undefined, transport),
      () => renamePasskey(s, undefined, UNKNOWN_ID, 'x', transport),
      () => removePasskey(s, undefined, UNKNOWN_ID, transport),
    ];
    for (const call of calls) expect(refusal(await call())).toEqual({ code: 'UNAUTHENTICATED' });
  });

  it("refuses a blocked account's live token on every passkey route of the signed-in user, and changes nothing", async () => {
    const { session, passkey } = await withPasskey(s, transport);
    await s.sql(`update users set blocked_at = now(), blocked_reason = 'test' where id = $1`, [session.userId]);
    const token = session.accessToken;
    const calls = [
      () => registrationOptions(s, token, transport),
      () => addPasskey(s, token, new SoftAuthenticator(ORIGIN).register({ challenge: 'x', user: { id: 'x' } }), transport),
      () => listPasskeys(s, token, transport),
      () => renamePasskey(s, token, passkey.id, 'Renamed while blocked', transport),
      () => removePasskey(s, token, passkey.id, transport),
    ];
    for (const call of calls) expect(refusal(await call())).toEqual({ code: 'UNAUTHENTICATED' });
    expect(await s.sql('select id, name from passkeys where user_id = $1', [session.userId])).toEqual([{ id: passkey.id, name: passkey.name }]);
  });

  it('answers ACCOUNT_BLOCKED to the right passkey of a blocked account', async () => {
    const { session, authenticator } = await withPasskey(s, transport);
    await s.sql(`update users set blocked_at = now(), blocked_reason = 'test' where id = $1`, [session.userId]);
    const { challengeId, options } = await newLoginChallenge(s, transport);
    expect(refusal(await passkeyLogin(s, challengeId, authenticator.assert(options), transport))).toEqual({ code: 'ACCOUNT_BLOCKED' });
  });

  it('keeps at most 20 passkeys per account and refuses a credential registered already', async () => {
    const { session, authenticator } = await withPasskey(s, transport);
    const options = accepted(await registrationOptions(s, session.accessToken, transport));
    expect(refusal(await addPasskey(s, session.accessToken, authenticator.register(options), transport))).toEqual({
      code: 'VALIDATION_FAILED',
      fields: { response: 'this passkey is registered already' },
    });
    await s.sql(
      `insert into passkeys (id, user_id, credential_id, public_key, device_type, name)
       select gen_random_uuid(), $1, 'filler' || n, '\\x00', 'singleDevice', 'Filler ' || n from generate_series(1, 19) n`,
      [session.userId],
    );
    expect(refusal(await registrationOptions(s, session.accessToken, transport))).toEqual({ code: 'VALIDATION_FAILED', fields: { passkeys: expect.stringContaining('at most 20') } });
  });

  it('limits sign-in options per address (30 in 5 minutes)', async () => {
    for (let i = 0; i < 30; i++) accepted(await loginOptions(s, transport));
    expect(refusal(await loginOptions(s, transport))).toEqual({ code: 'RATE_LIMITED' });
  });
});

describe('passkeys beside the other factors', () => {
  it('signs an account with TOTP on in with a passkey directly (no MFA_REQUIRED), and counts its passkeys in its MFA status and for operators, who see TOTP on and no factor itself', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(s, step);
    // A session with both factors just proven may add a passkey (see step-up.test.ts).
    const { accessToken } = accepted(await verifyMfa(s, await mfaTokenByPassword(s, user.phone), codeAt(user.secret, step), 'REST'));
    const authenticator = new SoftAuthenticator(ORIGIN);
    accepted(await addPasskey(s, accessToken, authenticator.register(accepted(await registrationOptions(s, accessToken, 'REST'))), 'REST'));
    for (const transport of TRANSPORTS) {
      const { challengeId, options } = await newLoginChallenge(s, transport);
      const signedIn = accepted(await passkeyLogin(s, challengeId, authenticator.assert(options), transport));
      expect({ transport, user: signedIn.user.id, amr: claimsOf(signedIn.accessToken).amr }).toEqual({ transport, user: user.userId, amr: ['hwk'] });
    }
    expect((await s.http.get(MFA, { token: user.accessToken })).body).toEqual({ totp: true, recoveryCodesLeft: 10, passkeys: 1 });
    const admin = await withRole(s, 'ADMIN');
    const viewed = await s.http.get(`/api/v1/admin/users/${user.userId}`, { token: admin.accessToken });
    expect(viewed.body).toMatchObject({ id: user.userId, mfaEnabled: true, passkeys: 1 });
    const query = 'query($id: ID!) { adminUser(id: $id) { id mfaEnabled passkeys } }';
    const overGraphql = await s.http.post('/graphql', { query, variables: { id: user.userId } }, { token: admin.accessToken });
    expect(overGraphql.body).toEqual({ data: { adminUser: { id: user.userId, mfaEnabled: true, passkeys: 1 } } });
    const found = await s.http.get(`/api/v1/admin/users?query=${encodeURIComponent(user.phone)}`, { token: admin.accessToken });
    expect(found.body.items.map((u: { id: string; mfaEnabled: boolean; passkeys: number }) => [u.id, u.mfaEnabled, u.passkeys])).toEqual([[user.userId, true, 1]]);
    // What operators see says that the factors exist, never what they are.
    const shown = JSON.stringify([viewed.body, found.body]);
    for (const secret of [user.secret, authenticator.id, 'otpauth', ...user.recoveryCodes]) expect(shown).not.toContain(secret);
  });
});

describe('passkey challenges', () => {
  it('are swept by the janitor once expired, and only then', async () => {
    const live = await newLoginChallenge(s);
    const old = await newLoginChallenge(s);
    await s.sql(`update webauthn_challenges set expires_at = now() - interval '1 second' where id = $1`, [old.challengeId]);
    expect(await sweepExpired(s.server.services.sweepers)).toMatchObject({ webauthnChallenges: 1 });
    expect(await s.sql('select id from webauthn_challenges')).toEqual([{ id: live.challengeId }]);
  });
});
