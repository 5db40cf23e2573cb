// Changing the phone number with two proofs (API.md 10.1): the new phone by its code, the account by a
// code to the current phone, a TOTP or recovery code, or a session that proved a passkey (amr hwk) or
// an external identity (amr fed) within the last 10 minutes. With both, the change applies at once:
// the number, PHONE_CHANGED, `user.updated` with the new number, a notice to the old number. A password
// alone proves nothing here, and a proof older than 10 minutes is refused. Both transports.
import { describe, expect, it } from '@jest/globals';
import { registerUser, signInWithCode } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import { claimsOf, forgeToken } from '../helpers/tokens.js';
import { codeAt, enrolledUser, steadyStep } from '../mfa/support.js';
import { addPasskey, newLoginChallenge, passkeyLogin, registrationOptions } from '../passkeys/support.js';
import {
  accepted,
  current,
  eventTypes,
  messagesTo,
  phoneOf,
  provenNewPhone,
  refusal,
  sendCurrentCode,
  SERVER_ENV,
  start,
  TRANSPORTS,
  userUpdates,
  verifyAccount,
  verifyNew,
  WEBHOOKS,
} from './support.js';

const ORIGIN = 'https://meet.example.com:8443';
const t = useTestServer({ ...SERVER_ENV, ...WEBHOOKS, WEBAUTHN_ORIGINS: ORIGIN });

/** A token of the same session as `accessToken`, whose methods were proven `minutesAgo` minutes ago. */
function provenBy(accessToken: string, amr: string[], minutesAgo: number): string {
  const { sub, sid } = claimsOf(accessToken);
  return forgeToken({ sub, sid }, { claims: { amr, auth_time: Math.floor(Date.now() / 1000) - minutesAgo * 60 } });
}

describe.each(TRANSPORTS)('a change with both proofs, over %s', (transport) => {
  it('applies at once with the code sent to the current phone: the number, the event, the webhook, a notice to the old number', async () => {
    const user = await signInWithCode(t);
    const target = newPhone();
    const started = accepted(await start(t, user.accessToken, target, transport));
    expect(started).toEqual({
      id: expect.any(String), phone: target, status: 'PENDING', newPhoneProven: false, accountProven: false, appliesAt: null, createdAt: expect.any(String),
    });
    const proven = accepted(await verifyNew(t, user.accessToken, await t.codeFor(target, 'phone-change'), transport));
    expect(proven).toMatchObject({ id: started.id, status: 'PENDING', newPhoneProven: true, accountProven: false });
    expect(await phoneOf(t, user.userId)).toBe(user.phone);

    accepted(await sendCurrentCode(t, user.accessToken, transport));
    const applied = accepted(await verifyAccount(t, user.accessToken, { code: await t.codeFor(user.phone, 'phone-change-current') }, transport));
    expect(applied).toMatchObject({ id: started.id, phone: target, status: 'APPLIED', newPhoneProven: true, accountProven: true, appliesAt: null });

    expect(await phoneOf(t, user.userId)).toBe(target);
    expect((await eventTypes(t, user.userId)).filter((type) => type.startsWith('PHONE_'))).toEqual(['PHONE_CHANGED']);
    expect((await userUpdates(t, user.userId)).map((p) => p.user.phone)).toEqual([target]);
    const notices = await messagesTo(t, user.phone, 'phone-change-notice');
    expect(notices).toHaveLength(1);
    expect(notices[0]!.text).toContain(target.slice(-4));
    expect(await messagesTo(t, target, 'phone-change-notice')).toEqual([]);
    // Nothing is pending any more; the session lives on and now signs in by the new number.
    expect(transport === 'REST' ? refusal(await current(t, user.accessToken, transport)) : accepted(await current(t, user.accessToken, transport))).toBe(
      transport === 'REST' ? 'NOT_FOUND' : null,
    );
    expect((await t.http.get('/api/v1/users/me', { token: user.accessToken })).body.phone).toBe(target);
  });

  it('applies when the account is proven first and the new phone second (within 10 minutes)', async () => {
    const user = await signInWithCode(t);
    const target = newPhone();
    accepted(await start(t, user.accessToken, target, transport));
    accepted(await sendCurrentCode(t, user.accessToken, transport));
    const half = accepted(await verifyAccount(t, user.accessToken, { code: await t.codeFor(user.phone, 'phone-change-current') }, transport));
    expect(half).toMatchObject({ status: 'PENDING', newPhoneProven: false, accountProven: true });
    const applied = accepted(await verifyNew(t, user.accessToken, await t.codeFor(target, 'phone-change'), transport));
    expect(applied).toMatchObject({ status: 'APPLIED', newPhoneProven: true, accountProven: true });
    expect(await phoneOf(t, user.userId)).toBe(target);
  });

  it('does not apply with an account proof older than 10 minutes: the new phone proven, the change stays PENDING', async () => {
    const user = await signInWithCode(t);
    const target = newPhone();
    accepted(await start(t, user.accessToken, target, transport));
    accepted(await sendCurrentCode(t, user.accessToken, transport));
    accepted(await verifyAccount(t, user.accessToken, { code: await t.codeFor(user.phone, 'phone-change-current') }, transport));
    await t.sql(`update phone_changes set account_proven_at = now() - interval '11 minutes' where user_id = $1`, [user.userId]);
    const proven = accepted(await verifyNew(t, user.accessToken, await t.codeFor(target, 'phone-change'), transport));
    expect(proven).toMatchObject({ status: 'PENDING', newPhoneProven: true, accountProven: false });
    expect(await phoneOf(t, user.userId)).toBe(user.phone);
  });

  it('applies with a TOTP code, and with a recovery code', async () => {
    const step = await steadyStep();
    const user = await enrolledUser(t, step);
    const first = newPhone();
    await provenNewPhone(t, user.accessToken, first, transport);
    expect(accepted(await verifyAccount(t, user.accessToken, { totp: codeAt(user.secret, step) }, transport))).toMatchObject({ status: 'APPLIED', accountProven: true });
    expect(await phoneOf(t, user.userId)).toBe(first);

    const second = newPhone();
    await provenNewPhone(t, user.accessToken, second, transport);
    // The TOTP step already used is refused, and the change stays as it was.
    expect(refusal(await verifyAccount(t, user.accessToken, { totp: codeAt(user.secret, step) }, transport))).toBe('INVALID_CODE');
    expect(accepted(await verifyAccount(t, user.accessToken, { recoveryCode: user.recoveryCodes[0] }, transport))).toMatchObject({ status: 'APPLIED' });
    expect(await phoneOf(t, user.userId)).toBe(second);
    expect((await eventTypes(t, user.userId)).filter((type) => type.startsWith('PHONE_') || type === 'RECOVERY_CODE_USED')).toEqual([
      'PHONE_CHANGED', 'RECOVERY_CODE_USED', 'PHONE_CHANGED',
    ]);
  });

  it('applies with a passkey sign-in of the last 10 minutes (amr hwk), with no code', async () => {
    const user = await registerUser(t);
    const authenticator = new SoftAuthenticator(ORIGIN);
    accepted(await addPasskey(t, user.accessToken, authenticator.register(accepted(await registrationOptions(t, user.accessToken, transport))), transport));
    const { challengeId, options } = await newLoginChallenge(t, transport);
    const signedIn = accepted(await passkeyLogin(t, challengeId, authenticator.assert(options), transport));
    expect(claimsOf(signedIn.accessToken).amr).toEqual(['hwk']);
    const target = newPhone();
    await provenNewPhone(t, signedIn.accessToken, target, transport);
    expect(accepted(await verifyAccount(t, signedIn.accessToken, {}, transport))).toMatchObject({ status: 'APPLIED', accountProven: true });
    expect(await phoneOf(t, user.userId)).toBe(target);
  });

  it('applies with a session of a provider sign-in of the last 10 minutes (amr fed), and refuses one of 11 minutes ago', async () => {
    const user = await signInWithCode(t);
    const target = newPhone();
    await provenNewPhone(t, user.accessToken, target, transport);
    const stale = provenBy(user.accessToken, ['fed'], 11);
    const refused = await verifyAccount(t, stale, {}, transport);
    expect(refusal(refused)).toBe('VALIDATION_FAILED');
    expect(await phoneOf(t, user.userId)).toBe(user.phone);
    const fresh = provenBy(user.accessToken, ['fed'], 1);
    expect(accepted(await verifyAccount(t, fresh, {}, transport))).toMatchObject({ status: 'APPLIED' });
    expect(await phoneOf(t, user.userId)).toBe(target);
  });

  it('refuses a passkey proof of 11 minutes ago, and a password or SMS sign-in however recent', async () => {
    const user = await registerUser(t);
    await provenNewPhone(t, user.accessToken, newPhone(), transport);
    for (const token of [provenBy(user.accessToken, ['hwk'], 11), provenBy(user.accessToken, ['pwd'], 0), provenBy(user.accessToken, ['sms'], 0)]) {
      const result = await verifyAccount(t, token, {}, transport);
      expect({ code: refusal(result), status: result.status }).toEqual({ code: 'VALIDATION_FAILED', status: transport === 'REST' ? 400 : 200 });
    }
    expect(accepted(await current(t, user.accessToken, transport))).toMatchObject({ status: 'PENDING', newPhoneProven: true, accountProven: false });
    expect(await phoneOf(t, user.userId)).toBe(user.phone);
  });
});
