// A subscriber's queue (Feed) and the live messages' wire shape: pure logic of src/modules/live.
import { describe, expect, it, jest } from '@jest/globals';
import { parseLiveMessage } from '../../src/modules/live/account-event.js';
import { Feed } from '../../src/modules/live/live-hub.js';

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
