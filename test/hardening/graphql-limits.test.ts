// GraphQL document limits (API.md section 5), batching, rate limits per resolver call, and what the
// production schema hides. Each refused document stays within every limit but the one under test.
import { describe, expect, it } from '@jest/globals';
import { parse } from 'graphql';
import { GOOD_PASSWORD, registerUser } from '../helpers/factories.js';
import type { GraphQLResponse, HttpResult } from '../helpers/http.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { dataOf, expectNothingInternal, expectRetryAfter } from '../graphql/support.js';
import { expectNoLeaks, expectProblem } from '../rest/support.js';

type Res = HttpResult<GraphQLResponse<any>>;

const t = useTestServer();

const gql = (query: string, variables?: unknown, server = t): Promise<Res> => server.http.post('/graphql', { query, variables });
const count = async (sql: string) => Number((await t.sql<{ n: number }>(sql))[0]!.n);
const rateLimitRows = () => count('select count(*)::int as n from rate_limits');

/** `levels` inline fragments on SendCodeResult around `inner`: each adds one to the depth. */
const nested = (levels: number, inner: string) =>
  Array.from({ length: levels }).reduce<string>((acc) => `... on SendCodeResult { ${acc} }`, inner);
const sendCode = (phone: string, selection: string) => `mutation { sendCode(input: { phone: "${phone}" }) { ${selection} } }`;

/** 400 VALIDATION_FAILED, nothing executed, and (when given) the named limit among the reasons. */
function expectRefused(res: Res, reason?: RegExp): void {
  expect(res.status).toBe(400);
  expect(res.body.data ?? null).toBeNull();
  expect(res.body.errors?.length).toBeGreaterThan(0);
  expect(res.body.errors!.map((e) => e.extensions?.code)).toEqual(res.body.errors!.map(() => 'VALIDATION_FAILED'));
  if (reason) expect(res.body.errors!.map((e) => e.message).join('\n')).toMatch(reason);
  expectNothingInternal(res);
}

/** Proof that no resolver ran: no SMS, no counter, no session. */
async function expectNothingRan(): Promise<void> {
  expect(await t.outbox()).toEqual([]);
  expect(await rateLimitRows()).toBe(0);
  expect(await count('select count(*)::int as n from sessions')).toBe(0);
}

describe('depth limit (10)', () => {
  it('runs a mutation exactly 10 levels deep', async () => {
    const res = await gql(sendCode(newPhone(), nested(8, 'expiresIn')));
    expect(dataOf(res).sendCode).toEqual({ expiresIn: 300 });
    expect(await t.outbox()).toHaveLength(1);
  });

  it('refuses a mutation 11 levels deep with VALIDATION_FAILED before its resolver runs', async () => {
    expectRefused(await gql(sendCode(newPhone(), nested(9, 'expiresIn'))), /depth limit of 10 exceeded, found 11/);
    await expectNothingRan();
  });

  it('refuses 40-level documents, made of inline fragments or of introspection fields', async () => {
    expectRefused(await gql(sendCode(newPhone(), nested(38, 'expiresIn'))), /depth limit of 10 exceeded, found 40/);
    const ofType = Array.from({ length: 38 }).reduce<string>((acc) => `ofType { ${acc} }`, 'name');
    expectRefused(await gql(`{ __type(name: "Query") { fields { type { ${ofType} } } } }`), /depth limit of 10 exceeded/);
    await expectNothingRan();
  });
});

describe('alias limit (15)', () => {
  const aliased = (n: number, field: string) => Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ');

  it('answers 15 aliased fields', async () => {
    const data = dataOf(await gql(`{ ${aliased(15, 'config { registrationEnabled }')} }`));
    expect(Object.keys(data)).toHaveLength(15);
  });

  it('refuses 16 aliased loginWithPassword calls before any resolver runs', async () => {
    const user = await registerUser(t);
    const query = `mutation($i: PasswordLoginInput!) { ${aliased(16, 'loginWithPassword(input: $i) { accessToken }')} }`;
    expectRefused(await gql(query, { i: { phone: user.phone, password: GOOD_PASSWORD } }), /Aliases limit of 15 exceeded, found 16/);
    expect(await count("select count(*)::int as n from rate_limits where key like 'login-fail:%'")).toBe(0);
    expect(await count('select count(*)::int as n from sessions')).toBe(1); // the registration's own
  });

  it('refuses 100 aliased loginWithPassword calls, right and wrong passwords, leaving no trace', async () => {
    const user = await registerUser(t);
    const calls = Array.from({ length: 100 }, (_, i) => {
      const password = i % 2 === 0 ? GOOD_PASSWORD : `wrong-password-${i}`;
      return `l${i}: loginWithPassword(input: { phone: "${user.phone}", password: "${password}" }) { accessToken }`;
    });
    // About 1,900 tokens: the token limit refuses it first; the 16-alias case above isolates the alias limit.
    expectRefused(await gql(`mutation { ${calls.join(' ')} }`));
    expect(await count("select count(*)::int as n from rate_limits where key like 'login-fail:%'")).toBe(0);
    expect(await count('select count(*)::int as n from sessions')).toBe(1);
  });
});

describe('directive limit (50)', () => {
  const withDirectives = (n: number) => Array.from({ length: n }, () => 'expiresIn @include(if: true)').join(' ');

  it('runs a document with 50 directives', async () => {
    expect(dataOf(await gql(sendCode(newPhone(), withDirectives(50)))).sendCode).toEqual({ expiresIn: 300 });
    expect(await t.outbox()).toHaveLength(1);
  });

  it('refuses 51 directives with VALIDATION_FAILED before the resolver runs', async () => {
    expectRefused(await gql(sendCode(newPhone(), withDirectives(51))), /Directives limit of 50 exceeded, found 51/);
    await expectNothingRan();
  });
});

describe('token limit (1000)', () => {
  /** A mutation of exactly `tokens` tokens: identical sendCode selections (merged, so run once) and padding. */
  function document(tokens: number): string {
    const phone = newPhone();
    const block = `sendCode(input: { phone: "${phone}" }) { expiresIn }`; // 13 tokens
    const blocks = Math.floor((tokens - 3) / 13);
    const query = `mutation { ${Array(blocks).fill(block).join(' ')} ${Array(tokens - 3 - 13 * blocks).fill('__typename').join(' ')} }`;
    expect(() => parse(query, { maxTokens: tokens })).not.toThrow();
    expect(() => parse(query, { maxTokens: tokens - 1 })).toThrow(/tokens/);
    return query;
  }

  it('runs a document of exactly 1000 tokens', async () => {
    expect(dataOf(await gql(document(1000))).sendCode).toEqual({ expiresIn: 300 });
    expect(await t.outbox()).toHaveLength(1);
  });

  it('refuses 1001 tokens with 400 VALIDATION_FAILED (not 500) before anything runs', async () => {
    expectRefused(await gql(document(1001)), /more than 1000 tokens/);
    expectRefused(await gql(document(5000)), /more than 1000 tokens/);
    await expectNothingRan();
  });
});

describe('cost limit (5000)', () => {
  // Depth 10 (sendCode, 8 fragments, leaves); cost ≈ 150 + 38.4 per leaf, so 100 leaves ≈ 3994, 200 ≈ 7838.
  const costly = (leaves: number) => sendCode(newPhone(), nested(8, Array(leaves).fill('expiresIn').join(' ')));

  it('runs a document under the cost limit', async () => {
    expect(dataOf(await gql(costly(100))).sendCode).toEqual({ expiresIn: 300 });
  });

  it('refuses a document over the cost limit, within every other limit, before its resolver runs', async () => {
    const res = await gql(costly(200));
    expectRefused(res, /Cost limit of 5000 exceeded/);
    expect(res.body.errors).toHaveLength(1);
    await expectNothingRan();
  });
});

describe('batching (off)', () => {
  it('refuses a JSON array of operations with 400 VALIDATION_FAILED and runs none of them', async () => {
    const op = (phone: string) => ({ query: sendCode(phone, 'expiresIn') });
    const res = await t.http.request('POST', '/graphql', {
      rawBody: JSON.stringify([op(newPhone()), op(newPhone())]),
      headers: { 'content-type': 'application/json' },
    });
    expectRefused(res, /batching disabled/i);
    await expectNothingRan();
  });
});

describe('rate limits count resolver calls, not HTTP requests', () => {
  const ipLimited = useTestServer({ SEND_CODE_PER_IP_HOURLY: '2' });

  it('refuses the third of three aliased sendCode calls when 2 codes per address are allowed', async () => {
    const phones = [newPhone(), newPhone(), newPhone()];
    const query = `mutation { ${phones.map((p, i) => `s${i}: sendCode(input: { phone: "${p}" }) { expiresIn }`).join(' ')} }`;
    const res = await gql(query, undefined, ipLimited);
    expect(res.body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['s2'], 'RATE_LIMITED']]);
    expectRetryAfter(res);
    expect((await ipLimited.outbox()).map((m) => m.phone)).toEqual(phones.slice(0, 2));
  });

  it('evaluates aliased password guesses one per request and refuses the sixth at the limit of 5', async () => {
    const user = await registerUser(t);
    const guesses = `mutation($i: PasswordLoginInput!) { ${Array.from({ length: 6 }, (_, i) => `g${i}: loginWithPassword(input: $i) { accessToken }`).join(' ')} }`;
    const failures = () => count(`select coalesce(max(count), 0)::int as n from rate_limits where key like 'login-fail:phone-ip:%'`);
    for (let i = 1; i <= 5; i++) {
      const res = await gql(guesses, { i: { phone: user.phone, password: `wrong-password-${i}` } });
      // Mutations run in order and stop at the first failure: one guess per request, and it counts.
      expect(res.body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['g0'], 'INVALID_CREDENTIALS']]);
      expect(await failures()).toBe(i);
    }
    const locked = await gql(guesses, { i: { phone: user.phone, password: GOOD_PASSWORD } });
    expect(locked.body.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['g0'], 'RATE_LIMITED']]);
    expect(await count('select count(*)::int as n from sessions')).toBe(1);
  });
});

describe('in production', () => {
  const prod = useTestServer({ NODE_ENV: 'production' });

  it('hides field suggestions', async () => {
    for (const query of ['{ confg { registrationEnabled } }', '{ config { registrationEnable } }', 'mutation { sendCod(input: { phone: "1" }) { expiresIn } }']) {
      const res = await gql(query, undefined, prod);
      expectRefused(res);
      expect(JSON.stringify(res.body)).not.toMatch(/Did you mean|"config"|registrationEnabled\b|"sendCode"/);
    }
  });

  it('refuses introspection of the schema and of a type', async () => {
    for (const query of ['{ __schema { types { name } } }', '{ __type(name: "Query") { fields { name } } }']) {
      expectRefused(await gql(query, undefined, prod), /introspection/i);
    }
  });
});

describe('in production, an unexpected failure', () => {
  // A server of its own, declared to provoke a fault of the service: its error-level log lines are expected.
  const prod = useTestServer({ NODE_ENV: 'production' }, { expectFaults: true });

  it('is masked as INTERNAL with a request id, on both transports', async () => {
    await t.sql('alter table users rename to users_gone');
    let rest: HttpResult;
    let graphql: Res;
    try {
      const input = { phone: newPhone(), password: GOOD_PASSWORD };
      rest = await prod.http.post('/api/v1/auth/login-password', input);
      graphql = await gql('mutation($i: PasswordLoginInput!) { loginWithPassword(input: $i) { accessToken } }', { i: input }, prod);
    } finally {
      await t.sql('alter table users_gone rename to users');
    }
    const problem = expectProblem(rest, 500, 'INTERNAL');
    expect(problem.requestId).toBe(rest.headers.get('x-request-id'));
    expect(graphql.body.errors).toEqual([
      expect.objectContaining({ message: 'An unexpected error occurred; quote the request id when reporting it', extensions: { code: 'INTERNAL', requestId: graphql.headers.get('x-request-id') } }),
    ]);
    for (const res of [rest, graphql]) {
      expectNoLeaks(res);
      expect(JSON.stringify(res.body)).not.toMatch(/users|relation|stack/);
    }
  });
});

describe('in development', () => {
  const dev = useTestServer({ NODE_ENV: 'development' });

  it('suggests field names and answers introspection', async () => {
    const res = await gql('{ confg { registrationEnabled } }', undefined, dev);
    expectRefused(res, /Did you mean "config"\?/);
    const types = dataOf(await gql('{ __schema { types { name } } }', undefined, dev)).__schema.types.map((x: { name: string }) => x.name);
    expect(types).toEqual(expect.arrayContaining(['Query', 'Mutation', 'AuthPayload']));
  });
});
