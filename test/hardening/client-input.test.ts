// Client input never yields a 5xx nor an error-level log line (API.md 8.0): path parameters that are
// not valid percent-encoding, cursors past what the database holds, operation types the schema has
// none of, persisted queries the service cannot read. Each answer is checked for its status and code
// on every transport that has the input, and the server's log for what the request wrote.
// test/global-teardown.mjs checks the same of the whole suite's log.
import { describe, expect, it } from '@jest/globals';
import express from 'express';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MySecurityEventsDocument } from '../generated/graphql.js';
import { errorHandler } from '../../src/shared/http/problem.js';
import { requestContext } from '../../src/shared/http/request-context.js';
import { createLogger } from '../../src/shared/logger.js';
import { waitFor } from '../helpers/wait.js';
import { signInWithCode } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';
import { errorOf } from '../graphql/support.js';
import { expectProblem } from '../rest/support.js';

const t = useTestServer({}, { captureLogs: true });

interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
  req?: { method: string; path: string };
}

/** The lines the server wrote for the request that `res` answers (by its X-Request-Id). */
function linesOf(res: HttpResult): LogLine[] {
  const id = res.headers.get('x-request-id');
  expect(id).toBeTruthy();
  return t
    .logs()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogLine)
    .filter((line) => line.requestId === id);
}

/** A client's mistake: written as its access-log line, at warn level like every 4xx, and as nothing else. */
function expectLoggedAsClientError(res: HttpResult, label: string): void {
  const lines = linesOf(res).map(({ level, msg }) => ({ level, msg }));
  expect({ label, lines }).toEqual({ label, lines: [{ level: 40, msg: 'request completed' }] });
}

/** Every route of the OpenAPI document with a parameter in its path, as [method, path with `{}` for the parameter]. */
async function parameterisedRoutes(): Promise<[method: string, template: string][]> {
  const { paths } = (await t.http.get('/api/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(paths)
    .filter(([path]) => path.includes('{'))
    .flatMap(([path, operations]) => Object.keys(operations).map((method): [string, string] => [method.toUpperCase(), path.replace(/\{[^}]+\}/g, '{}')]));
}

describe('a path parameter that is not valid percent-encoding', () => {
  // `%ZZ` is no escape, `%` an escape cut short, `%C0%80` an overlong (invalid) UTF-8 sequence.
  const MALFORMED = ['%ZZ', '%', '%C0%80', '%E2%82'];

  it('is 400 VALIDATION_FAILED naming the path, on every route with a parameter, signed in or not', async () => {
    const { accessToken } = await signInWithCode(t);
    const routes = await parameterisedRoutes();
    // The two of the contract; a route added later is covered through the document.
    expect(routes).toEqual(expect.arrayContaining([['GET', '/api/v1/avatars/{}'], ['DELETE', '/api/v1/users/me/sessions/{}']]));
    for (const value of MALFORMED) {
      for (const [method, template] of routes) {
        const path = template.replaceAll('{}', value);
        for (const token of [undefined, accessToken]) {
          const label = `${method} ${path} ${token ? 'signed in' : 'anonymously'}`;
          const res = await t.http.request(method, path, { token });
          expect({ label, status: res.status }).toEqual({ label, status: 400 });
          expect(expectProblem(res, 400, 'VALIDATION_FAILED').fields).toEqual({ '(path)': 'must be valid percent-encoded UTF-8' });
          expectLoggedAsClientError(res, label);
        }
      }
    }
  });

  it('is 400 to HEAD and OPTIONS requests too, which match the same routes', async () => {
    for (const [method, path] of [
      ['HEAD', '/api/v1/avatars/%ZZ'],
      ['HEAD', '/api/v1/users/me/sessions/%'],
      ['OPTIONS', '/api/v1/avatars/%'],
      ['OPTIONS', '/api/v1/users/me/sessions/%ZZ'],
    ] as const) {
      const res = await t.http.request(method, path);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 400 });
      if (method === 'OPTIONS') expectProblem(res, 400, 'VALIDATION_FAILED');
      expectLoggedAsClientError(res, `${method} ${path}`);
    }
  });

  it('leaves well-formed escapes to the route: an unknown session or avatar is still 404 NOT_FOUND', async () => {
    const { accessToken } = await signInWithCode(t);
    expectProblem(await t.http.request('DELETE', '/api/v1/users/me/sessions/%25', { token: accessToken }), 404, 'NOT_FOUND');
    expectProblem(await t.http.get('/api/v1/avatars/%E2%82%AC'), 404, 'NOT_FOUND');
  });
});

describe('a security-event cursor past the range of event ids', () => {
  const cursorOf = (id: string) => Buffer.from(`event:${id}`).toString('base64url');

  it('is 400 VALIDATION_FAILED naming the cursor on REST and GraphQL; the largest id there can be is a cursor like any other', async () => {
    const { accessToken: token } = await signInWithCode(t);
    // 2^63 - 1 is the largest bigint; one more, and the largest 19-digit number, are past it.
    for (const id of ['9223372036854775808', '9999999999999999999']) {
      const rest = await t.http.get(`/api/v1/users/me/security-events?cursor=${cursorOf(id)}`, { token });
      expect(expectProblem(rest, 400, 'VALIDATION_FAILED').fields).toEqual({ cursor: 'is not a cursor this service gave' });
      expectLoggedAsClientError(rest, `REST cursor of ${id}`);
      const graphql = await t.http.gql(MySecurityEventsDocument, { after: cursorOf(id) }, { token });
      expect(errorOf(graphql, 'VALIDATION_FAILED').extensions?.fields).toEqual({ after: 'is not a cursor this service gave' });
      expect(linesOf(graphql).filter((line) => line.level >= 50)).toEqual([]);
    }
    const newest = await t.http.get(`/api/v1/users/me/security-events?cursor=${cursorOf('9223372036854775807')}`, { token });
    expect(newest.status).toBe(200);
    expect(newest.body.items.length).toBeGreaterThan(0);
  });
});

describe('a GraphQL subscription over HTTP (subscriptions are served over WebSocket)', () => {
  // Each document is refused by the rule alone: its fields exist on Subscription, or it asks none.
  const SUBSCRIPTIONS = [
    'subscription { accountEvents { __typename } }',
    'subscription Events { accountEvents { type } }',
    'subscription Audit { adminAuditEntries { id action } }',
  ];

  it('is VALIDATION_FAILED (400), anonymously or signed in, by POST or GET, pointing at WebSocket, and writes no error line', async () => {
    const { accessToken } = await signInWithCode(t);
    for (const query of SUBSCRIPTIONS) {
      for (const token of [undefined, accessToken]) {
        const post = await t.http.post('/graphql', { query }, { token });
        const get = await t.http.get(`/graphql?query=${encodeURIComponent(query)}`, { token, headers: { 'apollo-require-preflight': '1' } });
        for (const [how, res] of [['POST', post], ['GET', get]] as const) {
          const label = `${how} ${query} ${token ? 'signed in' : 'anonymously'}`;
          expect({ label, status: res.status }).toEqual({ label, status: 400 });
          expect(errorOf(res, 'VALIDATION_FAILED').message).toBe('Subscriptions are served over WebSocket (graphql-transport-ws) at /graphql, not over HTTP');
          expectLoggedAsClientError(res, label);
        }
      }
    }
  });

  it('one that does not fit the schema either is refused for both, each VALIDATION_FAILED', async () => {
    const res = await t.http.post('/graphql', { query: 'subscription { mySecurityEvents { edges { cursor } } }' });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['VALIDATION_FAILED', 'VALIDATION_FAILED']);
    expectLoggedAsClientError(res, 'a subscription of a query field');
  });
});

describe('a persisted query the service cannot read', () => {
  it('is VALIDATION_FAILED (400) for a version other than 1 and for a hash that does not match the query', async () => {
    for (const [label, body] of [
      ['version 2', { extensions: { persistedQuery: { version: 2, sha256Hash: 'a'.repeat(64) } } }],
      ['hash of another query', { query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }],
    ] as const) {
      const res = await t.http.post('/graphql', body);
      expect({ label, status: res.status }).toEqual({ label, status: 400 });
      errorOf(res, 'VALIDATION_FAILED');
      expectLoggedAsClientError(res, label);
    }
  });
});

describe('a client that leaves before its answer is written', () => {
  it('is logged once per request as aborted, at warn level, when it closes a connection with pipelined requests unanswered', async () => {
    const before = t.logs().length;
    const socket = connect(Number(new URL(t.url).port), '127.0.0.1');
    await once(socket, 'connect');
    // Two requests in one write, then the connection closed: the second answer waits behind the
    // first, and Node ends it with an error of its own ("aborted") that is the client's doing.
    const request = (phone: string) => {
      const body = JSON.stringify({ phone });
      return `POST /api/v1/auth/send-code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    };
    socket.end(request('+8613800138001') + request('+8613800138002'));
    socket.destroy();
    const lines = () =>
      t
        .logs()
        .slice(before)
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as LogLine & { aborted?: boolean });
    const sendCodes = () => lines().filter((line) => line.req?.path === '/api/v1/auth/send-code');
    expect(await waitFor(() => sendCodes().length >= 2, 5_000, 20)).toBe(true);
    expect(sendCodes().map(({ level, aborted }) => ({ level, aborted }))).toEqual([
      { level: 40, aborted: true },
      { level: 40, aborted: true },
    ]);
    expect(lines().filter((line) => line.level >= 50)).toEqual([]);
  });

  it('writes no error line when it closes a response half-way through its body', async () => {
    // The HTTP layer of the service around a route that streams a long body, as the avatar route does.
    const logged: { level: number; msg: string; aborted?: boolean }[] = [];
    const logger = createLogger('info', { write: (line: string) => void logged.push(JSON.parse(line)) });
    const app = express();
    app.use(requestContext(logger));
    let failed: unknown;
    app.get('/long', async (_req, res) => {
      const chunk = Buffer.alloc(64 * 1024);
      const body = new Readable({
        read() {
          setTimeout(() => this.push(chunk), 1);
        },
      });
      await pipeline(body, res).catch((error: unknown) => {
        failed = error;
        throw error;
      });
    });
    app.use(errorHandler(logger));
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/long`);
      const reader = response.body!.getReader();
      await reader.read();
      await reader.cancel();
      // The route's stream fails (premature close) and goes to the error handler.
      expect(await waitFor(() => failed !== undefined && logged.some((line) => line.aborted), 5_000, 20)).toBe(true);
      expect((failed as NodeJS.ErrnoException).code).toBe('ERR_STREAM_PREMATURE_CLOSE');
      await new Promise((resolve) => setImmediate(resolve));
      expect(logged.map(({ level, msg }) => ({ level, msg }))).toEqual([{ level: 40, msg: 'request aborted: the connection closed before the response was sent' }]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
