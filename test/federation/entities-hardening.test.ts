// API.md 10.0: `_entities` takes only representations of this subgraph's entities (`User`, with its
// key `id`, a UUID in any case), at most 500 per field and 1,000 per operation, each counted in the
// operation's cost like one object. Anything else is refused with 400 VALIDATION_FAILED before any
// reference is resolved or any account read, whoever asks, inline or by variables; never INTERNAL,
// never an error-level log line.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { UNKNOWN_ID } from '../admin/support.js';
import { dataOf, expectNothingInternal } from '../graphql/support.js';
import { registerUser, type Session } from '../helpers/factories.js';
import type { GraphQLResponse, HttpResult } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';

const t = useTestServer({}, { captureLogs: true });

const SELECTION = '{ __typename ... on User { id nickname } }';
const byVariable = (fields = ['_entities']) => `query($r: [_Any!]!) { ${fields.map((f) => `${f}(representations: $r) ${SELECTION}`).join(' ')} }`;
const user = (id: string) => ({ __typename: 'User', id });

/** A JSON value as a GraphQL literal (object keys are GraphQL names here). */
function literal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value !== null && typeof value === 'object') return `{ ${Object.entries(value).map(([k, v]) => `${k}: ${literal(v)}`).join(', ')} }`;
  return JSON.stringify(value);
}

const post = (query: string, variables?: Record<string, unknown>, session?: Session): Promise<HttpResult<GraphQLResponse<any>>> =>
  t.http.post('/graphql', { query, variables }, session ? { token: session.accessToken } : {});

/** The accounts read for references (findManyById), counted while a test runs; where the test's log lines start. */
let reads: number;
let logStart: number;
let restore: () => void;
beforeEach(() => {
  reads = 0;
  logStart = t.logs().length;
  const accounts = t.server.services.accounts;
  const original = accounts.findManyById;
  accounts.findManyById = (ids) => {
    reads += 1;
    return original.call(accounts, ids);
  };
  restore = () => {
    accounts.findManyById = original;
  };
});
afterEach(() => restore());

/** Error-level lines of the server's log since the test started. */
const errorLines = () => t.logs().slice(logStart).split('\n').filter((line) => /"level":(50|60)\b/.test(line));

/** 400 VALIDATION_FAILED, no data, no reference resolved, nothing logged at error level. */
function expectRefused(res: HttpResult<GraphQLResponse<any>>, reason?: RegExp): void {
  expect(res.status).toBe(400);
  expect(res.body.data ?? null).toBeNull();
  expect(res.body.errors?.map((e) => e.extensions?.code)).toEqual(['VALIDATION_FAILED']);
  if (reason) expect(res.body.errors![0]!.message).toMatch(reason);
  expectNothingInternal(res);
  expect(reads).toBe(0);
  expect(errorLines()).toEqual([]);
}

describe('a malformed representation', () => {
  const malformed: [string, unknown][] = [
    ['a string', 'x'],
    ['a number', 7],
    ['null', null],
    ['an array', []],
    ['an object without __typename', { id: UNKNOWN_ID }],
    ['__typename Query', { __typename: 'Query', id: UNKNOWN_ID }],
    ['__typename Mutation', { __typename: 'Mutation', id: UNKNOWN_ID }],
    ['__typename AdminUser (not an entity)', { __typename: 'AdminUser', id: UNKNOWN_ID }],
    ['__typename of no type', { __typename: 'Nobody', id: UNKNOWN_ID }],
    ['__typename not a string', { __typename: 7, id: UNKNOWN_ID }],
    ['a User without id', { __typename: 'User' }],
    ['a User whose id is not a string', { __typename: 'User', id: 7 }],
    ['a User whose id is not a UUID', { __typename: 'User', id: 'not-an-id' }],
  ];

  it.each(malformed)('%s is VALIDATION_FAILED, anonymously and signed in, inline and by variables', async (_kind, representation) => {
    const caller = await registerUser(t);
    for (const session of [undefined, caller]) {
      // Among valid references: the whole operation is refused, none of them resolved.
      const representations = [user(caller.userId), representation];
      expectRefused(await post(byVariable(), { r: representations }, session));
      expectRefused(await post(`{ _entities(representations: ${literal(representations)}) ${SELECTION} }`, undefined, session));
    }
  });

  it('is refused alone, and given as a single value for the list', async () => {
    const caller = await registerUser(t);
    expectRefused(await post(byVariable(), { r: 'x' }, caller));
    expectRefused(await post(byVariable(), { r: { __typename: 'Query' } }, caller));
    expectRefused(await post(`{ _entities(representations: "x") ${SELECTION} }`, undefined, caller));
    expectRefused(await post(`{ e: _entities(representations: [{ __typename: "AdminUser", id: "${caller.userId}" }]) ${SELECTION} }`));
  });

  it('names the representation and the field it fails on', async () => {
    const caller = await registerUser(t);
    const res = await post(byVariable(), { r: [user(caller.userId), { __typename: 'AdminUser', id: caller.userId }, user('x')] }, caller);
    expectRefused(res);
    expect(res.body.errors![0]!.extensions?.fields).toEqual({ 'representations.1.__typename': expect.stringContaining('User') });
  });
});

describe('a well-formed representation', () => {
  it('of a UUID in upper case resolves the same account; an unknown UUID is null; anonymous callers are UNAUTHENTICATED', async () => {
    const [caller, host] = [await registerUser(t, undefined, undefined, 'Caller'), await registerUser(t, undefined, undefined, 'Host')];
    const res = await post(byVariable(), { r: [user(host.userId.toUpperCase()), user(UNKNOWN_ID), user(caller.userId.toUpperCase())] }, caller);
    expect(dataOf(res)._entities).toEqual([
      { __typename: 'User', id: host.userId, nickname: 'Host' },
      null,
      { __typename: 'User', id: caller.userId, nickname: 'Caller' },
    ]);
    const anonymous = await post(byVariable(), { r: [user(host.userId)] });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);
    expect(errorLines()).toEqual([]);
  });
});

describe('how many representations', () => {
  const many = (n: number, id: string) => Array.from({ length: n }, () => user(id));

  it('resolves 500 in one field, and two fields of 500 (1,000 in the operation)', async () => {
    const caller = await registerUser(t);
    const one = dataOf(await post(byVariable(), { r: many(500, caller.userId) }, caller));
    expect(one._entities).toHaveLength(500);
    const two = dataOf(await post(byVariable(['a: _entities', 'b: _entities']), { r: many(500, caller.userId) }, caller));
    expect([two.a.length, two.b.length]).toEqual([500, 500]);
  });

  it('refuses 501 in one field, anonymously too', async () => {
    const caller = await registerUser(t);
    expectRefused(await post(byVariable(), { r: many(501, caller.userId) }, caller), /at most 500 representations/);
    expectRefused(await post(byVariable(), { r: many(501, caller.userId) }), /at most 500 representations/);
  });

  it('refuses 1,001 across aliased fields of at most 500 each', async () => {
    const caller = await registerUser(t);
    const query = `query($r: [_Any!]!, $one: [_Any!]!) { a: _entities(representations: $r) ${SELECTION} b: _entities(representations: $r) ${SELECTION} c: _entities(representations: $one) ${SELECTION} }`;
    expectRefused(await post(query, { r: many(500, caller.userId), one: many(1, caller.userId) }, caller), /at most 1000 representations/);
    const inline = `query($r: [_Any!]!) { a: _entities(representations: $r) ${SELECTION} b: _entities(representations: $r) ${SELECTION} c: _entities(representations: ${literal(many(1, caller.userId))}) ${SELECTION} }`;
    expectRefused(await post(inline, { r: many(500, caller.userId) }, caller), /at most 1000 representations/);
  });

  it('refuses 15 aliases of 1,500 each', async () => {
    const caller = await registerUser(t);
    const query = byVariable(Array.from({ length: 15 }, (_, i) => `a${i}: _entities`));
    expectRefused(await post(query, { r: many(1500, caller.userId) }, caller), /at most 500 representations/);
  });
});

describe('the cost of representations', () => {
  /** Other fields of the operation: `__typename` leaves 8 inline fragments deep (about 26 each). */
  const costly = (leaves: number) => Array.from({ length: 8 }).reduce<string>((inner) => `... on Query { ${inner} }`, Array(leaves).fill('__typename').join(' '));
  const query = (leaves: number) => `query($r: [_Any!]!) { a: _entities(representations: $r) ${SELECTION} b: _entities(representations: $r) ${SELECTION} ${costly(leaves)} }`;

  it('counts each representation like one object: other fields and representations over the cost limit are refused', async () => {
    const caller = await registerUser(t);
    const r = (n: number) => Array.from({ length: n }, () => user(caller.userId));
    // The document alone costs about 3,450 (GraphQL Armor's count); 250 representations in each
    // field add 1,000 (2 each, as an object), 500 in each 2,000: within every other limit, over the cost.
    expect(dataOf(await post(query(130), { r: [] }, caller)).a).toEqual([]);
    expect(Object.keys(dataOf(await post(query(130), { r: r(1) }, caller)))).toEqual(['a', 'b', '__typename']);
    expect(dataOf(await post(query(130), { r: r(250) }, caller)).a).toHaveLength(250);
    reads = 0;
    expectRefused(await post(query(130), { r: r(500) }, caller), /Cost limit of 5000 exceeded, found 54\d\d/);
  });
});
