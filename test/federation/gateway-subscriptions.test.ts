// API.md 10.2 through the product's graph: Hive Gateway, configured by the committed
// gateway/gateway.config.mjs, takes a client's subscription over WebSocket (graphql-ws) or over HTTP
// (server-sent events) and forwards it to this service over WebSocket (@graphql-mesh/transport-ws),
// the client's token in connection_init. A recorder between the gateway and the service sees every
// socket the gateway opens to it.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { registerUser, type Session } from '../helpers/factories.js';
import { keysIn, useKeyFileServer } from '../helpers/keys.js';
import { ACCOUNT_EVENTS, liveClient, type LiveClient } from '../helpers/live.js';
import { claimsOf, forgeSigned } from '../helpers/tokens.js';
import { waitFor } from '../helpers/wait.js';
import { startGateway, startRecorder, type Recorder, type RunningGateway } from './gateway-support.js';
import { composeProductGraph } from './product-graph.js';

const ACCOUNTS_SDL = readFileSync(new URL('../../schema/subgraph.graphql', import.meta.url), 'utf8');
const RENAME = 'mutation($nickname: String!) { updateProfile(input: { nickname: $nickname }) { nickname } }';

describe('subscriptions through Hive Gateway', () => {
  const { t, file } = useKeyFileServer('ES256');
  let wire: Recorder;
  let gateway: RunningGateway;
  const open: LiveClient[] = [];

  beforeAll(async () => {
    wire = await startRecorder(t.url);
    const supergraph = composeProductGraph([{ name: 'accounts', url: `${wire.url}/graphql`, sdl: ACCOUNTS_SDL }]);
    gateway = await startGateway(supergraph, { ACCOUNTS_JWKS_URL: `${wire.url}/.well-known/jwks.json` });
  });

  afterAll(async () => {
    await gateway?.stop();
    await wire?.stop();
  });

  beforeEach(() => {
    wire.requests.length = 0;
  });

  afterEach(async () => {
    await Promise.all(open.splice(0).map((client) => client.dispose()));
  });

  /** The gateway's base URL: liveClient adds /graphql. */
  const gatewayBase = () => gateway.url.replace(/\/graphql$/, '');
  /** The sockets the gateway opened to the service (upgrades of its /graphql). */
  const socketsToService = () => wire.requests.filter((r) => r.upgrade).map((r) => `${r.method} ${r.path} ${r.authorization}`);
  const held = (session: Session) => t.server.services.live.subscriptionsOf(claimsOf(session.accessToken).sid, session.userId);

  /** A client of the gateway with `session`'s token, its accountEvents subscription held by the service. */
  async function subscribed(session: Session, holding = 1) {
    const live = liveClient(gatewayBase(), session.accessToken);
    open.push(live);
    const sub = live.subscribe(ACCOUNT_EVENTS);
    if (!(await waitFor(() => held(session) >= holding, 3000, 10))) {
      throw new Error(`the service does not hold the subscription (errors: ${JSON.stringify(sub.errors)}, closed: ${JSON.stringify(live.closed())})`);
    }
    return { live, sub };
  }

  const rename = async (session: Session, nickname: string) => {
    const res = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session.accessToken}` },
      body: JSON.stringify({ query: RENAME, variables: { nickname } }),
    });
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { data: { updateProfile: { nickname } } } });
  };

  it("delivers the event of a mutation made through the gateway, from a socket it opened to the service with the client's token", async () => {
    const user = await registerUser(t);
    const { sub } = await subscribed(user);
    // The service holds it for the session of the client's token: the token reached its connection_init.
    expect(held(user)).toBe(1);
    // One socket to the service; the token travels inside it, not in the upgrade's headers.
    expect(socketsToService()).toEqual(['GET /graphql null']);
    await rename(user, 'Ada');
    expect(await sub.waitFor(1)).toEqual([
      { accountEvents: { type: 'PROFILE_UPDATED', at: expect.any(String), sessionId: claimsOf(user.accessToken).sid, detail: { change: 'PROFILE' } } },
    ]);
    expect(sub.errors).toEqual([]);
    // A client that stops listening ends its subscription at the service too.
    sub.unsubscribe();
    expect(await waitFor(() => held(user) === 0, 3000, 10)).toBe(true);
  });

  it("a logout ends it as the service would: SESSION_REVOKED, then the client's socket to the gateway closes 4401 within a second", async () => {
    const user = await registerUser(t);
    const { live, sub } = await subscribed(user);
    const started = Date.now();
    expect((await t.http.post('/api/v1/auth/logout', {}, { token: user.accessToken })).status).toBe(204);
    const closed = await live.waitClosed(2000);
    expect({ code: closed.code, reason: closed.reason }).toEqual({ code: 4401, reason: 'Unauthorized' });
    expect(closed.at - started).toBeLessThan(1000);
    expect(sub.events).toEqual([{ accountEvents: { type: 'SESSION_REVOKED', at: expect.any(String), sessionId: claimsOf(user.accessToken).sid, detail: {} } }]);
    // The subscription ended with the close itself (graphql-ws hands the close event to it), and nothing else.
    expect(sub.completed()).toBe(true);
    expect(sub.errors.map((error) => error.code)).toEqual([4401]);
    expect(held(user)).toBe(0);
  });

  it('opens one socket to the service per token; a session that ends closes the sockets of its clients only', async () => {
    const [ada, grace] = [await registerUser(t), await registerUser(t)];
    const first = await subscribed(ada);
    const second = await subscribed(ada, 2);
    const other = await subscribed(grace);
    // Ada's two clients share one socket to the service, where her session holds both subscriptions.
    expect(socketsToService()).toHaveLength(2);
    expect([held(ada), held(grace)]).toEqual([2, 1]);
    await rename(ada, 'Ada');
    for (const { sub } of [first, second]) expect((await sub.waitFor(1)).map((e: any) => e.accountEvents.type)).toEqual(['PROFILE_UPDATED']);

    expect((await t.http.post('/api/v1/auth/logout', {}, { token: ada.accessToken })).status).toBe(204);
    for (const { live } of [first, second]) expect((await live.waitClosed(2000)).code).toBe(4401);
    await rename(grace, 'Grace');
    expect((await other.sub.waitFor(1)).map((e: any) => e.accountEvents.type)).toEqual(['PROFILE_UPDATED']);
    expect(other.live.closed()).toBeUndefined();
    expect(other.sub.errors).toEqual([]);
  });

  it('refuses a subscription without a valid token at the gateway, before any socket to the service', async () => {
    const user = await registerUser(t);
    const { sub, sid } = claimsOf(user.accessToken);
    const key = keysIn(file)[0]!;
    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const refused = {
      'no token': undefined,
      'not a bearer token': { authorization: user.accessToken },
      'signed by another key': { authorization: `Bearer ${await forgeSigned({ sub, sid }, { privateKey: stranger, alg: 'ES256', kid: key.kid })}` },
      expired: { authorization: `Bearer ${await forgeSigned({ sub, sid }, { privateKey: key.privateKey, alg: 'ES256', kid: key.kid }, { expiresIn: -60 })}` },
    };
    for (const [why, params] of Object.entries(refused)) {
      const live = liveClient(gatewayBase(), undefined, params);
      open.push(live);
      const subscription = live.subscribe(ACCOUNT_EVENTS);
      // The socket to the gateway stays (it has no token to check when it opens); the subscription is refused.
      expect({ why, error: await subscription.waitError() }).toEqual({ why, error: { message: 'Unauthenticated', extensions: { http: { status: 401 } } } });
      expect({ why, completed: subscription.completed(), closed: live.closed() }).toEqual({ why, completed: true, closed: undefined });
    }
    expect(socketsToService()).toEqual([]);
    expect(held(user)).toBe(0);
  });

  it("over HTTP (server-sent events) too; there a logout ends it with the service's UNAUTHENTICATED", async () => {
    const user = await registerUser(t);
    const res = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${user.accessToken}` },
      body: JSON.stringify({ query: ACCOUNT_EVENTS }),
    });
    expect(res.status).toBe(200);
    const stream = eventStream(res);
    expect(await waitFor(() => held(user) === 1, 3000, 10)).toBe(true);
    expect(socketsToService()).toEqual(['GET /graphql null']);
    await rename(user, 'Ada');
    expect(await waitFor(() => stream.messages.length === 1, 3000, 10)).toBe(true);
    expect((await t.http.post('/api/v1/auth/logout', {}, { token: user.accessToken })).status).toBe(204);
    await stream.ended;
    const sid = claimsOf(user.accessToken).sid;
    expect(stream.messages).toEqual([
      { event: 'next', data: { data: { accountEvents: { type: 'PROFILE_UPDATED', at: expect.any(String), sessionId: sid, detail: { change: 'PROFILE' } } } } },
      { event: 'next', data: { data: { accountEvents: { type: 'SESSION_REVOKED', at: expect.any(String), sessionId: sid, detail: {} } } } },
      // As the gateway shows any error of a subgraph: its path, and the subgraph's name.
      {
        event: 'next',
        data: {
          data: null,
          errors: [
            {
              message: 'The session has ended; sign in again',
              path: ['accountEvents'],
              extensions: { code: 'UNAUTHENTICATED', reason: 'session_ended', serviceName: 'accounts' },
            },
          ],
        },
      },
      { event: 'complete', data: null },
    ]);
  });
});

/** The messages of a text/event-stream response (`data` parsed as JSON, null when empty) as they arrive. */
function eventStream(res: Response): { messages: { event: string; data: unknown }[]; ended: Promise<void> } {
  const messages: { event: string; data: unknown }[] = [];
  const read = async () => {
    let text = '';
    for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      let end: number;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const fields = Object.fromEntries(text.slice(0, end).split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]));
        text = text.slice(end + 2);
        if (fields.event) messages.push({ event: fields.event, data: fields.data ? JSON.parse(fields.data) : null });
      }
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the stream did not end within 3 s: ${JSON.stringify(messages)}`)), 3000);
  });
  return { messages, ended: Promise.race([read(), late]).finally(() => clearTimeout(timer)) };
}
