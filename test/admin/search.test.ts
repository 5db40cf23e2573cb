// The operators' search of API.md 8.1 (GET /admin/users, adminUsers) on both transports: a query
// matches an id, a phone (whole, in E.164 or the default region's national form, or its leading
// digits, with or without + or 00, spaces, dashes and brackets ignored) or a nickname substring in
// any case with LIKE's wildcards taken literally; status and role narrow it; newest first, paged by
// cursors without duplicates or gaps (ties broken by id, to the microsecond). SUPPORT and ADMIN may
// search, USER is FORBIDDEN before its input is read; every bad input is VALIDATION_FAILED naming its
// field; a search is not a reading of the accounts it lists, but one that names an account by its
// full id or full phone number reads it, and is audited as a reading of it (API.md 9.0). The test
// server's region is the default, CN; the accounts searched are written by SQL (only the operators,
// who need tokens, register), so that their phones, nicknames and creation times are exact.
import { beforeEach, describe, expect, it } from '@jest/globals';
import { dataOf } from '../graphql/support.js';
import { registerUser, type Session } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';
import { refusal, type Transport, TRANSPORTS, UNKNOWN_ID } from './support.js';

/** The accounts searched: name, phone, nickname, minutes ago created. */
const ACCOUNTS: [string, string, string, number][] = [
  ['alice', '+8613800138000', 'Alice Wonder', 10],
  ['bob', '+8613800139999', 'bob_the_builder', 20],
  ['percent', '+8615912345678', '100% Real', 30],
  ['thousand', '+8615912340000', '1000 days', 40],
  ['bobx', '+8615800001111', 'bobXthe', 50],
  ['zoe', '+447700900123', 'Zoë', 60],
  ['backslash', '+8615800002222', 'back\\slash', 70],
  ['room', '+12025550123', 'room1380', 80],
  ['carol', '+8613801234567', 'Carol 1380', 90], // found by phone and by nickname alike: once
];
/** Older accounts whose creation times tie, or differ by a microsecond only: the id decides. */
const TIES: [string, string][] = [
  ['tie1', '2026-01-01 00:00:00.123456+00'],
  ['tie2', '2026-01-01 00:00:00.123456+00'],
  ['tie3', '2026-01-01 00:00:00.123456+00'],
  ['tie4', '2026-01-01 00:00:00.123456+00'],
  ['micro+1', '2026-01-01 00:00:00.123457+00'],
  ['micro-1', '2026-01-01 00:00:00.123455+00'],
];

const t = useTestServer();
beforeEach(() => t.reset());

interface Params {
  query?: string;
  status?: string;
  role?: string;
  limit?: unknown;
  cursor?: string;
}

const FIELDS = 'id phone nickname avatarUrl hasPassword role locale createdAt lastLoginAt status blockedAt blockedReason activeSessions mfaEnabled passkeys identities { provider } pendingPhoneChange { id phone status }';
const SEARCH = `query($query: String, $status: AccountStatus, $role: Role, $first: Int, $after: String) {
  adminUsers(query: $query, status: $status, role: $role, first: $first, after: $after) {
    edges { cursor node { ${FIELDS} } } pageInfo { hasNextPage endCursor } } }`;

function search(transport: Transport, token: string | undefined, p: Params = {}): Promise<HttpResult> {
  if (transport === 'GraphQL') {
    const variables = { query: p.query, status: p.status, role: p.role, first: p.limit, after: p.cursor };
    return t.http.post('/graphql', { query: SEARCH, variables }, { token });
  }
  const params = new URLSearchParams();
  for (const key of ['query', 'status', 'role', 'cursor', 'limit'] as const) if (p[key] !== undefined) params.set(key, String(p[key]));
  return t.http.get(`/api/v1/admin/users?${params}`, { token });
}

/** A successful page: its accounts and the cursor of the next page (null on the last). */
function page(transport: Transport, res: HttpResult): { items: any[]; next: string | null } {
  if (transport === 'REST') {
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 200 });
    expect(Object.keys(res.body).sort()).toEqual(['items', 'nextCursor']);
    return { items: res.body.items, next: res.body.nextCursor };
  }
  const { edges, pageInfo } = (dataOf(res) as any).adminUsers;
  expect(pageInfo.endCursor).toBe(edges.at(-1)?.cursor ?? null);
  return { items: edges.map((e: any) => e.node), next: pageInfo.hasNextPage ? pageInfo.endCursor : null };
}

/** The refusal, with its status on REST; returns the names of the fields a validation failure names. */
function failure(res: HttpResult, transport: Transport, code: string): string[] {
  return Object.keys(refusal(res, transport, code) ?? {}).sort();
}

const b64 = (text: string) => Buffer.from(text).toString('base64url');
const count = async (sql: string) => (await t.sql<{ n: number }>(sql))[0]!.n;

describe.each(TRANSPORTS)("the operators' search over %s", (transport) => {
  let admin: Session;
  let support: Session;
  let user: Session;
  /** Account name by id and id by name, operators included. */
  let nameOf: Map<string, string>;
  let id: Record<string, string>;

  beforeEach(async () => {
    // Explicit phones: registerUser's random +86138 numbers could share the leading digits searched.
    admin = await registerUser(t, '+8618600000001', undefined, 'Op Admin');
    support = await registerUser(t, '+8618600000002', undefined, 'Op Support');
    user = await registerUser(t, '+8618600000003', undefined, 'Op User');
    await t.sql(`update users set role = 'ADMIN' where id = $1`, [admin.userId]);
    await t.sql(`update users set role = 'SUPPORT' where id = $1`, [support.userId]);
    const rows = await t.sql<{ id: string; name: string }>(
      `insert into users (id, phone, nickname, created_at)
       select gen_random_uuid(), a.phone, a.nickname, now() - a.minutes * interval '1 minute'
         from unnest($1::text[], $2::text[], $3::int[]) as a(phone, nickname, minutes)
       union all
       select gen_random_uuid(), '+86199000000' || lpad(ord::text, 2, '0'), 'Tie ' || ord, at
         from unnest($4::timestamptz[]) with ordinality as x(at, ord)
       returning id, nickname as name`,
      [ACCOUNTS.map((a) => a[1]), ACCOUNTS.map((a) => a[2]), ACCOUNTS.map((a) => a[3]), TIES.map((x) => x[1])],
    );
    const byNickname = new Map([...ACCOUNTS.map((a) => [a[2], a[0]] as const), ...TIES.map((x, i) => [`Tie ${i + 1}`, x[0]] as const)]);
    nameOf = new Map([
      [admin.userId, 'admin'],
      [support.userId, 'support'],
      [user.userId, 'user'],
      ...rows.map((r) => [r.id, byNickname.get(r.name)!] as const),
    ]);
    id = Object.fromEntries([...nameOf].map(([key, name]) => [name, key]));
  });

  /** The names of one page of accounts found, as ADMIN unless `token` says otherwise. */
  async function found(p: Params, token = admin.accessToken): Promise<string[]> {
    const { items, next } = page(transport, await search(transport, token, { limit: 100, ...p }));
    expect(next).toBeNull();
    return items.map((item) => nameOf.get(item.id) ?? item.id);
  }

  /** Every account in the search's order, read a page of `limit` at a time through the cursors. */
  async function allPages(p: Params, limit: number): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 50; pages++) {
      const { items, next } = page(transport, await search(transport, admin.accessToken, { ...p, limit, cursor }));
      expect(items.length).toBeLessThanOrEqual(limit);
      if (next !== null) expect(items).toHaveLength(limit);
      names.push(...items.map((item) => nameOf.get(item.id) ?? item.id));
      if (next === null) return names;
      cursor = next;
    }
    throw new Error('more than 50 pages');
  }

  /** Names in the order the contract gives: created_at desc, then id desc (as PostgreSQL compares ids). */
  async function newestFirst(where = 'true'): Promise<string[]> {
    const rows = await t.sql<{ id: string }>(`select id from users where ${where} order by created_at desc, id desc`);
    return rows.map((r) => nameOf.get(r.id)!);
  }

  it('finds an account by its phone: E.164, national form, leading digits with or without + or 00, spaces, dashes and brackets ignored', async () => {
    const cases: [string, string[]][] = [
      ['+8613800138000', ['alice']],
      ['13800138000', ['alice']],
      ['138 0013-8000', ['alice']],
      ['(138) 0013 8000', ['alice']],
      ['+86 138-0013-8000', ['alice']],
      ['0086 138 0013 8000', ['alice']],
      ['008613800138000', ['alice']],
      ['+86138001', ['alice', 'bob']],
      ['86138001', ['alice', 'bob']],
      ['138001', ['alice', 'bob']], // national leading digits
      ['01380013', ['alice', 'bob']], // national, with CN's trunk prefix 0
      ['+86 1380', ['alice', 'bob', 'carol']],
      ['+44 7700 900123', ['zoe']], // another region's whole number
      ['0044 7700', ['zoe']],
      ['447700', ['zoe']],
      ['+1 (202) 555', ['room']],
      ['1202555', ['room']],
      ['+8613800138001', []],
      ['13900000000', []],
      // An international prefix without digits is no phone: only the nicknames holding the text.
      ['00', ['percent', 'thousand']],
      ['+', []],
    ];
    for (const [query, expected] of cases) expect({ query, found: await found({ query }) }).toEqual({ query, found: expected });
  });

  it('finds nicknames by substring in any case, with %, _ and \\ matched literally', async () => {
    const cases: [string, string[]][] = [
      ['wonder', ['alice']],
      ['ALICE WON', ['alice']],
      ['BOB', ['bob', 'bobx']],
      ['%', ['percent']],
      ['100%', ['percent']], // not '1000 days'
      ['_', ['bob']],
      ['bob_', ['bob']], // not 'bobXthe'
      ['\\', ['backslash']],
      ['k\\s', ['backslash']],
      ['Zoe\u0308', ['zoe']], // decomposed: the query is normalised to NFC, as nicknames are typed
      ['nobody at all', []],
    ];
    for (const [query, expected] of cases) expect({ query, found: await found({ query }) }).toEqual({ query, found: expected });
  });

  it('finds an account by id in either case, and nothing for the id of nobody', async () => {
    expect(await found({ query: id.carol })).toEqual(['carol']);
    expect(await found({ query: ` ${id.carol!.toUpperCase()} ` })).toEqual(['carol']);
    expect(await found({ query: UNKNOWN_ID })).toEqual([]);
  });

  it('matches by phone and by nickname at once, newest first, and pages that union through cursors', async () => {
    // '1380': phones +86 1380... (national leading digits) and the nickname 'room1380'.
    const expected = ['alice', 'bob', 'room', 'carol'];
    expect(await found({ query: '1380' })).toEqual(expected);
    for (const limit of [1, 2, 3]) expect(await allPages({ query: '1380' }, limit)).toEqual(expected);
  });

  it('lists every account newest first without a query, paged at every size without duplicates or gaps, ties broken by id', async () => {
    const expected = await newestFirst();
    // The operators registered last, then the accounts by age, then the microsecond neighbours around the tie.
    expect(expected.slice(0, 13)).toEqual(['user', 'support', 'admin', ...ACCOUNTS.map((a) => a[0]), 'micro+1']);
    expect(expected.slice(13, 17).sort()).toEqual(['tie1', 'tie2', 'tie3', 'tie4']);
    expect(expected.at(-1)).toBe('micro-1');
    expect(await found({})).toEqual(expected);
    expect(await found({ query: '' })).toEqual(expected);
    expect(await found({ query: '   ' })).toEqual(expected);
    for (const limit of [1, 2, 3, 4, 5, 7]) {
      const names = await allPages({}, limit);
      expect({ limit, names }).toEqual({ limit, names: expected });
    }
    const first = page(transport, await search(transport, admin.accessToken, {}));
    expect(first.items).toHaveLength(18); // the default page size is 20
    expect(first.next).toBeNull();
  });

  it('narrows by status and role, alone, together and with a query', async () => {
    await t.sql(`update users set blocked_at = now(), blocked_reason = 'x' where id = any($1::uuid[])`, [[id.alice, id.percent]]);
    await t.sql(`update users set role = 'SUPPORT' where id = $1`, [id.bob]);
    await t.sql(`update users set role = 'ADMIN' where id = $1`, [id.bobx]);
    expect(await found({ status: 'BLOCKED' })).toEqual(['alice', 'percent']);
    expect(await found({ status: 'ACTIVE' })).toEqual(await newestFirst('blocked_at is null'));
    expect(await found({ role: 'ADMIN' })).toEqual(['admin', 'bobx']);
    expect(await found({ role: 'SUPPORT' })).toEqual(['support', 'bob']);
    expect(await found({ role: 'USER' })).toEqual(await newestFirst(`role = 'USER'`));
    expect(await found({ role: 'USER', status: 'BLOCKED' })).toEqual(['alice', 'percent']);
    expect(await found({ role: 'SUPPORT', status: 'BLOCKED' })).toEqual([]);
    expect(await found({ query: 'bob', role: 'SUPPORT' })).toEqual(['bob']);
    expect(await found({ query: 'bob', role: 'ADMIN' })).toEqual(['bobx']);
    expect(await found({ query: 'bob', status: 'BLOCKED' })).toEqual([]);
    expect(await found({ query: '+86138001', status: 'BLOCKED' })).toEqual(['alice']);
    expect(await found({ query: '+86138001', status: 'ACTIVE' })).toEqual(['bob']);
    expect(await found({ query: id.alice, status: 'ACTIVE' })).toEqual([]);
    for (const limit of [1, 2]) expect(await allPages({ status: 'ACTIVE' }, limit)).toEqual(await newestFirst('blocked_at is null'));
  });

  it('shows each account as AdminUser: role, status, block and live sessions, and nothing secret', async () => {
    await t.sql(`update users set blocked_at = now(), blocked_reason = 'x' where id = $1`, [id.alice]);
    const [alice] = page(transport, await search(transport, support.accessToken, { query: '+8613800138000' })).items;
    expect(alice).toEqual({
      id: id.alice,
      phone: '+8613800138000',
      nickname: 'Alice Wonder',
      avatarUrl: null,
      hasPassword: false,
      role: 'USER',
      locale: null,
      createdAt: expect.any(String),
      lastLoginAt: null,
      status: 'BLOCKED',
      blockedAt: expect.any(String),
      blockedReason: 'x',
      activeSessions: 0,
      mfaEnabled: false,
      passkeys: 0,
      identities: [],
      pendingPhoneChange: null,
    });
    const [me] = page(transport, await search(transport, support.accessToken, { query: support.userId })).items;
    expect(me).toMatchObject({ id: support.userId, phone: support.phone, role: 'SUPPORT', status: 'ACTIVE', blockedAt: null, hasPassword: true, activeSessions: 1 });
    expect(JSON.stringify(me)).not.toMatch(/password_?hash|\$2[aby]\$/i);
  });

  it('lets SUPPORT and ADMIN search; USER is FORBIDDEN before its input is read; no token, a bad one and a blocked admin are UNAUTHENTICATED', async () => {
    expect(await found({ query: 'wonder' }, support.accessToken)).toEqual(['alice']);
    expect(await found({ query: 'wonder' }, admin.accessToken)).toEqual(['alice']);
    expect(failure(await search(transport, user.accessToken, { query: 'wonder' }), transport, 'FORBIDDEN')).toEqual([]);
    expect(failure(await search(transport, user.accessToken, { query: 'x'.repeat(101), cursor: 'nonsense' }), transport, 'FORBIDDEN')).toEqual([]);
    for (const token of [undefined, 'not-a-jwt', `${admin.accessToken}x`]) failure(await search(transport, token, {}), transport, 'UNAUTHENTICATED');
    // A demoted operator is refused on the next request with the same token.
    await t.sql(`update users set role = 'USER' where id = $1`, [support.userId]);
    failure(await search(transport, support.accessToken, {}), transport, 'FORBIDDEN');
    // A blocked account's tokens stop at once, an admin's included.
    await t.sql(`update users set blocked_at = now(), blocked_reason = 'x' where id = $1`, [admin.userId]);
    failure(await search(transport, admin.accessToken, {}), transport, 'UNAUTHENTICATED');
  });

  it('refuses each bad input with VALIDATION_FAILED naming its field', async () => {
    const cursorField = transport === 'REST' ? 'cursor' : 'after';
    const limitField = transport === 'REST' ? 'limit' : 'first';
    const uuid = id.alice!;
    const cases: [Params, string][] = [
      [{ query: 'x'.repeat(101) }, 'query'],
      [{ query: 'a\u0000b' }, 'query'], // PostgreSQL text cannot hold NUL: no nickname has one
      [{ cursor: 'nonsense' }, cursorField],
      [{ cursor: 'x'.repeat(201) }, cursorField],
      [{ cursor: b64('event:5') }, cursorField], // another list's cursor
      [{ cursor: b64(`user:2026-01-01T00:00:00.000Z:${uuid}`) }, cursorField], // milliseconds, not microseconds
      [{ cursor: b64('user:2026-01-01T00:00:00.000000Z:not-a-uuid') }, cursorField],
      [{ cursor: b64(`user:2026-13-01T00:00:00.000000Z:${uuid}`) }, cursorField],
      [{ cursor: b64(`user:2026-02-30T00:00:00.000000Z:${uuid}`) }, cursorField], // a day February does not have
      [{ cursor: b64(`user:0000-01-01T00:00:00.000000Z:${uuid}`) }, cursorField], // PostgreSQL has no year 0
      [{ limit: 0 }, limitField],
      [{ limit: 101 }, limitField],
      [{ limit: -1 }, limitField],
    ];
    if (transport === 'REST') {
      cases.push([{ status: 'DELETED' }, 'status'], [{ status: 'blocked' }, 'status'], [{ role: 'OWNER' }, 'role'], [{ limit: 'abc' }, 'limit'], [{ limit: 1.5 }, 'limit']);
    }
    for (const [params, field] of cases) {
      const res = await search(transport, admin.accessToken, params);
      expect({ params, fields: failure(res, transport, 'VALIDATION_FAILED') }).toEqual({ params, fields: [field] });
    }
    if (transport === 'REST') {
      const both = await search(transport, admin.accessToken, { query: 'x'.repeat(101), limit: 0 });
      expect(failure(both, transport, 'VALIDATION_FAILED')).toEqual(['limit', 'query']);
      const twice = await t.http.get('/api/v1/admin/users?query=a&query=b', { token: admin.accessToken });
      expect(failure(twice, transport, 'VALIDATION_FAILED')).toEqual(['query']);
    } else {
      // Enums and Int are the schema's: a value outside them fails GraphQL validation (HTTP 400).
      for (const params of [{ status: 'DELETED' }, { role: 'OWNER' }, { role: 'admin' }, { limit: 1.5 }, { limit: 'abc' }] as Params[]) {
        const res = await search(transport, admin.accessToken, params);
        failure(res, transport, 'VALIDATION_FAILED');
        expect({ params, status: res.status }).toEqual({ params, status: 400 });
      }
    }
    // The edges of what is accepted, and empty REST parameters read as absent.
    expect(await found({ query: 'x'.repeat(100) })).toEqual([]);
    expect(page(transport, await search(transport, admin.accessToken, { limit: 1 })).items).toHaveLength(1);
    if (transport === 'REST') {
      const empty = await t.http.get('/api/v1/admin/users?query=&status=&role=&cursor=&limit=', { token: admin.accessToken });
      expect(page(transport, empty).items).toHaveLength(18);
    }
  });

  it('audits a search that names one account by its full id (any case) or full phone (any form) as a reading of it, and no other search', async () => {
    // The audit log and the events are append-only: what earlier tests left stays, so only newer rows count.
    const [since] = await t.sql<{ audit: string; event: string }>('select (select coalesce(max(id), 0) from audit_log)::text as audit, (select coalesce(max(id), 0) from security_events)::text as event');
    const readings = () =>
      t.sql<{ target: string; actor: string; detail: any }>(
        `select target_user_id as target, actor_id as actor, detail from audit_log where action = 'USER_VIEWED' and id > $1 order by id`,
        [since!.audit],
      );
    const viewed = () => t.sql<{ user: string }>(`select user_id as "user" from security_events where type = 'ACCOUNT_VIEWED_BY_OPERATOR' and id > $1 order by id`, [since!.event]);
    for (const query of [undefined, 'wonder', '138001', '+86138', '1380', id.alice!.slice(0, 8)]) {
      await found({ query }, admin.accessToken);
      await found({ query, status: 'ACTIVE' }, support.accessToken);
    }
    expect({ readings: await readings(), viewed: await viewed() }).toEqual({ readings: [], viewed: [] });
    const naming = [id.alice!, id.alice!.toUpperCase(), '+8613800138000', '13800138000', '138 0013 8000', '008613800138000'];
    for (const query of naming) expect(await found({ query }, support.accessToken)).toEqual(['alice']);
    // A number of another region than the default one, in E.164.
    expect(await found({ query: '+12025550123' })).toEqual(['room']);
    const entries = await readings();
    expect(entries).toEqual([
      ...naming.map(() => ({ target: id.alice, actor: support.userId, detail: expect.objectContaining({ read: 'details', via: 'search' }) })),
      { target: id.room, actor: admin.userId, detail: expect.objectContaining({ read: 'details', via: 'search' }) },
    ]);
    expect(await viewed()).toEqual([...naming.map(() => ({ user: id.alice })), { user: id.room }]);
  });
});
