// What a GraphQL WebSocket on /graphql serves, and the limits that hold on it (API.md 10.2): the same
// document rules as over HTTP, subscriptions only, a bounded message size and number of sockets,
// keep-alive, the connection_init deadline, and 1001 when the instance shuts down.
import { afterEach, describe, expect, it } from '@jest/globals';
import WebSocket from 'ws';
import { clearRateLimits, registerUser } from '../helpers/factories.js';
import { ACCOUNT_EVENTS, graphqlWsUrl, liveClient, type LiveClient } from '../helpers/live.js';
import { startTestServer, useTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const t = useTestServer({ WS_MAX_CONNECTIONS: '3', WS_KEEPALIVE_SECONDS: '1' });
const open: LiveClient[] = [];
const raw: WebSocket[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.dispose()));
  for (const socket of raw.splice(0)) socket.terminate();
  // Every socket of the test gone before the next counts them.
  await waitFor(() => t.server.services.live.connections === 0, 2000, 10);
});

/** A socket speaking graphql-transport-ws by hand, recording its messages and its close. */
function rawSocket(options: WebSocket.ClientOptions = {}) {
  const socket = new WebSocket(graphqlWsUrl(t.url), 'graphql-transport-ws', options);
  raw.push(socket);
  const messages: any[] = [];
  let closed: { code: number; reason: string } | undefined;
  let refused: number | undefined;
  socket.on('message', (data) => messages.push(JSON.parse(String(data))));
  socket.on('close', (code, reason) => (closed = { code, reason: String(reason) }));
  socket.on('unexpected-response', (_req, res) => {
    refused = res.statusCode;
    socket.terminate();
  });
  socket.on('error', () => undefined);
  return {
    socket,
    messages,
    closed: () => closed,
    refused: () => refused,
    opened: () => new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('close', () => reject(new Error(`closed before opening (${refused ?? closed?.code})`)));
    }),
    send: (message: unknown) => socket.send(JSON.stringify(message)),
  };
}

describe('what a socket serves', () => {
  it('queries and mutations over WebSocket are refused VALIDATION_FAILED', async () => {
    const user = await registerUser(t);
    const live = liveClient(t.url, user.accessToken);
    open.push(live);
    const error = await live.subscribe('{ me { id } }').waitError();
    expect(error.extensions.code).toBe('VALIDATION_FAILED');
    expect(error.message).toMatch(/POST \/graphql/);
  });

  it('a document that does not validate is VALIDATION_FAILED, one that does not parse too', async () => {
    const user = await registerUser(t);
    const live = liveClient(t.url, user.accessToken);
    open.push(live);
    expect((await live.subscribe('subscription { accountEvents { nope } }').waitError()).extensions.code).toBe('VALIDATION_FAILED');
    expect((await live.subscribe('subscription { accountEvents {').waitError()).extensions.code).toBe('VALIDATION_FAILED');
  });

  it('a document deeper than the limit is refused as over HTTP', async () => {
    const user = await registerUser(t);
    const live = liveClient(t.url, user.accessToken);
    open.push(live);
    const deep = `subscription { accountEvents { type ${'... on AccountEvent { '.repeat(12)}type${' }'.repeat(12)} } }`;
    expect((await live.subscribe(deep).waitError()).extensions.code).toBe('VALIDATION_FAILED');
  });

  it('a document of more tokens than the limit is refused VALIDATION_FAILED', async () => {
    const user = await registerUser(t);
    const live = liveClient(t.url, user.accessToken);
    open.push(live);
    const long = `subscription { accountEvents { ${'type '.repeat(1200)} } }`;
    const error = await live.subscribe(long).waitError();
    expect(error.extensions.code).toBe('VALIDATION_FAILED');
    expect(error.message).toMatch(/more than 1000 tokens/);
  });

  it('a subscription over HTTP is VALIDATION_FAILED, pointing at WebSocket', async () => {
    const user = await registerUser(t);
    await clearRateLimits(t);
    const res = await t.http.post('/graphql', { query: ACCOUNT_EVENTS }, { token: user.accessToken });
    expect(res.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(res.body.errors[0].message).toMatch(/WebSocket/);
  });

  it("errors are in the upgrade request's language", async () => {
    const user = await registerUser(t);
    const client = rawSocket({ headers: { 'accept-language': 'zh-CN' } });
    await client.opened();
    client.send({ type: 'connection_init', payload: { authorization: `Bearer ${user.accessToken}` } });
    expect(await waitFor(() => client.messages.some((m) => m.type === 'connection_ack'), 2000, 10)).toBe(true);
    client.send({ id: '1', type: 'subscribe', payload: { query: '{ me { id } }' } });
    expect(await waitFor(() => client.messages.some((m) => m.type === 'error'), 2000, 10)).toBe(true);
    const [error] = client.messages.find((m) => m.type === 'error').payload;
    expect(error.extensions.code).toBe('VALIDATION_FAILED');
    expect(error.message).toMatch(/WebSocket 上只提供订阅/);
  });

  it('an upgrade on another path is answered 404', async () => {
    const socket = new WebSocket(`${t.url.replace(/^http/, 'ws')}/api/v1/users/me`, 'graphql-transport-ws');
    raw.push(socket);
    socket.on('error', () => undefined);
    const status = await new Promise<number>((resolve) => socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(404);
  });
});

describe('limits', () => {
  it('a message larger than the limit closes the socket 1009', async () => {
    const client = rawSocket();
    await client.opened();
    client.send({ type: 'connection_init', payload: { authorization: `Bearer ${'x'.repeat(200 * 1024)}` } });
    expect(await waitFor(() => client.closed() !== undefined, 2000, 10)).toBe(true);
    expect(client.closed()!.code).toBe(1009);
  });

  it('WS_MAX_CONNECTIONS: the next upgrade is answered 503 with Retry-After', async () => {
    const clients = [rawSocket(), rawSocket(), rawSocket()];
    await Promise.all(clients.map((c) => c.opened()));
    const fourth = new WebSocket(graphqlWsUrl(t.url), 'graphql-transport-ws');
    raw.push(fourth);
    fourth.on('error', () => undefined);
    const answer = await new Promise<{ status?: number; retryAfter?: string }>((resolve) =>
      fourth.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode, retryAfter: res.headers['retry-after'] })),
    );
    expect(answer).toEqual({ status: 503, retryAfter: '5' });
    // One closes: room for another.
    clients[0]!.socket.close();
    await waitFor(() => clients[0]!.closed() !== undefined, 2000, 10);
    const next = rawSocket();
    await next.opened();
  });

  it('a socket that sends no connection_init within 3 s closes 4408', async () => {
    const client = rawSocket();
    await client.opened();
    expect(await waitFor(() => client.closed() !== undefined, 5000, 50)).toBe(true);
    expect(client.closed()!.code).toBe(4408);
  });

  it('keep-alive: a client that does not answer pings is cut', async () => {
    const user = await registerUser(t);
    const client = rawSocket({ autoPong: false });
    await client.opened();
    client.send({ type: 'connection_init', payload: { authorization: `Bearer ${user.accessToken}` } });
    let pings = 0;
    client.socket.on('ping', () => pings++);
    expect(await waitFor(() => client.closed() !== undefined, 5000, 50)).toBe(true);
    expect(pings).toBeGreaterThanOrEqual(1);
    expect(client.closed()!.code).toBe(1006); // terminated: no close frame
  });

  it('a client that answers pings stays', async () => {
    const user = await registerUser(t);
    const live = liveClient(t.url, user.accessToken);
    open.push(live);
    live.subscribe(ACCOUNT_EVENTS);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(live.closed()).toBeUndefined();
  });
});

describe('shutdown', () => {
  it('closes every socket 1001 (Going away)', async () => {
    const server = await startTestServer();
    const user = await registerUser(server);
    const live = liveClient(server.url, user.accessToken);
    live.subscribe(ACCOUNT_EVENTS);
    expect(await waitFor(() => server.server.services.live.connections === 1, 3000, 10)).toBe(true);
    await server.stop();
    const closed = await live.waitClosed(3000);
    expect(closed).toMatchObject({ code: 1001, reason: 'Going away' });
    await live.dispose();
  });
});
