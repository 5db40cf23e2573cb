// The operators' audit log of API.md 8.1 on both transports: every action of an operator, a reading of
// one account included, is an entry (who, what, on whom, when, with the operator's address, user agent
// and request id) written in the action's transaction, and the affected user sees it in their own
// security events without the operator's address or user agent. A refused call writes nothing. The log
// is read by ADMINs only, newest first, a page at a time; the command-line grants are in it without an
// actor; the database keeps it append-only (UPDATE refused, DELETE refused but in a retention sweep's
// transaction), and the janitor sweeps it after AUDIT_LOG_RETENTION_DAYS.
// The sessions, security events and deletion of one account are tested in user-data.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sweepExpired } from '../../src/db/janitor.js';
import { dataOf } from '../graphql/support.js';
import { GOOD_PASSWORD, registerUser, type Session } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { newPhone, useTestServer, type TestServer } from '../helpers/server.js';
import { refusal, runAdminTool, type Transport, TRANSPORTS, UNKNOWN_ID, withRole } from './support.js';

type Op = 'view' | 'sessions' | 'events' | 'revoke' | 'block' | 'unblock' | 'role' | 'delete';
const OPS: Op[] = ['view', 'sessions', 'events', 'revoke', 'block', 'unblock', 'role', 'delete'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const NOT_OURS = 'is not a cursor this service gave';
const LIMIT = 'must be a whole number from 1 to 100';
/** Where the operator acts from: the audit log keeps it, the affected user's events do not. */
const OPERATOR = { ip: '198.51.100.23', userAgent: 'operator-console/2.0' };
const AS_OPERATOR = { 'x-forwarded-for': OPERATOR.ip, 'user-agent': OPERATOR.userAgent };
const OPERATOR_EVENTS = ['ACCOUNT_VIEWED_BY_OPERATOR', 'SESSIONS_REVOKED_BY_OPERATOR', 'ACCOUNT_BLOCKED', 'ACCOUNT_UNBLOCKED', 'ROLE_CHANGED'];
const SWEEP = `select set_config('meeting_accounts.retention_sweep', 'on', true)`;

interface AuditEntry {
  id: string;
  at: string;
  actorId: string | null;
  action: string;
  targetUserId: string | null;
  detail: Record<string, unknown>;
}

const GQL: Record<Op, string> = {
  view: 'query($id: ID!) { r: adminUser(id: $id) { id status } }',
  sessions: 'query($id: ID!) { r: adminUser(id: $id) { id sessions { id current } } }',
  events: 'query($id: ID!, $first: Int, $after: String) { r: adminUser(id: $id) { id securityEvents(first: $first, after: $after) { edges { node { id type } } } } }',
  revoke: 'mutation($id: ID!) { r: adminRevokeSessions(id: $id) }',
  block: 'mutation($id: ID!, $reason: String!) { r: adminBlockUser(id: $id, reason: $reason) { id status blockedReason } }',
  unblock: 'mutation($id: ID!) { r: adminUnblockUser(id: $id) { id status } }',
  role: 'mutation($id: ID!, $role: Role!) { r: adminSetRole(id: $id, role: $role) { id role } }',
  delete: 'mutation($id: ID!) { r: adminDeleteUser(id: $id) }',
};
const AUDIT_GQL = `query($first: Int, $after: String) { adminAuditLog(first: $first, after: $after) {
  edges { cursor node { id at actorId action targetUserId detail } } pageInfo { hasNextPage endCursor } } }`;
const MY_EVENTS_GQL = '{ mySecurityEvents(first: 100) { edges { node { id type method provider at ip userAgent sessionId phoneMasked } } } }';

const t = useTestServer({ TRUST_PROXY: 'loopback', SEND_CODE_INTERVAL_SECONDS: '0' });

/** One operator call from the operator's address; `arg` is the reason of a block, the role of a role change. */
function act(transport: Transport, op: Op, token: string | undefined, id: string, arg?: string): Promise<HttpResult> {
  const options = { token, headers: AS_OPERATOR };
  if (transport === 'GraphQL') {
    const variables = op === 'block' ? { id, reason: arg } : op === 'role' ? { id, role: arg } : op === 'events' ? { id, first: 5 } : { id };
    return t.http.post('/graphql', { query: GQL[op], variables }, options);
  }
  const path = `/api/v1/admin/users/${encodeURIComponent(id)}`;
  switch (op) {
    case 'view':
      return t.http.get(path, options);
    case 'sessions':
      return t.http.get(`${path}/sessions`, options);
    case 'events':
      return t.http.get(`${path}/security-events?limit=5`, options);
    case 'revoke':
      return t.http.post(`${path}/sessions/revoke`, undefined, options);
    case 'block':
      return t.http.post(`${path}/block`, { reason: arg }, options);
    case 'unblock':
      return t.http.post(`${path}/unblock`, undefined, options);
    case 'role':
      return t.http.request('PUT', `${path}/role`, { ...options, body: { role: arg } });
    case 'delete':
      return t.http.request('DELETE', path, options);
  }
}

/** Asserts a success; returns the request id the answer carried. */
function succeeded(res: HttpResult, transport: Transport): string {
  if (transport === 'GraphQL') dataOf(res);
  else expect({ status: res.status, body: res.body }).toEqual({ status: res.status === 204 ? 204 : 200, body: res.body });
  const requestId = res.headers.get('x-request-id');
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
  return requestId!;
}

const masked = (phone: string) => `+${'*'.repeat(phone.length - 5)}${phone.slice(-4)}`;

/** Another session of the account, by password. */
async function signInAgain(user: Session): Promise<string> {
  const res = await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD });
  expect(res.status).toBe(200);
  return res.body.accessToken as string;
}

/** The id of the newest entry (0 for none): entries of earlier tests stay, as the log is append-only. */
async function lastAuditId(): Promise<bigint> {
  const [row] = await t.sql<{ id: string }>('select coalesce(max(id), 0)::text as id from audit_log');
  return BigInt(row!.id);
}

/** One page of the audit log over `transport`, as `{ items, nextCursor }`. */
async function auditPage(transport: Transport, token: string, limit?: number, cursor?: string | null): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
  if (transport === 'REST') {
    const query = new URLSearchParams();
    if (limit !== undefined) query.set('limit', String(limit));
    if (cursor) query.set('cursor', cursor);
    const res = await t.http.get(`/api/v1/admin/audit-log?${query}`, { token });
    expect({ status: res.status, keys: Object.keys(res.body).sort() }).toEqual({ status: 200, keys: ['items', 'nextCursor'] });
    return res.body;
  }
  const res = await t.http.post('/graphql', { query: AUDIT_GQL, variables: { first: limit, after: cursor } }, { token });
  const { edges, pageInfo } = (dataOf(res) as any).adminAuditLog;
  expect(pageInfo.endCursor).toBe(edges.at(-1)?.cursor ?? null);
  return { items: edges.map((e: { node: AuditEntry }) => e.node), nextCursor: pageInfo.hasNextPage ? pageInfo.endCursor : null };
}

/** The entries written after `mark`, newest first, read over `transport` page by page. */
async function auditSince(transport: Transport, token: string, mark: bigint): Promise<AuditEntry[]> {
  const entries: AuditEntry[] = [];
  let cursor: string | null = null;
  do {
    const page = await auditPage(transport, token, 100, cursor);
    for (const entry of page.items) {
      if (BigInt(entry.id) <= mark) return entries;
      entries.push(entry);
    }
    cursor = page.nextCursor;
  } while (cursor);
  return entries;
}

/** What an operator's action may change: the log, any security event, the target's row and sessions. */
async function footprint(userId: string) {
  const [events] = await t.sql<{ n: number }>('select count(*)::int as n from security_events');
  const account = await t.sql('select role, blocked_at, blocked_reason, nickname from users where id = $1', [userId]);
  const [live] = await t.sql<{ n: number }>('select count(*)::int as n from sessions where user_id = $1 and revoked_at is null', [userId]);
  return { audit: await lastAuditId(), events: events!.n, account, live: live!.n };
}

describe.each(TRANSPORTS)('the audit log, over %s', (transport) => {
  const graphql = transport === 'GraphQL';

  it("records each action with actor, target, detail and the operator's client; the user sees each change without the client", async () => {
    const admin = await withRole(t, 'ADMIN');
    const target = await registerUser(t, newPhone(), GOOD_PASSWORD, 'Target Person');
    await signInAgain(target);
    const mark = await lastAuditId();
    const expected: Omit<AuditEntry, 'id' | 'at'>[] = []; // oldest first
    const userEvents: { type: string; request_id: string }[] = [];
    const step = async (op: Op, arg: string | undefined, entries: [string, Record<string, unknown>][], events: string[]) => {
      const requestId = succeeded(await act(transport, op, admin.accessToken, target.userId, arg), transport);
      for (const [action, detail] of entries) {
        expected.push({ actorId: admin.userId, action, targetUserId: target.userId, detail: { ...detail, ip: OPERATOR.ip, userAgent: OPERATOR.userAgent, requestId } });
      }
      userEvents.push(...events.map((type) => ({ type, request_id: requestId })));
    };
    const VIEWED = 'ACCOUNT_VIEWED_BY_OPERATOR';
    // GraphQL reads an account's sessions and events through adminUser, itself a reading of its details.
    const read = (what: string): [string, Record<string, unknown>][] =>
      (graphql && what !== 'details' ? ['details', what] : [what]).map((r) => ['USER_VIEWED', { read: r }]);
    const views = (what: string) => read(what).map(() => VIEWED);

    await step('view', undefined, read('details'), views('details'));
    await step('sessions', undefined, read('sessions'), views('sessions'));
    await step('events', undefined, read('securityEvents'), views('securityEvents'));
    await step('revoke', undefined, [['SESSIONS_REVOKED', { sessions: 2 }]], ['SESSIONS_REVOKED_BY_OPERATOR']);
    await signInAgain(target);
    await step('block', 'spam', [['USER_BLOCKED', { reason: 'spam', sessionsEnded: 1, wasBlocked: false }]], ['ACCOUNT_BLOCKED']);
    // Blocking again only changes the reason, unblocking an active account nothing: the log keeps the action, the user's events a change.
    await step('block', '  spam, again  ', [['USER_BLOCKED', { reason: 'spam, again', sessionsEnded: 0, wasBlocked: true }]], []);
    await step('unblock', undefined, [['USER_UNBLOCKED', { wasBlocked: true }]], ['ACCOUNT_UNBLOCKED']);
    await step('unblock', undefined, [['USER_UNBLOCKED', { wasBlocked: false }]], []);
    await step('role', 'SUPPORT', [['ROLE_CHANGED', { from: 'USER', to: 'SUPPORT' }]], ['ROLE_CHANGED']);
    await step('role', 'SUPPORT', [['ROLE_CHANGED', { from: 'SUPPORT', to: 'SUPPORT' }]], []);

    // The user sees each change in their own list, on both transports, with neither the operator's address nor user agent.
    const token = await signInAgain(target);
    const own = await t.http.get('/api/v1/users/me/security-events?limit=100', { token });
    expect(own.status).toBe(200);
    const ownOperatorEvents = own.body.items.filter((e: { type: string }) => OPERATOR_EVENTS.includes(e.type));
    expect(ownOperatorEvents).toEqual(
      [...userEvents].reverse().map(({ type }) => expect.objectContaining({ type, ip: null, userAgent: null, sessionId: null, phoneMasked: masked(target.phone) })),
    );
    const ownGql = (dataOf(await t.http.post('/graphql', { query: MY_EVENTS_GQL }, { token })) as any).mySecurityEvents.edges.map((e: any) => e.node);
    expect(ownGql.filter((e: { type: string }) => OPERATOR_EVENTS.includes(e.type))).toEqual(ownOperatorEvents);
    // Each event keeps the operator's request id, the same as the audit entry's.
    expect(
      await t.sql('select type, request_id, ip, user_agent from security_events where user_id = $1 and type = any($2) order by id', [target.userId, OPERATOR_EVENTS]),
    ).toEqual(userEvents.map((e) => ({ ...e, ip: null, user_agent: null })));

    const before = (await t.sql<{ id: string }>('select id from security_events where user_id = $1', [target.userId])).map((r) => r.id);
    const deletion = succeeded(await act(transport, 'delete', admin.accessToken, target.userId), transport);
    expected.push({
      actorId: admin.userId,
      action: 'USER_DELETED',
      targetUserId: target.userId,
      detail: { phone: target.phone, nickname: 'Target Person', ip: OPERATOR.ip, userAgent: OPERATOR.userAgent, requestId: deletion },
    });
    // The deleted user's events stay, the deletion's own included, with the user nulled.
    expect(await t.sql('select type, user_id, ip, user_agent from security_events where request_id = $1', [deletion])).toEqual([
      { type: 'ACCOUNT_DELETED', user_id: null, ip: null, user_agent: null },
    ]);
    expect(await t.sql('select user_id, phone_masked from security_events where id = any($1::bigint[])', [before])).toEqual(
      before.map(() => ({ user_id: null, phone_masked: masked(target.phone) })),
    );

    const started = Date.now();
    const entries = await auditSince(transport, admin.accessToken, mark);
    expect(entries).toEqual([...expected].reverse().map((e) => ({ id: expect.stringMatching(/^[1-9]\d*$/), at: expect.stringMatching(ISO), ...e })));
    const other = await auditSince(graphql ? 'REST' : 'GraphQL', admin.accessToken, mark);
    expect(other).toEqual(entries);
    for (const [i, entry] of entries.entries()) {
      expect(started - Date.parse(entry.at)).toBeLessThan(60_000);
      if (i > 0) {
        expect(BigInt(entry.id)).toBeLessThan(BigInt(entries[i - 1]!.id));
        expect(Date.parse(entry.at)).toBeLessThanOrEqual(Date.parse(entries[i - 1]!.at));
      }
    }
  });

  it('writes no entry and no event, and changes nothing, for a refused call', async () => {
    const [admin, support, user, target] = [await withRole(t, 'ADMIN'), await withRole(t, 'SUPPORT'), await withRole(t, 'USER'), await withRole(t, 'USER')];
    type Refusal = [caller: Session | undefined, op: Op, id: string, code: string, arg?: string];
    const argOf = (op: Op) => (op === 'role' ? 'ADMIN' : 'spam');
    const refusals: Refusal[] = [
      ...OPS.map((op): Refusal => [user, op, target.userId, 'FORBIDDEN', argOf(op)]),
      ...(['block', 'unblock', 'role', 'delete'] as Op[]).map((op): Refusal => [support, op, target.userId, 'FORBIDDEN', argOf(op)]),
      ...OPS.map((op): Refusal => [undefined, op, target.userId, 'UNAUTHENTICATED', argOf(op)]),
      ...OPS.map((op): Refusal => [admin, op, 'not-a-uuid', 'VALIDATION_FAILED', argOf(op)]),
      ...OPS.map((op): Refusal => [admin, op, UNKNOWN_ID, 'NOT_FOUND', argOf(op)]),
      [admin, 'block', admin.userId, 'FORBIDDEN', 'spam'],
      [admin, 'role', admin.userId, 'FORBIDDEN', 'USER'],
      [admin, 'delete', admin.userId, 'FORBIDDEN'],
      [admin, 'block', target.userId, 'VALIDATION_FAILED', ' \t '],
      [admin, 'block', target.userId, 'VALIDATION_FAILED', 'x'.repeat(501)],
      [admin, 'role', target.userId, 'VALIDATION_FAILED', 'OWNER'],
    ];
    const before = { target: await footprint(target.userId), admin: await footprint(admin.userId) };
    for (const [caller, op, id, code, arg] of refusals) {
      const res = await act(transport, op, caller?.accessToken, id, arg);
      expect({ op, id, code: transport === 'REST' ? res.body?.code : res.body?.errors?.[0]?.extensions?.code }).toEqual({ op, id, code });
      refusal(res, transport, code);
    }
    expect({ target: await footprint(target.userId), admin: await footprint(admin.userId) }).toEqual(before);
    for (const session of [admin, target]) expect((await t.http.get('/api/v1/users/me', { token: session.accessToken })).status).toBe(200);
  });

  it("audits an operator's reading of their own account, in any spelling of its id, without an ACCOUNT_VIEWED_BY_OPERATOR in their own events", async () => {
    const admin = await withRole(t, 'ADMIN');
    const mark = await lastAuditId();
    const viewsOf = async (userId: string) =>
      (await t.sql<{ n: number }>(`select count(*)::int as n from security_events where user_id = $1 and type = 'ACCOUNT_VIEWED_BY_OPERATOR'`, [userId]))[0]!.n;
    for (const id of [admin.userId, admin.userId.toUpperCase()]) {
      for (const op of ['view', 'sessions', 'events'] as Op[]) succeeded(await act(transport, op, admin.accessToken, id), transport);
    }
    expect(await viewsOf(admin.userId)).toBe(0);
    const entries = await auditSince('REST', admin.accessToken, mark);
    expect(entries.length).toBeGreaterThanOrEqual(6);
    expect(entries.every((e) => e.action === 'USER_VIEWED' && e.actorId === admin.userId && e.targetUserId === admin.userId)).toBe(true);
    // Another operator's reading of the same account is still the account's event.
    const other = await withRole(t, 'ADMIN');
    succeeded(await act(transport, 'view', other.accessToken, admin.userId), transport);
    expect(await viewsOf(admin.userId)).toBe(1);
  });

  it('writes nothing for a reading of a deleted account, which answers NOT_FOUND', async () => {
    const admin = await withRole(t, 'ADMIN');
    const target = await withRole(t, 'USER');
    succeeded(await act(transport, 'delete', admin.accessToken, target.userId), transport);
    const before = await footprint(target.userId);
    for (const op of OPS) refusal(await act(transport, op, admin.accessToken, target.userId, op === 'role' ? 'SUPPORT' : 'spam'), transport, 'NOT_FOUND');
    expect(await footprint(target.userId)).toEqual(before);
  });

  it('is read by ADMINs only: SUPPORT and USER are FORBIDDEN (before their parameters are looked at), no token and a blocked ADMIN UNAUTHENTICATED', async () => {
    const [admin, support, user] = [await withRole(t, 'ADMIN'), await withRole(t, 'SUPPORT'), await withRole(t, 'USER')];
    const blocked = await withRole(t, 'ADMIN');
    await t.sql(`update users set blocked_at = now(), blocked_reason = 'x' where id = $1`, [blocked.userId]);
    succeeded(await act(transport, 'view', admin.accessToken, user.userId), transport);
    const read = (token: string | undefined, bad = false) =>
      transport === 'REST'
        ? t.http.get(`/api/v1/admin/audit-log${bad ? '?limit=0&cursor=nonsense' : ''}`, { token })
        : t.http.post('/graphql', { query: AUDIT_GQL, variables: bad ? { first: 0, after: 'nonsense' } : {} }, { token });
    const before = await footprint(user.userId);
    for (const bad of [false, true]) {
      refusal(await read(support.accessToken, bad), transport, 'FORBIDDEN');
      refusal(await read(user.accessToken, bad), transport, 'FORBIDDEN');
      refusal(await read(undefined, bad), transport, 'UNAUTHENTICATED');
      refusal(await read('not-a-jwt', bad), transport, 'UNAUTHENTICATED');
      refusal(await read(blocked.accessToken, bad), transport, 'UNAUTHENTICATED');
    }
    expect(await footprint(user.userId)).toEqual(before);
    const page = await auditPage(transport, admin.accessToken);
    expect(page.items[0]).toMatchObject({ actorId: admin.userId, action: 'USER_VIEWED', targetUserId: user.userId, detail: { read: 'details' } });
    // Reading the log is not an action on an account: it writes nothing.
    expect(await footprint(user.userId)).toEqual(before);
  });

  it('refuses a cursor it did not give and a limit out of 1-100 with VALIDATION_FAILED naming the parameter', async () => {
    const admin = await withRole(t, 'ADMIN');
    succeeded(await act(transport, 'view', admin.accessToken, admin.userId), transport);
    const [event] = await t.sql<{ id: string }>('select max(id)::text as id from security_events');
    const [entry] = await t.sql<{ id: string }>('select max(id)::text as id from audit_log');
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    // A cursor of another list (a security event's), of an id out of range, or not one at all.
    const cursors = ['nonsense', b64(`event:${event!.id}`), b64('audit:0'), b64('audit:-1'), b64(`audit:${entry!.id} or 1=1`), b64('audit:99999999999999999999'), 'x'.repeat(201)];
    const limits = graphql ? [0, 101, -1] : ['0', '101', 'abc', '2.5', '-1'];
    const before = await footprint(admin.userId);
    for (const cursor of cursors) {
      const res = graphql
        ? await t.http.post('/graphql', { query: AUDIT_GQL, variables: { after: cursor } }, { token: admin.accessToken })
        : await t.http.get(`/api/v1/admin/audit-log?cursor=${encodeURIComponent(cursor)}`, { token: admin.accessToken });
      expect({ cursor, fields: refusal(res, transport, 'VALIDATION_FAILED') }).toEqual({ cursor, fields: { [graphql ? 'after' : 'cursor']: NOT_OURS } });
    }
    for (const limit of limits) {
      const res = graphql
        ? await t.http.post('/graphql', { query: AUDIT_GQL, variables: { first: limit } }, { token: admin.accessToken })
        : await t.http.get(`/api/v1/admin/audit-log?limit=${limit}`, { token: admin.accessToken });
      expect({ limit, fields: refusal(res, transport, 'VALIDATION_FAILED') }).toEqual({ limit, fields: { [graphql ? 'first' : 'limit']: LIMIT } });
    }
    expect(await footprint(admin.userId)).toEqual(before);
  });
});

describe('paging the audit log', () => {
  it('pages newest first with cursors (default 20, 1-100) on both transports, the same entries, unmoved by entries written meanwhile', async () => {
    // An empty log to start from: the one delete the database lets through, a retention sweep's.
    await t.sql(`begin; ${SWEEP}; delete from audit_log; commit`);
    expect(await lastAuditId()).toBe(0n);
    const admin = await withRole(t, 'ADMIN');
    const target = await withRole(t, 'USER');
    const requestIds: string[] = [];
    for (let i = 0; i < 23; i++) requestIds.push(succeeded(await act('REST', 'view', admin.accessToken, target.userId), 'REST'));
    const newestFirst = [...requestIds].reverse();

    const all = await auditPage('REST', admin.accessToken, 100);
    expect({ requestIds: all.items.map((e) => e.detail.requestId), next: all.nextCursor }).toEqual({ requestIds: newestFirst, next: null });
    const ids = all.items.map((e) => BigInt(e.id));
    expect([...ids].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0))).toEqual(ids);
    expect(new Set(ids).size).toBe(23);

    for (const transport of TRANSPORTS) {
      // The default page, 20, with a cursor to the rest; the same for parameters sent empty.
      const first = await auditPage(transport, admin.accessToken);
      expect(first.items).toEqual(all.items.slice(0, 20));
      expect(first.nextCursor).toEqual(expect.any(String));
      expect(await auditPage(transport, admin.accessToken, undefined, first.nextCursor)).toEqual({ items: all.items.slice(20), nextCursor: null });
      // Pages of 5: 5, 5, 5, 5, 3, the last without a next one; an exactly full last page has none either.
      const pages: AuditEntry[][] = [];
      let cursor: string | null = null;
      do {
        const page = await auditPage(transport, admin.accessToken, 5, cursor);
        pages.push(page.items);
        cursor = page.nextCursor;
      } while (cursor);
      expect(pages.map((p) => p.length)).toEqual([5, 5, 5, 5, 3]);
      expect(pages.flat()).toEqual(all.items);
      expect((await auditPage(transport, admin.accessToken, 23)).nextCursor).toBeNull();
      expect((await auditPage(transport, admin.accessToken, 22)).nextCursor).toEqual(expect.any(String));
    }
    expect((await t.http.get('/api/v1/admin/audit-log?cursor=&limit=', { token: admin.accessToken })).body).toEqual(await auditPage('REST', admin.accessToken));

    // A cursor of one transport is good on the other; entries written after the first page do not shift the next.
    const restFirst = await auditPage('REST', admin.accessToken, 10);
    succeeded(await act('GraphQL', 'view', admin.accessToken, target.userId), 'GraphQL');
    const gqlNext = await auditPage('GraphQL', admin.accessToken, 10, restFirst.nextCursor);
    expect(gqlNext.items).toEqual(all.items.slice(10, 20));
    const restNext = await auditPage('REST', admin.accessToken, 10, gqlNext.nextCursor);
    expect(restNext).toEqual({ items: all.items.slice(20), nextCursor: null });
    expect((await auditPage('REST', admin.accessToken, 1)).items[0]!.detail).toMatchObject({ read: 'details' });
    expect((await auditPage('REST', admin.accessToken, 100)).items).toHaveLength(24);
  });
});

describe('reading one account over GraphQL', () => {
  it('records one USER_VIEWED for adminUser and one per sessions and securityEvents field, each with its user event', async () => {
    const admin = await withRole(t, 'ADMIN');
    const target = await withRole(t, 'USER');
    const mark = await lastAuditId();
    const query = 'query($id: ID!) { adminUser(id: $id) { id sessions { id } securityEvents(first: 3) { edges { node { type } } } } }';
    const res = await t.http.post('/graphql', { query, variables: { id: target.userId } }, { token: admin.accessToken, headers: AS_OPERATOR });
    const requestId = succeeded(res, 'GraphQL');
    const entries = await auditSince('REST', admin.accessToken, mark);
    expect(entries.map((e) => e.detail.read).sort()).toEqual(['details', 'securityEvents', 'sessions']);
    expect(entries.at(-1)!.detail.read).toBe('details'); // the account first, then its fields
    for (const entry of entries) {
      expect(entry).toMatchObject({ actorId: admin.userId, action: 'USER_VIEWED', targetUserId: target.userId, detail: { ...OPERATOR, requestId } });
    }
    expect(await t.sql('select type from security_events where request_id = $1 and user_id = $2', [requestId, target.userId])).toEqual(
      Array(3).fill({ type: 'ACCOUNT_VIEWED_BY_OPERATOR' }),
    );
    // The account's events as read already hold the readings before it: the details' and the sessions' at least.
    const types = (dataOf(res) as any).adminUser.securityEvents.edges.map((e: any) => e.node.type);
    expect(types.slice(0, 2)).toEqual(['ACCOUNT_VIEWED_BY_OPERATOR', 'ACCOUNT_VIEWED_BY_OPERATOR']);
  });

  const REFUSED_PAGES = [{ first: 0 }, { first: 101 }, { after: 'nonsense' }];

  /** Asks adminUser for a page of the account's events that is refused, once per REFUSED_PAGES; returns their request ids. */
  async function refusedPages(admin: Session, target: Session): Promise<string[]> {
    const requestIds: string[] = [];
    for (const variables of REFUSED_PAGES) {
      const res = await t.http.post('/graphql', { query: GQL.events, variables: { id: target.userId, ...variables } }, { token: admin.accessToken });
      expect(refusal(res, 'GraphQL', 'VALIDATION_FAILED')).toEqual('after' in variables ? { after: NOT_OURS } : { first: LIMIT });
      // Refused before the operation ran: a request error, 400 and no data at all.
      expect({ status: res.status, data: res.body.data }).toEqual({ status: 400, data: undefined });
      requestIds.push(res.headers.get('x-request-id')!);
    }
    return requestIds;
  }

  it('refuses a page of securityEvents out of range with VALIDATION_FAILED on first or after, and records no reading of the events', async () => {
    const [admin, target] = [await withRole(t, 'ADMIN'), await withRole(t, 'USER')];
    const mark = await lastAuditId();
    await refusedPages(admin, target);
    expect((await auditSince('REST', admin.accessToken, mark)).map((e) => e.detail.read)).not.toContain('securityEvents');
  });

  // The pages an operation's securityEvents fields ask for are checked before it runs, so before
  // adminUser records its own reading: the whole answer is the refusal, and nothing says the details were read.
  it('refuses a search whose results ask for a bad events page, even through a fragment, before any account is read', async () => {
    const [admin, target] = [await withRole(t, 'ADMIN'), await withRole(t, 'USER')];
    const before = await footprint(target.userId);
    const query = `query($q: String) { adminUsers(query: $q) { edges { node { ...Seen } } } }
      fragment Seen on AdminUser { id sessions { id } ... on AdminUser { securityEvents(first: 0) { edges { cursor } } } }`;
    const res = await t.http.post('/graphql', { query, variables: { q: target.userId } }, { token: admin.accessToken });
    expect(refusal(res, 'GraphQL', 'VALIDATION_FAILED')).toEqual({ first: LIMIT });
    expect(await footprint(target.userId)).toEqual(before);
  });

  it('writes no entry and no event at all for a request refused for its securityEvents page', async () => {
    const [admin, target] = [await withRole(t, 'ADMIN'), await withRole(t, 'USER')];
    const before = await footprint(target.userId);
    await refusedPages(admin, target);
    expect(await footprint(target.userId)).toEqual(before);
  });
});

describe('the command-line tool', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'meeting-accounts-audit-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  /** `npm run admin -- <args>` as an operator runs it: a process of its own, on this test's database. */
  const cli = (args: string[]) => runAdminTool(args, dataDir);

  it('records its grant and revoke as ROLE_CHANGED with no actor, via the command line, without a client; a refused command nothing', async () => {
    const user = await registerUser(t);
    const admin = await withRole(t, 'ADMIN');
    const mark = await lastAuditId();
    expect(await cli(['grant', user.phone.slice(3), 'SUPPORT'])).toMatchObject({ code: 0, stderr: '' });
    expect(await cli(['revoke', user.phone])).toMatchObject({ code: 0, stderr: '' });
    expect(await cli(['grant', newPhone(), 'ADMIN'])).toMatchObject({ code: 1, stdout: '' });
    const entry = (from: string, to: string) => ({
      id: expect.stringMatching(/^[1-9]\d*$/),
      at: expect.stringMatching(ISO),
      actorId: null,
      action: 'ROLE_CHANGED',
      targetUserId: user.userId,
      detail: { from, to, via: 'command line' },
    });
    const entries = await auditSince('REST', admin.accessToken, mark);
    expect(entries).toEqual([entry('SUPPORT', 'USER'), entry('USER', 'SUPPORT')]);
    expect(await auditSince('GraphQL', admin.accessToken, mark)).toEqual(entries);
    const own = await t.http.get('/api/v1/users/me/security-events', { token: user.accessToken });
    expect(own.body.items.filter((e: { type: string }) => e.type === 'ROLE_CHANGED')).toHaveLength(2);
  }, 60_000);
});

describe('the audit_log table', () => {
  /** Two fresh entries (ADMIN readings of an account), oldest first. */
  async function twoEntries(): Promise<[string, string]> {
    const admin = await withRole(t, 'ADMIN');
    const target = await withRole(t, 'USER');
    const mark = await lastAuditId();
    for (let i = 0; i < 2; i++) succeeded(await act('REST', 'view', admin.accessToken, target.userId), 'REST');
    const rows = await t.sql<{ id: string }>('select id::text as id from audit_log where id > $1 order by id', [String(mark)]);
    expect(rows).toHaveLength(2);
    return [rows[0]!.id, rows[1]!.id];
  }
  const row = (id: string) => t.sql('select action, actor_id is null as no_actor, detail, at from audit_log where id = $1', [id]);
  // Statements joined by semicolons are one query (PostgreSQL's simple protocol) on one connection, one
  // implicit transaction unless they begin and commit their own: how these tests hold a session.

  it('refuses TRUNCATE, in SQL too and in a retention sweep', async () => {
    const [older, newer] = await twoEntries();
    const count = await t.sql('select count(*)::int as n from audit_log');
    for (const statement of ['truncate audit_log', `${SWEEP}; truncate audit_log`]) {
      await expect(t.sql(statement)).rejects.toThrow('audit_log is append-only: it cannot be truncated');
    }
    expect(await t.sql('select count(*)::int as n from audit_log')).toEqual(count);
    expect((await row(older)).length + (await row(newer)).length).toBe(2);
  });

  it('refuses any UPDATE of an entry, in SQL too and in a retention sweep', async () => {
    const [id] = await twoEntries();
    const before = await row(id);
    const changes = [
      `update audit_log set action = 'USER_DELETED' where id = ${id}`,
      `update audit_log set detail = '{}' where id = ${id}`,
      `update audit_log set at = now() - interval '1000 days' where id = ${id}`,
      `update audit_log set actor_id = null, target_user_id = null where id = ${id}`,
      `update audit_log set ip = null, user_agent = null, request_id = null where id = ${id}`,
      `${SWEEP}; update audit_log set detail = '{}' where id = ${id}`,
    ];
    for (const change of changes) await expect(t.sql(change)).rejects.toThrow(`audit_log is append-only: entry ${id} cannot be changed`);
    expect(await row(id)).toEqual(before);
  });

  it('refuses any DELETE but within a retention sweep transaction, whose setting ends with it', async () => {
    const [older, newer] = await twoEntries();
    const [olderRow, newerRow] = [await row(older), await row(newer)];
    await expect(t.sql(`delete from audit_log where id = ${older}`)).rejects.toThrow(`audit_log is append-only: entry ${older} cannot be deleted`);
    expect(await row(older)).toEqual(olderRow);
    // On one connection: the sweep's transaction deletes; the statement after its commit, on the same
    // session, no longer has the setting and is refused (and the sweep's delete stays committed).
    await expect(t.sql(`begin; ${SWEEP}; delete from audit_log where id = ${older}; commit; delete from audit_log where id = ${newer}`)).rejects.toThrow(
      `audit_log is append-only: entry ${newer} cannot be deleted`,
    );
    expect(await row(older)).toEqual([]);
    expect(await row(newer)).toEqual(newerRow);
    // A sweep's transaction that fails deletes nothing (one implicit transaction: the statements of one query).
    await expect(t.sql(`${SWEEP}; delete from audit_log where id = ${newer}; select 1 / 0`)).rejects.toThrow('division by zero');
    expect(await row(newer)).toEqual(newerRow);
  });

  it('is swept of entries older than AUDIT_LOG_RETENTION_DAYS (default 400) by the janitor, the others kept', async () => {
    await expectAuditRetention(t, 400);
  });
});

describe('AUDIT_LOG_RETENTION_DAYS set', () => {
  const t7 = useTestServer({ AUDIT_LOG_RETENTION_DAYS: '7' });

  it('sweeps entries older than the days set, with the janitor of the running service', async () => {
    await expectAuditRetention(t7, 7);
  });
});

/**
 * Three entries of an ADMIN's readings: the first aged a day past `days`, the second a day short of
 * it, the third new. The service's janitor sweeps the first (and any other entry as old) only.
 */
async function expectAuditRetention(server: TestServer, days: number): Promise<void> {
  const admin = await registerUser(server);
  await server.sql(`update users set role = 'ADMIN' where id = $1`, [admin.userId]);
  for (let i = 0; i < 3; i++) expect((await server.http.get(`/api/v1/admin/users/${admin.userId}`, { token: admin.accessToken })).status).toBe(200);
  const ids = (await server.sql<{ id: string }>('select id::text as id from audit_log where target_user_id = $1 order by id', [admin.userId])).map((r) => r.id);
  expect(ids).toHaveLength(3);
  // Ageing entries rewrites them, which the database refuses (tests above): its guard is off meanwhile.
  await server.sql('alter table audit_log disable trigger audit_log_append_only');
  try {
    await server.sql(`update audit_log set at = now() - make_interval(days => $2) where id = $1`, [ids[0], days + 1]);
    await server.sql(`update audit_log set at = now() - make_interval(days => $2) where id = $1`, [ids[1], days - 1]);
  } finally {
    await server.sql('alter table audit_log enable trigger audit_log_append_only');
  }
  await expect(server.sql(`update audit_log set detail = '{}' where id = $1`, [ids[2]])).rejects.toThrow('cannot be changed');
  const [old] = await server.sql<{ n: number }>(`select count(*)::int as n from audit_log where at < now() - make_interval(days => $1)`, [days]);
  expect(old!.n).toBeGreaterThanOrEqual(1);
  expect((await sweepExpired(server.server.services.sweepers)).auditLog).toBe(old!.n);
  expect((await server.sql<{ id: string }>('select id::text as id from audit_log where target_user_id = $1 order by id', [admin.userId])).map((r) => r.id)).toEqual(ids.slice(1));
  // A second sweep finds nothing more, and the sweep named itself for its own transaction only: a delete
  // after it, on the pool's connections (the one it used is the next one taken), is refused again.
  expect((await sweepExpired(server.server.services.sweepers)).auditLog).toBe(0);
  await expect(server.sql('delete from audit_log where id = $1', [ids[1]])).rejects.toThrow(`audit_log is append-only: entry ${ids[1]} cannot be deleted`);
}
