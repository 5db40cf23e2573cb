// The lost-phone path (API.md 10.1): with the new phone proven and no account proof, the change waits
// PHONE_RECOVERY_DELAY_HOURS, told at once to the current phone (PHONE_CHANGE_REQUESTED); any session
// of the account cancels it, and so does a sign-in by code with the current phone; once the delay has
// passed the janitor's job applies it on whichever instance runs it (here not the one that took the
// request), and every other session of the account ends. Time is moved by writing applies_at.
import { describe, expect, it } from '@jest/globals';
import { GOOD_PASSWORD, registerUser, requestCode, signInWithCode } from '../helpers/factories.js';
import { instancePair } from '../helpers/instances.js';
import { newPhone, type TestServer } from '../helpers/server.js';
import {
  accepted,
  cancel,
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
  wait,
  WEBHOOKS,
} from './support.js';

const { a, b } = instancePair(() => ({ ...SERVER_ENV, ...WEBHOOKS }));

const phoneEvents = async (t: TestServer, userId: string) => (await eventTypes(t, userId)).filter((type) => type.startsWith('PHONE_'));
const liveSessions = async (t: TestServer, userId: string) =>
  (await t.sql<{ id: string }>('select id from sessions where user_id = $1 and revoked_at is null order by created_at', [userId])).map((r) => r.id);
const sessionOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;

/** Moves the account's waiting change `hours` into its past, as the clock would. */
async function pass(t: TestServer, userId: string, hours = 73): Promise<void> {
  await t.sql(`update phone_changes set applies_at = applies_at - make_interval(hours => $2) where user_id = $1 and status = 'WAITING'`, [userId, hours]);
}

describe.each(TRANSPORTS)('a change waiting for a lost phone, over %s', (transport) => {
  it('waits 72 hours with a password sign-in only: the notice goes to the current phone, PHONE_CHANGE_REQUESTED is recorded, nothing changes yet', async () => {
    const user = await registerUser(a);
    const signedIn = (await a.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD })).body;
    const target = newPhone();
    await provenNewPhone(a, signedIn.accessToken, target, transport);
    const waiting = accepted(await wait(a, signedIn.accessToken, transport));
    expect(waiting).toMatchObject({ phone: target, status: 'WAITING', newPhoneProven: true, accountProven: false });
    const hours = (Date.parse(waiting.appliesAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(71.9);
    expect(hours).toBeLessThanOrEqual(72);
    expect(accepted(await current(a, user.accessToken, transport))).toMatchObject({ id: waiting.id, status: 'WAITING', appliesAt: waiting.appliesAt });
    const notices = await messagesTo(a, user.phone, 'phone-change-notice');
    expect(notices).toHaveLength(1);
    // A +86 number with no language chosen: the region's, zh-CN; only the new number's last four digits.
    expect(notices[0]).toMatchObject({ locale: 'zh-CN' });
    expect(notices[0]!.text).toContain(`更换为尾号 ${target.slice(-4)} 的号码`);
    expect(notices[0]!.text).not.toContain(target.slice(0, -4));
    expect(await phoneEvents(a, user.userId)).toEqual(['PHONE_CHANGE_REQUESTED']);
    expect(await phoneOf(a, user.userId)).toBe(user.phone);
    // The job before its time applies nothing; a second wait answers the same change and sends nothing.
    expect(await b.server.services.phoneChanges.applyDue()).toBe(0);
    expect(accepted(await wait(a, signedIn.accessToken, transport))).toMatchObject({ id: waiting.id, status: 'WAITING' });
    expect(await messagesTo(a, user.phone, 'phone-change-notice')).toHaveLength(1);
  });

  it('refuses to wait before the new phone is proven, and verify-new once it waits', async () => {
    const user = await signInWithCode(a);
    const target = newPhone();
    accepted(await start(a, user.accessToken, target, transport));
    expect(refusal(await wait(a, user.accessToken, transport))).toBe('VALIDATION_FAILED');
    accepted(await verifyNew(a, user.accessToken, await a.codeFor(target, 'phone-change'), transport));
    accepted(await wait(a, user.accessToken, transport));
    expect(refusal(await verifyNew(a, user.accessToken, '123456', transport))).toBe('INVALID_CODE');
  });

  it('applies when the delay has passed, run by the other instance: the number, PHONE_CHANGED, user.updated, the notice; every other session ends', async () => {
    const user = await signInWithCode(a);
    const other = await signInWithCode(a, user.phone);
    const target = newPhone();
    await provenNewPhone(a, user.accessToken, target, transport);
    accepted(await wait(a, user.accessToken, transport));
    await pass(a, user.userId);

    expect(await b.server.services.phoneChanges.applyDue()).toBe(1);
    expect(await a.server.services.phoneChanges.applyDue()).toBe(0);
    expect(await phoneOf(a, user.userId)).toBe(target);
    expect(await phoneEvents(a, user.userId)).toEqual(['PHONE_CHANGE_REQUESTED', 'PHONE_CHANGED']);
    expect((await userUpdates(a, user.userId)).map((p) => p.user.phone)).toEqual([target]);
    // Each instance writes its own outbox: the request's notice on A, the change's on B, which applied it.
    // In the +86 region's language (the account chose none): "will be changed to ...", then "was changed to ...".
    expect((await messagesTo(a, user.phone, 'phone-change-notice')).map((m) => m.text)).toEqual([expect.stringMatching(/^您账号的手机号将于 .+ UTC 更换为尾号 \d{4} 的号码/)]);
    expect((await messagesTo(b, user.phone, 'phone-change-notice')).map((m) => m.text)).toEqual([expect.stringMatching(/^您账号的手机号已更换为尾号 \d{4} 的号码/)]);
    expect(await liveSessions(a, user.userId)).toEqual([sessionOf(user.accessToken)]);
    expect((await a.http.get('/api/v1/users/me', { token: other.accessToken })).status).toBe(401);
    expect((await a.http.get('/api/v1/users/me', { token: user.accessToken })).body.phone).toBe(target);
    expect(transport === 'REST' ? refusal(await current(a, user.accessToken, transport)) : accepted(await current(a, user.accessToken, transport))).toBe(
      transport === 'REST' ? 'NOT_FOUND' : null,
    );
    // The old number is free at once: someone else signs up with it.
    const newcomer = await signInWithCode(b, user.phone);
    expect(newcomer.body.isNewUser).toBe(true);
  });

  it('applies at once when the account is proven after all (the phone was found), with no delay and no session ended', async () => {
    const user = await signInWithCode(a);
    const other = await signInWithCode(a, user.phone);
    const target = newPhone();
    await provenNewPhone(a, user.accessToken, target, transport);
    accepted(await wait(a, user.accessToken, transport));
    accepted(await sendCurrentCode(a, user.accessToken, transport));
    const applied = accepted(await verifyAccount(a, user.accessToken, { code: await a.codeFor(user.phone, 'phone-change-current') }, transport));
    expect(applied).toMatchObject({ status: 'APPLIED', accountProven: true, appliesAt: null });
    expect(await phoneOf(a, user.userId)).toBe(target);
    expect(await liveSessions(a, user.userId)).toHaveLength(2);
    expect((await a.http.get('/api/v1/users/me', { token: other.accessToken })).status).toBe(200);
    expect(await b.server.services.phoneChanges.applyDue()).toBe(0);
  });

  it('is cancelled by any session of the account (PHONE_CHANGE_CANCELLED), and does not apply after the delay', async () => {
    const user = await signInWithCode(a);
    const other = await signInWithCode(b, user.phone);
    await provenNewPhone(a, user.accessToken, newPhone(), transport);
    accepted(await wait(a, user.accessToken, transport));
    expect(accepted(await cancel(b, other.accessToken, transport))).toBe(true);
    expect(await phoneEvents(a, user.userId)).toEqual(['PHONE_CHANGE_REQUESTED', 'PHONE_CHANGE_CANCELLED']);
    expect((await a.sql<{ status: string }>('select status from phone_changes where user_id = $1', [user.userId])).map((r) => r.status)).toEqual(['CANCELLED']);
    await a.sql(`update phone_changes set applies_at = now() - interval '1 hour' where user_id = $1`, [user.userId]);
    expect(await b.server.services.phoneChanges.applyDue()).toBe(0);
    expect(await phoneOf(a, user.userId)).toBe(user.phone);
    expect(refusal(await cancel(a, user.accessToken, transport))).toBe('NOT_FOUND');
    expect(await liveSessions(a, user.userId)).toHaveLength(2);
  });

  it('is cancelled by a sign-in by code with the current phone, but not by a password sign-in', async () => {
    const user = await registerUser(a);
    await provenNewPhone(a, user.accessToken, newPhone(), transport);
    accepted(await wait(a, user.accessToken, transport));
    const byPassword = await b.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD });
    expect(byPassword.status).toBe(200);
    expect(accepted(await current(a, user.accessToken, transport))).toMatchObject({ status: 'WAITING' });

    await signInWithCode(b, user.phone);
    expect(await phoneEvents(a, user.userId)).toEqual(['PHONE_CHANGE_REQUESTED', 'PHONE_CHANGE_CANCELLED']);
    expect(transport === 'REST' ? refusal(await current(a, user.accessToken, transport)) : accepted(await current(a, user.accessToken, transport))).toBe(
      transport === 'REST' ? 'NOT_FOUND' : null,
    );
    await a.sql(`update phone_changes set applies_at = now() - interval '1 hour' where user_id = $1`, [user.userId]);
    expect(await a.server.services.phoneChanges.applyDue()).toBe(0);
    expect(await phoneOf(a, user.userId)).toBe(user.phone);
  });

  it('goes with the account when it is deleted while waiting', async () => {
    const user = await signInWithCode(a);
    await provenNewPhone(a, user.accessToken, newPhone(), transport);
    accepted(await wait(a, user.accessToken, transport));
    const code = await requestCode(a, user.phone, 'delete-account');
    const deleted = await a.http.request('DELETE', '/api/v1/users/me', { token: user.accessToken, body: { code } });
    expect(deleted.status).toBe(204);
    expect(await a.sql('select id from phone_changes where user_id = $1', [user.userId])).toEqual([]);
    expect(await b.server.services.phoneChanges.applyDue()).toBe(0);
  });

  it('of an account blocked meanwhile: its token can no longer change anything, and the due change waits for the block to be lifted', async () => {
    const user = await signInWithCode(a);
    const target = newPhone();
    await provenNewPhone(a, user.accessToken, target, transport);
    accepted(await wait(a, user.accessToken, transport));
    await a.sql(`update users set blocked_at = now(), blocked_reason = 'test' where id = $1`, [user.userId]);
    for (const call of [() => cancel(a, user.accessToken, transport), () => wait(a, user.accessToken, transport), () => current(a, user.accessToken, transport)]) {
      expect(refusal(await call())).toBe('UNAUTHENTICATED');
    }
    await pass(a, user.userId);
    expect(await b.server.services.phoneChanges.applyDue()).toBe(0);
    expect(await phoneOf(a, user.userId)).toBe(user.phone);
    await a.sql(`update users set blocked_at = null, blocked_reason = null where id = $1`, [user.userId]);
    expect(await b.server.services.phoneChanges.applyDue()).toBe(1);
    expect(await phoneOf(a, user.userId)).toBe(target);
  });
});
