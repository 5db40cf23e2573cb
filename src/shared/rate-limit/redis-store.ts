import { Redis } from 'ioredis';
import { inFlightKey, type Admission, type RateLimitStore, type Rule, type WindowState } from './rate-limiter.js';

// Each script runs atomically inside Redis: no other client sees a half-updated window.
const HIT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

const UNDO = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then redis.call('DECR', KEYS[1]) end
return count`;

// Failure limits (RateLimiter.admitAttempt). KEYS: the failures and in-flight keys of each rule, in
// pairs. Returns {0, ms left in the window, rule} when failures reached a limit, {1, 0, rule} when
// there is no room beside them for one more attempt in flight, {2} when admitted (rule: from 0).
// ARGV: each rule's limit, then the lifetime of attempts in flight (ms).
const ADMIT = `
local n = #KEYS / 2
local failures = {}
for i = 1, n do
  failures[i] = tonumber(redis.call('GET', KEYS[2 * i - 1]) or '0')
  if failures[i] >= tonumber(ARGV[i]) then return {0, redis.call('PTTL', KEYS[2 * i - 1]), i - 1} end
end
for i = 1, n do
  if failures[i] + tonumber(redis.call('GET', KEYS[2 * i]) or '0') + 1 > tonumber(ARGV[i]) then return {1, 0, i - 1} end
end
for i = 1, n do
  redis.call('INCR', KEYS[2 * i])
  redis.call('PEXPIRE', KEYS[2 * i], ARGV[n + 1])
end
return {2}`;

// An attempt fewer in flight; ARGV: 1 when it failed, with each rule's window (ms) from ARGV[2] on.
const SETTLE = `
for i = 1, #KEYS / 2 do
  if ARGV[1] == '1' then
    redis.call('INCR', KEYS[2 * i - 1])
    if redis.call('PTTL', KEYS[2 * i - 1]) < 0 then redis.call('PEXPIRE', KEYS[2 * i - 1], ARGV[i + 1]) end
  end
  local inFlight = tonumber(redis.call('GET', KEYS[2 * i]) or '0')
  if inFlight > 1 then redis.call('DECR', KEYS[2 * i]) elseif inFlight == 1 then redis.call('DEL', KEYS[2 * i]) end
end`;

// KEYS: the set. ARGV: the member, the limit, the set's lifetime (ms). Returns {1 or 0, ms left}.
const ADMIT_MEMBER = `
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return {1, redis.call('PTTL', KEYS[1])} end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return {0, redis.call('PTTL', KEYS[1])} end
redis.call('SADD', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  ttl = tonumber(ARGV[3])
end
return {1, ttl}`;

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

  async undo(key: string): Promise<void> {
    await this.redis.eval(UNDO, 1, this.key(key));
  }

  async counts(keys: string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    return (await this.redis.mget(...keys.map((k) => this.key(k)))).map((value) => Number(value ?? 0));
  }

  async admitMember(key: string, member: string, limit: number, windowSeconds: number): Promise<{ admitted: boolean; resetInSeconds: number }> {
    const [admitted, ttl] = (await this.redis.eval(ADMIT_MEMBER, 1, this.key(key), member, String(limit), String(windowSeconds * 1000))) as [number, number];
    return { admitted: admitted === 1, resetInSeconds: Math.max(0, ttl) / 1000 };
  }

  async admitAttempt(rules: Rule[], inFlightSeconds: number): Promise<Admission> {
    const [outcome, ttl, rule] = (await this.redis.eval(
      ADMIT,
      2 * rules.length,
      ...this.ruleKeys(rules),
      ...rules.map((r) => String(r.limit)),
      String(inFlightSeconds * 1000),
    )) as [number, number?, number?];
    if (outcome === 2) return { outcome: 'admitted' };
    if (outcome === 1) return { outcome: 'busy', rule: rule ?? 0 };
    return { outcome: 'locked', rule: rule ?? 0, resetInSeconds: Math.max(0, ttl ?? 0) / 1000 };
  }

  async failAttempt(rules: Rule[]): Promise<void> {
    await this.redis.eval(SETTLE, 2 * rules.length, ...this.ruleKeys(rules), '1', ...rules.map((r) => String(r.windowSeconds * 1000)));
  }

  async releaseAttempt(rules: Rule[]): Promise<void> {
    await this.redis.eval(SETTLE, 2 * rules.length, ...this.ruleKeys(rules), '0');
  }

  async ping(): Promise<boolean> {
    return (await this.redis.ping()) === 'PONG';
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private ruleKeys(rules: Rule[]): string[] {
    return rules.flatMap((r) => [this.key(r.key), this.key(inFlightKey(r))]);
  }

  private key(key: string): string {
    return `${this.prefix}rl:${key}`;
  }
}
