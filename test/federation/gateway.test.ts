// API.md 9.2: a real gateway serves the product's graph. Hive Gateway, configured by the committed
// gateway/gateway.config.mjs, runs over this service (ES256, so that it publishes its JWKS) and a
// meetings subgraph, with the supergraph the composer makes of both. The gateway verifies the bearer
// token by the service's JWKS and forwards it to the subgraphs; a recorder between the gateway and
// the service shows what reached the service.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { restUpload, solid } from '../avatar/support.js';
import { registerUser, type Session } from '../helpers/factories.js';
import { keysIn, keysOk, useKeyFileServer } from '../helpers/keys.js';
import { claimsOf, forgeSigned, headerOf } from '../helpers/tokens.js';
import { waitFor } from '../helpers/wait.js';
import { startGateway, startRecorder, type Recorder, type RunningGateway } from './gateway-support.js';
import { MEETINGS_SDL, startMeetingsSubgraph, type MeetingsSubgraph } from './meetings-subgraph.js';
import { composeProductGraph } from './product-graph.js';

const ACCOUNTS_SDL = readFileSync(new URL('../../schema/subgraph.graphql', import.meta.url), 'utf8');
const MEETING = 'query($id: ID!) { meeting(id: $id) { title host { nickname avatarUrl } } }';

describe('Hive Gateway over this service and a meetings subgraph', () => {
  const { t, env, file } = useKeyFileServer('ES256');
  let meetings: MeetingsSubgraph;
  let wire: Recorder;
  let gateway: RunningGateway;

  beforeAll(async () => {
    meetings = await startMeetingsSubgraph();
    wire = await startRecorder(t.url);
    const supergraph = composeProductGraph([
      { name: 'accounts', url: `${wire.url}/graphql`, sdl: ACCOUNTS_SDL },
      { name: 'meetings', url: meetings.url, sdl: MEETINGS_SDL },
    ]);
    gateway = await startGateway(supergraph, { ACCOUNTS_JWKS_URL: `${wire.url}/.well-known/jwks.json` });
  });

  afterAll(async () => {
    await gateway?.stop();
    await wire?.stop();
    await meetings?.stop();
  });

  beforeEach(() => {
    wire.requests.length = 0;
    wire.unavailable = false;
    meetings.authorizations.length = 0;
    meetings.meetings.clear();
  });

  const ask = async (query: string, variables: Record<string, unknown> = {}, token?: string) => {
    const res = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  /** The GraphQL requests that reached the service (the JWKS fetches aside). */
  const atService = () => wire.requests.filter((r) => r.path === '/graphql');
  const hostedBy = (host: Session, title = 'Weekly planning') => {
    const id = `meeting-${meetings.meetings.size + 1}`;
    meetings.meetings.set(id, { id, title, hostId: host.userId });
    return id;
  };

  it("answers a meeting with its host's nickname and avatar, resolved in one _entities call of the service", async () => {
    const caller = await registerUser(t);
    const host = await registerUser(t, undefined, undefined, 'Host');
    expect((await restUpload(t, host.accessToken, await solid(64, 64, 'png'))).status).toBe(200);
    const avatarUrl = (await t.http.get('/api/v1/users/me', { token: host.accessToken })).body.avatarUrl;
    expect(avatarUrl).toMatch(/^\/api\/v1\/avatars\//);
    const id = hostedBy(host);

    const res = await ask(MEETING, { id }, caller.accessToken);
    expect(res).toEqual({ status: 200, body: { data: { meeting: { title: 'Weekly planning', host: { nickname: 'Host', avatarUrl } } } } });
    const calls = atService();
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0]!.body)).toMatchObject({ query: expect.stringContaining('_entities'), variables: { representations: [{ __typename: 'User', id: host.userId }] } });
    // The bearer token went on, unchanged, to both subgraphs.
    expect(calls[0]!.authorization).toBe(`Bearer ${caller.accessToken}`);
    expect(meetings.authorizations).toEqual([`Bearer ${caller.accessToken}`]);
  });

  it('resolves the hosts of several meetings in one query with one _entities call', async () => {
    const caller = await registerUser(t);
    const hosts = [await registerUser(t, undefined, undefined, 'Ada'), await registerUser(t, undefined, undefined, 'Grace')];
    const [first, second, third] = [hostedBy(hosts[0]!), hostedBy(hosts[1]!), hostedBy(hosts[0]!)];
    const res = await ask(
      `query($a: ID!, $b: ID!, $c: ID!) { a: meeting(id: $a) { host { nickname } } b: meeting(id: $b) { host { nickname } } c: meeting(id: $c) { host { nickname } } }`,
      { a: first, b: second, c: third },
      caller.accessToken,
    );
    expect(res.body).toEqual({ data: { a: { host: { nickname: 'Ada' } }, b: { host: { nickname: 'Grace' } }, c: { host: { nickname: 'Ada' } } } });
    expect(atService().map((r) => JSON.parse(r.body).variables.representations.map((u: { id: string }) => u.id))).toEqual([hosts.map((h) => h.userId)]);
  });

  it("answers me from the service, with the caller's token", async () => {
    const caller = await registerUser(t, undefined, undefined, 'Caller');
    expect(await ask('{ me { nickname } }', {}, caller.accessToken)).toEqual({ status: 200, body: { data: { me: { nickname: 'Caller' } } } });
    expect(atService().map((r) => r.authorization)).toEqual([`Bearer ${caller.accessToken}`]);
    expect(meetings.authorizations).toEqual([]);
  });

  it("refuses another host's phone with the service's FORBIDDEN, and the phone is nowhere in the answer", async () => {
    const caller = await registerUser(t);
    const host = await registerUser(t);
    const res = await ask('query($id: ID!) { meeting(id: $id) { title host { id phone } } }', { id: hostedBy(host) }, caller.accessToken);
    expect(res.body.data).toEqual({ meeting: null });
    expect(res.body.errors.map((e: any) => ({ code: e.extensions?.code, path: e.path }))).toEqual([{ code: 'FORBIDDEN', path: ['meeting', 'host', 'phone'] }]);
    expect(JSON.stringify(res.body)).not.toContain(host.phone);
    expect(JSON.stringify(res.body)).not.toContain(host.phone.slice(1));
  });

  it("shows everything of the caller's own account as a meeting's host", async () => {
    const caller = await registerUser(t, undefined, undefined, 'Myself');
    const res = await ask('query($id: ID!) { meeting(id: $id) { host { id phone nickname hasPassword role } } }', { id: hostedBy(caller) }, caller.accessToken);
    expect(res).toEqual({
      status: 200,
      body: { data: { meeting: { host: { id: caller.userId, phone: caller.phone, nickname: 'Myself', hasPassword: true, role: 'USER' } } } },
    });
  });

  it('refuses a request without a token, or with a forged, expired or foreign token, before any subgraph sees it', async () => {
    const caller = await registerUser(t);
    const id = hostedBy(caller);
    // The caller's own token goes through (and the gateway now holds the service's key).
    expect((await ask(MEETING, { id }, caller.accessToken)).body.data.meeting.title).toBe('Weekly planning');
    wire.requests.length = 0;
    meetings.authorizations.length = 0;
    const { sub, sid } = claimsOf(caller.accessToken);
    const key = keysIn(file)[0]!;
    const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const refused = {
      'no token': undefined,
      'not a JWT': 'not-a-token',
      'signed by another key, naming the service key': await forgeSigned({ sub, sid }, { privateKey: stranger, alg: 'ES256', kid: key.kid }),
      'unknown kid': await forgeSigned({ sub, sid }, { privateKey: stranger, alg: 'ES256', kid: 'unknown-key' }),
      'tampered subject': tamper(caller.accessToken, { sub: '00000000-0000-4000-8000-000000000000' }),
      expired: await forgeSigned({ sub, sid }, { privateKey: key.privateKey, alg: 'ES256', kid: key.kid }, { expiresIn: -60 }),
      'another audience': await forgeSigned({ sub, sid }, { privateKey: key.privateKey, alg: 'ES256', kid: key.kid }, { audience: 'another-app' }),
      'another issuer': await forgeSigned({ sub, sid }, { privateKey: key.privateKey, alg: 'ES256', kid: key.kid }, { issuer: 'someone-else' }),
    };
    const unauthenticated = { status: 401, body: { errors: [{ message: 'Unauthenticated' }] } };
    for (const [why, token] of Object.entries(refused)) {
      const expected = why === 'not a JWT' ? { status: 400, body: { errors: [{ message: 'Invalid authentication token provided' }] } } : unauthenticated;
      expect({ why, ...(await ask(MEETING, { id }, token)) }).toEqual({ why, ...expected });
    }
    expect(atService()).toEqual([]);
    // The key the unknown kid names was looked for in the service's JWKS, again.
    expect(wire.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /.well-known/jwks.json']);
    expect(meetings.authorizations).toEqual([]);
  });

  it('fails the request, rather than the token, while the JWKS is out of reach', async () => {
    const caller = await registerUser(t);
    const { sub, sid } = claimsOf(caller.accessToken);
    const newKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    wire.unavailable = true;
    const res = await ask(MEETING, { id: hostedBy(caller) }, await forgeSigned({ sub, sid }, { privateKey: newKey, alg: 'ES256', kid: 'not-seen-yet' }));
    // Not 401, which would tell the client to drop a token that may well be good.
    expect(res).toEqual({ status: 500, body: { errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] } });
    expect(wire.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /.well-known/jwks.json']);
    expect(meetings.authorizations).toEqual([]);
  });

  it('accepts the tokens of a key added and promoted by rotation, and those of the key before it', async () => {
    const before = await registerUser(t);
    const id = hostedBy(before);
    expect((await ask(MEETING, { id }, before.accessToken)).status).toBe(200);
    await keysOk(['add'], env);
    await keysOk(['promote'], env);
    const [promoted, old] = keysIn(file);
    // The service re-reads its key file within 2 s; it signs with the key it publishes first.
    const signing = async () => ((await t.http.get('/.well-known/jwks.json')).body.keys as { kid: string }[])[0]?.kid;
    expect(await waitFor(async () => (await signing()) === promoted!.kid, 5_000, 100)).toBe(true);
    const after = await registerUser(t);
    expect(headerOf(after.accessToken).kid).toBe(promoted!.kid);
    expect(headerOf(before.accessToken).kid).toBe(old!.kid);
    wire.requests.length = 0;
    for (const session of [after, before]) {
      expect((await ask(MEETING, { id }, session.accessToken)).body).toEqual({ data: { meeting: { title: 'Weekly planning', host: expect.any(Object) } } });
    }
    // The new key was fetched on first sight, once.
    expect(wire.requests.filter((r) => r.method === 'GET').map((r) => r.path)).toEqual(['/.well-known/jwks.json']);
  });
});

describe("the gateway configuration of docs/graph.md", () => {
  it('is gateway/gateway.config.mjs, the file the test above runs', () => {
    const guide = readFileSync(new URL('../../docs/graph.md', import.meta.url), 'utf8');
    const section = guide.slice(guide.indexOf("## The product's graph"), guide.indexOf('## Trusted documents'));
    const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks).toContain(readFileSync(new URL('../../gateway/gateway.config.mjs', import.meta.url), 'utf8'));
  });
});

/** `token` with its payload changed and its signature kept. */
function tamper(token: string, change: Record<string, unknown>): string {
  const [header, , signature] = token.split('.');
  return `${header}.${Buffer.from(JSON.stringify({ ...claimsOf(token), ...change })).toString('base64url')}.${signature}`;
}
