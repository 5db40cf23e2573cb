// The operators' API of API.md 8.1 on both transports: view an account, end its sessions, block and
// unblock it. Who may do what (SUPPORT reads and ends sessions, ADMIN also blocks), what every refusal
// answers and that it changes nothing, and the effects of each action on the affected account: its
// tokens, its sign-in and the security event it sees (without the operator's address or user agent).
import { beforeEach, describe, expect, it } from '@jest/globals';
import { dataOf } from '../graphql/support.js';
import { GOOD_PASSWORD, registerUser, type Session } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';
import { refusal, type Role, type Transport, TRANSPORTS, UNKNOWN_ID, withRole } from './support.js';

type Op = 'view' | 'revoke' | 'block' | 'unblock';
const OPS: Op[] = ['view', 'revoke', 'block', 'unblock'];
/** Who may do what: SUPPORT reads and ends sessions, only ADMIN blocks and unblocks. */
const ALLOWED: Record<Op, Role[]> = { view: ['SUPPORT', 'ADMIN'], revoke: ['SUPPORT', 'ADMIN'], block: ['ADMIN'], unblock: ['ADMIN'] };
/** The operator's client, which the affected user's events must not keep. */
const OPERATOR_AGENT = 'operator-console/1.0';

const FIELDS = 'id phone nickname avatarUrl hasPassword role createdAt lastLoginAt status blockedAt blockedReason activeSessions mfaEnabled passkeys';
const GQL: Record<Op, string> = {
  view: `query($id: ID!) { r: adminUser(id: $id) { ${FIELDS} } }`,
  revoke: 'mutation($id: ID!) { r: adminRevokeSessions(id: $id) }',
  block: `mutation($id: ID!, $reason: String!) { r: adminBlockUser(id: $id, reason: $reason) { ${FIELDS} } }`,
  unblock: `mutation($id: ID!) { r: adminUnblockUser(id: $id) { ${FIELDS} } }`,
};
const REST_PATH: Record<Op, string> = { view: '', revoke: '/sessions/revoke', block: '/block', unblock: '/unblock' };

const t = useTestServer();
beforeEach(() => t.reset());

/** One operator call; `reason` only for block (REST sends no `reason` at all when it is null). */
function call(transport: Transport, op: Op, token: string | undefined, id: string, reason: string | null = 'spam'): Promise<HttpResult> {
  const headers = { 'user-agent': OPERATOR_AGENT };
  if (transport === 'GraphQL') {
    return t.http.post('/graphql', { query: GQL[op], variables: op === 'block' ? { id, reason } : { id } }, { token, headers });
  }
  const path = `/api/v1/admin/users/${encodeURIComponent(id)}${REST_PATH[op]}`;
  if (op === 'view') return t.http.get(path, { token, headers });
  return t.http.post(path, op === 'block' ? (reason === null ? {} : { reason }) : undefined, { token, headers });
}

/** The AdminUser of a successful call (`true` for revoke). */
function succeeded(res: HttpResult, transport: Transport, op: Op): any {
  if (transport === 'GraphQL') return (dataOf(res) as any).r;
  expect({ status: res.status, body: res.body }).toMatchObject({ status: op === 'revoke' ? 204 : 200 });
  return op === 'revoke' ? true : res.body;
}

const me = (token: string) => t.http.get('/api/v1/users/me', { token });
const grant = (userId: string, role: Role) => t.sql('update users set role = $2 where id = $1', [userId, role]);
const blockRow = (userId: string) => t.sql(`update users set blocked_at = now(), blocked_reason = 'by sql' where id = $1`, [userId]);

/** A second session of the account, by password. */
async function signInAgain(user: Session): Promise<HttpResult> {
  return t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD });
}

/** What an operator's action may change about an account: block, role, live sessions, operator events. */
async function snapshot(userId: string) {
  const [row] = await t.sql<{ role: Role; blocked_at: Date | null; blocked_reason: string | null }>(
    'select role, blocked_at, blocked_reason from users where id = $1',
    [userId],
  );
  const [{ live }] = await t.sql<{ live: number }>('select count(*)::int as live from sessions where user_id = $1 and revoked_at is null', [userId]);
  const events = await t.sql<{ type: string }>(
    `select type from security_events where user_id = $1 and type in ('ACCOUNT_BLOCKED', 'ACCOUNT_UNBLOCKED', 'SESSIONS_REVOKED_BY_OPERATOR') order by id`,
    [userId],
  );
  return { ...row, live, events: events.map((e) => e.type) };
}

/** The operator event of `type` recorded for `userId`: exactly one, without the operator's client. */
async function operatorEvent(userId: string, type: string) {
  const rows = await t.sql('select ip, user_agent, request_id, session_id from security_events where user_id = $1 and type = $2', [userId, type]);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ ip: null, user_agent: null });
  expect(rows[0]!.request_id).toMatch(/^[0-9a-f-]{36}$/);
}

describe.each(TRANSPORTS)('operators over %s', (transport) => {
  let target: Session;
  beforeEach(async () => {
    target = await registerUser(t);
  });

  describe.each(['USER', 'SUPPORT', 'ADMIN'] as Role[])('a caller with role %s', (role) => {
    it.each(OPS)('may %s another account only if the role allows it, and changes nothing when refused', async (op) => {
      const actor = await withRole(t, role);
      if (op === 'unblock') await blockRow(target.userId);
      const before = await snapshot(target.userId);
      const res = await call(transport, op, actor.accessToken, target.userId);
      if (!ALLOWED[op].includes(role)) {
        refusal(res, transport, 'FORBIDDEN');
        expect(await snapshot(target.userId)).toEqual(before);
        if (op !== 'unblock') expect((await me(target.accessToken)).status).toBe(200);
        return;
      }
      const out = succeeded(res, transport, op);
      const after = await snapshot(target.userId);
      if (op === 'view') {
        expect(out).toMatchObject({ id: target.userId, phone: target.phone, role: 'USER', status: 'ACTIVE', blockedAt: null, activeSessions: 1 });
        expect(after).toEqual(before);
      } else if (op === 'revoke') {
        expect(after).toMatchObject({ blocked_at: null, live: 0, events: ['SESSIONS_REVOKED_BY_OPERATOR'] });
      } else if (op === 'block') {
        expect(out).toMatchObject({ id: target.userId, status: 'BLOCKED', blockedReason: 'spam', activeSessions: 0 });
        expect(after).toMatchObject({ blocked_reason: 'spam', live: 0, events: ['ACCOUNT_BLOCKED'] });
      } else {
        expect(out).toMatchObject({ id: target.userId, status: 'ACTIVE', blockedAt: null, blockedReason: null });
        expect(after).toMatchObject({ blocked_at: null, blocked_reason: null, events: ['ACCOUNT_UNBLOCKED'] });
      }
      expect((await me(actor.accessToken)).status).toBe(200); // the operator's own session is untouched
    });
  });

  it('answers UNAUTHENTICATED to a missing or invalid token, changing nothing', async () => {
    await grant(target.userId, 'USER');
    const before = await snapshot(target.userId);
    for (const op of OPS) {
      for (const token of [undefined, 'not-a-jwt', `${target.accessToken}x`]) {
        refusal(await call(transport, op, token, target.userId), transport, 'UNAUTHENTICATED');
      }
    }
    expect(await snapshot(target.userId)).toEqual(before);
  });

  it('answers VALIDATION_FAILED on the id to an id that is not a UUID, and NOT_FOUND to an unknown one', async () => {
    const admin = await withRole(t, 'ADMIN');
    const before = await snapshot(target.userId);
    for (const op of OPS) {
      const fields = refusal(await call(transport, op, admin.accessToken, 'not-a-uuid'), transport, 'VALIDATION_FAILED');
      expect(Object.keys(fields ?? {})).toEqual(['id']);
    }
    for (const op of OPS) refusal(await call(transport, op, admin.accessToken, UNKNOWN_ID), transport, 'NOT_FOUND');
    expect(await snapshot(target.userId)).toEqual(before);
    expect((await me(target.accessToken)).status).toBe(200);
  });

  it('refuses an empty, blank or over-long reason on the reason field, and takes one of 500 characters', async () => {
    const admin = await withRole(t, 'ADMIN');
    const before = await snapshot(target.userId);
    for (const reason of ['', '   \t ', 'x'.repeat(501)]) {
      const fields = refusal(await call(transport, 'block', admin.accessToken, target.userId, reason), transport, 'VALIDATION_FAILED');
      expect(Object.keys(fields ?? {})).toEqual(['reason']);
    }
    if (transport === 'REST') refusal(await call(transport, 'block', admin.accessToken, target.userId, null), transport, 'VALIDATION_FAILED');
    expect(await snapshot(target.userId)).toEqual(before);
    expect((await me(target.accessToken)).status).toBe(200);

    const reason = `${'r'.repeat(499)}!`;
    const out = succeeded(await call(transport, 'block', admin.accessToken, target.userId, reason), transport, 'block');
    expect(out).toMatchObject({ status: 'BLOCKED', blockedReason: reason });
    expect((await snapshot(target.userId)).blocked_reason).toBe(reason);
  });

  it('does not let an ADMIN block themself', async () => {
    const admin = await withRole(t, 'ADMIN');
    const before = await snapshot(admin.userId);
    refusal(await call(transport, 'block', admin.accessToken, admin.userId), transport, 'FORBIDDEN');
    expect(await snapshot(admin.userId)).toEqual(before);
    expect((await me(admin.accessToken)).status).toBe(200);
  });

  it('stops a blocked ADMIN at their next call', async () => {
    const [first, second] = [await withRole(t, 'ADMIN'), await withRole(t, 'ADMIN')];
    succeeded(await call(transport, 'block', first.accessToken, second.userId), transport, 'block');
    refusal(await call(transport, 'view', second.accessToken, target.userId), transport, 'UNAUTHENTICATED');
    refusal(await call(transport, 'unblock', second.accessToken, second.userId), transport, 'UNAUTHENTICATED');
    refusal(await call(transport, 'block', second.accessToken, first.userId), transport, 'UNAUTHENTICATED');
    refusal(await call(transport, 'revoke', second.accessToken, target.userId), transport, 'UNAUTHENTICATED');
    expect((await snapshot(target.userId)).live).toBe(1);
    expect((await snapshot(first.userId)).blocked_at).toBeNull();
    expect((await snapshot(second.userId)).blocked_at).not.toBeNull();
  });

  it('block ends every session at once, refuses refresh and sign-in, and records ACCOUNT_BLOCKED', async () => {
    const admin = await withRole(t, 'ADMIN');
    const second = await signInAgain(target);
    expect(second.status).toBe(200);
    expect(succeeded(await call(transport, 'view', admin.accessToken, target.userId), transport, 'view').activeSessions).toBe(2);

    const started = Date.now();
    const out = succeeded(await call(transport, 'block', admin.accessToken, target.userId, '  posting spam  '), transport, 'block');
    expect(out).toMatchObject({
      id: target.userId, phone: target.phone, nickname: expect.any(String), avatarUrl: null, hasPassword: true, role: 'USER',
      status: 'BLOCKED', blockedReason: 'posting spam', activeSessions: 0,
    });
    expect(Math.abs(Date.parse(out.blockedAt) - started)).toBeLessThan(60_000);
    expect(new Date(out.blockedAt).toISOString()).toBe(out.blockedAt);

    for (const token of [target.accessToken, second.body.accessToken]) refusal(await me(token), 'REST', 'UNAUTHENTICATED');
    for (const refreshToken of [target.refreshToken, second.body.refreshToken]) {
      refusal(await t.http.post('/api/v1/auth/refresh', { refreshToken }), 'REST', 'ACCOUNT_BLOCKED');
    }
    refusal(await signInAgain(target), 'REST', 'ACCOUNT_BLOCKED');
    expect((await snapshot(target.userId)).live).toBe(0);
    await operatorEvent(target.userId, 'ACCOUNT_BLOCKED');
    expect(succeeded(await call(transport, 'view', admin.accessToken, target.userId), transport, 'view')).toMatchObject({
      status: 'BLOCKED', blockedAt: out.blockedAt, blockedReason: 'posting spam', activeSessions: 0,
    });
  });

  it('unblock lets the account sign in again, and it sees both events in its own list', async () => {
    const admin = await withRole(t, 'ADMIN');
    succeeded(await call(transport, 'block', admin.accessToken, target.userId), transport, 'block');
    const out = succeeded(await call(transport, 'unblock', admin.accessToken, target.userId), transport, 'unblock');
    expect(out).toMatchObject({ id: target.userId, status: 'ACTIVE', blockedAt: null, blockedReason: null, activeSessions: 0 });
    await operatorEvent(target.userId, 'ACCOUNT_UNBLOCKED');
    refusal(await me(target.accessToken), 'REST', 'UNAUTHENTICATED'); // the sessions the block ended stay ended

    const again = await signInAgain(target);
    expect(again.status).toBe(200);
    const events = await t.http.get('/api/v1/users/me/security-events', { token: again.body.accessToken });
    expect(events.status).toBe(200);
    const mine = events.body.items.filter((e: any) => ['ACCOUNT_BLOCKED', 'ACCOUNT_UNBLOCKED'].includes(e.type));
    expect(mine).toMatchObject([
      { type: 'ACCOUNT_UNBLOCKED', ip: null, userAgent: null },
      { type: 'ACCOUNT_BLOCKED', ip: null, userAgent: null },
    ]);
    expect(succeeded(await call(transport, 'view', admin.accessToken, target.userId), transport, 'view').activeSessions).toBe(1);
  });

  it('revoking sessions ends all of them, leaves the account able to sign in, and records the event', async () => {
    const support = await withRole(t, 'SUPPORT');
    const second = await signInAgain(target);
    expect(succeeded(await call(transport, 'view', support.accessToken, target.userId), transport, 'view').activeSessions).toBe(2);

    expect(succeeded(await call(transport, 'revoke', support.accessToken, target.userId), transport, 'revoke')).toBe(true);
    for (const token of [target.accessToken, second.body.accessToken]) refusal(await me(token), 'REST', 'UNAUTHENTICATED');
    refusal(await t.http.post('/api/v1/auth/refresh', { refreshToken: target.refreshToken }), 'REST', 'UNAUTHENTICATED');
    expect(succeeded(await call(transport, 'view', support.accessToken, target.userId), transport, 'view')).toMatchObject({
      status: 'ACTIVE', activeSessions: 0,
    });
    await operatorEvent(target.userId, 'SESSIONS_REVOKED_BY_OPERATOR');
    expect((await me(support.accessToken)).status).toBe(200);

    expect((await signInAgain(target)).status).toBe(200);
    expect(succeeded(await call(transport, 'view', support.accessToken, target.userId), transport, 'view').activeSessions).toBe(1);
  });

  it("lets SUPPORT end a user's sessions but not an operator's, which is for an ADMIN", async () => {
    const support = await withRole(t, 'SUPPORT');
    for (const role of ['SUPPORT', 'ADMIN'] as const) {
      const operator = await withRole(t, role);
      const before = await snapshot(operator.userId);
      refusal(await call(transport, 'revoke', support.accessToken, operator.userId), transport, 'FORBIDDEN');
      expect(await snapshot(operator.userId)).toEqual(before);
      expect((await me(operator.accessToken)).status).toBe(200);
      const [{ n }] = await t.sql<{ n: number }>(`select count(*)::int as n from audit_log where target_user_id = $1 and action = 'SESSIONS_REVOKED'`, [operator.userId]);
      expect(n).toBe(0);
    }
    const admin = await withRole(t, 'ADMIN');
    const colleague = await withRole(t, 'SUPPORT');
    expect(succeeded(await call(transport, 'revoke', admin.accessToken, colleague.userId), transport, 'revoke')).toBe(true);
    refusal(await me(colleague.accessToken), 'REST', 'UNAUTHENTICATED');
  });

  it('sees a demotion on the very next call with the same token', async () => {
    const operator = await withRole(t, 'ADMIN');
    succeeded(await call(transport, 'view', operator.accessToken, target.userId), transport, 'view');
    await grant(operator.userId, 'SUPPORT');
    refusal(await call(transport, 'block', operator.accessToken, target.userId), transport, 'FORBIDDEN');
    succeeded(await call(transport, 'view', operator.accessToken, target.userId), transport, 'view');
    await grant(operator.userId, 'USER');
    refusal(await call(transport, 'view', operator.accessToken, target.userId), transport, 'FORBIDDEN');
    refusal(await call(transport, 'revoke', operator.accessToken, target.userId), transport, 'FORBIDDEN');
    expect(await snapshot(target.userId)).toMatchObject({ blocked_at: null, live: 1, events: [] });
  });

  it('tells a caller without the role FORBIDDEN before it looks at the body', async () => {
    const support = await withRole(t, 'SUPPORT');
    const before = await snapshot(target.userId);
    refusal(await call(transport, 'block', support.accessToken, target.userId, transport === 'REST' ? null : ''), transport, 'FORBIDDEN');
    expect(await snapshot(target.userId)).toEqual(before);
  });

  it('records a block or an unblock once: blocking again only changes the reason, unblocking an active account nothing', async () => {
    const admin = await withRole(t, 'ADMIN');
    const first = succeeded(await call(transport, 'block', admin.accessToken, target.userId, 'spam'), transport, 'block');
    const again = succeeded(await call(transport, 'block', admin.accessToken, target.userId, 'spam, again'), transport, 'block');
    expect(again).toMatchObject({ status: 'BLOCKED', blockedReason: 'spam, again', blockedAt: first.blockedAt });
    succeeded(await call(transport, 'unblock', admin.accessToken, target.userId), transport, 'unblock');
    succeeded(await call(transport, 'unblock', admin.accessToken, target.userId), transport, 'unblock');
    const events = await t.sql<{ type: string }>(
      `select type from security_events where user_id = $1 and type in ('ACCOUNT_BLOCKED', 'ACCOUNT_UNBLOCKED') order by id`,
      [target.userId],
    );
    expect(events.map((e) => e.type)).toEqual(['ACCOUNT_BLOCKED', 'ACCOUNT_UNBLOCKED']);
  });
});
