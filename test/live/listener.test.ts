// The instances' listeners (API.md 10.2): a listener whose connection is lost comes back, and the
// sockets it serves re-check their sessions then, so that a session that ended while it was away
// does not keep its socket. On PostgreSQL (LISTEN on a connection of its own, killed here with
// pg_terminate_backend) and on Redis (SUBSCRIBE, killed with CLIENT KILL).
import { afterEach, describe, expect, it } from '@jest/globals';
import { registerUser, type Session } from '../helpers/factories.js';
import { describeWithRedis, instancePair, type Pair } from '../helpers/instances.js';
import { ACCOUNT_EVENTS, heldSubscription, type LiveClient } from '../helpers/live.js';
import type { TestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { waitFor } from '../helpers/wait.js';
import { LISTENER_APPLICATION_NAME } from '../../src/modules/live/live-transport.js';

const open: LiveClient[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.dispose()));
});

function sessionOf(session: Session): string {
  return claimsOf(session.accessToken).sid;
}

const subscribed = (t: TestServer, session: Session) => heldSubscription(t, session, open);

/**
 * The listener of both instances loses its connection (`kill`); meanwhile a session ends in a way that
 * publishes nothing (SQL, as a restore or a script would); the listeners come back; the session's
 * socket is closed, and events flow again.
 */
function listenerLoss(pair: Pair, kill: () => Promise<number>) {
  const { a, b } = pair;

  it('a session that ended while the listener was away loses its socket when it is back; events flow again', async () => {
    const user = await registerUser(a);
    const other = await registerUser(a);
    const { live } = await subscribed(a, user);
    const { sub: watching } = await subscribed(a, other);
    expect(await kill()).toBeGreaterThanOrEqual(1);
    await a.sql('update sessions set revoked_at = now() where id = $1', [sessionOf(user)]);
    const closed = await live.waitClosed(5000);
    expect(closed.code).toBe(4401);
    expect(live.closed()).toBeDefined();
    // The other socket kept its session and hears what B publishes after the listener came back.
    await waitFor(async () => {
      await b.http.request('PATCH', '/api/v1/users/me', { body: { nickname: `Ada${watching.events.length}` }, token: other.accessToken });
      return watching.events.length > 0;
    }, 5000, 200);
    expect((watching.events[0] as any).accountEvents.type).toBe('PROFILE_UPDATED');
  });

  it('killed while changes commit: every ended session still loses its socket', async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => registerUser(a)));
    const sockets = await Promise.all(users.map(async (u) => (await subscribed(a, u)).live));
    const logouts = users.map(async (u, i) => {
      await new Promise((resolve) => setTimeout(resolve, i * 15));
      return b.http.post('/api/v1/auth/logout', {}, { token: u.accessToken });
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    await kill();
    for (const res of await Promise.all(logouts)) expect(res.status).toBe(204);
    const closes = await Promise.all(sockets.map((s) => s.waitClosed(5000)));
    expect(closes.map((c) => c.code)).toEqual(users.map(() => 4401));
  });
}

const postgres = !process.env.TEST_EMBEDDED_DATABASE;
(postgres ? describe : describe.skip)('PostgreSQL LISTEN', () => {
  const pair = instancePair(() => ({}));
  listenerLoss(pair, async () => {
    const rows = await pair.a.sql<{ killed: boolean }>(
      'select pg_terminate_backend(pid) as killed from pg_stat_activity where application_name = $1 and datname = current_database()',
      [LISTENER_APPLICATION_NAME],
    );
    return rows.filter((r) => r.killed).length;
  });

  it('the instances listen through PostgreSQL', () => {
    expect(pair.a.server.liveTransport).toBe('postgres');
  });
});

describeWithRedis('Redis pub/sub', (redis) => {
  const pair = instancePair(() => ({ ...redis.env, LIVE_EVENTS_TRANSPORT: 'redis' }));

  it('the instances listen through Redis, and a logout on B closes the socket on A with 4401', async () => {
    expect(pair.a.server.liveTransport).toBe('redis');
    const user = await registerUser(pair.a);
    const { live, sub } = await subscribed(pair.a, user);
    const started = Date.now();
    expect((await pair.b.http.post('/api/v1/auth/logout', {}, { token: user.accessToken })).status).toBe(204);
    const closed = await live.waitClosed(2000);
    expect(closed.code).toBe(4401);
    expect(closed.at - started).toBeLessThan(1000);
    expect(sub.events.map((e: any) => e.accountEvents.type)).toEqual(['SESSION_REVOKED']);
  });

  listenerLoss(pair, async () => {
    // Only this block's instances' subscriber connections: other files may share the Redis.
    const clients = String(await redis.client().client('LIST')).split('\n').filter((line) => line.includes(` name=${redis.prefix}live-events `));
    let killed = 0;
    for (const line of clients) {
      const id = /\bid=(\d+)/.exec(line)?.[1];
      if (id) killed += Number(await redis.client().client('KILL', 'ID', id));
    }
    return killed;
  });
});
