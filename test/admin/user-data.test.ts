// One account's data as operators read it, and its deletion by an ADMIN (API.md 8.1), on both
// transports: GET /admin/users/{id}/sessions and /security-events (SUPPORT or ADMIN; in GraphQL the
// AdminUser fields sessions and securityEvents), DELETE /admin/users/{id} (ADMIN; adminDeleteUser).
// Who may do what, what each refusal answers and that it changes nothing; the lists are the user's
// own (no session current); a deletion ends the account at once (tokens, sessions, avatar), keeps its
// events with the user nulled and frees its phone; never one's own account. The audit entries these
// write are tested in audit.test.ts.
import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { dataOf } from '../graphql/support.js';
import { GOOD_PASSWORD, registerUser, type Session } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { expectProblem } from '../rest/support.js';
import { uploadAvatar } from '../self-service/support.js';
import { refusal, type Role, type Transport, TRANSPORTS, UNKNOWN_ID, withRole } from './support.js';

type Op = 'sessions' | 'events' | 'delete';
const OPS: Op[] = ['sessions', 'events', 'delete'];
const ALLOWED: Record<Op, Role[]> = { sessions: ['SUPPORT', 'ADMIN'], events: ['SUPPORT', 'ADMIN'], delete: ['ADMIN'] };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const NOT_OURS = 'is not a cursor this service gave';
const LIMIT = 'must be a whole number from 1 to 100';
const EVENT_FIELDS = 'id type method provider at ip userAgent sessionId phoneMasked';

const GQL: Record<Op, string> = {
  sessions: 'query($id: ID!) { r: adminUser(id: $id) { id sessions { id createdAt lastUsedAt userAgent ip current } } }',
  events: `query($id: ID!, $first: Int, $after: String) { r: adminUser(id: $id) { id securityEvents(first: $first, after: $after) {
    edges { cursor node { ${EVENT_FIELDS} } } pageInfo { hasNextPage endCursor } } } }`,
  delete: 'mutation($id: ID!) { r: adminDeleteUser(id: $id) }',
};

interface EventJson {
  id: string;
  type: string;
  ip: string | null;
  userAgent: string | null;
  phoneMasked: string | null;
}

const t = useTestServer({ TRUST_PROXY: 'loopback', SEND_CODE_INTERVAL_SECONDS: '0' });

/** One operator call; `page` is `{ limit, cursor }` on REST, `{ first, after }` on GraphQL (events only). */
function call(transport: Transport, op: Op, token: string | undefined, id: string, page: Record<string, unknown> = {}): Promise<HttpResult> {
  if (transport === 'GraphQL') return t.http.post('/graphql', { query: GQL[op], variables: { id, ...page } }, { token });
  const path = `/api/v1/admin/users/${encodeURIComponent(id)}`;
  if (op === 'sessions') return t.http.get(`${path}/sessions`, { token });
  if (op === 'events') return t.http.get(`${path}/security-events?${new URLSearchParams(page as Record<string, string>)}`, { token });
  return t.http.request('DELETE', path, { token });
}

/** What a successful call answered: the sessions, the page of events as `{ items, nextCursor }`, or true for a deletion. */
function result(res: HttpResult, transport: Transport, op: Op): any {
  if (transport === 'REST') {
    expect({ status: res.status, body: res.body }).toEqual({ status: op === 'delete' ? 204 : 200, body: op === 'delete' ? '' : expect.anything() });
    return op === 'delete' ? true : res.body;
  }
  const r = (dataOf(res) as any).r;
  if (op === 'sessions') return r.sessions;
  if (op === 'events') {
    const { edges, pageInfo } = r.securityEvents;
    expect(pageInfo.endCursor).toBe(edges.at(-1)?.cursor ?? null);
    return { items: edges.map((e: { node: EventJson }) => e.node), nextCursor: pageInfo.hasNextPage ? pageInfo.endCursor : null };
  }
  return r;
}

/** Another session of the account, by password, from this address and user agent. */
async function signInAgain(user: Session, ip = '203.0.113.5', userAgent = 'Meeting/3.1 (Android)'): Promise<{ accessToken: string; refreshToken: string }> {
  const res = await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD }, { headers: { 'x-forwarded-for': ip, 'user-agent': userAgent } });
  expect(res.status).toBe(200);
  return res.body;
}

const me = (token: string) => t.http.get('/api/v1/users/me', { token });
const masked = (phone: string) => `+${'*'.repeat(phone.length - 5)}${phone.slice(-4)}`;

/** What an operator's call may change: the audit log, any security event, the account's row and live sessions. */
async function footprint(userId: string) {
  // Counts (both tables are append-only), read in one statement so that both come from one snapshot.
  const [logs] = await t.sql<{ audit: number; events: number }>(
    'select (select count(*) from audit_log)::int as audit, (select count(*) from security_events)::int as events',
  );
  const account = await t.sql('select role, blocked_at, nickname, avatar_key from users where id = $1', [userId]);
  const [live] = await t.sql<{ n: number }>('select count(*)::int as n from sessions where user_id = $1 and revoked_at is null', [userId]);
  return { audit: logs!.audit, events: logs!.events, account, live: live!.n };
}

describe.each(TRANSPORTS)('one account, over %s', (transport) => {
  const graphql = transport === 'GraphQL';
  /** The readings a call makes: GraphQL reads the account (adminUser) before its sessions or events. */
  const readings = graphql ? 2 : 1;

  describe.each(['no token', 'USER', 'SUPPORT', 'ADMIN', 'blocked ADMIN'] as const)('a caller with %s', (who) => {
    it.each(OPS)('may ask for %s only if the role allows it; a refusal changes nothing', async (op) => {
      const target = await registerUser(t);
      const caller = who === 'no token' ? undefined : await withRole(t, who === 'blocked ADMIN' ? 'ADMIN' : who);
      // A blocked account's tokens stop with the block, whatever its role.
      if (who === 'blocked ADMIN') await t.sql(`update users set blocked_at = now(), blocked_reason = 'x' where id = $1`, [caller!.userId]);
      const before = await footprint(target.userId);
      const res = await call(transport, op, caller?.accessToken, target.userId);
      if (!caller || who === 'blocked ADMIN' || !ALLOWED[op].includes(who as Role)) {
        refusal(res, transport, caller && who !== 'blocked ADMIN' ? 'FORBIDDEN' : 'UNAUTHENTICATED');
        expect(await footprint(target.userId)).toEqual(before);
        expect((await me(target.accessToken)).status).toBe(200);
        return;
      }
      const out = result(res, transport, op);
      const after = await footprint(target.userId);
      if (op === 'sessions') {
        expect(out).toEqual([{ id: claimsOf(target.accessToken).sid, createdAt: expect.stringMatching(ISO), lastUsedAt: expect.stringMatching(ISO), userAgent: expect.any(String), ip: '127.0.0.1', current: false }]);
      } else if (op === 'events') {
        expect(out.items.map((e: EventJson) => e.type)).toEqual([...Array(readings).fill('ACCOUNT_VIEWED_BY_OPERATOR'), 'SIGN_IN']);
        expect(out.nextCursor).toBeNull();
      } else {
        expect(out).toBe(true);
        expect(after.account).toEqual([]);
        refusal(await me(target.accessToken), 'REST', 'UNAUTHENTICATED');
      }
      const written = op === 'delete' ? 1 : readings;
      expect({ audit: after.audit - before.audit, events: after.events - before.events }).toEqual({ audit: written, events: written });
      expect((await me(caller.accessToken)).status).toBe(200);
    });
  });

  it('answers VALIDATION_FAILED on the id to a malformed id and NOT_FOUND to an unknown one, writing nothing', async () => {
    const admin = await withRole(t, 'ADMIN');
    const before = await footprint(admin.userId);
    for (const op of OPS) {
      for (const id of ['not-a-uuid', '12345', `${UNKNOWN_ID}0`, "' or 1=1 --"]) {
        expect({ op, id, fields: refusal(await call(transport, op, admin.accessToken, id), transport, 'VALIDATION_FAILED') }).toEqual({ op, id, fields: { id: 'must be a UUID' } });
      }
      refusal(await call(transport, op, admin.accessToken, UNKNOWN_ID), transport, 'NOT_FOUND');
    }
    expect(await footprint(admin.userId)).toEqual(before);
    expect((await me(admin.accessToken)).status).toBe(200);
  });

  it('refuses a page of events out of range or a cursor it did not give, naming the parameter', async () => {
    const [admin, support, user] = [await withRole(t, 'ADMIN'), await withRole(t, 'SUPPORT'), await withRole(t, 'USER')];
    const b64 = (text: string) => Buffer.from(text).toString('base64url');
    const [entry] = await t.sql<{ id: string }>('select coalesce(max(id), 1)::text as id from audit_log');
    const [limitName, cursorName] = graphql ? ['first', 'after'] : ['limit', 'cursor'];
    const limits = graphql ? [0, 101, -1] : ['0', '101', 'abc', '2.5'];
    // A cursor of another list (the audit log's) is not one of this list either.
    const cursors = ['nonsense', b64('event:0'), b64(`audit:${entry!.id}`), b64("event:1' or 1=1"), 'x'.repeat(201)];
    const refused = [...limits.map((v) => ({ [limitName]: v })), ...cursors.map((v) => ({ [cursorName]: v }))];
    const before = await footprint(user.userId);
    for (const page of refused) {
      for (const operator of [admin, support]) {
        const fields = refusal(await call(transport, 'events', operator.accessToken, user.userId, page), transport, 'VALIDATION_FAILED');
        expect({ page, fields }).toEqual({ page, fields: { [Object.keys(page)[0]!]: limitName in page ? LIMIT : NOT_OURS } });
      }
      // On REST a caller without the role is told FORBIDDEN before the page is looked at; GraphQL
      // checks every argument of an operation before it runs, as it checks their types, so there the
      // page is refused first, whoever asks.
      refusal(await call(transport, 'events', user.accessToken, user.userId, page), transport, graphql ? 'VALIDATION_FAILED' : 'FORBIDDEN');
    }
    // Nothing was read, on either transport: GraphQL refuses the operation before adminUser runs.
    expect(await footprint(user.userId)).toEqual(before);
  });

  it('lists the live sessions of the account as the user sees them, newest first, none current', async () => {
    const support = await withRole(t, 'SUPPORT');
    const target = await registerUser(t);
    const second = await signInAgain(target, '203.0.113.5', 'Meeting/3.1 (Android)');
    const third = await signInAgain(target, '203.0.113.6', 'Meeting/3.1 (iPhone)');
    expect((await t.http.request('DELETE', `/api/v1/users/me/sessions/${claimsOf(third.accessToken).sid}`, { token: second.accessToken })).status).toBe(204);
    const own = await t.http.get('/api/v1/users/me/sessions', { token: second.accessToken });
    expect(own.status).toBe(200);
    expect(own.body.map((s: { id: string }) => s.id)).toEqual([claimsOf(second.accessToken).sid, claimsOf(target.accessToken).sid]);
    expect(own.body[0]).toMatchObject({ ip: '203.0.113.5', userAgent: 'Meeting/3.1 (Android)', current: true });

    const listed = result(await call(transport, 'sessions', support.accessToken, target.userId), transport, 'sessions');
    expect(listed).toEqual(own.body.map((s: object) => ({ ...s, current: false })));
  });

  it("lists the account's events as its own list does, newest first, a page at a time", async () => {
    const support = await withRole(t, 'SUPPORT');
    const target = await registerUser(t);
    const other = await registerUser(t);
    const headers = { 'x-forwarded-for': '198.51.100.8', 'user-agent': 'Meeting/3.1 (Web)' };
    expect((await t.http.request('PATCH', '/api/v1/users/me', { body: { nickname: 'Renamed' }, token: target.accessToken, headers })).status).toBe(200);
    expectProblem(await t.http.post('/api/v1/auth/login-password', { phone: target.phone, password: 'not-the-password' }, { headers }), 401, 'INVALID_CREDENTIALS');

    const [limit, cursor] = graphql ? ['first', 'after'] : ['limit', 'cursor'];
    const first = result(await call(transport, 'events', support.accessToken, target.userId, { [limit]: 2 }), transport, 'events');
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const rest = result(await call(transport, 'events', support.accessToken, target.userId, { [limit]: 100, [cursor]: first.nextCursor }), transport, 'events');
    expect(rest.nextCursor).toBeNull();
    const listed: EventJson[] = [...first.items, ...rest.items];

    const own = await t.http.get('/api/v1/users/me/security-events?limit=100', { token: target.accessToken });
    expect(own.status).toBe(200);
    // The own list also holds the reading of the second page, written after the first page was read.
    expect(listed).toEqual(own.body.items.filter((e: EventJson) => BigInt(e.id) <= BigInt(first.items[0].id)));
    expect(listed.map((e) => e.type)).toEqual([...Array(readings).fill('ACCOUNT_VIEWED_BY_OPERATOR'), 'SIGN_IN_FAILED', 'PROFILE_CHANGED', 'SIGN_IN']);
    expect(listed[0]).toMatchObject({ ip: null, userAgent: null, phoneMasked: masked(target.phone) });
    expect(listed.find((e) => e.type === 'PROFILE_CHANGED')).toMatchObject({ ip: '198.51.100.8', userAgent: 'Meeting/3.1 (Web)' });
    expect(listed.every((e) => e.phoneMasked === masked(target.phone))).toBe(true);
    expect(listed.map((e) => e.id)).not.toContain((await t.sql<{ id: string }>('select id::text as id from security_events where user_id = $1', [other.userId]))[0]!.id);
  });

  it('deletes an account at once: its tokens stop, its sessions and avatar go, its events stay without it, its phone is free', async () => {
    const admin = await withRole(t, 'ADMIN');
    const target = await registerUser(t, newPhone(), GOOD_PASSWORD, 'Leaving Soon');
    const second = await signInAgain(target);
    const uploaded = await uploadAvatar(t, target.accessToken);
    expect(uploaded.status).toBe(200);
    const avatarUrl: string = uploaded.body.avatarUrl;
    const avatarFile = join(t.dataDir, 'avatars', avatarUrl.split('/').at(-1)!);
    expect(existsSync(avatarFile)).toBe(true);
    const sessionIds = [target.accessToken, second.accessToken].map((token) => claimsOf(token).sid);
    const eventIds = (await t.sql<{ id: string }>('select id::text as id from security_events where user_id = $1', [target.userId])).map((r) => r.id);

    const res = await call(transport, 'delete', admin.accessToken, target.userId);
    expect(result(res, transport, 'delete')).toBe(true);
    const requestId = res.headers.get('x-request-id');

    for (const token of [target.accessToken, second.accessToken]) {
      refusal(await me(token), 'REST', 'UNAUTHENTICATED');
      refusal(await t.http.post('/graphql', { query: '{ me { id } }' }, { token }), 'GraphQL', 'UNAUTHENTICATED');
    }
    for (const refreshToken of [target.refreshToken, second.refreshToken]) refusal(await t.http.post('/api/v1/auth/refresh', { refreshToken }), 'REST', 'UNAUTHENTICATED');
    refusal(await t.http.post('/api/v1/auth/login-password', { phone: target.phone, password: GOOD_PASSWORD }), 'REST', 'INVALID_CREDENTIALS');
    expect(await t.sql('select id from users where id = $1', [target.userId])).toEqual([]);
    expect(await t.sql('select id from sessions where id = any($1::uuid[]) or user_id = $2', [sessionIds, target.userId])).toEqual([]);
    expect(await t.sql('select session_id from refresh_tokens where session_id = any($1::uuid[])', [sessionIds])).toEqual([]);
    expect(existsSync(avatarFile)).toBe(false);
    expectProblem(await t.http.get(avatarUrl), 404, 'NOT_FOUND');

    // Its events stay, with the user nulled, and the deletion is one of them (without the operator's client).
    const kept = await t.sql<{ user_id: string | null }>('select user_id from security_events where id = any($1::bigint[])', [eventIds]);
    expect(kept).toEqual(eventIds.map(() => ({ user_id: null })));
    expect(await t.sql('select type, user_id, ip, user_agent, phone_masked from security_events where request_id = $1', [requestId])).toEqual([
      { type: 'ACCOUNT_DELETED', user_id: null, ip: null, user_agent: null, phone_masked: masked(target.phone) },
    ]);
    expect(await t.sql(`select actor_id, target_user_id, detail->>'phone' as phone, detail->>'nickname' as nickname from audit_log where action = 'USER_DELETED' and request_id = $1`, [requestId])).toEqual([
      { actor_id: admin.userId, target_user_id: target.userId, phone: target.phone, nickname: 'Leaving Soon' },
    ]);

    // The phone registers again, as a new account that sees none of the old one's events.
    const again = await registerUser(t, target.phone);
    expect(again.userId).not.toBe(target.userId);
    const own = await t.http.get('/api/v1/users/me/security-events', { token: again.accessToken });
    expect(own.body.items.map((e: EventJson) => e.type)).toEqual(['SIGN_IN']);

    // The deleted account is gone for operators too, and asking about it writes nothing.
    const before = await footprint(target.userId);
    for (const op of OPS) refusal(await call(transport, op, admin.accessToken, target.userId), transport, 'NOT_FOUND');
    expect(await footprint(target.userId)).toEqual(before);
  });

  it("refuses an ADMIN's deletion of their own account, and deletes another ADMIN's, who is stopped at once", async () => {
    const [admin, other] = [await withRole(t, 'ADMIN'), await withRole(t, 'ADMIN')];
    const before = await footprint(admin.userId);
    refusal(await call(transport, 'delete', admin.accessToken, admin.userId), transport, 'FORBIDDEN');
    expect(await footprint(admin.userId)).toEqual(before);
    expect((await me(admin.accessToken)).status).toBe(200);

    expect(result(await call(transport, 'delete', admin.accessToken, other.userId), transport, 'delete')).toBe(true);
    expect(await t.sql('select id from users where id = $1', [other.userId])).toEqual([]);
    refusal(await call(transport, 'delete', other.accessToken, admin.userId), transport, 'UNAUTHENTICATED');
    refusal(await call(transport, 'sessions', other.accessToken, admin.userId), transport, 'UNAUTHENTICATED');
    expect((await me(admin.accessToken)).status).toBe(200);
  });
});

describe('a path that is not valid percent-encoding', () => {
  it('is refused as malformed (400), before the caller is asked who they are', async () => {
    const admin = await withRole(t, 'ADMIN');
    const before = await footprint(admin.userId);
    for (const [method, path] of [
      ['GET', '/api/v1/admin/users/%E0%A4%A/sessions'],
      ['GET', '/api/v1/admin/users/%zz/security-events'],
      ['DELETE', '/api/v1/admin/users/%E0%A4%A'],
    ] as const) {
      for (const token of [admin.accessToken, undefined]) expectProblem(await t.http.request(method, path, { token }), 400, 'VALIDATION_FAILED');
    }
    expect(await footprint(admin.userId)).toEqual(before);
  });
});
