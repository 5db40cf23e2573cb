import { expect } from '@jest/globals';
import { MeDocument } from '../generated/graphql.js';
import type { TestServer } from '../helpers/server.js';

/** What both transports answer a signed-in request carrying `token`. */
export async function answersTo(t: TestServer, token: string): Promise<{ rest: string; graphql: string }> {
  const rest = await t.http.get('/api/v1/users/me', { token });
  const graphql = await t.http.gql(MeDocument, {}, { token });
  const restAnswer = rest.status === 200 ? `200 ${rest.body.id}` : `${rest.status} ${rest.body.code} ${rest.headers.get('www-authenticate')}`;
  const error = graphql.body.errors?.[0]?.extensions?.code;
  return { rest: restAnswer, graphql: error ?? `OK ${graphql.body.data?.me.id}` };
}

/** Both transports accept the token as `userId`'s. */
export async function expectAccepted(t: TestServer, token: string, userId: string): Promise<void> {
  expect(await answersTo(t, token)).toEqual({ rest: `200 ${userId}`, graphql: `OK ${userId}` });
}

/** Both transports refuse the token: 401 UNAUTHENTICATED with RFC 6750's header on REST, UNAUTHENTICATED on GraphQL. */
export async function expectRefused(t: TestServer, token: string): Promise<void> {
  expect(await answersTo(t, token)).toEqual({ rest: '401 UNAUTHENTICATED Bearer error="invalid_token"', graphql: 'UNAUTHENTICATED' });
}

/** A JWT with `header` and `payload` and the given signature segment, signed by nobody. */
export function unsignedToken(header: Record<string, unknown>, payload: Record<string, unknown>, signature = ''): string {
  const segment = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${segment(header)}.${segment(payload)}.${signature}`;
}

/**
 * How both transports refuse a request with this Authorization header (none when undefined): REST's
 * status, code and `reason` (with RFC 6750's header), GraphQL's `extensions.code` and `reason`, on
 * the lean path of POST /graphql and on Express's (a query string keeps a request off the lean path).
 */
export async function refusalsOf(t: TestServer, authorization: string | undefined): Promise<{ rest: string; graphql: string; express: string }> {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  const rest = await t.http.get('/api/v1/users/me', { headers });
  const gql = async (path: string) => {
    const res = await t.http.request('POST', path, { headers, body: { query: '{ me { id } }' } });
    const error = res.body.errors?.[0]?.extensions;
    return error ? `${error.code} ${error.reason}` : `OK ${res.body.data?.me.id}`;
  };
  const www = rest.headers.get('www-authenticate');
  return {
    rest: rest.status === 200 ? `200 ${rest.body.id}` : `${rest.status} ${rest.body.code} ${rest.body.reason}${www ? '' : ' (no WWW-Authenticate)'}`,
    graphql: await gql('/graphql'),
    express: await gql('/graphql?path=express'),
  };
}

/** Both transports refuse `authorization` as UNAUTHENTICATED with this `reason`. */
export async function expectRefusedFor(t: TestServer, authorization: string | undefined, reason: string): Promise<void> {
  expect(await refusalsOf(t, authorization)).toEqual({ rest: `401 UNAUTHENTICATED ${reason}`, graphql: `UNAUTHENTICATED ${reason}`, express: `UNAUTHENTICATED ${reason}` });
}
