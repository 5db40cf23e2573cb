import { Redis } from 'ioredis';
import type { RateLimitStore, WindowState } from './rate-limiter.js';

// Each script runs atomically inside Redis: no other client sees a half-updated window.
const HIT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

const PEEK = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
return {count, ttl}`;

const UNDO = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then redis.call('DECR', KEYS[1]) end
return count`;

/** The same fixed windows as the PostgreSQL store, as Redis keys that expire with their window. */
export class RedisRateLimitStore implements RateLimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  static connect(url: string, prefix: string): RedisRateLimitStore {
    const redis = new Redis(url, {
      lazyConnect: false,
      maxRetriesPerRequest: 2,
      connectTimeout: 2_000,
      commandTimeout: 2_000,
      enableOfflineQueue: true,
    });
    redis.on('error', () => undefined); // reconnects by itself; failed commands reject and are answered per request
    return new RedisRateLimitStore(redis, prefix);
  }

  async hit(key: string, windowSeconds: number): Promise<WindowState> {
    const [count, ttl] = (await this.redis.eval(HIT, 1, this.key(key), String(windowSeconds * 1000))) as [number, number];
    return { count, resetInSeconds: ttl / 1000 };
  }

  async peek(key: string): Promise<WindowState> {
    const [count, ttl] = (await this.redis.eval(PEEK, 1, this.key(key))) as [number, number];
    return { count, resetInSeconds: Math.max(0, ttl) / 1000 };
  }

  async undo(key: string): Promise<void> {
    await this.redis.eval(UNDO, 1, this.key(key));
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(this.key(key));
  }

  async ping(): Promise<boolean> {
    return (await this.redis.ping()) === 'PONG';
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private key(key: string): string {
    return `${this.prefix}rl:${key}`;
  }
}
