import { readFileSync } from 'node:fs';
import type { Config } from './config/config.js';
import type { Sql } from './db/sql.js';
import { AccountService } from './modules/account/account.service.js';
import { SelfService } from './modules/account/self-service.service.js';
import { PasswordCheck } from './modules/auth/password-check.js';
import { AuthService } from './modules/auth/auth.service.js';
import { Authenticator } from './modules/auth/authenticator.js';
import { Sessions } from './modules/auth/sessions.js';
import { createSmsProvider, type SmsProvider } from './modules/auth/sms/index.js';
import { VerificationCodes } from './modules/auth/verification-codes.js';
import { AvatarService } from './modules/avatar/avatar.service.js';
import type { AvatarStorage } from './modules/avatar/avatar-storage.js';
import { LocalAvatarStorage } from './modules/avatar/local-storage.js';
import { S3AvatarStorage } from './modules/avatar/s3-storage.js';
import { UploadStaging } from './modules/avatar/upload-staging.js';
import { PublicConfigService } from './modules/public-config/public-config.service.js';
import { StatsService } from './modules/stats/stats.service.js';
import { UsageService } from './modules/stats/usage.service.js';
import { PasswordHasher } from './shared/password/password-hasher.js';
import { PostgresRateLimitStore } from './shared/rate-limit/postgres-store.js';
import { RedisRateLimitStore } from './shared/rate-limit/redis-store.js';
import { RateLimiter } from './shared/rate-limit/rate-limiter.js';
import { AccessTokens } from './shared/tokens/access-token.js';
import { loadKeys } from './shared/tokens/secrets.js';
import type { Logger } from './shared/logger.js';
import { redactUrl } from './shared/url.js';
import { join } from 'node:path';

export interface Services {
  auth: AuthService;
  authenticator: Authenticator;
  accounts: AccountService;
  selfService: SelfService;
  avatars: AvatarService;
  avatarStorage: AvatarStorage;
  publicConfig: PublicConfigService;
  stats: StatsService;
  usage: UsageService;
  sms: SmsProvider;
  limits: { avatarMaxBytes: number };
  /** Where counters live, for the start-up summary. */
  counterStore: string;
  /** Whether the stores besides the database answer (Redis when configured). */
  storesReady(): Promise<boolean>;
  close(): Promise<void>;
}

/** The package version, read once; the file sits one level up from src/ and two from dist/src/. */
export const SERVICE_VERSION = ((): string => {
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as { name?: string; version: string };
      if (pkg.name === 'meeting-accounts') return pkg.version;
    } catch {
      // not at this level
    }
  }
  return '0.0.0';
})();

/** Wires the domain services once; both transports receive the same instances. */
export function createServices(config: Config, sql: Sql, logger: Logger, overrides: { sms?: SmsProvider } = {}): Services {
  const keys = loadKeys(config.jwt.secret, config.dataDir);
  const tokens = new AccessTokens({
    key: keys.jwt,
    issuer: config.jwt.issuer,
    audience: config.jwt.audience,
    ttlSeconds: config.tokens.accessTtlSeconds,
  });
  const accounts = new AccountService(sql);
  const sessions = new Sessions(sql, {
    refreshTtlSeconds: config.tokens.refreshTtlSeconds,
    refreshReuseGraceSeconds: config.tokens.refreshReuseGraceSeconds,
  });
  const hasher = new PasswordHasher(config.password.bcryptCost, config.password.hashThreads);
  const sms = overrides.sms ?? createSmsProvider(config.sms);
  const redis = config.redis ? RedisRateLimitStore.connect(config.redis.url, config.redis.keyPrefix) : undefined;
  const limiter = new RateLimiter(redis ?? new PostgresRateLimitStore(sql));
  const passwords = new PasswordCheck(hasher, limiter, config.loginFailures);
  const codes = new VerificationCodes(sql, keys.codes, config.code);
  const auth = new AuthService(
    { accounts, codes, sessions, tokens, hasher, limiter, passwords, sms },
    {
      defaultPhoneRegion: config.defaultPhoneRegion,
      registrationEnabled: config.registrationEnabled,
      codeTtlSeconds: config.code.ttlSeconds,
      sendCode: config.sendCode,
      refreshTtlSeconds: config.tokens.refreshTtlSeconds,
    },
  );
  const avatarStorage =
    config.avatar.storage === 's3'
      ? new S3AvatarStorage({ ...config.avatar.s3, timeoutMs: 10_000 })
      : new LocalAvatarStorage(join(config.dataDir, 'avatars'));
  const staging = new UploadStaging(join(config.dataDir, 'tmp'), config.avatar.maxBytes);
  return {
    auth,
    authenticator: new Authenticator(tokens, sessions),
    accounts,
    selfService: new SelfService({
      sql,
      accounts,
      sessions,
      codes,
      hasher,
      passwords,
      avatarStorage,
      logger,
      defaultPhoneRegion: config.defaultPhoneRegion,
    }),
    avatars: new AvatarService(sql, accounts, avatarStorage, staging, logger),
    avatarStorage,
    limits: { avatarMaxBytes: config.avatar.maxBytes },
    publicConfig: new PublicConfigService(config, SERVICE_VERSION),
    stats: new StatsService(sql),
    usage: new UsageService(sql),
    sms,
    counterStore: config.redis ? `Redis ${redactUrl(config.redis.url)}` : 'PostgreSQL',
    storesReady: () => (redis ? redis.ping().catch(() => false) : Promise.resolve(true)),
    close: async () => {
      await hasher.close();
      await redis?.close();
    },
  };
}
