// Which transport live events take (API.md 10.2), decided once at start from the configuration, and
// the settings that cannot work together, refused before anything starts.
import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config/config.js';
import { databasePlan } from '../../src/db/plan.js';
import { liveTransport } from '../../src/modules/live/live-settings.js';

const URL = 'postgres://accounts@pgbouncer:6432/accounts';
const DIRECT = 'postgres://accounts@postgres:5432/accounts';
const REDIS = 'redis://redis:6379';

function decided(env: Record<string, string>, serverVersion = 'PostgreSQL 17.2 on x86_64-pc-linux-gnu') {
  const config = loadConfig({ NODE_ENV: 'test', ...env });
  return liveTransport(config, databasePlan(config, 'postgres://postgres@127.0.0.1:1/embedded'), serverVersion);
}

describe('the live events transport', () => {
  it('the embedded database: within the process', () => {
    expect(decided({})).toEqual({ settings: { kind: 'process', database: 'postgres://postgres@127.0.0.1:1/embedded' } });
  });

  it('PostgreSQL: NOTIFY/LISTEN, listening on DATABASE_URL', () => {
    expect(decided({ DATABASE_URL: DIRECT }).settings).toEqual({ kind: 'postgres', database: DIRECT, listenUrl: DIRECT });
  });

  it('behind a transaction-mode pooler: listening on DATABASE_DIRECT_URL', () => {
    const { settings, warning } = decided({ DATABASE_URL: URL, DATABASE_POOL_MODE: 'transaction', DATABASE_DIRECT_URL: DIRECT });
    expect(settings).toEqual({ kind: 'postgres', database: URL, listenUrl: DIRECT });
    expect(warning).toBeUndefined();
  });

  it('behind a transaction-mode pooler without DATABASE_DIRECT_URL: this instance only, and the start-up says what to set', () => {
    const { settings, warning } = decided({ DATABASE_URL: URL, DATABASE_POOL_MODE: 'transaction', MIGRATE_ON_START: 'false' });
    expect(settings.kind).toBe('process');
    expect(warning).toMatch(/Set DATABASE_DIRECT_URL .* or REDIS_URL/);
  });

  it("DATABASE_URL leading to PGlite's socket server: within the process, saying why", () => {
    const { settings, warning } = decided({ DATABASE_URL: DIRECT }, 'PostgreSQL 18.6 (PGlite 0.5.14) on wasm32-unknown-emscripten');
    expect(settings.kind).toBe('process');
    expect(warning).toMatch(/PGlite/);
    expect(decided({ DATABASE_URL: DIRECT, LIVE_EVENTS_TRANSPORT: 'postgres' }, 'PostgreSQL 18.6 (PGlite 0.5.14)').settings.kind).toBe('postgres');
  });

  it('with REDIS_URL: Redis pub/sub, under the key prefix', () => {
    expect(decided({ DATABASE_URL: DIRECT, REDIS_URL: REDIS, REDIS_KEY_PREFIX: 'acc:' }).settings).toEqual({ kind: 'redis', database: DIRECT, redis: { url: REDIS, keyPrefix: 'acc:' } });
  });

  it('LIVE_EVENTS_TRANSPORT chooses, over REDIS_URL', () => {
    expect(decided({ DATABASE_URL: DIRECT, REDIS_URL: REDIS, LIVE_EVENTS_TRANSPORT: 'postgres' }).settings.kind).toBe('postgres');
    expect(decided({ DATABASE_URL: DIRECT, LIVE_EVENTS_TRANSPORT: 'process' }).settings.kind).toBe('process');
  });

  it('refuses what cannot work', () => {
    expect(() => loadConfig({ LIVE_EVENTS_TRANSPORT: 'redis' })).toThrow(/LIVE_EVENTS_TRANSPORT: redis needs REDIS_URL/);
    expect(() => loadConfig({ LIVE_EVENTS_TRANSPORT: 'postgres' })).toThrow(/LIVE_EVENTS_TRANSPORT: postgres needs DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: URL, DATABASE_POOL_MODE: 'transaction', LIVE_EVENTS_TRANSPORT: 'postgres' })).toThrow(/postgres behind a transaction-mode pooler needs DATABASE_DIRECT_URL/);
    expect(() => loadConfig({ LIVE_EVENTS_TRANSPORT: 'kafka' })).toThrow(/LIVE_EVENTS_TRANSPORT: /);
    expect(() => loadConfig({ WS_MAX_CONNECTIONS: '0' })).toThrow(/WS_MAX_CONNECTIONS/);
    expect(() => loadConfig({ WS_KEEPALIVE_SECONDS: 'soon' })).toThrow(/WS_KEEPALIVE_SECONDS/);
  });
});
