import { describe, expect, it } from '@jest/globals';
import {
  ChangePasswordDocument,
  LoginDocument,
  LoginWithPasswordDocument,
  LogoutDocument,
  MySecurityEventsDocument,
  MySessionsDocument,
  RefreshTokenDocument,
  RevokeSessionDocument,
  SendCodeDocument,
  UpdateProfileDocument,
} from '../generated/graphql.js';
import { wrongCode } from '../helpers/assertions.js';
import { GOOD_PASSWORD, registerUser, requestCode, signInWithCode, type Session } from '../helpers/factories.js';
import { newPhone, useTestServer, type TestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { dataOf, errorOf } from '../graphql/support.js';
import { expectProblem } from '../rest/support.js';
import { NEW_PASSWORD, passwordLogin, uploadAvatar } from '../self-service/support.js';

const EVENTS = '/api/v1/users/me/security-events';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface EventJson {
  id: string;
  type: string;
  method: string | null;
  at: string;
  ip: string | null;
  userAgent: string | null;
  sessionId: string | null;
  phoneMasked: string | null;
}

/** Every event the token's user sees over REST, newest first, following the pages. */
async function allEvents(t: TestServer, token: string, limit = 100): Promise<EventJson[]> {
  const events: EventJson[] = [];
  let cursor: string | null = null;
  do {
    const res: { status: number; body: { items: EventJson[]; nextCursor: string | null } } = await t.http.get(`${EVENTS}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, { token });
    expect(res.status).toBe(200);
    events.push(...res.body.items);
    cursor = res.body.nextCursor;
  } while (cursor);
  return events;
}

const masked = (phone: string) => `+${'*'.repeat(phone.length - 5)}${phone.slice(-4)}`;
const as = (ip: string, userAgent = 'security-events-test') => ({ 'x-forwarded-for': ip, 'user-agent': userAgent });

describe('the security event log', () => {
  const t = useTestServer({ TRUST_PROXY: 'loopback', SEND_CODE_INTERVAL_SECONDS: '0', REFRESH_REUSE_GRACE_SECONDS: '0' });

  it('records each kind of event of an account, with time, address, user agent, session and masked phone; newest first', async () => {
    const phone = newPhone();
    const account: Session = await registerUser(t, phone);
    const first = claimsOf(account.accessToken).sid;
    const ip = '198.51.100.7';
    expectProblem(await t.http.post('/api/v1/auth/login-password', { phone, password: 'not-the-password' }, { headers: as('203.0.113.66', 'someone else') }), 401, 'INVALID_CREDENTIALS');
    const second = await passwordLogin(t, phone);
    const code = await requestCode(t, phone, 'login');
    expectProblem(await t.http.post('/api/v1/auth/login', { phone, code: wrongCode(code) }, { headers: as(ip) }), 400, 'INVALID_CODE');
    const third = await t.http.post('/api/v1/auth/login', { phone, code }, { headers: as(ip) });
    const thirdSid = claimsOf(third.body.accessToken).sid;
    // Refresh reuse: the third session's first refresh token, presented again after its rotation.
    expect((await t.http.post('/api/v1/auth/refresh', { refreshToken: third.body.refreshToken })).status).toBe(200);
    expectProblem(await t.http.post('/api/v1/auth/refresh', { refreshToken: third.body.refreshToken }, { headers: as(ip) }), 401, 'UNAUTHENTICATED');
    const token = account.accessToken;
    const headers = as(ip, 'Meeting/3.1 (iPhone)');
    expect((await t.http.request('PATCH', '/api/v1/users/me', { body: { nickname: 'Ada' }, token, headers })).status).toBe(200);
    expect((await uploadAvatar(t, token)).status).toBe(200);
    expect((await t.http.request('DELETE', `/api/v1/users/me/sessions/${claimsOf(second.accessToken).sid}`, { token, headers })).status).toBe(204);
    expect((await t.http.request('PUT', '/api/v1/users/me/password', { body: { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD }, token, headers })).status).toBe(204);
    expect((await t.http.post('/api/v1/auth/logout', {}, { token, headers })).status).toBe(204);
    const resetCode = await requestCode(t, phone, 'reset-password');
    expect((await t.http.post('/api/v1/auth/reset-password', { phone, code: resetCode, newPassword: 'amber-violin-58' }, { headers })).status).toBe(204);
    const last = await passwordLogin(t, phone, 'amber-violin-58');

    const events = await allEvents(t, last.accessToken);
    expect(events.map((e) => [e.type, e.method])).toEqual([
      ['SIGN_IN', 'PASSWORD'],
      ['PASSWORD_RESET', null],
      ['CODE_SENT', null],
      ['LOGOUT', null],
      ['PASSWORD_CHANGED', null],
      ['SESSION_REVOKED', null],
      ['AVATAR_CHANGED', null],
      ['PROFILE_CHANGED', null],
      ['REFRESH_REUSE', null],
      ['SIGN_IN', 'CODE'],
      ['SIGN_IN_FAILED', 'CODE'],
      ['CODE_SENT', null],
      ['SIGN_IN', 'PASSWORD'],
      ['SIGN_IN_FAILED', 'PASSWORD'],
      // The registration: a sign-in by code (the code sent before it belonged to no account yet).
      ['SIGN_IN', 'CODE'],
    ]);
    const ids = events.map((e) => BigInt(e.id));
    expect([...ids].sort((a, b) => (a > b ? -1 : 1))).toEqual(ids);
    for (const event of events) {
      expect(Object.keys(event).sort()).toEqual(['at', 'id', 'ip', 'method', 'phoneMasked', 'provider', 'sessionId', 'type', 'userAgent']);
      expect(event.at).toMatch(ISO);
      expect(Math.abs(Date.parse(event.at) - Date.now())).toBeLessThan(60_000);
      expect(event.phoneMasked).toBe(masked(phone));
    }
    const byType = (type: string, nth = 0) => events.filter((e) => e.type === type)[nth]!;
    expect(byType('SIGN_IN_FAILED', 1)).toMatchObject({ ip: '203.0.113.66', userAgent: 'someone else', sessionId: null });
    expect(byType('SIGN_IN', 1)).toMatchObject({ sessionId: thirdSid, ip });
    expect(byType('SIGN_IN', 2).sessionId).toBe(claimsOf(second.accessToken).sid);
    expect(byType('SIGN_IN', 3).sessionId).toBe(first);
    expect(byType('REFRESH_REUSE')).toMatchObject({ sessionId: thirdSid, ip });
    expect(byType('SESSION_REVOKED')).toMatchObject({ sessionId: claimsOf(second.accessToken).sid, ip, userAgent: 'Meeting/3.1 (iPhone)' });
    for (const type of ['PROFILE_CHANGED', 'AVATAR_CHANGED', 'PASSWORD_CHANGED', 'LOGOUT']) expect(byType(type).sessionId).toBe(first);
    expect(byType('PASSWORD_RESET')).toMatchObject({ sessionId: null, ip, userAgent: 'Meeting/3.1 (iPhone)' });
  });

  it('keeps the first 512 characters of a longer user agent, in the session and its event, on both transports', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone);
    const userAgent = `Meeting/3.1 ${'x'.repeat(2000)}`;
    const login = await t.http.post('/api/v1/auth/login', { phone, code }, { headers: { 'user-agent': userAgent } });
    expect(login.status).toBe(200);
    const token = login.body.accessToken as string;
    const kept = userAgent.slice(0, 512);
    expect((await t.http.get('/api/v1/users/me/sessions', { token })).body.map((s: { userAgent: string }) => s.userAgent)).toEqual([kept]);
    expect((await t.http.gql(MySessionsDocument, {}, { token })).body.data!.mySessions.map((s) => s.userAgent)).toEqual([kept]);
    expect((await allEvents(t, token)).filter((e) => e.type === 'SIGN_IN').map((e) => e.userAgent)).toEqual([kept]);
    const edges = (await t.http.gql(MySecurityEventsDocument, { first: 5 }, { token })).body.data!.mySecurityEvents.edges;
    expect(edges.filter((e) => e.node.type === 'SIGN_IN').map((e) => e.node.userAgent)).toEqual([kept]);
  });

  it('records the events of GraphQL operations as of REST ones: sign-ins and failures, reuse, revocation, changes, logout', async () => {
    const s = await registerUser(t);
    const { phone, userId } = s;
    const headers = as('198.51.100.77', 'graphql-client');
    const gql: typeof t.http.gql = (document, variables, options = {}) => t.http.gql(document, variables, { headers, ...options });
    dataOf(await gql(SendCodeDocument, { input: { phone, purpose: 'LOGIN' } }));
    const code = await t.codeFor(phone, 'login');
    errorOf(await gql(LoginDocument, { input: { phone, code: wrongCode(code) } }), 'INVALID_CODE');
    errorOf(await gql(LoginWithPasswordDocument, { input: { phone, password: 'not-the-password' } }), 'INVALID_CREDENTIALS');
    const b = dataOf(await gql(LoginWithPasswordDocument, { input: { phone, password: GOOD_PASSWORD } })).loginWithPassword;
    // b's first refresh token, presented again after its rotation: reuse, which ends b.
    dataOf(await gql(RefreshTokenDocument, { refreshToken: b.refreshToken }));
    errorOf(await gql(RefreshTokenDocument, { refreshToken: b.refreshToken }), 'UNAUTHENTICATED');
    const c = dataOf(await gql(LoginDocument, { input: { phone, code } })).login;
    const token = c.accessToken;
    dataOf(await gql(UpdateProfileDocument, { input: { nickname: 'Via GraphQL' } }, { token }));
    dataOf(await gql(RevokeSessionDocument, { id: claimsOf(s.accessToken).sid }, { token }));
    dataOf(await gql(ChangePasswordDocument, { input: { currentPassword: GOOD_PASSWORD, newPassword: NEW_PASSWORD } }, { token }));
    dataOf(await gql(LogoutDocument, {}, { token }));

    const rows = await t.sql<{ type: string; method: string | null; session_id: string | null; ip: string; user_agent: string }>(
      'select type, method, session_id, ip, user_agent from security_events where user_id = $1 and id > (select min(id) from security_events where user_id = $1) order by id',
      [userId],
    );
    const [sidB, sidC] = [claimsOf(b.accessToken).sid, claimsOf(c.accessToken).sid];
    expect(rows.map((r) => [r.type, r.method, r.session_id])).toEqual([
      ['CODE_SENT', null, null],
      ['SIGN_IN_FAILED', 'CODE', null],
      ['SIGN_IN_FAILED', 'PASSWORD', null],
      ['SIGN_IN', 'PASSWORD', sidB],
      ['REFRESH_REUSE', null, sidB],
      ['SIGN_IN', 'CODE', sidC],
      ['PROFILE_CHANGED', null, sidC],
      ['SESSION_REVOKED', null, claimsOf(s.accessToken).sid],
      ['PASSWORD_CHANGED', null, sidC],
      ['LOGOUT', null, sidC],
    ]);
    expect(new Set(rows.map((r) => `${r.ip} ${r.user_agent}`))).toEqual(new Set(['198.51.100.77 graphql-client']));
  });

  it('stores the request id with each event, the X-Request-Id its answer carried', async () => {
    const phone = newPhone();
    const code = await requestCode(t, phone);
    const res = await t.http.post('/api/v1/auth/login', { phone, code });
    const [row] = await t.sql<{ request_id: string; type: string }>(
      `select request_id, type from security_events where session_id = $1`,
      [claimsOf(res.body.accessToken).sid],
    );
    expect(row).toEqual({ request_id: res.headers.get('x-request-id'), type: 'SIGN_IN' });
  });

  it('shows each user their own events only, failed attempts on their phone by others included', async () => {
    const alice = await registerUser(t);
    const bob = await registerUser(t);
    expectProblem(await t.http.post('/api/v1/auth/login-password', { phone: alice.phone, password: 'guessing-123' }, { headers: as('203.0.113.9') }), 401, 'INVALID_CREDENTIALS');
    const aliceEvents = await allEvents(t, alice.accessToken);
    const bobEvents = await allEvents(t, bob.accessToken);
    expect(aliceEvents.map((e) => e.type)).toEqual(['SIGN_IN_FAILED', 'SIGN_IN']);
    expect(aliceEvents[0]).toMatchObject({ ip: '203.0.113.9', phoneMasked: masked(alice.phone) });
    expect(bobEvents.map((e) => [e.type, e.phoneMasked])).toEqual([['SIGN_IN', masked(bob.phone)]]);
  });

  it('pages with cursor and limit (default 20), on REST and as a Relay connection on GraphQL, the same events', async () => {
    const s = await registerUser(t);
    for (let i = 0; i < 24; i++) expect((await t.http.request('PATCH', '/api/v1/users/me', { body: { nickname: `N${i}` }, token: s.accessToken })).status).toBe(200);
    const firstPage = await t.http.get(EVENTS, { token: s.accessToken });
    expect(firstPage.body.items).toHaveLength(20);
    expect(typeof firstPage.body.nextCursor).toBe('string');
    const all = await allEvents(t, s.accessToken, 7);
    expect(all).toHaveLength(25);
    expect(new Set(all.map((e) => e.id)).size).toBe(25);
    expect(all.slice(0, 20)).toEqual(firstPage.body.items);
    expect(all.at(-1)!.type).toBe('SIGN_IN');
    const lastPage = await t.http.get(`${EVENTS}?limit=5&cursor=${(await t.http.get(`${EVENTS}?limit=20`, { token: s.accessToken })).body.nextCursor}`, { token: s.accessToken });
    expect({ ids: lastPage.body.items.map((e: EventJson) => e.id), next: lastPage.body.nextCursor }).toEqual({ ids: all.slice(20).map((e) => e.id), next: null });

    const nodes: EventJson[] = [];
    let after: string | null | undefined;
    let pages = 0;
    for (;;) {
      const res = await t.http.gql(MySecurityEventsDocument, { first: 10, after }, { token: s.accessToken });
      expect(res.body.errors).toBeUndefined();
      const connection = res.body.data!.mySecurityEvents;
      pages++;
      nodes.push(...connection.edges.map((e) => e.node as EventJson));
      expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1)!.cursor);
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(pages).toBe(3);
    expect(nodes).toEqual(all);

    // The defaults: 20 on both transports, also for parameters sent empty; an exactly full last page has no next one.
    const token = s.accessToken;
    expect((await t.http.get(`${EVENTS}?cursor=&limit=`, { token })).body).toEqual(firstPage.body);
    const byDefault = dataOf(await t.http.gql(MySecurityEventsDocument, {}, { token })).mySecurityEvents;
    expect({ ids: byDefault.edges.map((e) => e.node.id), next: byDefault.pageInfo.hasNextPage }).toEqual({ ids: all.slice(0, 20).map((e) => e.id), next: true });
    expect((await t.http.get(`${EVENTS}?limit=25`, { token })).body.nextCursor).toBeNull();
    const whole = dataOf(await t.http.gql(MySecurityEventsDocument, { first: 25 }, { token })).mySecurityEvents;
    expect({ edges: whole.edges.length, next: whole.pageInfo.hasNextPage }).toEqual({ edges: 25, next: false });
  });

  it('refuses a bad limit or cursor with 400 VALIDATION_FAILED naming the field, and a missing token with 401', async () => {
    const s = await registerUser(t);
    for (const limit of ['0', '101', 'abc', '2.5']) {
      expect(expectProblem(await t.http.get(`${EVENTS}?limit=${limit}`, { token: s.accessToken }), 400, 'VALIDATION_FAILED').fields).toEqual({ limit: 'must be a whole number from 1 to 100' });
    }
    for (const cursor of ['nonsense', Buffer.from('event:0').toString('base64url'), Buffer.from("event:1' or 1=1").toString('base64url'), 'x'.repeat(65)]) {
      expect(expectProblem(await t.http.get(`${EVENTS}?cursor=${cursor}`, { token: s.accessToken }), 400, 'VALIDATION_FAILED').fields).toEqual({ cursor: 'is not a cursor this service gave' });
    }
    for (const first of [0, 101, -1]) {
      expect(errorOf(await t.http.gql(MySecurityEventsDocument, { first }, { token: s.accessToken }), 'VALIDATION_FAILED').extensions?.fields).toEqual({ first: 'must be a whole number from 1 to 100' });
    }
    expect(errorOf(await t.http.gql(MySecurityEventsDocument, { after: 'nonsense' }, { token: s.accessToken }), 'VALIDATION_FAILED').extensions?.fields).toEqual({ after: 'is not a cursor this service gave' });
    expectProblem(await t.http.get(EVENTS), 401, 'UNAUTHENTICATED');
    errorOf(await t.http.gql(MySecurityEventsDocument, {}), 'UNAUTHENTICATED');
  });

  describe('when an event cannot be written', () => {
    // A server of its own, declared to provoke a fault of the service (a trigger refuses the event): its error-level log line is expected.
    const t = useTestServer({ TRUST_PROXY: 'loopback', SEND_CODE_INTERVAL_SECONDS: '0', REFRESH_REUSE_GRACE_SECONDS: '0' }, { expectFaults: true });

    it('writes an event in the transaction of its change: when the event cannot be written, the change does not happen', async () => {
      const s = await signInWithCode(t);
      await t.sql(`create or replace function refuse_profile_event() returns trigger language plpgsql as $$
                   begin raise exception 'no profile events'; end $$`);
      await t.sql(`create trigger refuse_profile_event before insert on security_events for each row
                   when (new.type = 'PROFILE_CHANGED') execute function refuse_profile_event()`);
      try {
        expectProblem(await t.http.request('PATCH', '/api/v1/users/me', { body: { nickname: 'Rolled Back' }, token: s.accessToken }), 500, 'INTERNAL');
      } finally {
        await t.sql('drop trigger refuse_profile_event on security_events');
        await t.sql('drop function refuse_profile_event');
      }
      expect((await t.http.get('/api/v1/users/me', { token: s.accessToken })).body.nickname).toBe(s.body.user.nickname);
    });
  });

  it('keeps the events of a deleted account, its user nulled and its phone masked, the deletion included', async () => {
    const s = await registerUser(t);
    const code = await requestCode(t, s.phone, 'delete-account');
    const before = await t.sql<{ id: string }>('select id from security_events where user_id = $1 order by id', [s.userId]);
    expect((await t.http.request('DELETE', '/api/v1/users/me', { body: { code }, token: s.accessToken })).status).toBe(204);
    const rows = await t.sql<{ type: string; user_id: string | null; phone_masked: string }>(
      `select type, user_id, phone_masked from security_events where id = any($1::bigint[]) or (type = 'ACCOUNT_DELETED' and session_id = $2) order by id`,
      [before.map((r) => r.id), claimsOf(s.accessToken).sid],
    );
    expect(rows).toEqual(
      ['SIGN_IN', 'CODE_SENT', 'ACCOUNT_DELETED'].map((type) => ({ type, user_id: null, phone_masked: masked(s.phone) })),
    );
  });

  it('cannot be rewritten, even in SQL: the database refuses any change to an event but the deletion nulling its user', async () => {
    const s = await registerUser(t);
    const other = await registerUser(t);
    const [event] = await t.sql<{ id: string }>(`select id from security_events where user_id = $1 and type = 'SIGN_IN'`, [s.userId]);
    const changes = [
      [`update security_events set type = 'LOGOUT' where id = $1`, [event!.id]],
      [`update security_events set at = now() - interval '1 day' where id = $1`, [event!.id]],
      [`update security_events set ip = '10.0.0.1', user_id = null where id = $1`, [event!.id]],
      [`update security_events set user_id = $2 where id = $1`, [event!.id, other.userId]],
    ] as const;
    for (const [text, values] of changes) await expect(t.sql(text, [...values])).rejects.toThrow(`security_events is append-only: event ${event!.id} cannot be changed`);
    expect(await t.sql('select type, user_id from security_events where id = $1', [event!.id])).toEqual([{ type: 'SIGN_IN', user_id: s.userId }]);
    // What an account deletion does to its events (the foreign key's set null) is the one change let through.
    await t.sql('update security_events set user_id = null where id = $1', [event!.id]);
    expect(await t.sql('select type, user_id from security_events where id = $1', [event!.id])).toEqual([{ type: 'SIGN_IN', user_id: null }]);
  });

  it('cannot be deleted, even in SQL, but by the retention sweep (below), which names itself for its own transaction only', async () => {
    const s = await registerUser(t);
    const [event] = await t.sql<{ id: string }>(`select id from security_events where user_id = $1 and type = 'SIGN_IN'`, [s.userId]);
    await expect(t.sql('delete from security_events where id = $1', [event!.id])).rejects.toThrow(`security_events is append-only: event ${event!.id} cannot be deleted`);
    // The sweep's setting is transaction-local: set by a statement of its own, it is gone by the next.
    await t.sql(`select set_config('meeting_accounts.retention_sweep', 'on', true)`);
    await expect(t.sql('delete from security_events where id = $1', [event!.id])).rejects.toThrow('cannot be deleted');
    expect(await t.sql('select type from security_events where id = $1', [event!.id])).toEqual([{ type: 'SIGN_IN' }]);
  });

  it('cannot be truncated, even in SQL and in a retention sweep', async () => {
    await registerUser(t);
    const [before] = await t.sql<{ n: number }>('select count(*)::int as n from security_events');
    expect(before!.n).toBeGreaterThan(0);
    for (const statement of ['truncate security_events', `select set_config('meeting_accounts.retention_sweep', 'on', true); truncate security_events`]) {
      await expect(t.sql(statement)).rejects.toThrow('security_events is append-only: it cannot be truncated');
    }
    expect(await t.sql('select count(*)::int as n from security_events')).toEqual([before]);
  });

  it('sweeps events older than SECURITY_EVENT_RETENTION_DAYS (default 90) and keeps the others', async () => {
    await expectRetention(t, 90);
  });
});

describe('SECURITY_EVENT_RETENTION_DAYS set', () => {
  const t = useTestServer({ SECURITY_EVENT_RETENTION_DAYS: '7' });

  it('sweeps events older than the days set, with the janitor of the running service', async () => {
    await expectRetention(t, 7);
  });
});

/**
 * A user's sign-in aged a day past `days`, their profile change a day short of it: the service's own
 * janitor sweeps the first and keeps the second.
 */
async function expectRetention(t: TestServer, days: number): Promise<void> {
  const s = await registerUser(t);
  expect((await t.http.request('PATCH', '/api/v1/users/me', { body: { nickname: 'Old' }, token: s.accessToken })).status).toBe(200);
  // Ageing events rewrites them, which the database refuses (test above): its guard is off meanwhile.
  await t.sql('alter table security_events disable trigger security_events_append_only');
  try {
    await t.sql(`update security_events set at = now() - make_interval(days => $2) where user_id = $1 and type = 'SIGN_IN'`, [s.userId, days + 1]);
    await t.sql(`update security_events set at = now() - make_interval(days => $2) where user_id = $1 and type = 'PROFILE_CHANGED'`, [s.userId, days - 1]);
  } finally {
    await t.sql('alter table security_events enable trigger security_events_append_only');
  }
  const { sweepExpired } = await import('../../src/db/janitor.js');
  // At least this user's sign-in (events of other tests in the database may be as old).
  expect((await sweepExpired(t.server.services.sweepers)).securityEvents).toBeGreaterThanOrEqual(1);
  expect((await allEvents(t, s.accessToken)).map((e) => e.type)).toEqual(['PROFILE_CHANGED']);
}
