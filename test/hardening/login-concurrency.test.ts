// Password checks in parallel (API.md section 5, "password login failures"): a right password is never
// told that it failed and never counts as a failure, while parallel wrong guesses still get no more
// comparisons than the limit allows. Requests are spread over two instances sharing one store, with
// counters in PostgreSQL, then in Redis (skipped with a printed reason only when there is none).
import { describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { LoginWithPasswordDocument } from '../generated/graphql.js';
import { GOOD_PASSWORD, registerUser } from '../helpers/factories.js';
import { describeWithRedis, instancePair, type Pair } from '../helpers/instances.js';
import type { TestServer } from '../helpers/server.js';
import { errorOf, expectRetryAfter } from '../graphql/support.js';
import { expectProblem, expectRateLimited } from '../rest/support.js';

const LIMIT = 5; // LOGIN_FAILURES_PER_PHONE_IP's default
const LOCKED = 'Too many failed password attempts; try again later';
const BUSY = 'Too many password attempts in progress; try again in a moment';

/** A password check's answer, in the terms of API.md; `retryAfter` and `detail` for a 429 only. */
interface Outcome {
  kind: 'ok' | 'invalid' | 'busy' | 'locked';
  retryAfter?: number;
  detail?: string;
}

interface Transport {
  name: string;
  login(server: TestServer, phone: string, password: string): Promise<Outcome>;
}

const rest: Transport = {
  name: 'REST',
  async login(server, phone, password) {
    const res = await server.http.post('/api/v1/auth/login-password', { phone, password });
    if (res.status === 200) return { kind: 'ok' };
    if (res.status === 401) {
      expectProblem(res, 401, 'INVALID_CREDENTIALS');
      return { kind: 'invalid' };
    }
    const retryAfter = expectRateLimited(res, 86400);
    return { kind: res.body.detail === BUSY ? 'busy' : 'locked', retryAfter, detail: res.body.detail };
  },
};

const graphql: Transport = {
  name: 'GraphQL',
  async login(server, phone, password) {
    const res = await server.http.gql(LoginWithPasswordDocument, { input: { phone, password } });
    if (res.body.data?.loginWithPassword) return { kind: 'ok' };
    if (res.body.errors?.[0]?.extensions?.code === 'INVALID_CREDENTIALS') {
      errorOf(res, 'INVALID_CREDENTIALS');
      return { kind: 'invalid' };
    }
    const retryAfter = expectRetryAfter(res);
    const detail = res.body.errors![0]!.message;
    return { kind: detail === BUSY ? 'busy' : 'locked', retryAfter, detail };
  },
};

const kinds = (outcomes: Outcome[]) =>
  outcomes.reduce<Record<string, number>>((acc, o) => ({ ...acc, [o.kind]: (acc[o.kind] ?? 0) + 1 }), {});

interface Store {
  /** The live value of a counter of the shared store, 0 when absent or expired. */
  counter(key: string): Promise<number>;
}

function parallelPasswordChecks(pair: Pair, store: Store): void {
  /** `n` attempts at once, alternating between the two instances. */
  const inParallel = (transport: Transport, n: number, phone: string, password: string | ((i: number) => string)) =>
    Promise.all(
      Array.from({ length: n }, (_, i) =>
        transport.login(i % 2 === 0 ? pair.a : pair.b, phone, typeof password === 'string' ? password : password(i)),
      ),
    );
  const failKey = (phone: string) => `login-fail:phone-ip:${phone}:127.0.0.1`;

  for (const transport of [rest, graphql]) {
    it(`answers 30 parallel right passwords over ${transport.name} with success or a short retry, never a failure`, async () => {
      const user = await registerUser(pair.a);
      let outcomes = await inParallel(transport, 30, user.phone, GOOD_PASSWORD);
      expect(outcomes.filter((o) => o.kind !== 'ok' && o.kind !== 'busy')).toEqual([]);
      expect(kinds(outcomes).ok).toBeGreaterThanOrEqual(LIMIT);
      // 30 at once against room for 5: some are told "in progress" (README: the others retry in 1 s).
      expect(kinds(outcomes).busy ?? 0).toBeGreaterThan(0);
      // Each client waits as told and tries again; at least LIMIT get through in every round.
      for (let round = 1; outcomes.some((o) => o.kind === 'busy'); round++) {
        const busy = outcomes.filter((o) => o.kind === 'busy');
        for (const o of busy) expect(o).toEqual({ kind: 'busy', retryAfter: 1, detail: BUSY });
        const wait = Math.max(...busy.map((o) => o.retryAfter!));
        expect(round).toBeLessThan(30 / LIMIT);
        await sleep(wait * 1000);
        outcomes = await inParallel(transport, busy.length, user.phone, GOOD_PASSWORD);
        expect(outcomes.filter((o) => o.kind !== 'ok' && o.kind !== 'busy')).toEqual([]);
      }
      expect(await store.counter(failKey(user.phone))).toBe(0);
      expect(await store.counter(`${failKey(user.phone)}:in-flight`)).toBe(0);
      // No success was counted: the full allowance of failures is still there.
      for (let i = 0; i < LIMIT; i++) expect(await transport.login(pair.b, user.phone, `wrong-password-${i}`)).toEqual({ kind: 'invalid' });
      const locked = await transport.login(pair.a, user.phone, GOOD_PASSWORD);
      expect(locked).toEqual({ kind: 'locked', retryAfter: expect.any(Number), detail: LOCKED });
      expect(locked.retryAfter).toBeGreaterThan(800);
    });
  }

  it('compares at most 5 of 30 parallel wrong passwords, then refuses the right one until the window ends', async () => {
    const user = await registerUser(pair.a);
    const outcomes = await inParallel(rest, 30, user.phone, (i) => `wrong-password-${i}`);
    expect(kinds(outcomes).invalid).toBe(LIMIT);
    expect(outcomes.filter((o) => o.kind === 'ok')).toEqual([]);
    // The other 25: refused, either while the 5 are compared ("in progress") or once they have failed.
    for (const o of outcomes.filter((o) => o.kind !== 'invalid')) {
      expect(o).toEqual(o.kind === 'busy' ? { kind: 'busy', retryAfter: 1, detail: BUSY } : { kind: 'locked', retryAfter: expect.any(Number), detail: LOCKED });
    }
    expect(await store.counter(failKey(user.phone))).toBe(LIMIT);
    expect(await store.counter(`${failKey(user.phone)}:in-flight`)).toBe(0);
    for (const transport of [rest, graphql]) {
      const locked = await transport.login(pair.b, user.phone, GOOD_PASSWORD);
      expect(locked).toEqual({ kind: 'locked', retryAfter: expect.any(Number), detail: LOCKED });
      expect(locked.retryAfter).toBeGreaterThan(800);
      expect(locked.retryAfter).toBeLessThanOrEqual(900);
    }
  });

  it('never tells a right password mixed with parallel wrong ones that it is wrong', async () => {
    const user = await registerUser(pair.a);
    const outcomes = await inParallel(rest, 20, user.phone, (i) => (i % 4 === 0 ? GOOD_PASSWORD : `wrong-password-${i}`));
    outcomes.forEach((o, i) => {
      if (i % 4 === 0) expect(o.kind).not.toBe('invalid');
      else expect(o.kind).not.toBe('ok');
    });
    expect(kinds(outcomes).invalid ?? 0).toBeLessThanOrEqual(LIMIT);
    expect(await store.counter(failKey(user.phone))).toBe(kinds(outcomes).invalid ?? 0);
    expect(await store.counter(`${failKey(user.phone)}:in-flight`)).toBe(0);
  });
}

describe('parallel password checks with counters in PostgreSQL', () => {
  const pair = instancePair(() => ({}));
  parallelPasswordChecks(pair, {
    async counter(key) {
      const rows = await pair.a.sql<{ count: number }>('select count from rate_limits where key = $1 and reset_at > now()', [key]);
      return rows[0]?.count ?? 0;
    },
  });
});

describeWithRedis('parallel password checks with counters in Redis', ({ env, prefix, client: redis }) => {
  const pair = instancePair(() => env);
  parallelPasswordChecks(pair, {
    async counter(key) {
      expect(await pair.a.sql('select key from rate_limits where key like $1', ['login-fail:%'])).toEqual([]);
      return Number((await redis().get(`${prefix}rl:${key}`)) ?? 0);
    },
  });
});
