import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../src/config/config.js';

describe('configuration', () => {
  it('uses the contract defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(4000);
    expect(config.password.bcryptCost).toBe(12);
    expect(config.code).toEqual({ length: 6, ttlSeconds: 300, maxAttempts: 5, failures: { perPhoneIp: 10, perIpDaily: 100 } });
    expect(config.sendCode).toEqual({ intervalSeconds: 60, perPhoneHourly: 5, perPhoneDaily: 10, perIpHourly: 20 });
    expect(config.loginFailures).toEqual({ perPhoneIp: 5, perIpDaily: 100 });
    expect(config.tokens).toEqual({ accessTtlSeconds: 900, refreshTtlSeconds: 2592000, refreshReuseGraceSeconds: 10 });
    expect(config.avatar.maxBytes).toBe(5242880);
    expect(config.defaultPhoneRegion).toBe('CN');
    expect(config.registrationEnabled).toBe(true);
    expect(config.migrateOnStart).toBe(true);
    expect(config.dataDir).toBe('./data');
    expect(config.sms.provider).toBe('console');
  });

  it('listens for Prometheus on METRICS_PORT, 9464 by default, off by default under NODE_ENV=test', () => {
    expect(loadConfig({}).metricsPort).toBe(9464);
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), MFA_ENCRYPTION_KEY: 'ab'.repeat(32), SMS_PROVIDER: 'console' }).metricsPort).toBe(9464);
    expect(loadConfig({ NODE_ENV: 'test' }).metricsPort).toBeUndefined();
    expect(loadConfig({ NODE_ENV: 'test', METRICS_PORT: '9100' }).metricsPort).toBe(9100);
    expect(loadConfig({ METRICS_PORT: '0' }).metricsPort).toBe(0);
    expect(loadConfig({ METRICS_PORT: 'off' }).metricsPort).toBeUndefined();
  });

  it.each(['on', '-1', '65536', '94.64', 'OFF '])('refuses METRICS_PORT=%s, saying what it takes', (value) => {
    expect(() => loadConfig({ METRICS_PORT: value })).toThrow(/METRICS_PORT: must be a port number \(0-65535\) or off/);
  });

  it('reads LOG_FORMAT json or pretty, leaves it unset by default, and refuses anything else', () => {
    expect(loadConfig({}).logFormat).toBeUndefined();
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(() => loadConfig({ LOG_FORMAT: 'yaml' })).toThrow(/LOG_FORMAT: must be json or pretty/);
  });

  it('refuses to start in production without JWT_SECRET, saying so', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', SMS_PROVIDER: 'console' })).toThrow(/JWT_SECRET: required when NODE_ENV=production/);
  });

  it('needs MFA_ENCRYPTION_KEY (32 bytes, hex or base64) in production, and reads the passkey relying party', () => {
    const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), SMS_PROVIDER: 'console' };
    expect(() => loadConfig(production)).toThrow(/MFA_ENCRYPTION_KEY: required when NODE_ENV=production/);
    const base64 = Buffer.alloc(32, 7).toString('base64');
    expect(loadConfig({ ...production, MFA_ENCRYPTION_KEY: base64 }).mfa.encryptionKey).toBe('07'.repeat(32));
    expect(loadConfig({ ...production, MFA_ENCRYPTION_KEY: 'AB'.repeat(32) }).mfa.encryptionKey).toBe('ab'.repeat(32));
    for (const bad of ['ab'.repeat(31), Buffer.alloc(16).toString('base64'), 'not a key']) {
      expect(() => loadConfig({ ...production, MFA_ENCRYPTION_KEY: bad })).toThrow(/MFA_ENCRYPTION_KEY: must be 32 random bytes/);
    }
    expect(loadConfig({}).mfa.encryptionKey).toBeUndefined();
    expect(loadConfig({ PORT: '4100' }).webauthn).toEqual({ rpId: 'localhost', rpName: 'Meeting', origins: ['http://localhost:4100'] });
    const set = loadConfig({ WEBAUTHN_RP_ID: 'meet.example.com', WEBAUTHN_ORIGINS: 'https://meet.example.com, https://app.meet.example.com' });
    expect(set.webauthn.origins).toEqual(['https://meet.example.com', 'https://app.meet.example.com']);
    expect(() => loadConfig({ WEBAUTHN_ORIGINS: 'meet.example.com' })).toThrow(/WEBAUTHN_ORIGINS: meet.example.com is not an origin/);
    expect(() => loadConfig({ WEBAUTHN_RP_ID: 'https://meet.example.com' })).toThrow(/WEBAUTHN_RP_ID: must be a host name/);
  });

  it('lists every bad variable at once', () => {
    try {
      loadConfig({ PORT: 'eighty', REGISTRATION_ENABLED: 'maybe', DEFAULT_PHONE_REGION: 'china', JWT_SECRET: 'short' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      for (const key of ['PORT', 'REGISTRATION_ENABLED', 'DEFAULT_PHONE_REGION', 'JWT_SECRET']) expect(problems).toContain(key);
    }
  });

  it('signs with HS256 unless JWT_ALGORITHM says ES256 or EdDSA, whose key files must be named in production', () => {
    const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), MFA_ENCRYPTION_KEY: 'ab'.repeat(32), SMS_PROVIDER: 'console' };
    expect(loadConfig({}).jwt).toMatchObject({ algorithm: 'HS256', privateKeysFiles: [] });
    expect(loadConfig({ JWT_ALGORITHM: 'EdDSA' }).jwt).toMatchObject({ algorithm: 'EdDSA', privateKeysFiles: [] });
    expect(loadConfig({ JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEYS_FILE: 'a.json, b.pem' }).jwt.privateKeysFiles).toEqual(['a.json', 'b.pem']);
    expect(loadConfig({ ...production, JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEYS_FILE: '/run/secrets/jwt-keys.json' }).jwt.algorithm).toBe('ES256');
    expect(() => loadConfig({ ...production, JWT_ALGORITHM: 'ES256' })).toThrow(/JWT_PRIVATE_KEYS_FILE: required when NODE_ENV=production and JWT_ALGORITHM=ES256/);
    expect(() => loadConfig({ JWT_PRIVATE_KEYS_FILE: 'keys.json' })).toThrow(/JWT_PRIVATE_KEYS_FILE: only used with JWT_ALGORITHM=ES256 or EdDSA/);
    expect(() => loadConfig({ JWT_ALGORITHM: 'RS256' })).toThrow(/JWT_ALGORITHM: must be HS256, ES256 or EdDSA/);
    expect(() => loadConfig({ JWT_ALGORITHM: 'none' })).toThrow(/JWT_ALGORITHM/);
  });

  it('reads the SMS pumping defences: regions served (default: the default region), blocked ranges, budgets, breaker, regions per address', () => {
    expect(loadConfig({}).smsFraud).toEqual({
      allowedCountries: ['CN'],
      blockedPrefixes: [],
      dailyBudget: {},
      minConversion: 0.2,
      conversionMinSends: 100,
      countriesPerIpDaily: 5,
    });
    expect(loadConfig({ DEFAULT_PHONE_REGION: 'HK' }).smsFraud.allowedCountries).toEqual(['HK']);
    const custom = loadConfig({
      SMS_ALLOWED_COUNTRIES: 'CN, GB',
      SMS_BLOCKED_PREFIXES: '+86170,+4474001',
      SMS_DAILY_BUDGET_PER_COUNTRY: 'CN=100000,US=2000,*=50',
      SMS_MIN_CONVERSION: '0',
      SMS_CONVERSION_MIN_SENDS: '20',
      SEND_CODE_COUNTRIES_PER_IP_DAILY: '2',
    }).smsFraud;
    expect(custom).toEqual({
      allowedCountries: ['CN', 'GB'],
      blockedPrefixes: ['+86170', '+4474001'],
      dailyBudget: { CN: 100000, US: 2000, '*': 50 },
      minConversion: 0,
      conversionMinSends: 20,
      countriesPerIpDaily: 2,
    });
    expect(loadConfig({ SMS_ALLOWED_COUNTRIES: '*' }).smsFraud.allowedCountries).toBe('*');
    expect(() => loadConfig({ SMS_ALLOWED_COUNTRIES: 'CN,XX,china' })).toThrow(/SMS_ALLOWED_COUNTRIES: .+\(not regions: XX, china\)/);
    expect(() => loadConfig({ SMS_BLOCKED_PREFIXES: '86170' })).toThrow(/SMS_BLOCKED_PREFIXES: must be E.164 prefixes such as \+86170 \(not: 86170\)/);
    expect(() => loadConfig({ SMS_DAILY_BUDGET_PER_COUNTRY: 'CN:100' })).toThrow(/SMS_DAILY_BUDGET_PER_COUNTRY: CN:100 is not REGION=COUNT/);
    for (const entry of ['XX=5', 'CN=-1', 'CN=1.5', 'cn=5']) {
      expect(() => loadConfig({ SMS_DAILY_BUDGET_PER_COUNTRY: entry })).toThrow(`SMS_DAILY_BUDGET_PER_COUNTRY: ${entry} is not REGION=COUNT`);
    }
    for (const value of ['1.5', '-0.1']) expect(() => loadConfig({ SMS_MIN_CONVERSION: value })).toThrow(/SMS_MIN_CONVERSION: must be between 0 and 1/);
    expect(() => loadConfig({ SMS_MIN_CONVERSION: 'half' })).toThrow(/SMS_MIN_CONVERSION: must be a number/);
    for (const key of ['SMS_CONVERSION_MIN_SENDS', 'SEND_CODE_COUNTRIES_PER_IP_DAILY', 'SECURITY_EVENT_RETENTION_DAYS', 'AUDIT_LOG_RETENTION_DAYS']) {
      for (const value of ['0', 'abc']) expect(() => loadConfig({ [key]: value })).toThrow(new RegExp(`${key}: `));
    }
    expect(() => loadConfig({ SECURITY_EVENT_RETENTION_DAYS: '36501' })).toThrow(/SECURITY_EVENT_RETENTION_DAYS: /);
    expect(loadConfig({ SECURITY_EVENT_RETENTION_DAYS: '36500' }).securityEvents).toEqual({ retentionDays: 36500 });
    expect(loadConfig({ SECURITY_EVENT_RETENTION_DAYS: '7' }).securityEvents).toEqual({ retentionDays: 7 });
    expect(loadConfig({}).securityEvents).toEqual({ retentionDays: 90 });
    expect(loadConfig({}).auditLog).toEqual({ retentionDays: 400 });
    expect(loadConfig({ AUDIT_LOG_RETENTION_DAYS: '3650' }).auditLog).toEqual({ retentionDays: 3650 });
  });

  it('requires an outbox file for the file SMS provider', () => {
    expect(() => loadConfig({ SMS_PROVIDER: 'file' })).toThrow(/SMS_OUTBOX_FILE/);
  });

  it('shows GraphiQL on GET /graphql outside production and no explorer in production, unless told otherwise', () => {
    const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), MFA_ENCRYPTION_KEY: 'ab'.repeat(32), SMS_PROVIDER: 'console' };
    expect(loadConfig({}).graphqlExplorer).toBe('graphiql');
    expect(loadConfig({ NODE_ENV: 'test' }).graphqlExplorer).toBe('graphiql');
    expect(loadConfig({ GRAPHQL_EXPLORER: 'sandbox' }).graphqlExplorer).toBe('sandbox');
    expect(loadConfig({ GRAPHQL_EXPLORER: 'off' }).graphqlExplorer).toBe('off');
    expect(loadConfig(production).graphqlExplorer).toBe('off');
    expect(loadConfig({ ...production, GRAPHQL_EXPLORER: 'off' }).graphqlExplorer).toBe('off');
    expect(() => loadConfig({ ...production, GRAPHQL_EXPLORER: 'graphiql' })).toThrow(/GRAPHQL_EXPLORER: must be off when NODE_ENV=production/);
    expect(() => loadConfig({ GRAPHQL_EXPLORER: 'playground' })).toThrow(/GRAPHQL_EXPLORER/);
  });

  it('serves the operator console unless CONSOLE=off, in production too', () => {
    const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), MFA_ENCRYPTION_KEY: 'ab'.repeat(32), SMS_PROVIDER: 'console' };
    expect(loadConfig({}).console).toBe(true);
    expect(loadConfig(production).console).toBe(true);
    expect(loadConfig({ CONSOLE: 'on' }).console).toBe(true);
    expect(loadConfig({ ...production, CONSOLE: 'off' }).console).toBe(false);
    expect(() => loadConfig({ CONSOLE: 'no' })).toThrow(/CONSOLE: must be on or off/);
  });

  it('sends webhooks only when WEBHOOK_URLS is set, signed with a whsec_ secret, on the contract schedule by default', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(loadConfig({}).webhooks).toEqual({
      urls: [],
      secret: '',
      timeoutMs: 5000,
      retryScheduleMs: [5000, 30_000, 120_000, 600_000, 1_800_000, 7_200_000, 28_800_000],
      retentionDays: 30,
    });
    expect(loadConfig({ WEBHOOK_RETENTION_DAYS: '7' }).webhooks.retentionDays).toBe(7);
    const on = loadConfig({ WEBHOOK_URLS: ' http://127.0.0.1:9000/hook , https://user:pw@hooks.example.com/in ', WEBHOOK_SECRET: secret });
    expect(on.webhooks.urls).toEqual(['http://127.0.0.1:9000/hook', 'https://user:pw@hooks.example.com/in']);
    expect(on.webhooks.secret).toBe(secret);
    const fast = loadConfig({ WEBHOOK_URLS: 'http://127.0.0.1:9000/', WEBHOOK_SECRET: secret, WEBHOOK_TIMEOUT_MS: '200', WEBHOOK_RETRY_SCHEDULE: '50ms,1s,2m,1h' });
    expect(fast.webhooks.timeoutMs).toBe(200);
    expect(fast.webhooks.retryScheduleMs).toEqual([50, 1000, 120_000, 3_600_000]);
    expect(Object.isFrozen(fast.webhooks.retryScheduleMs)).toBe(true);
  });

  it('refuses webhook settings that cannot work, saying which and why', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const url = 'http://127.0.0.1:9000/hook';
    expect(() => loadConfig({ WEBHOOK_URLS: url })).toThrow(/WEBHOOK_SECRET: required when WEBHOOK_URLS is set/);
    expect(() => loadConfig({ WEBHOOK_SECRET: secret })).toThrow(/WEBHOOK_SECRET: set without WEBHOOK_URLS/);
    for (const bad of ['not-a-secret', Buffer.alloc(32, 7).toString('base64'), 'whsec_', 'whsec_%%%%', `whsec_${Buffer.alloc(8).toString('base64')}`]) {
      expect(() => loadConfig({ WEBHOOK_URLS: url, WEBHOOK_SECRET: bad })).toThrow(/WEBHOOK_SECRET: must be whsec_ followed by the base64/);
    }
    expect(() => loadConfig({ WEBHOOK_URLS: 'ftp://example.com/x', WEBHOOK_SECRET: secret })).toThrow(/WEBHOOK_URLS: ftp:\/\/example.com\/x is not an http\(s\) URL/);
    expect(() => loadConfig({ WEBHOOK_URLS: 'hooks.example.com', WEBHOOK_SECRET: secret })).toThrow(/WEBHOOK_URLS/);
    // A URL's credentials are not repeated in the message, which ends up in logs.
    expect(() => loadConfig({ WEBHOOK_URLS: 'gopher://user:hunter2@example.com/', WEBHOOK_SECRET: secret })).toThrow(/gopher:\/\/\*\*\*@example.com/);
    expect(() => loadConfig({ WEBHOOK_URLS: 'gopher://user:hunter2@example.com/', WEBHOOK_SECRET: secret })).not.toThrow(/hunter2/);
    expect(() => loadConfig({ WEBHOOK_URLS: `${url},${url}`, WEBHOOK_SECRET: secret })).toThrow(/WEBHOOK_URLS: a URL is listed twice/);
    for (const schedule of ['5 seconds', '5s,,', '5s,-1m', '1d', ',']) {
      expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: schedule })).toThrow(/WEBHOOK_RETRY_SCHEDULE: must be a comma-separated list of waits/);
    }
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '10' })).toThrow(/WEBHOOK_TIMEOUT_MS/);
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: 'soon' })).toThrow(/WEBHOOK_TIMEOUT_MS/);
    expect(() => loadConfig({ WEBHOOK_RETENTION_DAYS: '0' })).toThrow(/WEBHOOK_RETENTION_DAYS/);
  });

  it('waits 60 s for a whole request and 20 s for its headers unless REQUEST_TIMEOUT_MS and HEADERS_TIMEOUT_MS say otherwise', () => {
    expect(loadConfig({}).http).toEqual({ requestTimeoutMs: 60_000, headersTimeoutMs: 20_000 });
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '1500', HEADERS_TIMEOUT_MS: '1000' }).http).toEqual({ requestTimeoutMs: 1500, headersTimeoutMs: 1000 });
    // The headers are part of the request: a shorter request timeout shortens the default headers timeout too.
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '5000' }).http).toEqual({ requestTimeoutMs: 5000, headersTimeoutMs: 5000 });
    expect(loadConfig({ HEADERS_TIMEOUT_MS: '60000' }).http).toEqual({ requestTimeoutMs: 60_000, headersTimeoutMs: 60_000 });
  });

  it.each(['0', '-1', '99', '3600001', '1.5', 'soon', '20s'])('refuses %s as REQUEST_TIMEOUT_MS or HEADERS_TIMEOUT_MS, saying what they take', (value) => {
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: value })).toThrow(/REQUEST_TIMEOUT_MS: /);
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: value })).toThrow(/HEADERS_TIMEOUT_MS: /);
  });

  it('refuses a headers timeout longer than the request timeout', () => {
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '5001' })).toThrow(/HEADERS_TIMEOUT_MS: must not be longer than REQUEST_TIMEOUT_MS \(5000\)/);
    expect(() => loadConfig({ HEADERS_TIMEOUT_MS: '60001' })).toThrow(/HEADERS_TIMEOUT_MS: must not be longer than REQUEST_TIMEOUT_MS \(60000\)/);
  });

  it('runs in session mode with named statements unless DATABASE_POOL_MODE=transaction, which goes without and may name a direct URL for migrations', () => {
    const url = 'postgres://app:secret@pgbouncer:6432/accounts';
    const direct = 'postgres://app:secret@postgres:5432/accounts';
    expect(loadConfig({}).database).toEqual({ url: undefined, directUrl: undefined, poolMode: 'session', poolSize: 10, preparedStatements: true });
    expect(loadConfig({ DATABASE_URL: url, DATABASE_PREPARED_STATEMENTS: 'false' }).database).toMatchObject({ poolMode: 'session', preparedStatements: false });
    expect(loadConfig({ DATABASE_URL: url, DATABASE_POOL_MODE: 'transaction', DATABASE_DIRECT_URL: direct }).database).toEqual({
      url,
      directUrl: direct,
      poolMode: 'transaction',
      poolSize: 10,
      preparedStatements: false,
    });
    expect(loadConfig({ DATABASE_URL: url, DATABASE_POOL_MODE: 'transaction', DATABASE_PREPARED_STATEMENTS: 'false' }).database.preparedStatements).toBe(false);
  });

  it('refuses pool settings that cannot work: an unknown mode, a direct URL that is not PostgreSQL, a pooler without DATABASE_URL, named statements in transaction mode', () => {
    const url = 'postgres://app@pgbouncer:6432/accounts';
    expect(() => loadConfig({ DATABASE_URL: url, DATABASE_POOL_MODE: 'statement' })).toThrow(/DATABASE_POOL_MODE: must be session or transaction/);
    expect(() => loadConfig({ DATABASE_URL: url, DATABASE_DIRECT_URL: 'mysql://db/accounts' })).toThrow(/DATABASE_DIRECT_URL: must be a postgres:\/\/ URL/);
    expect(() => loadConfig({ DATABASE_POOL_MODE: 'transaction' })).toThrow(/DATABASE_POOL_MODE: transaction is for DATABASE_URL pointing at a transaction-mode pooler/);
    expect(() => loadConfig({ DATABASE_DIRECT_URL: 'postgres://postgres/accounts' })).toThrow(/DATABASE_DIRECT_URL: only used with DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: url, DATABASE_POOL_MODE: 'transaction', DATABASE_PREPARED_STATEMENTS: 'true' })).toThrow(
      /DATABASE_PREPARED_STATEMENTS: named prepared statements cannot work with DATABASE_POOL_MODE=transaction/,
    );
  });

  it('reads booleans and numbers from strings and freezes the result', () => {
    const config = loadConfig({ REGISTRATION_ENABLED: 'false', CODE_TTL_SECONDS: '120' });
    expect(config.registrationEnabled).toBe(false);
    expect(config.code.ttlSeconds).toBe(120);
    expect(Object.isFrozen(config.code)).toBe(true);
  });
});
