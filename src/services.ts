import { readFileSync } from 'node:fs';
import type { Config } from './config/config.js';
import type { Database } from './db/database.js';
import type { ScheduledJob, Sweeper } from './db/janitor.js';
import { AccountRepository } from './modules/account/account.repository.js';
import { AccountService } from './modules/account/account.service.js';
import { AdminService, type FactorSummaries } from './modules/admin/admin.service.js';
import { auditOperatorPhoneChange } from './modules/admin/phone-change-audit.js';
import { AuditLogRepository } from './modules/audit/audit-log.repository.js';
import { AuditLogService } from './modules/audit/audit-log.service.js';
import { PasswordCheck } from './modules/auth/password-check.js';
import { AuthService } from './modules/auth/auth.service.js';
import { ExternalSignInService } from './modules/auth/external-sign-in.service.js';
import { SignIns } from './modules/auth/sign-ins.js';
import { DormantAccounts, type AccountFactors } from './modules/auth/second-proof.js';
import { SecondProofService } from './modules/auth/second-proof.service.js';
import { SecondProofTokens } from './modules/mfa/second-proof-tokens.js';
import { IdentityRepository } from './modules/identity/identity.repository.js';
import { IdentityService } from './modules/identity/identity.service.js';
import { PendingIdentityFlows } from './modules/identity/pending-identity-flows.js';
import { Provider } from './modules/identity/providers.js';
import { Authenticator } from './modules/auth/authenticator.js';
import { SmsFraudGuard } from './modules/auth/sms-fraud-guard.js';
import { createSmsProvider, type SmsProvider } from './modules/auth/sms/index.js';
import { VerificationCodeRepository } from './modules/auth/verification-code.repository.js';
import { VerificationCodeService } from './modules/auth/verification-code.service.js';
import { allPendingSignIns } from './modules/auth/pending-sign-ins.js';
import { SignInFailureLog } from './modules/auth/sign-in-failure-log.js';
import { PasskeyRecords } from './modules/passkey/passkey-records.js';
import { passkeyCountOf, PasskeyRepository } from './modules/passkey/passkey.repository.js';
import { PasskeyService } from './modules/passkey/passkey.service.js';
import { PhoneChangeRepository } from './modules/phone-change/phone-change.repository.js';
import { PhoneChangeService } from './modules/phone-change/phone-change.service.js';
import { PhoneChangeSms } from './modules/phone-change/phone-change-sms.js';
import { PhoneChangeApplier } from './modules/phone-change/phone-change-apply.js';
import { SecurityEventRepository } from './modules/security-event/security-event.repository.js';
import { SecurityEventService } from './modules/security-event/security-event.service.js';
import { SessionRepository } from './modules/session/session.repository.js';
import { SessionService } from './modules/session/session.service.js';
import { AvatarService } from './modules/avatar/avatar.service.js';
import { MfaRepository } from './modules/mfa/mfa.repository.js';
import { MfaService } from './modules/mfa/mfa.service.js';
import { PendingMfaTokens } from './modules/mfa/pending-mfa-tokens.js';
import { SecretBox } from './modules/mfa/secret-box.js';
import type { AvatarStorage } from './modules/avatar/avatar-storage.js';
import { LocalAvatarStorage } from './modules/avatar/local-storage.js';
import { S3AvatarStorage } from './modules/avatar/s3-storage.js';
import { UploadStaging } from './modules/avatar/upload-staging.js';
import { PublicConfigService } from './modules/public-config/public-config.service.js';
import { StatsRepository } from './modules/stats/stats.repository.js';
import { StatsService } from './modules/stats/stats.service.js';
import { UsageService } from './modules/stats/usage.service.js';
import { WebhookRepository } from './modules/webhook/webhook.repository.js';
import { WebhookService } from './modules/webhook/webhook.service.js';
import { LiveHub } from './modules/live/live-hub.js';
import { liveTransport } from './modules/live/live-settings.js';
import { livePublisher, type LivePublisher, type LiveTransportSettings } from './modules/live/live-transport.js';
import { Role } from './modules/account/role.js';
import { PasswordHasher } from './shared/password/password-hasher.js';
import { PostgresRateLimitStore } from './shared/rate-limit/postgres-store.js';
import { RedisRateLimitStore } from './shared/rate-limit/redis-store.js';
import { RateLimiter } from './shared/rate-limit/rate-limiter.js';
import { AccessTokens } from './shared/tokens/access-token.js';
import { codeHashKey, mfaEncryptionKey, refreshSuccessorKey, serviceSecret } from './shared/tokens/secrets.js';
import { SigningKeys } from './shared/tokens/signing-keys.js';
import type { Logger } from './shared/logger.js';
import type { Metrics } from './shared/metrics/metrics.js';
import { redactUrl } from './shared/url.js';
import { join } from 'node:path';
import { AppError, ErrorCode } from './shared/errors/app-error.js';

export interface Services {
  auth: AuthService;
  /** Finishes a dormant account's sign-in that answered SECOND_PROOF_REQUIRED. */
  secondProof: SecondProofService;
  /** Sign-in through external OpenID Connect providers. */
  externalSignIn: ExternalSignInService;
  /** The external identities: web flows, ID tokens, the signed-in user's linked identities. */
  identities: IdentityService;
  authenticator: Authenticator;
  accounts: AccountService;
  /** TOTP and recovery codes of the signed-in user; the second factor of sign-in. */
  mfa: MfaService;
  /** What operators (SUPPORT, ADMIN) do to other accounts. */
  admin: AdminService;
  sessions: SessionService;
  /** The signed-in user's passkeys; AuthService signs in with them. */
  passkeys: PasskeyService;
  /** Changes of the account's phone number; operators' changes go through requestByOperator. */
  phoneChanges: PhoneChangeService;
  securityEvents: SecurityEventService;
  avatars: AvatarService;
  avatarStorage: AvatarStorage;
  publicConfig: PublicConfigService;
  stats: StatsService;
  usage: UsageService;
  /** This instance's live subscribers (GraphQL over WebSocket), fed by its listener (server.ts). */
  live: LiveHub;
  /** Where the use cases publish live events, in their transactions. */
  livePublisher: LivePublisher;
  /** The webhook outbox: the changes' services write to it, the dispatcher (server.ts) sends from it. */
  webhooks: WebhookService;
  sms: SmsProvider;
  /** The access-token keys: the JWKS route publishes them; they reload when their files change. */
  signingKeys: SigningKeys;
  limits: { avatarMaxBytes: number };
  /** The owners of expiring rows, swept by the janitor. */
  sweepers: Sweeper[];
  /** What the janitor runs when its time comes: waiting phone changes apply. */
  jobs: ScheduledJob[];
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

/**
 * Wires the domain services once; both transports receive the same instances. With `metrics`
 * (METRICS_PORT on), sign-ins, SMS sends, limit refusals and the hashing queue are counted there.
 */
export async function createServices(
  config: Config,
  db: Database,
  logger: Logger,
  overrides: { sms?: SmsProvider; metrics?: Metrics; live?: LiveTransportSettings } = {},
): Promise<Services> {
  const { metrics } = overrides;
  const secret = serviceSecret(config.jwt.secret, config.dataDir);
  const signingKeys = await SigningKeys.load({
    algorithm: config.jwt.algorithm,
    files: config.jwt.privateKeysFiles,
    secret,
    dataDir: config.dataDir,
    accessTtlSeconds: config.tokens.accessTtlSeconds,
  });
  const stopWatchingKeys = signingKeys.watch(logger);
  const tokens = new AccessTokens(signingKeys, {
    issuer: config.jwt.issuer,
    audience: config.jwt.audience,
    ttlSeconds: config.tokens.accessTtlSeconds,
  });
  const webhooks = new WebhookService(new WebhookRepository(db), config.webhooks.urls, config.webhooks.retentionDays);
  const live = livePublisher(db, overrides.live ?? liveTransport(config, { url: config.database.url ?? config.dataDir, connections: config.database.url ? config.database.poolMode : 'embedded' }).settings);
  const events = new SecurityEventService(new SecurityEventRepository(db), config.securityEvents.retentionDays, live);
  const audit = new AuditLogService(new AuditLogRepository(db), config.auditLog.retentionDays, live);
  const sessions = new SessionService(
    new SessionRepository(db),
    webhooks,
    {
      refreshTtlSeconds: config.tokens.refreshTtlSeconds,
      refreshReuseGraceSeconds: config.tokens.refreshReuseGraceSeconds,
      successorKey: refreshSuccessorKey(secret),
    },
    live,
  );
  const hasher = new PasswordHasher(config.password.bcryptCost, config.password.hashThreads);
  const sms = overrides.sms ?? createSmsProvider(config.sms, { logger, metrics });
  const redis = config.redis ? RedisRateLimitStore.connect(config.redis.url, config.redis.keyPrefix) : undefined;
  const counters = redis ?? new PostgresRateLimitStore(db);
  const limiter = new RateLimiter(counters, metrics && ((limit) => metrics.rateLimited(limit)));
  metrics?.setPasswordHashQueueCollector(() => hasher.queueDepth);
  const passwords = new PasswordCheck(hasher, limiter, config.loginFailures);
  const smsGuard = new SmsFraudGuard(limiter, config.smsFraud, logger, metrics);
  const codes = new VerificationCodeService(new VerificationCodeRepository(db), codeHashKey(secret), config.code, smsGuard, limiter);
  const avatarStorage =
    config.avatar.storage === 's3'
      ? new S3AvatarStorage({ ...config.avatar.s3, timeoutMs: 10_000 })
      : new LocalAvatarStorage(join(config.dataDir, 'avatars'));
  // The MFA status counts passkeys in its statement, by the passkey module's own SQL.
  const mfaRepository = new MfaRepository(db, (userId) => passkeyCountOf(db, userId));
  const passkeyRepository = new PasskeyRepository(db);
  // Beneath the services that use them (accounts, the second factor, passkeys): what the MFA and
  // passkey modules count and end for the others.
  const passkeyRecords = new PasskeyRecords(passkeyRepository);
  const identityRepository = new IdentityRepository(db);
  const pendingSignIns = allPendingSignIns([new PendingMfaTokens(mfaRepository), passkeyRecords, new PendingIdentityFlows(identityRepository)]);
  const accounts = new AccountService({
    db,
    accounts: new AccountRepository(db),
    sessions,
    codes,
    hasher,
    passwords,
    avatarStorage,
    events,
    webhooks,
    pendingSignIns,
    logger,
    defaultPhoneRegion: config.defaultPhoneRegion,
  });
  // The second factor comes before the passkeys, which ask it for their step-up.
  const mfa = new MfaService(
    {
      db,
      mfa: mfaRepository,
      accounts,
      sessions,
      events,
      limiter,
      box: new SecretBox(mfaEncryptionKey(config.mfa.encryptionKey, config.dataDir)),
      pendingSignIns,
    },
    {
      totpIssuer: config.mfa.totpIssuer,
      failuresPerAccountIp: config.loginFailures.perPhoneIp,
      failuresPerAccountHourly: config.mfa.failuresPerAccountHourly,
    },
  );
  const passkeys = new PasskeyService(
    { db, passkeys: passkeyRepository, accounts, events, limiter, failures: new SignInFailureLog(limiter, events), stepUp: mfa, logger },
    config.webauthn,
  );
  const identities = new IdentityService(
    {
      db,
      identities: identityRepository,
      providers: config.identity.providers.map((provider) => new Provider(provider, { timeoutMs: config.identity.timeoutMs, publicUrl: config.identity.publicUrl, logger })),
      accounts,
      events,
      webhooks,
      limiter,
      stepUp: mfa,
    },
    { returnUrls: config.identity.returnUrls, requireBinding: config.identity.requireBinding, failuresPerIpDaily: config.loginFailures.perIpDaily },
  );
  const proofTokens = new SecondProofTokens(mfaRepository, mfa);
  const dormant = new DormantAccounts(
    {
      accounts,
      factors: {
        mfaStatus: (id) => mfa.status(id),
        identityCount: async (id) => (await identities.listFor(id)).length,
        lastSessionUse: (id) => sessions.lastUse(id),
      } satisfies AccountFactors,
      tokens: proofTokens,
    },
    { dormantDays: config.phoneDormantDays },
  );
  const phoneChangeRepository = new PhoneChangeRepository(db);
  const phoneChangeSms = new PhoneChangeSms(
    { limiter, smsGuard, sms, events, logger },
    { defaultLocale: config.defaultLocale, codeLength: config.code.length, codeTtlSeconds: config.code.ttlSeconds, sendCode: config.sendCode },
  );
  const phoneChanges = new PhoneChangeService(
    {
      db,
      changes: phoneChangeRepository,
      accounts,
      sessions,
      events,
      codes,
      secondFactor: mfa,
      sms: phoneChangeSms,
      codeKey: codeHashKey(secret),
      applier: new PhoneChangeApplier(
        { db, changes: phoneChangeRepository, accounts, sessions, events, sms: phoneChangeSms, logger, operatorChangeApplied: auditOperatorPhoneChange(audit) },
        { defaultPhoneRegion: config.defaultPhoneRegion, perThirtyDays: config.phoneChange.perThirtyDays },
      ),
    },
    {
      defaultPhoneRegion: config.defaultPhoneRegion,
      recoveryDelayHours: config.phoneChange.recoveryDelayHours,
      codeTtlSeconds: config.code.ttlSeconds,
      codeMaxAttempts: config.code.maxAttempts,
    },
  );
  const signIns = new SignIns(
    { db, accounts, codes, sessions, tokens, limiter, events, secondFactors: mfa, identities, metrics, phoneChanges, dormant },
    { refreshTtlSeconds: config.tokens.refreshTtlSeconds },
  );
  const auth = new AuthService(
    {
      db,
      accounts,
      codes,
      sessions,
      hasher,
      limiter,
      passwords,
      sms,
      smsGuard,
      events,
      secondFactors: mfa,
      passkeys,
      signIns,
      pendingSignIns,
    },
    {
      defaultPhoneRegion: config.defaultPhoneRegion,
      defaultLocale: config.defaultLocale,
      registrationEnabled: config.registrationEnabled,
      codeTtlSeconds: config.code.ttlSeconds,
      sendCode: config.sendCode,
    },
  );
  const externalSignIn = new ExternalSignInService(
    { db, accounts, identities, signIns },
    { defaultPhoneRegion: config.defaultPhoneRegion, registrationEnabled: config.registrationEnabled },
  );
  const staging = new UploadStaging(join(config.dataDir, 'tmp'), config.avatar.maxBytes);
  const admin = new AdminService({
    db,
    accounts,
    sessions,
    events,
    audit,
    webhooks,
    factors: {
      totpEnabledOf: (ids) => mfa.totpEnabledOf(ids),
      passkeyCountsOf: (ids) => passkeys.countsOf(ids),
      identitiesOf: (ids) => identities.listForUsers(ids),
    } satisfies FactorSummaries,
    pendingSignIns,
    phoneChanges,
  });
  const hub = new LiveHub({
    liveUser: (sessionId, userId) => sessions.liveUser(sessionId, userId),
    auditEntry: (id) => audit.entry(id),
    mayReadAudit: (role) => admin.allows(role, Role.SUPPORT),
    logger,
    delivered: metrics && ((type, seconds) => metrics.liveEventDelivered(type, seconds)),
  });
  const statsRepository = new StatsRepository(db);
  return {
    auth,
    secondProof: new SecondProofService({ accounts, passwords, tokens: proofTokens, signIns }),
    externalSignIn,
    identities,
    authenticator: new Authenticator(tokens, sessions),
    accounts,
    mfa,
    admin,
    live: hub,
    livePublisher: live,
    sessions,
    passkeys,
    phoneChanges,
    avatars: new AvatarService(db, accounts, events, avatarStorage, staging, logger),
    securityEvents: events,
    avatarStorage,
    limits: { avatarMaxBytes: config.avatar.maxBytes },
    publicConfig: new PublicConfigService(config, SERVICE_VERSION),
    stats: new StatsService(accounts, statsRepository),
    usage: new UsageService(statsRepository),
    webhooks,
    sms,
    signingKeys,
    // Redis expires its counters itself; PostgreSQL's are swept.
    sweepers: [codes, sessions, mfa, passkeys, identities, phoneChanges, events, audit, webhooks, ...(counters instanceof PostgresRateLimitStore ? [counters] : [])],
    jobs: [{ name: 'phone-changes', intervalMs: 60_000, run: () => phoneChanges.applyDue() }],
    counterStore: config.redis ? `Redis ${redactUrl(config.redis.url)}` : 'PostgreSQL',
    storesReady: () => (redis ? redis.ping().catch(() => false) : Promise.resolve(true)),
    close: async () => {
      stopWatchingKeys();
      await hasher.close();
      await redis?.close();
      await live.close();
    },
  };
}
