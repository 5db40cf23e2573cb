// Live account events (API.md 10.2) between two instances of one deployment: a subscription held on
// A learns of what happens on B, and its socket closes 4401 within a second when its session ends.
import { afterEach, describe, expect, it } from '@jest/globals';
import { clearRateLimits, GOOD_PASSWORD, registerUser, type Session } from '../helpers/factories.js';
import { instancePair } from '../helpers/instances.js';
import { enrolledUser, steadyStep } from '../mfa/support.js';
import { ACCOUNT_EVENTS, AUDIT_ENTRIES, heldSubscription, liveClient, type LiveClient } from '../helpers/live.js';
import { newPhone, type TestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { waitFor } from '../helpers/wait.js';

const { a, b } = instancePair(() => ({}));
const open: LiveClient[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.dispose()));
});

const subscribed = (t: TestServer, session: Session, query?: string) => heldSubscription(t, session, open, query);

function sessionOf(session: Session): string {
  return claimsOf(session.accessToken).sid;
}

async function operator(t: TestServer, role: 'SUPPORT' | 'ADMIN'): Promise<Session> {
  const user = await registerUser(t);
  await t.sql('update users set role = $2 where id = $1', [user.userId, role]);
  return user;
}

describe('accountEvents across instances', () => {
  it('a logout on B closes the subscription held on A with 4401 within a second, after SESSION_REVOKED', async () => {
    const user = await registerUser(a);
    const { live, sub } = await subscribed(a, user);
    const started = Date.now();
    expect((await b.http.post('/api/v1/auth/logout', {}, { token: user.accessToken })).status).toBe(204);
    const closed = await live.waitClosed(2000);
    expect(closed.code).toBe(4401);
    expect(closed.at - started).toBeLessThan(1000);
    expect(sub.events.map((e: any) => e.accountEvents.type)).toEqual(['SESSION_REVOKED']);
    expect(sub.events[0].accountEvents.sessionId).toBe(sessionOf(user));
  });

  it("another session's logout is delivered and the socket stays open", async () => {
    const user = await registerUser(a);
    const { live, sub } = await subscribed(a, user);
    const other = await b.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD });
    expect(other.status).toBe(200);
    await b.http.post('/api/v1/auth/logout', {}, { token: other.body.accessToken });
    const events = await sub.waitFor(2);
    expect(events.map((e: any) => e.accountEvents.type)).toEqual(['NEW_SIGN_IN', 'SESSION_REVOKED']);
    expect(events[0].accountEvents.detail).toMatchObject({ method: 'PASSWORD' });
    expect(events[1].accountEvents.sessionId).not.toBe(sessionOf(user));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(live.closed()).toBeUndefined();
  });

  it('sign-out everywhere on B: SIGNED_OUT_EVERYWHERE, then 4401', async () => {
    const user = await registerUser(a);
    const { live, sub } = await subscribed(a, user);
    expect((await b.http.post('/api/v1/auth/logout', { allSessions: true }, { token: user.accessToken })).status).toBe(204);
    expect((await live.waitClosed(1500)).code).toBe(4401);
    expect(sub.events.map((e: any) => e.accountEvents.type)).toEqual(['SIGNED_OUT_EVERYWHERE']);
  });

  it("an operator's block on B: ACCOUNT_BLOCKED, then 4401", async () => {
    const user = await registerUser(a);
    const admin = await operator(b, 'ADMIN');
    const { live, sub } = await subscribed(a, user);
    const blocked = await b.http.post(`/api/v1/admin/users/${user.userId}/block`, { reason: 'fraud' }, { token: admin.accessToken });
    expect(blocked.status).toBe(200);
    expect((await live.waitClosed(1500)).code).toBe(4401);
    expect(sub.events.map((e: any) => e.accountEvents.type)).toContain('ACCOUNT_BLOCKED');
  });

  it("an operator's revocation of every session on B: SIGNED_OUT_EVERYWHERE, then 4401", async () => {
    const user = await registerUser(a);
    const support = await operator(b, 'SUPPORT');
    const { live, sub } = await subscribed(a, user);
    expect((await b.http.post(`/api/v1/admin/users/${user.userId}/sessions/revoke`, {}, { token: support.accessToken })).status).toBe(204);
    expect((await live.waitClosed(1500)).code).toBe(4401);
    expect(sub.events.map((e: any) => e.accountEvents.type)).toContain('SIGNED_OUT_EVERYWHERE');
  });

  it('a role change on B: ROLE_CHANGED, and the socket stays', async () => {
    const user = await registerUser(a);
    const admin = await operator(b, 'ADMIN');
    const { live, sub } = await subscribed(a, user);
    expect((await b.http.request('PUT', `/api/v1/admin/users/${user.userId}/role`, { body: { role: 'SUPPORT' }, token: admin.accessToken })).status).toBe(200);
    const [event] = await sub.waitFor(1);
    expect((event as any).accountEvents.type).toBe('ROLE_CHANGED');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(live.closed()).toBeUndefined();
  });

  it('a profile change on B: PROFILE_UPDATED', async () => {
    const user = await registerUser(a);
    const { sub } = await subscribed(a, user);
    expect((await b.http.request('PATCH', '/api/v1/users/me', { body: { nickname: 'Ada' }, token: user.accessToken })).status).toBe(200);
    const [event] = await sub.waitFor(1);
    expect((event as any).accountEvents).toMatchObject({ type: 'PROFILE_UPDATED', detail: { change: 'PROFILE' } });
  });

  it("a waiting phone change (the lost-phone path) on B: PHONE_CHANGE_REQUESTED", async () => {
    const user = await registerUser(a);
    const { sub } = await subscribed(a, user);
    const phone = newPhone();
    const token = { token: user.accessToken };
    expect((await b.http.post('/api/v1/users/me/phone-change', { phone }, token)).status).toBe(201);
    const code = await b.codeFor(phone, 'phone-change');
    expect((await b.http.post('/api/v1/users/me/phone-change/verify-new', { code }, token)).status).toBe(200);
    expect((await b.http.post('/api/v1/users/me/phone-change/wait', {}, token)).status).toBe(200);
    const [event] = await sub.waitFor(1);
    expect((event as any).accountEvents.type).toBe('PHONE_CHANGE_REQUESTED');
  });

  it('TOTP turned on on B: MFA_CHANGED, and the session that did it keeps its socket', async () => {
    const user = await registerUser(a);
    const { live, sub } = await subscribed(a, user);
    await enrolledUser(b, await steadyStep(), user);
    await waitFor(() => sub.events.some((e: any) => e.accountEvents.type === 'MFA_CHANGED'), 2000, 10);
    expect(sub.events.map((e: any) => e.accountEvents)).toContainEqual(expect.objectContaining({ type: 'MFA_CHANGED', detail: { change: 'MFA_ENABLED' } }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(live.closed()).toBeUndefined();
  });

  it('a phone change with both proofs on B: PHONE_CHANGED, naming the previous number masked', async () => {
    const user = await registerUser(a, newPhone());
    const { live, sub } = await subscribed(a, user);
    const phone = newPhone();
    const token = { token: user.accessToken };
    expect((await b.http.post('/api/v1/users/me/phone-change', { phone }, token)).status).toBe(201);
    expect((await b.http.post('/api/v1/users/me/phone-change/verify-new', { code: await b.codeFor(phone, 'phone-change') }, token)).status).toBe(200);
    await clearRateLimits(b); // the current phone had its registration code a moment ago
    expect((await b.http.post('/api/v1/users/me/phone-change/send-current-code', undefined, token)).status).toBeLessThan(300);
    const applied = await b.http.post('/api/v1/users/me/phone-change/verify-account', { code: await b.codeFor(user.phone, 'phone-change-current') }, token);
    expect(applied.body.status).toBe('APPLIED');
    await waitFor(() => sub.events.some((e: any) => e.accountEvents.type === 'PHONE_CHANGED'), 2000, 10);
    const changed = sub.events.map((e: any) => e.accountEvents).find((e: any) => e.type === 'PHONE_CHANGED');
    expect(changed?.detail.phoneMasked).toMatch(new RegExp(`\\*${user.phone.slice(-4)}$`));
    // Both proofs given: no session ends, the socket stays.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(live.closed()).toBeUndefined();
  });

  it("an account's deletion on B: SIGNED_OUT_EVERYWHERE (ACCOUNT_DELETED), then 4401", async () => {
    const user = await registerUser(a);
    const { live, sub } = await subscribed(a, user);
    await clearRateLimits(b);
    expect((await b.http.post('/api/v1/auth/send-code', { phone: user.phone, purpose: 'delete-account' })).status).toBe(200);
    const code = await b.codeFor(user.phone, 'delete-account');
    const deleted = await b.http.request('DELETE', '/api/v1/users/me', { body: { code }, token: user.accessToken });
    expect(deleted.status).toBe(204);
    expect((await live.waitClosed(1500)).code).toBe(4401);
    expect(sub.events.map((e: any) => e.accountEvents)).toContainEqual(expect.objectContaining({ type: 'SIGNED_OUT_EVERYWHERE', detail: { reason: 'ACCOUNT_DELETED' } }));
  });

  it("only the account's own events reach it", async () => {
    const user = await registerUser(a);
    const stranger = await registerUser(b);
    const { sub } = await subscribed(a, user);
    await b.http.request('PATCH', '/api/v1/users/me', { body: { nickname: 'Eve' }, token: stranger.accessToken });
    await b.http.request('PATCH', '/api/v1/users/me', { body: { nickname: 'Ada' }, token: user.accessToken });
    const events = await sub.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sub.events).toHaveLength(1);
    expect((events[0] as any).accountEvents.type).toBe('PROFILE_UPDATED');
  });
});

describe('who may subscribe', () => {
  it('a socket without a token closes 4401', async () => {
    const live = liveClient(a.url, undefined);
    open.push(live);
    live.subscribe(ACCOUNT_EVENTS);
    expect((await live.waitClosed()).code).toBe(4401);
  });

  it('a socket with a token that does not verify closes 4401', async () => {
    const live = liveClient(a.url, 'not-a-token');
    open.push(live);
    live.subscribe(ACCOUNT_EVENTS);
    expect((await live.waitClosed()).code).toBe(4401);
  });

  it("a blocked account's token closes 4401", async () => {
    const user = await registerUser(a);
    await a.sql("update users set blocked_at = now(), blocked_reason = 'test' where id = $1", [user.userId]);
    const live = liveClient(a.url, user.accessToken);
    open.push(live);
    live.subscribe(ACCOUNT_EVENTS);
    expect((await live.waitClosed()).code).toBe(4401);
  });

  it("an ended session's token closes 4401", async () => {
    const user = await registerUser(a);
    await a.http.post('/api/v1/auth/logout', {}, { token: user.accessToken });
    const live = liveClient(a.url, user.accessToken);
    open.push(live);
    live.subscribe(ACCOUNT_EVENTS);
    expect((await live.waitClosed()).code).toBe(4401);
  });

  it('a session holds at most 5 subscriptions: the sixth is RATE_LIMITED, over two sockets as over one', async () => {
    const user = await registerUser(a);
    const first = liveClient(a.url, user.accessToken);
    const second = liveClient(a.url, user.accessToken);
    open.push(first, second);
    const sessionId = sessionOf(user);
    for (let i = 0; i < 3; i++) first.subscribe(ACCOUNT_EVENTS);
    for (let i = 0; i < 2; i++) second.subscribe(ACCOUNT_EVENTS);
    expect(await waitFor(() => a.server.services.live.subscriptionsOf(sessionId, user.userId) === 5, 3000, 10)).toBe(true);
    const sixth = second.subscribe(ACCOUNT_EVENTS);
    const error = await sixth.waitError();
    expect(error.extensions.code).toBe('RATE_LIMITED');
    expect(a.server.services.live.subscriptionsOf(sessionId, user.userId)).toBe(5);
    // One completed by its client: room for another.
    const held = first.subscribe(ACCOUNT_EVENTS);
    expect((await held.waitError()).extensions.code).toBe('RATE_LIMITED');
    const spare = second.subscribe(ACCOUNT_EVENTS);
    await spare.waitError();
    const one = first.subscribe(ACCOUNT_EVENTS);
    await one.waitError();
    expect(a.server.services.live.subscriptionsOf(sessionId, user.userId)).toBe(5);
  });

  it('a subscription the client completes frees its place', async () => {
    const user = await registerUser(a);
    const live = liveClient(a.url, user.accessToken);
    open.push(live);
    const sessionId = sessionOf(user);
    const subs = Array.from({ length: 5 }, () => live.subscribe(ACCOUNT_EVENTS));
    expect(await waitFor(() => a.server.services.live.subscriptionsOf(sessionId, user.userId) === 5, 3000, 10)).toBe(true);
    subs[0]!.unsubscribe();
    expect(await waitFor(() => a.server.services.live.subscriptionsOf(sessionId, user.userId) === 4, 3000, 10)).toBe(true);
    live.subscribe(ACCOUNT_EVENTS);
    expect(await waitFor(() => a.server.services.live.subscriptionsOf(sessionId, user.userId) === 5, 3000, 10)).toBe(true);
  });

  it('adminAuditEntries streams new audit entries to SUPPORT, whichever instance the action was on', async () => {
    const support = await operator(a, 'SUPPORT');
    const admin = await operator(b, 'ADMIN');
    const user = await registerUser(b);
    const { sub } = await subscribed(a, support, AUDIT_ENTRIES);
    expect((await b.http.post(`/api/v1/admin/users/${user.userId}/block`, { reason: 'spam' }, { token: admin.accessToken })).status).toBe(200);
    const [entry] = await sub.waitFor(1);
    expect((entry as any).adminAuditEntries).toMatchObject({ action: 'USER_BLOCKED', actorId: admin.userId, targetUserId: user.userId, detail: expect.objectContaining({ reason: 'spam' }) });
  });

  it('adminAuditEntries is FORBIDDEN to a USER', async () => {
    const user = await registerUser(a);
    const live = liveClient(a.url, user.accessToken);
    open.push(live);
    const error = await live.subscribe(AUDIT_ENTRIES).waitError();
    expect(error.extensions.code).toBe('FORBIDDEN');
  });

  it('an operator who loses the role has their audit subscription closed 4403', async () => {
    const support = await operator(a, 'SUPPORT');
    const admin = await operator(b, 'ADMIN');
    const { live } = await subscribed(a, support, AUDIT_ENTRIES);
    expect((await b.http.request('PUT', `/api/v1/admin/users/${support.userId}/role`, { body: { role: 'USER' }, token: admin.accessToken })).status).toBe(200);
    expect((await live.waitClosed(1500)).code).toBe(4403);
  });
});
