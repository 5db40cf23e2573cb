// Step-up before changing passkeys: on an account with TOTP on, a passkey's registration options, its
// add, renaming and removing one need a session whose token proves a second factor (amr mfa) or a
// passkey (amr hwk) within the last 10 minutes, judged by its auth_time; otherwise MFA_REQUIRED with an
// mfaToken that the second step of sign-in turns into fresh tokens of the same session. Both transports.
import { describe, expect, it } from '@jest/globals';
import { registerUser } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { claimsOf } from '../helpers/tokens.js';
import { codeAt, enrolledUser, type Enrolled, eventTypes, mfaTokenByPassword, steadyStep } from '../mfa/support.js';
import {
  accepted,
  addPasskey,
  listPasskeys,
  logout,
  newLoginChallenge,
  type Outcome,
  passkeyLogin,
  refresh,
  refusal,
  registrationOptions,
  removePasskey,
  renamePasskey,
  TRANSPORTS,
  type Transport,
  verifyMfa,
} from './support.js';

const ORIGIN = 'https://meet.example.com:8443';
const t = useTestServer({ WEBAUTHN_ORIGINS: ORIGIN, SEND_CODE_INTERVAL_SECONDS: '0' });

/** Seconds since the epoch, as `auth_time` counts. */
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** An MFA_REQUIRED answer shaped as the sign-in's (401 on REST; extensions on GraphQL): its mfaToken. */
function stepUpToken(result: Outcome, transport: Transport): string {
  expect(refusal(result)).toEqual({ code: 'MFA_REQUIRED' });
  expect(result.status).toBe(transport === 'REST' ? 401 : 200);
  expect(result.mfa).toEqual({ mfaToken: expect.stringMatching(/^[\w-]{43}$/), mfaMethods: ['totp', 'recovery'] });
  return result.mfa!.mfaToken as string;
}

/** Moves the session's last proof of its factors `minutes` into the past, as the clock would. */
async function ageSession(accessToken: string, minutes: number): Promise<void> {
  await t.sql(`update sessions set auth_time = auth_time - make_interval(mins => $2) where id = $1`, [claimsOf(accessToken).sid, minutes]);
}

const liveSessions = async (userId: string) =>
  (await t.sql<{ n: number }>('select count(*)::int as n from sessions where user_id = $1 and revoked_at is null', [userId]))[0]!.n;

interface BeforeTotp {
  user: Enrolled;
  authenticator: SoftAuthenticator;
  passkey: { id: string; name: string };
  /** Registration options asked before TOTP was on: their challenge is still live. */
  pending: { challenge: string; user: { id: string } };
}

/**
 * A password account that adds a passkey and asks for the options of a second one while it has no
 * TOTP (no step-up asked, no mfaToken made), then switches TOTP on in the same session, whose token
 * names only the first factor.
 */
async function passkeyThenTotp(step: number, transport: Transport): Promise<BeforeTotp> {
  const session = await registerUser(t);
  const authenticator = new SoftAuthenticator(ORIGIN);
  const passkey = accepted(await addPasskey(t, session.accessToken, authenticator.register(accepted(await registrationOptions(t, session.accessToken, transport))), transport));
  const pending = accepted(await registrationOptions(t, session.accessToken, transport));
  expect(await t.sql('select 1 from mfa_challenges where user_id = $1', [session.userId])).toEqual([]);
  const user = await enrolledUser(t, step, session);
  expect(claimsOf(user.accessToken).amr).toEqual(['sms']); // a registration is a sign-in by code
  return { user, authenticator, passkey, pending };
}

describe.each(TRANSPORTS)('changing passkeys of an account with TOTP on, over %s', (transport) => {
  it('answers MFA_REQUIRED with an mfaToken to a session opened before TOTP was on, on registration options, add, rename and remove, and changes nothing', async () => {
    const { user, passkey, pending } = await passkeyThenTotp(await steadyStep(), transport);
    const calls: [string, () => Promise<Outcome>][] = [
      ['registration options', () => registrationOptions(t, user.accessToken, transport)],
      ['add', () => addPasskey(t, user.accessToken, new SoftAuthenticator(ORIGIN).register(pending), transport)],
      ['rename', () => renamePasskey(t, user.accessToken, passkey.id, 'Renamed', transport)],
      ['remove', () => removePasskey(t, user.accessToken, passkey.id, transport)],
    ];
    for (const [name, call] of calls) expect({ name, token: stepUpToken(await call(), transport) }).toEqual({ name, token: expect.any(String) });
    expect(accepted(await listPasskeys(t, user.accessToken, transport))).toEqual([expect.objectContaining({ id: passkey.id, name: passkey.name })]);
    // The refused add did not use up the challenge: the ceremony can be finished after a step-up.
    expect(await t.sql('select 1 as live from webauthn_challenges where user_id = $1 and challenge = $2', [user.userId, pending.challenge])).toEqual([{ live: 1 }]);
    const types = await eventTypes(t, user.userId);
    expect(types.filter((type) => type.startsWith('PASSKEY_'))).toEqual(['PASSKEY_ADDED']);
  });

  it('after the second step with a TOTP code, the fresh tokens of the same session add, rename and remove; its old tokens cannot', async () => {
    const step = await steadyStep();
    const { user, passkey, pending } = await passkeyThenTotp(step, transport);
    const mfaToken = stepUpToken(await registrationOptions(t, user.accessToken, transport), transport);
    const stepped = accepted(await verifyMfa(t, mfaToken, codeAt(user.secret, step), transport));
    const claims = claimsOf(stepped.accessToken);
    expect({ user: stepped.user.id, isNewUser: stepped.isNewUser, sid: claims.sid, amr: claims.amr }).toEqual({
      user: user.userId,
      isNewUser: false,
      sid: claimsOf(user.accessToken).sid,
      amr: ['sms', 'otp', 'mfa'],
    });
    expect(Math.abs(claims.auth_time! - nowSeconds())).toBeLessThanOrEqual(5);
    expect(await liveSessions(user.userId)).toBe(1);

    // The old access token still names the password alone; the old refresh token was rotated away.
    stepUpToken(await registrationOptions(t, user.accessToken, transport), transport);
    expect(refusal(await refresh(t, user.refreshToken, transport))).toEqual({ code: 'UNAUTHENTICATED' });

    const second = new SoftAuthenticator(ORIGIN);
    accepted(await addPasskey(t, stepped.accessToken, second.register(pending), transport));
    expect(accepted(await renamePasskey(t, stepped.accessToken, passkey.id, 'Work laptop', transport))).toMatchObject({ id: passkey.id, name: 'Work laptop' });
    accepted(await removePasskey(t, stepped.accessToken, passkey.id, transport));
    const left = accepted(await listPasskeys(t, stepped.accessToken, transport)).map((p: { id: string }) => p.id);
    expect({ count: left.length, removedGone: !left.includes(passkey.id) }).toEqual({ count: 1, removedGone: true });

    // The session keeps the step-up through refresh: the same amr and auth_time.
    const refreshed = claimsOf(accepted(await refresh(t, stepped.refreshToken, transport)).accessToken);
    expect({ sid: refreshed.sid, amr: refreshed.amr, auth_time: refreshed.auth_time }).toEqual({ sid: claims.sid, amr: claims.amr, auth_time: claims.auth_time });
  });

  it('refuses a refreshed token of a session whose second factor is older than 10 minutes, until a step-up', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const signedIn = accepted(await verifyMfa(t, await mfaTokenByPassword(t, user.phone), codeAt(user.secret, step), transport));
    expect(claimsOf(signedIn.accessToken).amr).toEqual(['pwd', 'otp', 'mfa']);
    accepted(await registrationOptions(t, signedIn.accessToken, transport));

    const provenAt = claimsOf(signedIn.accessToken).auth_time!;
    await ageSession(signedIn.accessToken, 11);
    const refreshed = accepted(await refresh(t, signedIn.refreshToken, transport));
    expect(claimsOf(refreshed.accessToken)).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], auth_time: provenAt - 660 });
    const mfaToken = stepUpToken(await registrationOptions(t, refreshed.accessToken, transport), transport);

    const stepped = accepted(await verifyMfa(t, mfaToken, codeAt(user.secret, step + 1), transport));
    expect(claimsOf(stepped.accessToken).amr).toEqual(['pwd', 'otp', 'mfa']);
    expect(claimsOf(stepped.accessToken).auth_time).toBeGreaterThanOrEqual(provenAt);
    accepted(await registrationOptions(t, stepped.accessToken, transport));
  });

  it('lets a passkey sign-in (amr hwk) add a passkey without a step-up for 10 minutes, then asks for one', async () => {
    const step = await steadyStep();
    const { user, authenticator, passkey } = await passkeyThenTotp(step, transport);
    const { challengeId, options } = await newLoginChallenge(t, transport);
    const signedIn = accepted(await passkeyLogin(t, challengeId, authenticator.assert(options), transport));
    expect(claimsOf(signedIn.accessToken).amr).toEqual(['hwk']);
    expect(Math.abs(claimsOf(signedIn.accessToken).auth_time! - nowSeconds())).toBeLessThanOrEqual(5);
    const another = new SoftAuthenticator(ORIGIN);
    accepted(await addPasskey(t, signedIn.accessToken, another.register(accepted(await registrationOptions(t, signedIn.accessToken, transport))), transport));

    await ageSession(signedIn.accessToken, 11);
    const refreshed = accepted(await refresh(t, signedIn.refreshToken, transport));
    const mfaToken = stepUpToken(await renamePasskey(t, refreshed.accessToken, passkey.id, 'Phone', transport), transport);
    const stepped = accepted(await verifyMfa(t, mfaToken, codeAt(user.secret, step), transport));
    expect(claimsOf(stepped.accessToken).amr).toEqual(['hwk', 'otp', 'mfa']);
    expect(accepted(await renamePasskey(t, stepped.accessToken, passkey.id, 'Phone', transport))).toMatchObject({ name: 'Phone' });
  });

  it("upgrades nothing with another account's code, nor once its session has ended (the code stays unspent)", async () => {
    const step = await steadyStep();
    const a = await enrolledUser(t, step);
    const b = await enrolledUser(t, step);
    const mfaToken = stepUpToken(await registrationOptions(t, a.accessToken, transport), transport);
    expect(refusal(await verifyMfa(t, mfaToken, codeAt(b.secret, step), transport))).toEqual({ code: 'INVALID_CODE' });
    stepUpToken(await registrationOptions(t, b.accessToken, transport), transport);
    const amrs = await t.sql<{ amr: string[] }>('select amr from sessions where user_id = any($1::uuid[])', [[a.userId, b.userId]]);
    expect(amrs).toEqual([{ amr: ['sms'] }, { amr: ['sms'] }]);

    accepted(await logout(t, a.accessToken, transport));
    expect(refusal(await verifyMfa(t, mfaToken, codeAt(a.secret, step), transport))).toEqual({ code: 'INVALID_CODE' });
    expect(await liveSessions(a.userId)).toBe(0);
    // The refused step-up spent nothing: the same code finishes a sign-in.
    accepted(await verifyMfa(t, await mfaTokenByPassword(t, a.phone), codeAt(a.secret, step), transport));
  });

  it('counts wrong codes against a step-up token as at sign-in (five end it; MFA_FAILED, with no method), and records no sign-in when it passes', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const right = codeAt(user.secret, step);
    const wrong = right === '000000' ? '111111' : '000000';
    const first = stepUpToken(await registrationOptions(t, user.accessToken, transport), transport);
    for (let i = 0; i < 5; i++) expect(refusal(await verifyMfa(t, first, wrong, transport))).toEqual({ code: 'INVALID_CODE' });
    expect(refusal(await verifyMfa(t, first, right, transport))).toEqual({ code: 'INVALID_CODE' });
    expect(await t.sql(`select method from security_events where user_id = $1 and type = 'MFA_FAILED'`, [user.userId])).toEqual([{ method: null }]);

    await t.sql('delete from rate_limits');
    const second = stepUpToken(await registrationOptions(t, user.accessToken, transport), transport);
    accepted(await verifyMfa(t, second, right, transport));
    expect((await eventTypes(t, user.userId)).filter((type) => type === 'SIGN_IN')).toHaveLength(1); // the registration's
  });
});
