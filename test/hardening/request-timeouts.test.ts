// Requests that stall: a body or headers that do not arrive within the server's timeouts are answered
// 408 REQUEST_TIMEOUT (a problem document, or /graphql's error shape) while the client is there to
// hear it, counted in the request metric, and the connection is closed; nothing else changes.
import { describe, expect, it } from '@jest/globals';
import { connect } from 'node:net';
import { signInWithCode } from '../helpers/factories.js';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { scrape } from '../metrics/support.js';
import { expectNoLeaks } from '../rest/support.js';
import { gqlUploadBody, multipart, settledTmpFiles, solid } from '../avatar/support.js';

const REQUEST_TIMEOUT_MS = 1500;
const HEADERS_TIMEOUT_MS = 1000;
/** Node looks at its connections every min(1000, timeout / 4) ms; the rest is room for a busy machine. */
const LATE_BY_AT_MOST = 1500;

const t = useTestServer(
  { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), METRICS_PORT: '0' },
  { captureLogs: true },
);

const errorLines = (server: TestServer) => server.logs().split('\n').filter((line) => /"level":(50|60)\b/.test(line));

interface Answer {
  /** Everything the server sent, as text. */
  received: string;
  /** Milliseconds from the first byte sent to the server's closing of the connection. */
  ms: number;
  /** Whether the server closed the connection (rather than the wait running out). */
  closed: boolean;
}

/** Sends `parts` on a fresh connection, one after the other, then sends nothing more and waits for the server to close it. */
function stall(parts: (string | Buffer)[], waitMs = REQUEST_TIMEOUT_MS + 6_000): Promise<Answer> {
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve) => {
    let received = '';
    let started = 0;
    const socket = connect(Number(port), hostname, () => {
      started = performance.now();
      for (const part of parts) socket.write(part);
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ received, ms: performance.now() - started, closed: false });
    }, waitMs);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ received, ms: performance.now() - started, closed: true });
    });
  });
}

interface Response {
  status: number;
  headers: Map<string, string>;
  body: any;
}

/** The responses in `received`, in order (bodies by Content-Length). */
function responses(received: string): Response[] {
  const found: Response[] = [];
  let rest = received;
  while (rest.startsWith('HTTP/1.1 ')) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    const length = Number(headers.get('content-length') ?? 0);
    const text = rest.slice(end + 4, end + 4 + length);
    found.push({ status: Number(statusLine!.split(' ')[1]), headers, body: /json/.test(headers.get('content-type') ?? '') ? JSON.parse(text) : text });
    rest = rest.slice(end + 4 + length);
  }
  expect(rest).toBe('');
  return found;
}

/** The one answer of a stalled request: 408, Connection: close, on time, and the connection closed by the server. */
function expectTimedOut(answer: Answer, timeoutMs: number): Response {
  expect(answer.closed).toBe(true);
  const all = responses(answer.received);
  expect(all.map((r) => r.status)).toEqual([408]);
  const response = all[0]!;
  expect(response.headers.get('connection')).toBe('close');
  expect(answer.ms).toBeGreaterThanOrEqual(timeoutMs - 50);
  expect(answer.ms).toBeLessThan(timeoutMs + LATE_BY_AT_MOST);
  expectNoLeaks({ status: response.status, headers: new Headers(), body: response.body });
  return response;
}

function expectTimeoutProblem(response: Response): void {
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ type: 'about:blank', status: 408, code: 'REQUEST_TIMEOUT', title: 'Request timeout' });
  expect(typeof response.body.detail).toBe('string');
  expect(response.body.requestId).toMatch(/^[0-9a-f-]{36}$/);
  expect(response.body.requestId).toBe(response.headers.get('x-request-id'));
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
}

function expectTimeoutGraphqlError(response: Response): void {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.body.errors).toHaveLength(1);
  expect(response.body.errors[0].extensions).toEqual({ code: 'REQUEST_TIMEOUT', requestId: response.headers.get('x-request-id') });
  expect(typeof response.body.errors[0].message).toBe('string');
}

/** The change of `http_server_request_duration_seconds_count{labels}` while `run` ran. */
async function counted(labels: Record<string, string>, run: () => Promise<void>): Promise<number> {
  const before = (await scrape(t)).value('http_server_request_duration_seconds_count', labels);
  await run();
  return (await scrape(t)).value('http_server_request_duration_seconds_count', labels) - before;
}

const jsonHead = (path: string, length: number, extra = '') =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;

describe('a body that stalls', () => {
  it('is answered 408 REQUEST_TIMEOUT on REST, as a problem document, when the request timeout passes; the connection is then closed', async () => {
    const body = JSON.stringify({ phone: '+8613800138000', purpose: 'login' });
    let answer: Answer | undefined;
    const n = await counted({ method: 'POST', route: '/api/v1/auth/send-code', status: '408' }, async () => {
      answer = await stall([jsonHead('/api/v1/auth/send-code', body.length), body.slice(0, body.length / 2)]);
    });
    expectTimeoutProblem(expectTimedOut(answer!, REQUEST_TIMEOUT_MS));
    expect(n).toBe(1);
    expect(await t.outbox()).toEqual([]);
  });

  it('is answered 408 on /graphql in its error shape, as /graphql answers a body it cannot read', async () => {
    const body = JSON.stringify({ query: '{ config { registrationEnabled } }' });
    let answer: Answer | undefined;
    const n = await counted({ method: 'POST', route: '/graphql', status: '408' }, async () => {
      answer = await stall([jsonHead('/graphql', body.length), body.slice(0, 10)]);
    });
    expectTimeoutGraphqlError(expectTimedOut(answer!, REQUEST_TIMEOUT_MS));
    expect(n).toBe(1);
  });

  it('is answered 408 for an avatar upload on both transports, and nothing stays staged', async () => {
    const { accessToken } = await signInWithCode(t);
    const file = await solid(256, 256, 'png');
    const rest = multipart([{ name: 'file', filename: 'a.png', contentType: 'image/png', data: file }]);
    const graphql = gqlUploadBody([{ name: '0', filename: 'a.png', contentType: 'image/png', data: file }]);
    const head = (path: string, type: string, length: number) =>
      `POST ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${accessToken}\r\nApollo-Require-Preflight: true\r\nContent-Type: ${type}\r\nContent-Length: ${length}\r\n\r\n`;
    let restAnswer: Answer | undefined;
    const restCount = await counted({ method: 'POST', route: '/api/v1/users/me/avatar', status: '408' }, async () => {
      restAnswer = await stall([head('/api/v1/users/me/avatar', rest.contentType, rest.body.length), rest.body.subarray(0, rest.body.length - 100)]);
    });
    expectTimeoutProblem(expectTimedOut(restAnswer!, REQUEST_TIMEOUT_MS));
    let graphqlAnswer: Answer | undefined;
    const graphqlCount = await counted({ method: 'POST', route: '/graphql', status: '408' }, async () => {
      graphqlAnswer = await stall([head('/graphql', graphql.contentType, graphql.body.length), graphql.body.subarray(0, graphql.body.length - 100)]);
    });
    expectTimeoutGraphqlError(expectTimedOut(graphqlAnswer!, REQUEST_TIMEOUT_MS));
    expect({ restCount, graphqlCount }).toEqual({ restCount: 1, graphqlCount: 1 });
    expect(await settledTmpFiles(t)).toEqual([]);
    expect((await t.http.get('/api/v1/users/me', { token: accessToken })).body.avatarUrl).toBeNull();
    // The GraphQL operation already ran when the file stalled: its late failure is no fault of the service.
    expect(errorLines(t)).toEqual([]);
  });

  it('gets no second answer when the request was answered before its body arrived: the connection is just closed', async () => {
    for (const head of [
      'GET /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\n',
      'POST /nope HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
    ]) {
      const answer = await stall([head]);
      expect(answer.closed).toBe(true);
      expect(responses(answer.received).map((r) => r.status)).toEqual([head.startsWith('GET') ? 200 : 404]);
      expect(answer.ms).toBeLessThan(REQUEST_TIMEOUT_MS + LATE_BY_AT_MOST);
    }
  });
});

describe('headers that stall', () => {
  it('are answered 408 REQUEST_TIMEOUT as a problem document when the headers timeout passes, counted without a method or route', async () => {
    let answer: Answer | undefined;
    const n = await counted({ method: '(unknown)', route: '(unmatched)', status: '408' }, async () => {
      answer = await stall(['POST /api/v1/auth/send-code HTTP/1.1\r\nHost: localhost\r\nContent-Ty']);
    });
    const response = expectTimedOut(answer!, HEADERS_TIMEOUT_MS);
    expectTimeoutProblem(response);
    expect(n).toBe(1);
    // Logged as a client's doing (warn), under the request id the client was given.
    const line = t.logs().split('\n').find((l) => l.includes(response.body.requestId));
    expect(line).toMatch(/"level":40\b/);
  });

  it('are answered 408 on a kept-alive connection after a request it answered', async () => {
    const answer = await stall(['GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n', 'GET /api/v1/auth/config HTTP/1.1\r\nHo']);
    expect(answer.closed).toBe(true);
    const [first, second, ...more] = responses(answer.received);
    expect({ first: first?.status, second: second?.status, more: more.length }).toEqual({ first: 200, second: 408, more: 0 });
    expectTimeoutProblem(second!);
    expect(answer.ms).toBeLessThan(HEADERS_TIMEOUT_MS + LATE_BY_AT_MOST);
  });
});

describe('clients that leave, and other client errors', () => {
  it('answers nothing to a connection the client closed, counts no 408, and logs no error', async () => {
    const body = JSON.stringify({ phone: '+8613800138000' });
    const { hostname, port } = new URL(t.url);
    const n = await counted({ status: '408' }, async () => {
      for (const parts of [
        [jsonHead('/api/v1/auth/send-code', body.length), body.slice(0, 5)],
        [jsonHead('/graphql', body.length), body.slice(0, 5)],
        ['GET /api/v1/auth/config HTTP/1.1\r\nHost: loc'],
      ]) {
        const socket = connect(Number(port), hostname, () => {
          for (const part of parts) socket.write(part);
          setTimeout(() => socket.destroy(), 100);
        });
        socket.on('error', () => undefined);
      }
      await new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS + LATE_BY_AT_MOST));
    });
    expect(n).toBe(0);
    expect(errorLines(t)).toEqual([]);
  });

  it("keeps Node's own answers to requests it cannot parse: 400, or 431 for headers too large", async () => {
    const malformed = await stall(['GET /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n']);
    expect(malformed.received).toBe('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    const tooLarge = await stall([`GET /healthz HTTP/1.1\r\nHost: localhost\r\nCookie: ${'x'.repeat(40 * 1024)}\r\n\r\n`]);
    expect(tooLarge.received).toBe('HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n');
    expect(Math.max(malformed.ms, tooLarge.ms)).toBeLessThan(HEADERS_TIMEOUT_MS);
  });

  it('stays healthy afterwards, and wrote no error line for any of it', async () => {
    expect((await t.http.get('/healthz')).status).toBe(200);
    expect((await t.http.get('/readyz')).status).toBe(200);
    expect((await t.http.post('/api/v1/auth/send-code', { phone: '+8613800138000' })).status).toBe(200);
    expect(errorLines(t)).toEqual([]);
  });
});
