// Helpers of the tests of requests racing the deletion of their own account (not a test file).
import type { HttpResult } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';

export type Transport = 'REST' | 'GraphQL';

/** The limits that would refuse a test's many codes for one phone, lifted. */
export const MANY_CODES = {
  SEND_CODE_INTERVAL_SECONDS: '0',
  SEND_CODE_PER_PHONE_HOURLY: '100',
  SEND_CODE_PER_PHONE_DAILY: '100',
  SEND_CODE_PER_IP_HOURLY: '10000',
};

/** Deletes the signed-in user's account with a delete-account code. */
export function deleteAccount(t: TestServer, transport: Transport, token: string, code: string): Promise<HttpResult> {
  return transport === 'REST'
    ? t.http.request('DELETE', '/api/v1/users/me', { token, body: { code } })
    : t.http.post('/graphql', { query: 'mutation($c: String!) { deleteAccount(code: $c) }', variables: { c: code } }, { token });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `a` and `b` at once, one of them started `offsetMs` later: `b` when positive, `a` when negative. */
export function race<A, B>(offsetMs: number, a: () => Promise<A>, b: () => Promise<B>): Promise<[A, B]> {
  return Promise.all([sleep(Math.max(0, -offsetMs)).then(a), sleep(Math.max(0, offsetMs)).then(b)]);
}
