// A subscriber's queue (Feed), the hub's fan-out and re-checks over a stand-in socket and session
// check, and the live messages' wire shape: pure logic of src/modules/live.
import { describe, expect, it, jest } from '@jest/globals';
import { parseLiveMessage } from '../../src/modules/live/account-event.js';
import type { Principal } from '../../src/modules/account/principal.js';
import { Feed, LiveConnection, LiveHub } from '../../src/modules/live/live-hub.js';

describe('Feed', () => {
  it('hands values to a waiting reader, then queues them in order', async () => {
    const feed = new Feed<number>(() => undefined, () => undefined);
    const first = feed.next();
    feed.push(1);
    feed.push(2);
    feed.push(3);
    expect(await first).toEqual({ value: 1, done: false });
    expect(await feed.next()).toEqual({ value: 2, done: false });
    expect(await feed.next()).toEqual({ value: 3, done: false });
  });

  it('a reader that does not keep up: the 101st unread value reports the overflow and is not queued', async () => {
    const overflow = jest.fn();
    const feed = new Feed<number>(overflow, () => undefined);
    for (let i = 0; i < 100; i++) feed.push(i);
    expect(overflow).not.toHaveBeenCalled();
    feed.push(100);
    expect(overflow).toHaveBeenCalledTimes(1);
    let n = 0;
    feed.end();
    for await (const _ of feed) n++;
    expect(n).toBe(0); // an ended feed drops what it held
  });

  it('return() (the client completed) ends it once: a waiting reader is released', async () => {
    const ended = jest.fn();
    const feed = new Feed<number>(() => undefined, ended);
    const waiting = feed.next();
    await feed.return();
    await feed.return();
    feed.end();
    expect(await waiting).toEqual({ value: undefined, done: true });
    expect(ended).toHaveBeenCalledTimes(1);
    feed.push(1);
    expect(await feed.next()).toEqual({ value: undefined, done: true });
  });
});

describe('parseLiveMessage', () => {
  it('reads the two shapes', () => {
    expect(parseLiveMessage('{"k":"audit","a":"12","at":1}')).toEqual({ k: 'audit', a: '12', at: 1 });
    const account = { k: 'account', u: 'u1', t: 'SESSION_REVOKED', at: 5, s: 's1', d: {} };
    expect(parseLiveMessage(JSON.stringify(account))).toEqual(account);
  });

  it.each([
    ['not JSON', '{'],
    ['not an object', '"x"'],
    ['no time', '{"k":"audit","a":"1"}'],
    ['an unknown type', '{"k":"account","u":"u","t":"NOPE","at":1,"s":null,"d":{}}'],
    ['a type from the prototype', '{"k":"account","u":"u","t":"toString","at":1,"s":null,"d":{}}'],
    ['no detail', '{"k":"account","u":"u","t":"ROLE_CHANGED","at":1,"s":null,"d":null}'],
    ['an unknown kind', '{"k":"other","at":1}'],
  ])('ignores %s', (_name, text) => {
    expect(parseLiveMessage(text)).toBeUndefined();
  });
});

describe('LiveHub', () => {
  const principal = (role: 'USER' | 'SUPPORT' = 'USER') =>
    ({ userId: 'u1', sessionId: 's1', amr: ['sms'], user: { id: 'u1', role } }) as unknown as Principal;
  /** What the hub sees of a ws socket: what it holds unsent, and its close. */
  const socket = () => ({ OPEN: 1, readyState: 1, bufferedAmount: 0, closed: undefined as [number, string] | undefined, close(code: number, reason: string) { this.closed = [code, reason]; this.readyState = 3; } });
  const hub = (live: (sessionId: string) => boolean = () => true) =>
    new LiveHub({
      liveUser: async (sessionId) => (live(sessionId) ? ({ id: 'u1', role: 'USER' } as never) : undefined),
      auditEntry: async () => undefined,
      mayReadAudit: (role) => role !== 'USER',
      logger: { warn: () => undefined } as never,
    });
  const event = (t: string, s: string | null = null) => ({ k: 'account' as const, u: 'u1', t: t as never, at: Date.now(), s, d: {} });

  it('a socket holding more than 1 MiB unsent is closed 1008 instead of being sent more', async () => {
    const h = hub();
    const ws = socket();
    const connection = new LiveConnection(principal(), ws as never, h);
    h.register(connection);
    const feed = connection.accountEvents();
    ws.bufferedAmount = 1024 * 1024 + 1;
    h.dispatch(event('PROFILE_UPDATED'));
    expect(ws.closed).toEqual([1008, 'Slow reader']);
    expect(h.connections).toBe(0);
    expect(await feed.next()).toEqual({ value: undefined, done: true });
  });

  it("an event that may end the session re-checks it: ended, the socket closes 4401 after the event; alive, it stays", async () => {
    let alive = true;
    const h = hub(() => alive);
    const ws = socket();
    const connection = new LiveConnection(principal(), ws as never, h);
    h.register(connection);
    const feed = connection.accountEvents();
    h.dispatch(event('SIGNED_OUT_EVERYWHERE'));
    expect((await feed.next()).value).toMatchObject({ type: 'SIGNED_OUT_EVERYWHERE' });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(ws.closed).toBeUndefined();
    alive = false;
    h.dispatch(event('SESSION_REVOKED', 's1'));
    expect((await feed.next()).value).toMatchObject({ type: 'SESSION_REVOKED', sessionId: 's1' });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(ws.closed).toEqual([4401, 'Session ended']);
  });

  it("a profile change does not re-check the session", async () => {
    let asked = 0;
    const h = hub(() => (asked++, true));
    const connection = new LiveConnection(principal(), socket() as never, h);
    h.register(connection);
    connection.accountEvents();
    h.dispatch(event('PROFILE_UPDATED'));
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(asked).toBe(0);
  });
});
