// Two instances of one deployment sharing a counter store (PostgreSQL, or Redis under a prefix of
// their own), for the tests of limits that must hold across instances.
import { afterAll, beforeAll, beforeEach, describe } from '@jest/globals';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { type TestServer, type TestServerOptions, useTestServer } from './server.js';

export interface Pair {
  a: TestServer;
  b: TestServer;
}

/**
 * A and B, started with `env()` for the enclosing describe block: two `useTestServer`s (each reset
 * before each test, its SMS outbox included; they share one database).
 */
export function instancePair(env: () => Record<string, string>, options: TestServerOptions = {}): Pair {
  return { a: useTestServer(env, options), b: useTestServer(env, options) };
}

/**
 * Why Redis tests cannot run, if they cannot: `npm test` provides TEST_REDIS_URL (a redis-server of
 * its own) and says TEST_REDIS_SKIP only when there is none to start.
 */
const REDIS_SKIP = process.env.TEST_REDIS_SKIP ?? (process.env.TEST_REDIS_URL ? undefined : 'TEST_REDIS_URL is not set');

export interface RedisCounters {
  /** The instances' environment: this Redis, under a key prefix of this describe block's own. */
  env: Record<string, string>;
  prefix: string;
  /** The client, connected once the block's beforeAll has run. */
  client(): Redis;
}

/**
 * A describe block whose instances keep their counters in Redis, under a fresh prefix whose keys are
 * removed before each test and at the end; skipped, with the reason printed, when there is no Redis.
 */
export function describeWithRedis(name: string, body: (redis: RedisCounters) => void): void {
  if (REDIS_SKIP) {
    console.warn(`skipping "${name}": ${REDIS_SKIP}`);
    describe.skip(name, () => body({ env: {}, prefix: '', client: () => undefined as never }));
    return;
  }
  const url = process.env.TEST_REDIS_URL!;
  describe(name, () => {
    const prefix = `test-${randomBytes(6).toString('hex')}:`;
    let redis: Redis;
    const removeKeys = async () => {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    };
    beforeAll(async () => {
      redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy: () => null });
      try {
        await redis.connect();
      } catch (error) {
        throw new Error(`Redis is not reachable at ${url} (TEST_REDIS_URL): ${String(error)}`);
      }
    });
    beforeEach(() => removeKeys());
    afterAll(async () => {
      if (redis?.status === 'ready') {
        await removeKeys();
        await redis.quit();
      } else redis?.disconnect();
    });
    body({ env: { REDIS_URL: url, REDIS_KEY_PREFIX: prefix }, prefix, client: () => redis });
  });
}
