import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runAdminTool, withRole } from '../admin/support.js';
import { restUpload, solid } from '../avatar/support.js';
import { GOOD_PASSWORD, registerUser, requestCode, signInWithCode } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { eventsOf, startReceiver, WEBHOOK_SECRET, webhookEnv, type Receiver } from './support.js';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());
const t = useTestServer(() => webhookEnv([receiver.url]));

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const USER_KEYS = ['avatarUrl', 'createdAt', 'hasPassword', 'id', 'lastLoginAt', 'locale', 'nickname', 'phone', 'role'];

/** The events about `userId` delivered so far, once `count` of them arrived, oldest first. */
async function eventsAbout(userId: string, count: number): Promise<{ type: string; data: any }[]> {
  const about = () => eventsOf(receiver.delivered()).filter((e) => (e.data.user?.id ?? e.data.userId) === userId);
  await waitFor(() => about().length >= count, 5000, 20);
  return about();
}

/** No payload holds a secret: no hash, token, code or key, by name or by value. */
function expectNoSecrets(secrets: string[]): void {
  for (const r of receiver.received) {
    expect(r.body).not.toMatch(/passwordHash|password_hash|refreshToken|accessToken|"code":|"token":|"secret":|\$2[aby]\$/);
    for (const secret of secrets) expect(r.body).not.toContain(secret);
  }
}

describe('webhook events, from real API calls, signed by the Standard Webhooks scheme', () => {
  it('registration: user.created with the public User, then session.created by code; signed, verified, with the Standard Webhooks headers', async () => {
    const before = receiver.received.length;
    const user = await registerUser(t, newPhone(), GOOD_PASSWORD, 'Ada');
    const events = await eventsAbout(user.userId, 2);
    expect(events.map((e) => e.type)).toEqual(['user.created', 'session.created']);
    expect(Object.keys(events[0]!.data.user).sort()).toEqual(USER_KEYS);
    expect(events[0]!.data.user).toMatchObject({ id: user.userId, phone: user.phone, nickname: 'Ada', hasPassword: true, role: 'USER', avatarUrl: null });
    const sessions = await t.http.get('/api/v1/users/me/sessions', { token: user.accessToken });
    expect(events[1]!.data).toEqual({ userId: user.userId, sessionId: sessions.body[0].id, method: 'code' });
    for (const r of receiver.received.slice(before)) {
      expect(r.verifyError).toBeUndefined();
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.id).toMatch(UUID);
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
      expect(Object.keys(JSON.parse(r.body)).sort()).toEqual(['data', 'timestamp', 'type']);
      expect(Date.parse(r.event!.timestamp)).toBeGreaterThan(Date.now() - 10_000);
    }
    expectNoSecrets([user.accessToken, user.refreshToken, GOOD_PASSWORD]);
  });

  it('a tampered body or another secret does not verify: the signature covers the body and is keyed', async () => {
    const user = await signInWithCode(t);
    await eventsAbout(user.userId, 2);
    const { Webhook } = await import('standardwebhooks');
    const r = receiver.delivered().at(-1)!;
    const headers = r.headers as Record<string, string>;
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(r.body, headers)).toThrow();
    expect(() => new Webhook(WEBHOOK_SECRET).verify(r.body.replace(user.userId, '00000000-0000-4000-8000-000000000000'), headers)).toThrow();
  });

  it('sign-in by code with automatic registration: user.created then session.created; a password sign-in: session.created by password', async () => {
    const phone = newPhone();
    const user = await signInWithCode(t, phone);
    expect((await eventsAbout(user.userId, 2)).map((e) => [e.type, e.data.method])).toEqual([['user.created', undefined], ['session.created', 'code']]);
    await t.sql('delete from rate_limits');
    const registered = await registerUser(t);
    await eventsAbout(registered.userId, 2);
    const login = await t.http.post('/api/v1/auth/login-password', { phone: registered.phone, password: GOOD_PASSWORD });
    expect(login.status).toBe(200);
    const events = await eventsAbout(registered.userId, 3);
    expect(events[2]).toEqual({ type: 'session.created', data: { userId: registered.userId, sessionId: expect.stringMatching(UUID), method: 'password' } });
    // A refresh rotates a session's token; it creates no session.
    expect((await t.http.post('/api/v1/auth/refresh', { refreshToken: login.body.refreshToken })).status).toBe(200);
    await signInWithCode(t); // something later, to know the refresh's event would have arrived
    expect((await eventsAbout(registered.userId, 3)).length).toBe(3);
    expectNoSecrets([login.body.accessToken, login.body.refreshToken, GOOD_PASSWORD]);
  });

  it('user.updated for a nickname, an avatar and a role, with the User as it is after the change', async () => {
    const user = await registerUser(t);
    const admin = await withRole(t, 'ADMIN');
    expect((await t.http.request('PATCH', '/api/v1/users/me', { token: user.accessToken, body: { nickname: 'Grace' } })).status).toBe(200);
    const upload = await restUpload(t, user.accessToken, await solid(64, 64, 'png'));
    expect(upload.status).toBe(200);
    const role = await t.http.request('PUT', `/api/v1/admin/users/${user.userId}/role`, { token: admin.accessToken, body: { role: 'SUPPORT' } });
    expect(role.status).toBe(200);
    const updates = (await eventsAbout(user.userId, 5)).filter((e) => e.type === 'user.updated').map((e) => e.data.user);
    expect(updates).toHaveLength(3);
    expect(updates[0]).toMatchObject({ nickname: 'Grace', avatarUrl: null, role: 'USER' });
    expect(updates[1]).toMatchObject({ nickname: 'Grace', avatarUrl: upload.body.avatarUrl, role: 'USER' });
    expect(updates[2]).toMatchObject({ nickname: 'Grace', avatarUrl: upload.body.avatarUrl, role: 'SUPPORT' });
    expectNoSecrets([user.accessToken, admin.accessToken]);
  });

  it('user.updated for a locale chosen and forgotten, with the User as it is after the change', async () => {
    const user = await registerUser(t);
    expect((await t.http.request('PATCH', '/api/v1/users/me', { token: user.accessToken, body: { locale: 'en' } })).status).toBe(200);
    expect((await t.http.request('PATCH', '/api/v1/users/me', { token: user.accessToken, body: { locale: null } })).status).toBe(200);
    // user.created and session.created of the registration, then the two updates.
    const updates = (await eventsAbout(user.userId, 4)).filter((e) => e.type === 'user.updated').map((e) => e.data.user);
    expect(updates.map((u) => u.locale)).toEqual(['en', null]);
  });

  it('user.updated for a role granted from the command line (npm run admin), sent by the running service', async () => {
    const user = await registerUser(t);
    const run = await runAdminTool(['grant', user.phone, 'ADMIN'], t.dataDir, webhookEnv([receiver.url]));
    expect(run.code).toBe(0);
    const events = await eventsAbout(user.userId, 3);
    expect(events[2]).toMatchObject({ type: 'user.updated', data: { user: { id: user.userId, role: 'ADMIN' } } });
  });

  it('session.revoked: one session for a logout or a revoked session, all for logout everywhere, a password change, a reset', async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 2; i++) expect((await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD })).status).toBe(200);
    const sessions = (await t.http.get('/api/v1/users/me/sessions', { token: user.accessToken })).body as { id: string; current: boolean }[];
    const own = sessions.find((s) => s.current)!.id;
    const other = sessions.filter((s) => !s.current).map((s) => s.id);
    expect((await t.http.request('DELETE', `/api/v1/users/me/sessions/${other[0]}`, { token: user.accessToken })).status).toBe(204);
    expect((await t.http.post('/api/v1/auth/logout', {}, { token: user.accessToken })).status).toBe(204);
    const again = await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD });
    const changed = await t.http.request('PUT', '/api/v1/users/me/password', {
      token: again.body.accessToken,
      body: { currentPassword: GOOD_PASSWORD, newPassword: 'amber-lantern-77' },
    });
    expect(changed.status).toBe(204);
    expect((await t.http.post('/api/v1/auth/logout', { allSessions: true }, { token: again.body.accessToken })).status).toBe(204);
    await t.sql('delete from rate_limits');
    const code = await requestCode(t, user.phone, 'reset-password');
    expect((await t.http.post('/api/v1/auth/reset-password', { phone: user.phone, code, newPassword: 'cobalt-meadow-19' })).status).toBe(204);
    const revoked = (await eventsAbout(user.userId, 10)).filter((e) => e.type === 'session.revoked').map((e) => e.data);
    expect(revoked).toEqual([
      { userId: user.userId, sessionId: other[0] },
      { userId: user.userId, sessionId: own },
      { userId: user.userId, all: true },
      { userId: user.userId, all: true },
      { userId: user.userId, all: true },
    ]);
    expectNoSecrets([user.accessToken, again.body.accessToken, again.body.refreshToken, code, 'amber-lantern-77', 'cobalt-meadow-19']);
  });

  it('block and unblock: user.blocked (with its sessions revoked) and user.unblocked; an operator ending sessions: session.revoked all', async () => {
    const user = await registerUser(t);
    const admin = await withRole(t, 'ADMIN');
    expect((await t.http.post(`/api/v1/admin/users/${user.userId}/sessions/revoke`, undefined, { token: admin.accessToken })).status).toBe(204);
    expect((await t.http.post(`/api/v1/admin/users/${user.userId}/block`, { reason: 'spam' }, { token: admin.accessToken })).status).toBe(200);
    expect((await t.http.post(`/api/v1/admin/users/${user.userId}/unblock`, undefined, { token: admin.accessToken })).status).toBe(200);
    const events = (await eventsAbout(user.userId, 6)).slice(2);
    expect(events.map((e) => e.type)).toEqual(['session.revoked', 'user.blocked', 'session.revoked', 'user.unblocked']);
    expect(events[0]!.data).toEqual({ userId: user.userId, all: true });
    expect(events[1]!.data.user).toMatchObject({ id: user.userId });
    expect(Object.keys(events[1]!.data.user).sort()).toEqual(USER_KEYS); // no blockedReason: the public User only
    expect(events[2]!.data).toEqual({ userId: user.userId, all: true });
  });

  it('user.deleted with the id only, for the own deletion and an operator deletion', async () => {
    const user = await registerUser(t);
    await t.sql('delete from rate_limits');
    const code = await requestCode(t, user.phone, 'delete-account');
    expect((await t.http.request('DELETE', '/api/v1/users/me', { token: user.accessToken, body: { code } })).status).toBe(204);
    const victim = await registerUser(t);
    const admin = await withRole(t, 'ADMIN');
    expect((await t.http.request('DELETE', `/api/v1/admin/users/${victim.userId}`, { token: admin.accessToken })).status).toBe(204);
    expect((await eventsAbout(user.userId, 3))[2]).toEqual({ type: 'user.deleted', data: { userId: user.userId } });
    expect((await eventsAbout(victim.userId, 3))[2]).toEqual({ type: 'user.deleted', data: { userId: victim.userId } });
    expectNoSecrets([code]);
  });
});
