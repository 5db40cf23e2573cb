// An operator's change of an account's phone number (API.md 10.1, "Operators"), on both transports:
// POST /api/v1/admin/users/{id}/phone { phone, reason } and adminChangePhone(id, phone, reason).
// ADMIN only, never on their own account; it always waits PHONE_RECOVERY_DELAY_HOURS (WAITING), the
// account is told (an SMS to its current number, PHONE_CHANGE_REQUESTED without the operator's
// address), sees it and may cancel it; the audit log has PHONE_CHANGE_REQUESTED with the operator and
// the reason, and PHONE_CHANGED when the job applies it. Every refusal changes, sends and audits nothing.
import { beforeEach, describe, expect, it } from '@jest/globals';
import { dataOf } from '../graphql/support.js';
import { registerUser, type Session } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { refusal, type Transport, TRANSPORTS, UNKNOWN_ID, withRole } from './support.js';

const t = useTestServer({ SEND_CODE_INTERVAL_SECONDS: '0', SEND_CODE_PER_IP_HOURLY: '100000' });
beforeEach(() => t.reset());

const CHANGE = 'id phone status newPhoneProven accountProven appliesAt createdAt';
const OPERATOR_AGENT = 'operator-console/1.0';
const HOUR = 3600_000;
/** +8613812345678 as people write it at home: 138 1234 5678. */
const national = (phone: string) => phone.replace(/^\+86(\d{3})(\d{4})(\d{4})$/, '$1 $2 $3');

/** The operator's call; a `body` of undefined fields is sent as it is (REST leaves them out, GraphQL sends null). */
function changePhone(transport: Transport, token: string | undefined, id: string, body: { phone?: unknown; reason?: unknown }): Promise<HttpResult> {
  const headers = { 'user-agent': OPERATOR_AGENT };
  if (transport === 'REST') return t.http.post(`/api/v1/admin/users/${encodeURIComponent(id)}/phone`, body, { token, headers });
  const query = `mutation($id: ID!, $phone: String!, $reason: String!) { r: adminChangePhone(id: $id, phone: $phone, reason: $reason) { ${CHANGE} } }`;
  return t.http.post('/graphql', { query, variables: { id, ...body } }, { token, headers });
}

/** The change a successful call answers. */
function started(transport: Transport, res: HttpResult): any {
  if (transport === 'GraphQL') return (dataOf(res) as any).r;
  expect({ status: res.status, body: res.body }).toMatchObject({ status: 201 });
  return res.body;
}

/** The user's open change as they see it (GET /users/me/phone-change, myPhoneChange); null when there is none. */
async function mine(transport: Transport, user: Session): Promise<any> {
  if (transport === 'REST') {
    const res = await t.http.get('/api/v1/users/me/phone-change', { token: user.accessToken });
    if (res.status === 404) return (refusal(res, transport, 'NOT_FOUND'), null);
    expect(res.status).toBe(200);
    return res.body;
  }
  return (dataOf(await t.http.post('/graphql', { query: `{ r: myPhoneChange { ${CHANGE} } }` }, { token: user.accessToken })) as any).r;
}

/** The account's pending change as the operator's view of the account shows it (GET /admin/users/{id}, adminUser). */
async function operatorSees(transport: Transport, admin: Session, userId: string): Promise<any> {
  if (transport === 'REST') {
    const res = await t.http.get(`/api/v1/admin/users/${userId}`, { token: admin.accessToken });
    expect(res.status).toBe(200);
    return res.body.pendingPhoneChange;
  }
  const query = `query($id: ID!) { r: adminUser(id: $id) { pendingPhoneChange { ${CHANGE} } } }`;
  return (dataOf(await t.http.post('/graphql', { query, variables: { id: userId } }, { token: admin.accessToken })) as any).r.pendingPhoneChange;
}

/** The same in the operators' search (a page of accounts reads every open change at once). */
async function operatorFinds(transport: Transport, admin: Session, user: Session): Promise<any> {
  if (transport === 'REST') {
    const res = await t.http.get(`/api/v1/admin/users?query=${encodeURIComponent(user.phone)}`, { token: admin.accessToken });
    expect(res.status).toBe(200);
    return res.body.items.map((item: any) => item.pendingPhoneChange);
  }
  const query = `query($q: String) { r: adminUsers(query: $q) { edges { node { pendingPhoneChange { ${CHANGE} } } } } }`;
  const res = await t.http.post('/graphql', { query, variables: { q: user.phone } }, { token: admin.accessToken });
  return (dataOf(res) as any).r.edges.map((edge: any) => edge.node.pendingPhoneChange);
}

async function cancel(transport: Transport, user: Session): Promise<void> {
  if (transport === 'REST') expect((await t.http.request('DELETE', '/api/v1/users/me/phone-change', { token: user.accessToken })).status).toBe(204);
  else expect(dataOf(await t.http.post('/graphql', { query: 'mutation { r: cancelPhoneChange }' }, { token: user.accessToken }))).toEqual({ r: true });
}

/** The audit log outlives t.reset() (append-only): the entries of `action` about this test's account. */
const audit = (action: string, userId: string) =>
  t.sql<any>('select actor_id, target_user_id, detail, user_agent from audit_log where action = $1 and target_user_id = $2 order by id', [action, userId]);
const events = (userId: string) =>
  t.sql<any>(`select type, ip, user_agent, request_id from security_events where user_id = $1 and type like 'PHONE%' order by id`, [userId]);
const notices = async () => (await t.outbox()).filter((m) => m.purpose === 'phone-change-notice');
const phoneOf = async (userId: string) => (await t.sql<{ phone: string }>('select phone from users where id = $1', [userId]))[0]?.phone;

describe.each(TRANSPORTS)('an operator changes a phone number over %s', (transport) => {
  it('an ADMIN starts a change: it waits, the user is told by SMS and an event, sees it and cancels it; the audit log has the operator and the reason', async () => {
    const admin = await withRole(t, 'ADMIN');
    const user = await registerUser(t);
    const to = newPhone();
    const res = await changePhone(transport, admin.accessToken, user.userId.toUpperCase(), { phone: national(to), reason: '  Lost SIM; ID checked in ticket 4711\n' });
    const change = started(transport, res);
    expect(change).toEqual({ id: expect.any(String), phone: to, status: 'WAITING', newPhoneProven: false, accountProven: false, appliesAt: expect.any(String), createdAt: expect.any(String) });
    // PHONE_RECOVERY_DELAY_HOURS, 72 by default.
    expect(Math.abs(Date.parse(change.appliesAt) - Date.now() - 72 * HOUR)).toBeLessThan(60_000);
    expect(await phoneOf(user.userId)).toBe(user.phone);

    // Told: one SMS to the current number (none to the new one), and the user's own event, without the operator's client.
    expect((await notices()).map((m) => m.phone)).toEqual([user.phone]);
    const [requested, ...more] = await events(user.userId);
    expect(more).toEqual([]);
    expect(requested).toMatchObject({ type: 'PHONE_CHANGE_REQUESTED', ip: null, user_agent: null, request_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    // The audit log: the operator, the account, the numbers, the reason as trimmed, when it applies, and where the operator acted from.
    expect(await audit('PHONE_CHANGE_REQUESTED', user.userId)).toEqual([
      {
        actor_id: admin.userId,
        target_user_id: user.userId,
        detail: { phoneChangeId: change.id, from: user.phone, to, reason: 'Lost SIM; ID checked in ticket 4711', appliesAt: change.appliesAt },
        user_agent: OPERATOR_AGENT,
      },
    ]);

    // The user sees it and the operator's view of the account shows it; the user cancels it.
    expect(await mine(transport, user)).toEqual(change);
    expect(await operatorSees(transport, admin, user.userId)).toEqual(change);
    expect(await operatorFinds(transport, admin, user)).toEqual([change]);
    await cancel(transport, user);
    expect(await mine(transport, user)).toBeNull();
    expect(await operatorSees(transport, admin, user.userId)).toBeNull();
    expect(await operatorFinds(transport, admin, user)).toEqual([null]);
    expect((await events(user.userId)).map((e) => e.type)).toEqual(['PHONE_CHANGE_REQUESTED', 'PHONE_CHANGE_CANCELLED']);
    // Cancelled, it never applies, whenever the job runs.
    await t.sql(`update phone_changes set applies_at = now() - interval '1 second' where user_id = $1`, [user.userId]);
    expect(await t.server.services.phoneChanges.applyDue()).toBe(0);
    expect(await phoneOf(user.userId)).toBe(user.phone);
    expect(await audit('PHONE_CHANGED', user.userId)).toEqual([]);
  });

  it('once the delay has passed, the job applies it: the new number, PHONE_CHANGED in the audit log with the operator, the sessions ended', async () => {
    const admin = await withRole(t, 'ADMIN');
    const user = await registerUser(t);
    const to = newPhone();
    const change = started(transport, await changePhone(transport, admin.accessToken, user.userId, { phone: to, reason: 'New SIM' }));
    // Not yet: the job leaves it.
    expect(await t.server.services.phoneChanges.applyDue()).toBe(0);
    await t.sql(`update phone_changes set applies_at = now() - interval '1 second' where id = $1`, [change.id]);
    expect(await t.server.services.phoneChanges.applyDue()).toBe(1);
    expect(await phoneOf(user.userId)).toBe(to);
    expect(await audit('PHONE_CHANGED', user.userId)).toEqual([
      { actor_id: admin.userId, target_user_id: user.userId, detail: { phoneChangeId: change.id, from: user.phone, to }, user_agent: null },
    ]);
    expect((await events(user.userId)).map((e) => e.type)).toEqual(['PHONE_CHANGE_REQUESTED', 'PHONE_CHANGED']);
    expect((await t.http.get('/api/v1/users/me', { token: user.accessToken })).status).toBe(401);
    expect(await operatorSees(transport, admin, user.userId)).toBeNull();
    // The old number was told of the change too.
    expect((await notices()).map((m) => m.phone)).toEqual([user.phone, user.phone]);
  });

  it('a second change replaces the pending one (cancelled, recorded)', async () => {
    const admin = await withRole(t, 'ADMIN');
    const user = await registerUser(t);
    const first = started(transport, await changePhone(transport, admin.accessToken, user.userId, { phone: newPhone(), reason: 'first' }));
    const second = started(transport, await changePhone(transport, admin.accessToken, user.userId, { phone: newPhone(), reason: 'second' }));
    expect(second.id).not.toBe(first.id);
    expect(await mine(transport, user)).toEqual(second);
    expect((await events(user.userId)).map((e) => e.type)).toEqual(['PHONE_CHANGE_REQUESTED', 'PHONE_CHANGE_CANCELLED', 'PHONE_CHANGE_REQUESTED']);
    expect((await audit('PHONE_CHANGE_REQUESTED', user.userId)).map((e) => e.detail.reason)).toEqual(['first', 'second']);
  });
});

type Case = [what: string, code: string, call: (ctx: { admin: Session; user: Session; other: Session; transport: Transport }) => Promise<HttpResult>];
const good = { phone: '+8613900000001', reason: 'ticket 1' };
const CASES: Case[] = [
  ['no token', 'UNAUTHENTICATED', ({ user, transport }) => changePhone(transport, undefined, user.userId, good)],
  ['a USER', 'FORBIDDEN', async ({ other, user, transport }) => changePhone(transport, other.accessToken, user.userId, good)],
  ['a USER with a bad body (the role is checked first)', 'FORBIDDEN', async ({ other, user, transport }) => changePhone(transport, other.accessToken, user.userId, { phone: '', reason: '' })],
  ['a SUPPORT operator', 'FORBIDDEN', async ({ other, user, transport }) => {
    await t.sql(`update users set role = 'SUPPORT' where id = $1`, [other.userId]);
    return changePhone(transport, other.accessToken, user.userId, good);
  }],
  ['a blocked ADMIN', 'UNAUTHENTICATED', async ({ admin, user, transport }) => {
    await t.sql(`update users set blocked_at = now(), blocked_reason = 'by sql' where id = $1`, [admin.userId]);
    return changePhone(transport, admin.accessToken, user.userId, good);
  }],
  ["an ADMIN on their own account", 'FORBIDDEN', ({ admin, transport }) => changePhone(transport, admin.accessToken, admin.userId, good)],
  ["an ADMIN on their own account, in upper case", 'FORBIDDEN', ({ admin, transport }) => changePhone(transport, admin.accessToken, admin.userId.toUpperCase(), good)],
  ['an unknown id', 'NOT_FOUND', ({ admin, transport }) => changePhone(transport, admin.accessToken, UNKNOWN_ID, good)],
  ['an id that is no UUID', 'VALIDATION_FAILED', ({ admin, transport }) => changePhone(transport, admin.accessToken, 'not-an-id', good)],
  ['no phone', 'VALIDATION_FAILED', ({ admin, user, transport }) => changePhone(transport, admin.accessToken, user.userId, { reason: 'x' })],
  // An empty number is refused as every phone the API takes is: not a mobile number.
  ['an empty phone', 'INVALID_PHONE', ({ admin, user, transport }) => changePhone(transport, admin.accessToken, user.userId, { phone: '', reason: 'x' })],
  ['a phone of 33 characters', 'VALIDATION_FAILED', ({ admin, user, transport }) => changePhone(transport, admin.accessToken, user.userId, { phone: '1'.repeat(33), reason: 'x' })],
  ['a phone that is a number', 'VALIDATION_FAILED', ({ admin, user, transport }) => changePhone(transport, admin.accessToken, user.userId, { phone: 8613900000001, reason: 'x' })],
  ['a number that is no mobile', 'INVALID_PHONE', ({ admin, user, transport }) => changePhone(transport, admin.accessToken, user.userId, { phone: '12345', reason: 'x' })],
  ["the account's own number", 'VALIDATION_FAILED', ({ admin, user, transport }) => changePhone(transport, admin.accessToken, user.userId, { phone: national(user.phone), reason: 'x' })],
  ["another account's number", 'PHONE_TAKEN', ({ admin, user, other, transport }) => changePhone(transport, admin.accessToken, user.userId, { phone: other.phone, reason: 'x' })],
  ['no reason', 'VALIDATION_FAILED', ({ admin, user, transport }) => changePhone(transport, admin.accessToken, user.userId, { phone: good.phone })],
  ['an empty reason', 'VALIDATION_FAILED', ({ admin, user, transport }) => changePhone(transport, admin.accessToken, user.userId, { phone: good.phone, reason: '' })],
  ['a reason of spaces', 'VALIDATION_FAILED', ({ admin, user, transport }) => changePhone(transport, admin.accessToken, user.userId, { phone: good.phone, reason: ' \n\t ' })],
  ['a reason of 501 characters', 'VALIDATION_FAILED', ({ admin, user, transport }) => changePhone(transport, admin.accessToken, user.userId, { phone: good.phone, reason: 'x'.repeat(501) })],
  ['a reason with a control character', 'VALIDATION_FAILED', ({ admin, user, transport }) => changePhone(transport, admin.accessToken, user.userId, { phone: good.phone, reason: 'bell\u0007' })],
  ['a blocked account (lift the block first)', 'ACCOUNT_BLOCKED', async ({ admin, user, transport }) => {
    await t.sql(`update users set blocked_at = now(), blocked_reason = 'by sql' where id = $1`, [user.userId]);
    return changePhone(transport, admin.accessToken, user.userId, good);
  }],
];

describe.each(TRANSPORTS)('refusals over %s', (transport) => {
  it.each(CASES)('%s: %s, and nothing changed, sent or audited', async (_what, code, call) => {
    const admin = await withRole(t, 'ADMIN');
    const user = await registerUser(t);
    const other = await registerUser(t);
    const sent = (await t.outbox()).length;
    const res = await call({ admin, user, other, transport });
    refusal(res, transport, code);
    expect(await t.sql('select 1 from phone_changes')).toEqual([]);
    const ids = [admin.userId, user.userId, other.userId];
    expect(await t.sql(`select action from audit_log where action <> 'USER_VIEWED' and (actor_id = any($1::uuid[]) or target_user_id = any($1::uuid[]))`, [ids])).toEqual([]);
    expect(await t.sql(`select type from security_events where type like 'PHONE%' and user_id = any($1::uuid[])`, [ids])).toEqual([]);
    expect((await t.outbox()).length).toBe(sent);
    expect([await phoneOf(user.userId), await phoneOf(admin.userId)]).toEqual([user.phone, admin.phone]);
  });
});

describe('across the transports', () => {
  it("an operator's change started over GraphQL and cancelled by the user over REST is gone for GraphQL too; the audit log keeps the request", async () => {
    const admin = await withRole(t, 'ADMIN');
    const user = await registerUser(t);
    started('GraphQL', await changePhone('GraphQL', admin.accessToken, user.userId, good));
    await cancel('REST', user);
    expect(await mine('GraphQL', user)).toBeNull();
    expect(await audit('PHONE_CHANGE_REQUESTED', user.userId)).toHaveLength(1);
  });
});
