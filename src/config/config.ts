import { z } from 'zod';
import type { JwtAlgorithm } from '../shared/tokens/key-file.js';
import type { Locale } from '../shared/i18n/locale.js';
import { configDocs } from './describe.js';
import { parseIdentity, type IdentityConfig } from './identity-providers.js';
import { commaList } from './list.js';
import { parseSmsFraud, type SmsFraudConfig } from './sms-fraud.js';
import { parseAliyunSms, parseTencentSms, type AliyunSmsConfig, type TencentSmsConfig } from './sms-template-providers.js';
import { isWebOtpDomain, parseSmsTemplates, type SmsTemplates } from './sms-templates.js';
import { parseTracing, TRACING_ENV, type TracingConfig } from './tracing.js';
import { parseWebhooks, type WebhookConfig } from './webhooks.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce.number({ message: 'must be a number' }).int('must be a whole number').min(min).max(max);

/** Every variable the service reads, each with its description and feature (docs/configuration.md is rendered from them). */
export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development')
    .register(configDocs, { feature: 'service', description: '`production` requires `JWT_SECRET`, `MFA_ENCRYPTION_KEY` and an explicit `SMS_PROVIDER`, and turns introspection and every "Did you mean …?" off (field names in documents, enum values and input fields in variables).' }),
  PORT: int(0, 65535).default(4000)
    .register(configDocs, { feature: 'service', description: 'The port of the listener.' }),
  HOST: z.string().default('0.0.0.0')
    .register(configDocs, { feature: 'service', description: 'The address of the listener (and of the metrics listener).' }),
  REQUEST_TIMEOUT_MS: int(100, 3_600_000).default(60_000)
    .register(configDocs, { feature: 'service', description: 'How long a whole request may take to arrive (100 ms to 1 h); past it, it is answered 408 `REQUEST_TIMEOUT` within about a second (see "Requests that do not arrive in time" in [the decisions](decisions.md)).' }),
  HEADERS_TIMEOUT_MS: int(100, 3_600_000).optional()
    .register(configDocs, { feature: 'service', default: '`20000` (at most `REQUEST_TIMEOUT_MS`)', description: 'How long a request\'s headers may take to arrive (100 ms to 1 h, at most `REQUEST_TIMEOUT_MS`); past it, 408 `REQUEST_TIMEOUT` within about a second.' }),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')
    .register(configDocs, { feature: 'service', description: 'The pino level.' }),
  LOG_FORMAT: z.enum(['json', 'pretty'], { message: 'must be json or pretty' }).optional()
    .register(configDocs, { feature: 'service', default: '`pretty` in development on a terminal, else `json`', description: '`json`: one JSON object per line on standard output (production, log collectors); `pretty`: pino-pretty\'s coloured one-line-per-event format for a person.' }),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, message: 'must be a postgres:// URL' }).optional()
    .register(configDocs, { feature: 'database', type: 'URL', values: '`postgres://` or `postgresql://`', description: 'PostgreSQL; unset: the embedded PGlite under `DATA_DIR/pglite`.' }),
  DATABASE_POOL_SIZE: int(1, 100).default(10)
    .register(configDocs, { feature: 'database', description: 'Connections per instance (the embedded database always uses 1).' }),
  DATABASE_POOL_MODE: z.enum(['session', 'transaction'], { message: 'must be session or transaction' }).default('session')
    .register(configDocs, { feature: 'database', description: '`session`: each connection of `DATABASE_URL` is a PostgreSQL session of its own (PostgreSQL itself, or a session pooler that passes startup parameters on): named prepared statements on hot paths, `statement_timeout` as a startup parameter. `transaction`: `DATABASE_URL` is a transaction-mode pooler (PgBouncer, Supavisor, RDS Proxy): no named statements, no startup parameters, no session state, the timeout set inside each transaction (see [Behind a connection pooler](production.md#behind-a-connection-pooler)). Session mode refuses to start behind a transaction-mode pooler, saying so; `transaction` without `DATABASE_URL` is refused (the embedded database has no pooler).' }),
  DATABASE_DIRECT_URL: z.url({ protocol: /^postgres(ql)?$/, message: 'must be a postgres:// URL' }).optional()
    .register(configDocs, { feature: 'database', type: 'URL', values: '`postgres://` or `postgresql://`', description: 'PostgreSQL itself, not the pooler: where migrations run (at start and `npm run migrate`, the operators\' tool too) with their session-level lock. Required in transaction mode to migrate; without it a migration is refused, saying what to set (`MIGRATE_ON_START=false` starts without one). Refused without `DATABASE_URL`.' }),
  DATABASE_PREPARED_STATEMENTS: bool.optional()
    .register(configDocs, { feature: 'database', default: '`true` in session mode, `false` in transaction mode', description: 'Session mode only: `false` turns off named prepared statements and the startup `statement_timeout` (for servers that keep one session for every connection, such as PGlite\'s socket server); refused as `true` with `DATABASE_POOL_MODE=transaction`.' }),
  DATA_DIR: z.string().default('./data')
    .register(configDocs, { feature: 'service', description: 'The embedded database, local avatars, uploads in flight and, outside production, the generated JWT secret, MFA key and signing keys.' }),
  MIGRATE_ON_START: bool.default(true)
    .register(configDocs, { feature: 'database', description: 'Apply pending migrations at start (`npm run migrate` does it alone; instances serialise on an advisory lock, on `DATABASE_DIRECT_URL` when set).' }),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional()
    .register(configDocs, { feature: 'tokens', default: 'generated (outside production)', description: '32+ characters: signs HS256 tokens and keys the code hashes. Required in production; outside production a random one is kept in `DATA_DIR/jwt-secret`.' }),
  JWT_ISSUER: z.string().default('meeting-accounts')
    .register(configDocs, { feature: 'tokens', description: 'The `iss` claim, pinned on verify.' }),
  JWT_AUDIENCE: z.string().default('meeting-app')
    .register(configDocs, { feature: 'tokens', description: 'The `aud` claim, pinned on verify.' }),
  JWT_ALGORITHM: z.enum(['HS256', 'ES256', 'EdDSA'], { message: 'must be HS256, ES256 or EdDSA' }).default('HS256')
    .register(configDocs, { feature: 'tokens', description: 'Access-token signing: `HS256` (the secret), `ES256` (P-256) or `EdDSA` (Ed25519), whose public keys other services fetch from the JWKS (see [Tokens for other services](production.md#tokens-for-other-services-jwks)).' }),
  JWT_PRIVATE_KEYS_FILE: z.string().optional()
    .register(configDocs, { feature: 'tokens', default: 'generated (outside production)', description: 'ES256/EdDSA: a JWK set of private keys, or PEM private keys (comma-separate several files); the first key signs, the others verify. Required in production; elsewhere one key is generated into `DATA_DIR/jwt-keys-<alg>.json`. Reloaded within 2 s when it changes. Refused with HS256.' }),
  DEFAULT_PHONE_REGION: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be a two-letter ISO 3166 region such as CN')
    .default('CN')
    .register(configDocs, { feature: 'sign-in', values: 'a two-letter ISO 3166 region', description: 'The region for numbers given in national form.' }),
  DEFAULT_LOCALE: z.enum(['zh-CN', 'en'], { message: 'must be zh-CN or en' }).default('en')
    .register(configDocs, { feature: 'service', values: '`zh-CN` or `en`', description: 'The language of an SMS when the account chose none, the request\'s `Accept-Language` names none of ours and the phone\'s region has none (`+86` is `zh-CN`); and of API messages when `Accept-Language` names none.' }),
  REGISTRATION_ENABLED: bool.default(true)
    .register(configDocs, { feature: 'sign-in', description: 'Whether sign-in may create accounts.' }),
  PUBLIC_CONFIG_FILE: z.string().optional()
    .register(configDocs, { feature: 'service', description: 'A JSON file with the `about` and `helpCenter` content of `GET /api/v1/auth/config` and `config` (any subset of their fields).' }),
  SMS_PROVIDER: z.enum(['console', 'file', 'twilio', 'webhook', 'aliyun', 'tencent']).optional()
    .register(configDocs, { feature: 'sms', default: '`console`', description: '`console` prints codes on standard output; `file` appends `{ phone, code, purpose, locale, text, sentAt }` lines to `SMS_OUTBOX_FILE`; `twilio`; `webhook`; `aliyun` (Alibaba Cloud SMS) and `tencent` (Tencent Cloud SMS) send registered templates (see [SMS providers](sms.md)). Must be chosen explicitly in production.' }),
  SMS_OUTBOX_FILE: z.string().optional()
    .register(configDocs, { feature: 'sms', description: 'The file the `file` provider appends its lines to; required with `SMS_PROVIDER=file`.' }),
  SMS_TEMPLATES: z.string().optional()
    .register(configDocs, { feature: 'sms', type: 'path', default: 'the shipped `zh-CN` and `en` texts', description: 'A JSON file of the texts of the text providers (console notices, `file`, `twilio`, `webhook`): `{ "<purpose>": { "<locale>": "<ICU message>" } }`, any subset of the purposes (`login`, `register`, `reset-password`, `delete-account`, `phone-change`, `phone-change-current`, `phone-change-notice`) and locales (`zh-CN`, `en`) over the shipped ones. A code\'s text must contain `{code}` and may use `{minutes}`; the notice\'s must contain `{ending}` (the new number\'s last four digits) and may use `{time}` and `{kind, select, requested {…} other {…}}`. A template that breaks these rules, or a purpose or locale not named here, refuses to start. See [languages and templates](sms.md#languages-and-templates).' }),
  SMS_WEBOTP_DOMAIN: z.string().optional()
    .register(configDocs, { feature: 'sms', values: 'a host name such as `meet.example.com`', description: 'Appends the WebOTP line `@<domain> #<code>` to every code\'s SMS (text providers), so that a browser on that site can offer the code (`navigator.credentials.get({ otp })`).' }),
  SMS_APP_HASH: z.string().optional()
    .register(configDocs, { feature: 'sms', values: '11 characters of `A-Z a-z 0-9 + /`', description: 'Appends the Android SMS Retriever hash of the app to every code\'s SMS (text providers), so that the app reads the code without asking.' }),
  SMS_TIMEOUT_MS: int(100, 60_000).default(5000)
    .register(configDocs, { feature: 'sms', description: 'The deadline of one provider request (there is no retry).' }),
  TWILIO_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://api.twilio.com')
    .register(configDocs, { feature: 'sms', type: 'URL', values: '`http://` or `https://`', description: 'Twilio\'s Messages API, or a compatible service.' }),
  TWILIO_ACCOUNT_SID: z.string().optional()
    .register(configDocs, { feature: 'sms', description: 'The Twilio account; required with `SMS_PROVIDER=twilio`.' }),
  TWILIO_AUTH_TOKEN: z.string().optional()
    .register(configDocs, { feature: 'sms', description: 'The Twilio account\'s token; required with `SMS_PROVIDER=twilio`.' }),
  TWILIO_FROM: z.string().optional()
    .register(configDocs, { feature: 'sms', description: 'The sender number; required with `SMS_PROVIDER=twilio`.' }),
  SMS_WEBHOOK_URL: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).optional()
    .register(configDocs, { feature: 'sms', type: 'URL', values: '`http://` or `https://`', description: 'The webhook provider: a JSON POST to this URL, signed `X-Signature: sha256=HMAC(secret, timestamp + "." + body)` with `X-Signature-Timestamp`; required with `SMS_PROVIDER=webhook`.' }),
  SMS_WEBHOOK_SECRET: z.string().min(32, 'must be at least 32 characters').optional()
    .register(configDocs, { feature: 'sms', description: 'The webhook provider\'s HMAC secret; required with `SMS_PROVIDER=webhook`.' }),
  ALIYUN_SMS_ACCESS_KEY_ID: z.string().optional()
    .register(configDocs, { feature: 'sms', description: 'The Alibaba Cloud AccessKey ID (a RAM user allowed `dysms:SendSms`); required with `SMS_PROVIDER=aliyun`.' }),
  ALIYUN_SMS_ACCESS_KEY_SECRET: z.string().optional()
    .register(configDocs, { feature: 'sms', description: 'Its AccessKey secret; required with `SMS_PROVIDER=aliyun`.' }),
  ALIYUN_SMS_SIGN_NAME: z.string().optional()
    .register(configDocs, { feature: 'sms', description: 'The approved sign name (签名) every message carries; required with `SMS_PROVIDER=aliyun`.' }),
  ALIYUN_SMS_TEMPLATES: z.string().optional()
    .register(configDocs, { feature: 'sms', type: 'JSON', values: '`{"login": "SMS_…", …}`', description: 'The approved template code of each purpose (`login`, `register`, `reset-password`, `delete-account`, `phone-change`, `phone-change-current`, `phone-change-notice`), or `{"zh-CN": "SMS_…", "en": "SMS_…"}` for one registered in both languages; every purpose is required with `SMS_PROVIDER=aliyun`. The code goes as parameter `code` (see [SMS providers](sms.md)).' }),
  ALIYUN_SMS_ENDPOINT: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).default('https://dysmsapi.aliyuncs.com')
    .register(configDocs, { feature: 'sms', type: 'URL', values: '`http://` or `https://`', description: 'The Alibaba Cloud SMS API (`SendSms`, version 2017-05-25).' }),
  TENCENT_SMS_SECRET_ID: z.string().optional()
    .register(configDocs, { feature: 'sms', description: 'The Tencent Cloud SecretId (a CAM user allowed `sms:SendSms`); required with `SMS_PROVIDER=tencent`.' }),
  TENCENT_SMS_SECRET_KEY: z.string().optional()
    .register(configDocs, { feature: 'sms', description: 'Its SecretKey; required with `SMS_PROVIDER=tencent`.' }),
  TENCENT_SMS_SDK_APP_ID: z.string().regex(/^\d+$/, 'must be the SMS application\'s SdkAppId, digits such as 1400006666').optional()
    .register(configDocs, { feature: 'sms', description: 'The SMS application\'s SdkAppId; required with `SMS_PROVIDER=tencent`.' }),
  TENCENT_SMS_SIGN_NAME: z.string().optional()
    .register(configDocs, { feature: 'sms', description: 'The approved sign (签名) every message carries; required with `SMS_PROVIDER=tencent`.' }),
  TENCENT_SMS_TEMPLATES: z.string().optional()
    .register(configDocs, { feature: 'sms', type: 'JSON', values: '`{"login": "1110", …}`', description: 'The approved template id of each purpose (as for `ALIYUN_SMS_TEMPLATES`), or `{"zh-CN": "…", "en": "…"}` for one registered in both languages; every purpose is required with `SMS_PROVIDER=tencent`. The code is the first template parameter (see [SMS providers](sms.md)).' }),
  TENCENT_SMS_REGION: z.string().regex(/^[a-z]+(-[a-z]+)+$/, 'must be a Tencent Cloud region such as ap-guangzhou').default('ap-guangzhou')
    .register(configDocs, { feature: 'sms', description: 'The region of the API requests (`ap-guangzhou`, `ap-beijing`, `ap-nanjing`, `ap-singapore`, …).' }),
  TENCENT_SMS_ENDPOINT: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).default('https://sms.tencentcloudapi.com')
    .register(configDocs, { feature: 'sms', type: 'URL', values: '`http://` or `https://`', description: 'The Tencent Cloud SMS API (`SendSms`, version 2021-01-11).' }),
  CODE_TTL_SECONDS: int(30, 86400).default(300)
    .register(configDocs, { feature: 'sign-in', description: 'A code\'s lifetime.' }),
  CODE_MAX_ATTEMPTS: int(1, 100).default(5)
    .register(configDocs, { feature: 'sign-in', description: 'Guesses before a code is burned (every guess, right or wrong, uses one).' }),
  SEND_CODE_INTERVAL_SECONDS: int(0, 3600).default(60)
    .register(configDocs, { feature: 'sign-in', description: 'One code per phone per interval.' }),
  SEND_CODE_PER_PHONE_HOURLY: int(1).default(5)
    .register(configDocs, { feature: 'sign-in', description: 'Codes per phone per hour, any purpose.' }),
  SEND_CODE_PER_PHONE_DAILY: int(1).default(10)
    .register(configDocs, { feature: 'sign-in', description: 'Codes per phone per day, any purpose.' }),
  SEND_CODE_PER_IP_HOURLY: int(1).default(20)
    .register(configDocs, { feature: 'sign-in', description: 'Codes per client address per hour.' }),
  PHONE_RECOVERY_DELAY_HOURS: int(0, 24 * 365).default(72)
    .register(configDocs, { feature: 'phone-changes', description: 'How long a change of the phone number waits without an account proof (the lost-phone path, an operator\'s change) before it applies; the account can cancel it meanwhile.' }),
  PHONE_CHANGES_PER_30_DAYS: int(1).default(3)
    .register(configDocs, { feature: 'phone-changes', description: 'Phone number changes applied per account in 30 days; a further one is `RATE_LIMITED` until the oldest is 30 days old.' }),
  SEND_CODE_COUNTRIES_PER_IP_DAILY: int(1).default(5)
    .register(configDocs, { feature: 'sms-pumping', description: 'Distinct regions one address may ask codes for in a day.' }),
  SMS_ALLOWED_COUNTRIES: z.string().optional()
    .register(configDocs, { feature: 'sms-pumping', default: '`DEFAULT_PHONE_REGION`', description: 'Regions (ISO codes, comma-separated, or `*`) whose numbers get codes; others are 400 `INVALID_PHONE`.' }),
  SMS_BLOCKED_PREFIXES: z.string().default('')
    .register(configDocs, { feature: 'sms-pumping', description: 'E.164 prefixes (`+86170,+4474001`) whose numbers get no code (400 `INVALID_PHONE`).' }),
  SMS_DAILY_BUDGET_PER_COUNTRY: z.string().default('')
    .register(configDocs, { feature: 'sms-pumping', description: 'SMS per region per UTC day (`CN=100000,US=2000,*=500`; `*`: regions not named; a region in neither is unlimited); past it 503.' }),
  SMS_MIN_CONVERSION: z.coerce.number({ message: 'must be a number' }).min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').default(0.2)
    .register(configDocs, { feature: 'sms-pumping', description: 'Once a region had `SMS_CONVERSION_MIN_SENDS` sends in the last hour, sends to it pause (503) while fewer than this share of its codes were used; `0` turns it off.' }),
  SMS_CONVERSION_MIN_SENDS: int(1).default(100)
    .register(configDocs, { feature: 'sms-pumping', description: 'The sends to a region in the last hour from which `SMS_MIN_CONVERSION` is judged.' }),
  SECURITY_EVENT_RETENTION_DAYS: int(1, 36500).default(90)
    .register(configDocs, { feature: 'security-events', description: 'How long security events are kept.' }),
  AUDIT_LOG_RETENTION_DAYS: int(1, 36500).default(400)
    .register(configDocs, { feature: 'operators', description: 'How long the operators\' audit log is kept (a year and a month, so that a yearly review finds the whole year).' }),
  LOGIN_FAILURES_PER_PHONE_IP: int(1).default(5)
    .register(configDocs, { feature: 'sign-in', description: 'Password failures (sign-in and password change) per phone and address in 15 minutes; also the limit of wrong second-factor codes per account and address.' }),
  LOGIN_FAILURES_PER_IP_DAILY: int(1).default(100)
    .register(configDocs, { feature: 'sign-in', description: 'Password failures per address per day.' }),
  PHONE_DORMANT_DAYS: int(0, 3650).default(365)
    .register(configDocs, { feature: 'sign-in', description: 'Days without a sign-in or a session\'s use after which an account is dormant: a sign-in that proves only its phone (an SMS code) then also asks for another of its factors, `SECOND_PROOF_REQUIRED` (carriers give unused numbers to new people; see [dormant accounts](sign-in.md#dormant-accounts)). `0` switches the rule off.' }),
  CODE_FAILURES_PER_PHONE_IP: int(1).default(10)
    .register(configDocs, { feature: 'sign-in', description: 'Wrong codes (login, register, reset-password, delete-account) per phone and address in 15 minutes; above `CODE_MAX_ATTEMPTS`, so that a code\'s owner meets its burn first.' }),
  CODE_FAILURES_PER_IP_DAILY: int(1).default(100)
    .register(configDocs, { feature: 'sign-in', description: 'Wrong codes per address per day.' }),
  BCRYPT_COST: int(4, 15).default(12)
    .register(configDocs, { feature: 'sign-in', description: 'The bcrypt cost of password hashes.' }),
  PASSWORD_HASH_THREADS: int(1, 64).optional()
    .register(configDocs, { feature: 'sign-in', default: 'the number of cores', description: 'The worker threads that hash and compare passwords.' }),
  ACCESS_TOKEN_TTL_SECONDS: int(60, 86400).default(900)
    .register(configDocs, { feature: 'sessions', description: 'The access token\'s (JWT\'s) lifetime.' }),
  REFRESH_TOKEN_TTL_SECONDS: int(300).default(2592000)
    .register(configDocs, { feature: 'sessions', description: 'The refresh token\'s lifetime, sliding per session.' }),
  REFRESH_REUSE_GRACE_SECONDS: int(0, 300).default(10)
    .register(configDocs, { feature: 'sessions', description: 'The reuse grace: a refresh token presented again within this many seconds of its first refresh gets the same new refresh token and a fresh access token; after it, reuse revokes the session (see [a refresh token presented twice](sign-in.md#a-refresh-token-presented-twice)).' }),
  AVATAR_MAX_BYTES: int(1024).default(5242880)
    .register(configDocs, { feature: 'avatars', description: 'The largest accepted upload.' }),
  CORS_ORIGINS: z.string().default('')
    .register(configDocs, { feature: 'browsers', description: 'Comma-separated origins allowed to call from browsers; any other Origin gets no CORS headers.' }),
  TRUST_PROXY: z.string().default('false')
    .register(configDocs, { feature: 'service', description: 'Whether `X-Forwarded-For` is believed: `false`, `true`, a hop count, or addresses/subnets (Express `trust proxy`).' }),
  REDIS_URL: z.url({ protocol: /^rediss?$/, message: 'must be a redis:// URL' }).optional()
    .register(configDocs, { feature: 'redis', type: 'URL', values: '`redis://` or `rediss://`', description: 'Rate-limit counters in Redis instead of PostgreSQL.' }),
  REDIS_KEY_PREFIX: z.string().default('meeting-accounts:')
    .register(configDocs, { feature: 'redis', description: 'The prefix of the counters\' keys in Redis.' }),
  LIVE_EVENTS_TRANSPORT: z.enum(['postgres', 'redis', 'process']).optional()
    .register(configDocs, {
      feature: 'live-events',
      default: '`process` on the embedded database; `redis` with `REDIS_URL`; else `postgres` (`process` behind a transaction-mode pooler without `DATABASE_DIRECT_URL`, said at start)',
      description: 'How live events reach the other instances: `postgres` (NOTIFY in the transaction that makes the change, LISTEN on a connection of its own to `DATABASE_DIRECT_URL`, else `DATABASE_URL`), `redis` (PUBLISH after the commit, SUBSCRIBE on `REDIS_URL`), `process` (this process only: one instance).',
    }),
  WS_MAX_CONNECTIONS: int(1, 1_000_000).default(10000)
    .register(configDocs, { feature: 'live-events', description: 'WebSocket connections open at once on an instance; the next upgrade is answered 503 with Retry-After.' }),
  WS_KEEPALIVE_SECONDS: int(1, 300).default(12)
    .register(configDocs, { feature: 'live-events', description: 'A ping to each socket this often; one that has not answered the previous ping is cut.' }),
  AVATAR_STORAGE: z.enum(['local', 's3']).default('local')
    .register(configDocs, { feature: 'avatars', description: '`local` (under `DATA_DIR/avatars`) or `s3`.' }),
  S3_BUCKET: z.string().optional()
    .register(configDocs, { feature: 'avatars', description: 'The bucket of S3 or any S3-compatible store (MinIO, Ceph: set the endpoint and path style); required with `AVATAR_STORAGE=s3`.' }),
  S3_REGION: z.string().default('us-east-1')
    .register(configDocs, { feature: 'avatars', description: 'The bucket\'s region.' }),
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional()
    .register(configDocs, { feature: 'avatars', type: 'URL', values: '`http://` or `https://`', description: 'An S3-compatible store\'s endpoint (MinIO, Ceph).' }),
  S3_ACCESS_KEY_ID: z.string().optional()
    .register(configDocs, { feature: 'avatars', description: 'The access key; set both keys or neither (no keys: the AWS default credential chain).' }),
  S3_SECRET_ACCESS_KEY: z.string().optional()
    .register(configDocs, { feature: 'avatars', description: 'The secret key; set both keys or neither (no keys: the AWS default credential chain).' }),
  S3_FORCE_PATH_STYLE: bool.default(false)
    .register(configDocs, { feature: 'avatars', description: 'Path-style bucket addressing, as S3-compatible stores (MinIO, Ceph) need.' }),
  S3_PREFIX: z.string().default('avatars/')
    .register(configDocs, { feature: 'avatars', description: 'The prefix of the avatars\' keys in the bucket.' }),
  INTERNAL_API_KEY: z.string().min(32, 'must be at least 32 characters').optional()
    .register(configDocs, { feature: 'usage-statistics', description: '32+ characters; enables `POST /api/v1/internal/meeting-usage` (without it the route does not exist).' }),
  GRAPHQL_EXPLORER: z.enum(['graphiql', 'sandbox', 'off']).optional()
    .register(configDocs, { feature: 'graph', default: '`graphiql` (`off` in production)', description: 'What `GET /graphql` shows a browser: `graphiql` (served by the service, works offline), `sandbox` (Apollo Sandbox, from Apollo\'s CDN) or `off`; must be `off` in production.' }),
  GRAPHQL_TRUSTED_DOCUMENTS: z.string().optional()
    .register(configDocs, { feature: 'graph', description: 'The paths of trusted-documents manifests, comma-separated (`{ "<sha256 hex>": "<document>" }`, as GraphQL Code Generator\'s client preset writes `persisted-documents.json`; one per client, merged): only their documents run (see [Trusted documents](graph.md#trusted-documents)); unset, any document runs, automatic persisted queries included.' }),
  CONSOLE: z.enum(['on', 'off'], { message: 'must be on or off' }).default('on')
    .register(configDocs, { feature: 'operators', description: '`off` removes the operator console (`GET /console` and its files answer 404), in any environment; on, it is served in production too (see [the console](operators.md#operator-console)).' }),
  METRICS_PORT: z
    .string()
    .refine((v) => v === 'off' || (/^\d{1,5}$/.test(v) && Number(v) <= 65535), 'must be a port number (0-65535) or off')
    .transform((v) => (v === 'off' ? v : Number(v)))
    .optional()
    .register(configDocs, { feature: 'metrics', type: 'port', default: '`9464` (`off` under `NODE_ENV=test`)', values: '`0`-`65535` or `off`', description: 'The port of the Prometheus listener (`GET /metrics`, on `HOST`); `0`: any free port; `off`: no listener, nothing counted (see [Metrics](production.md#metrics)).' }),
  ...TRACING_ENV,
  WEBHOOK_URLS: z.string().default('')
    .register(configDocs, { feature: 'webhooks', description: 'Comma-separated http(s) URLs that receive every event (see [Webhooks](webhooks.md)); unset: webhooks are off and nothing is written to the outbox. Credentials in a URL (`https://user:pass@…`) are sent as Basic authentication and shown redacted.' }),
  WEBHOOK_SECRET: z.string().optional()
    .register(configDocs, { feature: 'webhooks', description: 'The Standard Webhooks signing secret, `whsec_` + base64 of 24+ random bytes (`whsec_$(openssl rand -base64 32)`); required with `WEBHOOK_URLS`, refused without.' }),
  WEBHOOK_TIMEOUT_MS: int(100, 120_000).default(5000)
    .register(configDocs, { feature: 'webhooks', description: 'How long one try waits for an answer.' }),
  WEBHOOK_RETRY_SCHEDULE: z.string().default('5s,30s,2m,10m,30m,2h,8h')
    .register(configDocs, { feature: 'webhooks', description: 'The waits before the 2nd, 3rd, … try (units `ms`, `s`, `m`, `h`); after the last try fails the delivery is `DEAD`.' }),
  WEBHOOK_RETENTION_DAYS: int(1, 36500).default(30)
    .register(configDocs, { feature: 'webhooks', description: 'How long `DELIVERED` and `DEAD` deliveries are kept (the janitor sweeps them; `PENDING` ones stay).' }),
  MFA_ENCRYPTION_KEY: z
    .string()
    .refine((v) => mfaKeyBytes(v) !== undefined, 'must be 32 random bytes as 64 hex digits or base64 (openssl rand -base64 32)')
    .optional()
    .register(configDocs, { feature: 'second-factor', default: 'generated (outside production)', description: '32 random bytes as 64 hex digits or base64 (`openssl rand -base64 32`): seals the TOTP secrets at rest (AES-256-GCM). Required in production; elsewhere one is generated into `DATA_DIR/mfa-key`. Changing it loses every TOTP factor.' }),
  MFA_TOTP_ISSUER: z.string().min(1).max(64).default('Meeting')
    .register(configDocs, { feature: 'second-factor', description: 'The issuer an authenticator app shows beside the account\'s phone.' }),
  MFA_FAILURES_PER_ACCOUNT_HOURLY: int(1).default(20)
    .register(configDocs, { feature: 'second-factor', description: 'Wrong second-factor codes per account per hour, over all its mfaTokens and addresses; then `RATE_LIMITED`.' }),
  WEBAUTHN_RP_ID: z
    .string()
    .regex(/^[a-z0-9.-]+$/i, 'must be a host name such as example.com (no scheme or port)')
    .default('localhost')
    .register(configDocs, { feature: 'passkeys', values: 'a host name', description: 'The passkeys\' relying party: the host name (no scheme or port) the pages that use passkeys are served under, or a parent domain of it; changing it orphans every passkey registered under the old one.' }),
  WEBAUTHN_RP_NAME: z.string().min(1).max(64).default('Meeting')
    .register(configDocs, { feature: 'passkeys', description: 'The service\'s name as the browser\'s passkey dialog shows it.' }),
  WEBAUTHN_ORIGINS: z.string().optional()
    .register(configDocs, { feature: 'passkeys', default: '`http://localhost:<PORT>`', description: 'Comma-separated origins (`https://app.example.com,https://example.com:8443`) whose pages may register and use passkeys; an assertion made on any other page is refused.' }),
  IDENTITY_PROVIDERS: z.string().optional()
    .register(configDocs, { feature: 'identity-providers', description: 'External OpenID Connect providers: a JSON array, or `@path/to/file.json` holding one, of `{ id, name, issuer, clientId, clientSecret?, scopes?, extraAudiences?, responseMode? }` (see [identity providers](identity-providers.md)); refused at start for an unknown field, a duplicate id, a bad slug or an `http://` issuer off loopback.' }),
  PUBLIC_URL: z.string().optional()
    .register(configDocs, { feature: 'identity-providers', default: '`http://localhost:<PORT>`', description: 'The service\'s external base URL: the providers\' redirect URIs are `<PUBLIC_URL>/api/v1/auth/oidc/<id>/callback`.' }),
  OIDC_RETURN_URLS: z.string().default('')
    .register(configDocs, { feature: 'identity-providers', description: 'Comma-separated frontend URLs a web flow may return to, matched exactly; any other `returnTo` is 400 before any redirect.' }),
  OIDC_TIMEOUT_MS: int(100, 60_000).default(5000)
    .register(configDocs, { feature: 'identity-providers', description: 'How long one request to a provider (discovery, keys, token endpoint) may take; past it, `IDENTITY_PROVIDER_ERROR`.' }),
  OIDC_REQUIRE_BINDING: bool.default(true)
    .register(configDocs, { feature: 'identity-providers', description: 'Whether a sign-in web flow must be bound to the frontend that starts it: a start without `codeChallenge` is `VALIDATION_FAILED` naming it, and a result exchanged without its `codeVerifier` is `INVALID_CREDENTIALS` (an unbound result is a bearer code a login CSRF could plant in a victim\'s browser). `false`: the binding is optional. The link flow needs none (see [identity providers](identity-providers.md)).' }),
});

type Environment = z.infer<typeof envSchema>;

export interface SmsAutofill {
  webOtpDomain?: string;
  appHash?: string;
}

export interface Config {
  env: Environment['NODE_ENV'];
  isProduction: boolean;
  port: number;
  host: string;
  /**
   * How long a request may take to arrive: whole (`requestTimeoutMs`) and its headers
   * (`headersTimeoutMs`, at most the whole); past either it is answered 408 REQUEST_TIMEOUT.
   */
  http: { requestTimeoutMs: number; headersTimeoutMs: number };
  logLevel: string;
  /** Unset: pretty in development on a terminal, JSON lines otherwise (decided by main). */
  logFormat?: 'json' | 'pretty';
  /**
   * `poolMode`: `session` when every pooled connection is a PostgreSQL session of its own (PostgreSQL
   * itself, or a session pooler that passes startup parameters on), `transaction` behind a
   * transaction-mode pooler (API.md 9.4).
   * `directUrl`: PostgreSQL itself, for migrations (and their session-level lock) when `url` is a pooler.
   * `preparedStatements`: named prepared statements on hot paths (session mode only).
   */
  database: { url?: string; directUrl?: string; poolMode: 'session' | 'transaction'; poolSize: number; preparedStatements: boolean };
  /** Live account events (API.md 10.2): the transport when set (else decided from the database, see liveTransport), the sockets' limits. */
  live: { transport?: 'postgres' | 'redis' | 'process'; maxConnections: number; keepAliveSeconds: number };
  dataDir: string;
  migrateOnStart: boolean;
  /**
   * Access-token signing: HS256 with the secret, or ES256/EdDSA with the keys of `privateKeysFiles`
   * (JWK sets or PEM, the first key signs), generated into the data directory when none is named.
   */
  jwt: { secret?: string; issuer: string; audience: string; algorithm: JwtAlgorithm; privateKeysFiles: string[] };
  defaultPhoneRegion: string;
  /** The last source of a message's locale (API.md 10.3). */
  defaultLocale: Locale;
  registrationEnabled: boolean;
  publicConfigFile?: string;
  sms: {
    provider: 'console' | 'file' | 'twilio' | 'webhook' | 'aliyun' | 'tencent';
    outboxFile: string;
    timeoutMs: number;
    /** The text providers' texts: per purpose, per locale, an ICU message. */
    templates: SmsTemplates;
    /** Autofill lines of a code's SMS: WebOTP's `@domain #code`, Android's SMS Retriever hash. */
    autofill: SmsAutofill;
    twilio: { baseUrl: string; accountSid: string; authToken: string; from: string };
    webhook: { url: string; secret: string };
    /** Set with `provider` `aliyun`. */
    aliyun?: AliyunSmsConfig;
    /** Set with `provider` `tencent`. */
    tencent?: TencentSmsConfig;
  };
  /**
   * `failures`: wrong codes (sign-in, registration, reset, deletion) per (phone, address) in 15 min
   * and per address per day, like password failures; per phone and address above `maxAttempts`, so
   * that one code's owner meets its own burn first.
   */
  code: { length: 6; ttlSeconds: number; maxAttempts: number; failures: { perPhoneIp: number; perIpDaily: number } };
  sendCode: { intervalSeconds: number; perPhoneHourly: number; perPhoneDaily: number; perIpHourly: number };
  /** Changes of the phone number: the wait without an account proof, and the changes applied per account in 30 days. */
  phoneChange: { recoveryDelayHours: number; perThirtyDays: number };
  /** SMS pumping (toll fraud) defences of send-code. */
  smsFraud: SmsFraudConfig;
  securityEvents: { retentionDays: number };
  auditLog: { retentionDays: number };
  loginFailures: { perPhoneIp: number; perIpDaily: number };
  /** Days unused after which a sign-in by the phone alone asks for another factor (0: never). */
  phoneDormantDays: number;
  password: { bcryptCost: number; hashThreads?: number; minLength: 8; maxBytes: 72 };
  tokens: { accessTtlSeconds: number; refreshTtlSeconds: number; refreshReuseGraceSeconds: number };
  avatar: {
    maxBytes: number;
    storage: 'local' | 's3';
    s3: { bucket: string; region: string; endpoint?: string; accessKeyId?: string; secretAccessKey?: string; forcePathStyle: boolean; prefix: string };
  };
  /** Origins allowed by CORS; any other Origin gets no CORS headers. */
  corsOrigins: string[];
  /** Express `trust proxy`: false (default), true, a hop count, or addresses/subnets. */
  trustProxy: boolean | number | string[];
  /** Counters go to Redis when set, else to PostgreSQL. */
  redis?: { url: string; keyPrefix: string };
  /** Shared key of service-to-service routes; they are off when it is not set. */
  internalApiKey?: string;
  /** What `GET /graphql` shows a browser: GraphiQL served from here, Apollo Sandbox, or nothing (production). */
  graphqlExplorer: 'graphiql' | 'sandbox' | 'off';
  /**
   * The manifests of the only documents GraphQL runs (trusted documents), merged: the frontends' and
   * the console's, say. Empty: any document, automatic persisted queries included.
   */
  graphqlTrustedDocuments: string[];
  /** Whether `GET /console` serves the operator console (built into dist/console by `npm run build`), in every environment. */
  console: boolean;
  /**
   * Port of the Prometheus listener (`GET /metrics`, on `host`), 0 for any free one; undefined: no
   * listener and no metric kept. Off by default under NODE_ENV=test, where many servers share a process.
   */
  metricsPort?: number;
  /** OpenTelemetry tracing; unset (no OTLP endpoint, or the SDK disabled): nothing of it is loaded. */
  tracing?: TracingConfig;
  /** Signed event notifications (Standard Webhooks); off when `urls` is empty. */
  webhooks: WebhookConfig;
  /**
   * TOTP second factor. `encryptionKey`: the AES-256-GCM key of the stored TOTP secrets (32 bytes, as hex);
   * unset outside production, one is generated into the data directory. `failuresPerAccountHourly`:
   * wrong second-factor codes per account per hour, over all its mfaTokens and addresses.
   */
  mfa: { encryptionKey?: string; totpIssuer: string; failuresPerAccountHourly: number };
  /** Passkeys: the relying party and the origins whose ceremonies are accepted. */
  webauthn: { rpId: string; rpName: string; origins: string[] };
  /** Sign-in through external OpenID Connect providers; none configured: the routes answer NOT_FOUND for every provider. */
  identity: IdentityConfig;
}

/** Raised when the environment does not describe a runnable service; lists every bad key. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment once into a typed, frozen configuration. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const raw = Object.fromEntries(
    Object.entries(source).filter(([key, value]) => key in envSchema.shape && value !== ''),
  );
  const parsed = envSchema.safeParse(raw);
  const problems = parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  let e: Environment;
  if (parsed.success) {
    e = parsed.data;
  } else {
    // Check the rest as well (production without JWT_SECRET, …), so that every bad key is listed at once.
    const bad = new Set(parsed.error.issues.map((i) => String(i.path[0])));
    const rest = envSchema.safeParse(Object.fromEntries(Object.entries(raw).filter(([key]) => !bad.has(key))));
    if (!rest.success) throw new ConfigError(problems);
    e = rest.data;
  }
  if (e.NODE_ENV === 'production' && !e.JWT_SECRET) {
    problems.push('JWT_SECRET: required when NODE_ENV=production (at least 32 random characters)');
  }
  if (e.NODE_ENV === 'production' && !e.MFA_ENCRYPTION_KEY) {
    problems.push('MFA_ENCRYPTION_KEY: required when NODE_ENV=production (32 random bytes: openssl rand -base64 32)');
  }
  // The headers are part of the request: by default they may take as long as it, up to 20 s.
  const headersTimeoutMs = e.HEADERS_TIMEOUT_MS ?? Math.min(DEFAULT_HEADERS_TIMEOUT_MS, e.REQUEST_TIMEOUT_MS);
  if (headersTimeoutMs > e.REQUEST_TIMEOUT_MS) {
    problems.push(`HEADERS_TIMEOUT_MS: must not be longer than REQUEST_TIMEOUT_MS (${e.REQUEST_TIMEOUT_MS})`);
  }
  const webauthnOrigins = originList('WEBAUTHN_ORIGINS', e.WEBAUTHN_ORIGINS ?? `http://localhost:${e.PORT}`, problems);
  const keyFiles = commaList(e.JWT_PRIVATE_KEYS_FILE ?? '');
  if (e.JWT_ALGORITHM === 'HS256' && keyFiles.length > 0) {
    problems.push('JWT_PRIVATE_KEYS_FILE: only used with JWT_ALGORITHM=ES256 or EdDSA (HS256 signs with JWT_SECRET)');
  }
  if (e.NODE_ENV === 'production' && e.JWT_ALGORITHM !== 'HS256' && keyFiles.length === 0) {
    problems.push(`JWT_PRIVATE_KEYS_FILE: required when NODE_ENV=production and JWT_ALGORITHM=${e.JWT_ALGORITHM} (create one with npm run keys -- add)`);
  }
  checkDatabase(e, problems);
  if (e.SMS_PROVIDER === 'file' && !e.SMS_OUTBOX_FILE) {
    problems.push('SMS_OUTBOX_FILE: required when SMS_PROVIDER=file');
  }
  const smsTemplates = parseSmsTemplates(e.SMS_TEMPLATES, problems);
  if (e.SMS_PROVIDER === 'aliyun' || e.SMS_PROVIDER === 'tencent') {
    // The registered templates hold the text: these would silently change nothing.
    for (const key of ['SMS_TEMPLATES', 'SMS_WEBOTP_DOMAIN', 'SMS_APP_HASH'] as const) {
      if (e[key] !== undefined) problems.push(`${key}: only used by the text providers (console, file, twilio, webhook); with SMS_PROVIDER=${e.SMS_PROVIDER} the templates registered with the provider hold the text`);
    }
  }
  if (e.SMS_WEBOTP_DOMAIN !== undefined && !isWebOtpDomain(e.SMS_WEBOTP_DOMAIN)) {
    problems.push('SMS_WEBOTP_DOMAIN: must be a lower-case host name (meet.example.com), without scheme, port or path');
  }
  if (e.SMS_APP_HASH !== undefined && !/^[A-Za-z0-9+/]{11}$/.test(e.SMS_APP_HASH)) {
    problems.push('SMS_APP_HASH: must be the 11-character hash of the Android app (A-Z, a-z, 0-9, + and /)');
  }
  if (e.SMS_PROVIDER === 'twilio') {
    for (const key of ['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'] as const) {
      if (!e[key]) problems.push(`${key}: required when SMS_PROVIDER=twilio`);
    }
  }
  if (e.SMS_PROVIDER === 'webhook') {
    if (!e.SMS_WEBHOOK_URL) problems.push('SMS_WEBHOOK_URL: required when SMS_PROVIDER=webhook');
    if (!e.SMS_WEBHOOK_SECRET) problems.push('SMS_WEBHOOK_SECRET: required when SMS_PROVIDER=webhook');
  }
  const aliyun = e.SMS_PROVIDER === 'aliyun' ? parseAliyunSms(e, problems) : undefined;
  const tencent = e.SMS_PROVIDER === 'tencent' ? parseTencentSms(e, problems) : undefined;
  if (e.AVATAR_STORAGE === 's3' && !e.S3_BUCKET) problems.push('S3_BUCKET: required when AVATAR_STORAGE=s3');
  if (Boolean(e.S3_ACCESS_KEY_ID) !== Boolean(e.S3_SECRET_ACCESS_KEY)) {
    problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both or neither (neither: the AWS default credential chain)');
  }
  if (e.NODE_ENV === 'production' && e.SMS_PROVIDER === undefined) {
    problems.push('SMS_PROVIDER: must be chosen explicitly when NODE_ENV=production');
  }
  const smsFraud = parseSmsFraud(
    {
      defaultRegion: e.DEFAULT_PHONE_REGION,
      allowedCountries: e.SMS_ALLOWED_COUNTRIES,
      blockedPrefixes: e.SMS_BLOCKED_PREFIXES,
      dailyBudget: e.SMS_DAILY_BUDGET_PER_COUNTRY,
      minConversion: e.SMS_MIN_CONVERSION,
      conversionMinSends: e.SMS_CONVERSION_MIN_SENDS,
      countriesPerIpDaily: e.SEND_CODE_COUNTRIES_PER_IP_DAILY,
    },
    problems,
  );
  const webhooks = parseWebhooks(
    { urls: e.WEBHOOK_URLS, secret: e.WEBHOOK_SECRET, timeoutMs: e.WEBHOOK_TIMEOUT_MS, retrySchedule: e.WEBHOOK_RETRY_SCHEDULE, retentionDays: e.WEBHOOK_RETENTION_DAYS },
    problems,
  );
  const origins = originList('CORS_ORIGINS', e.CORS_ORIGINS, problems);
  if (parseTrustProxy(e.TRUST_PROXY) === undefined) {
    problems.push('TRUST_PROXY: must be false, true, a number of proxy hops, or a comma-separated list of addresses/subnets');
  }
  // Introspection is off in production, so an explorer would have no schema to show.
  if (e.NODE_ENV === 'production' && (e.GRAPHQL_EXPLORER ?? 'off') !== 'off') {
    problems.push('GRAPHQL_EXPLORER: must be off when NODE_ENV=production');
  }
  const tracing = parseTracing(e, problems);
  const identity = parseIdentity({ providers: e.IDENTITY_PROVIDERS, publicUrl: e.PUBLIC_URL, returnUrls: e.OIDC_RETURN_URLS, port: e.PORT, timeoutMs: e.OIDC_TIMEOUT_MS, requireBinding: e.OIDC_REQUIRE_BINDING }, problems);
  if (problems.length > 0) throw new ConfigError(problems);

  return deepFreeze({
    env: e.NODE_ENV,
    isProduction: e.NODE_ENV === 'production',
    port: e.PORT,
    host: e.HOST,
    http: { requestTimeoutMs: e.REQUEST_TIMEOUT_MS, headersTimeoutMs },
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    database: {
      url: e.DATABASE_URL,
      directUrl: e.DATABASE_DIRECT_URL,
      poolMode: e.DATABASE_POOL_MODE,
      poolSize: e.DATABASE_POOL_SIZE,
      preparedStatements: e.DATABASE_PREPARED_STATEMENTS ?? e.DATABASE_POOL_MODE === 'session',
    },
    dataDir: e.DATA_DIR,
    migrateOnStart: e.MIGRATE_ON_START,
    jwt: { secret: e.JWT_SECRET, issuer: e.JWT_ISSUER, audience: e.JWT_AUDIENCE, algorithm: e.JWT_ALGORITHM, privateKeysFiles: keyFiles },
    defaultPhoneRegion: e.DEFAULT_PHONE_REGION,
    defaultLocale: e.DEFAULT_LOCALE,
    registrationEnabled: e.REGISTRATION_ENABLED,
    publicConfigFile: e.PUBLIC_CONFIG_FILE,
    sms: {
      provider: e.SMS_PROVIDER ?? 'console',
      outboxFile: e.SMS_OUTBOX_FILE ?? '',
      timeoutMs: e.SMS_TIMEOUT_MS,
      templates: smsTemplates,
      autofill: { webOtpDomain: e.SMS_WEBOTP_DOMAIN, appHash: e.SMS_APP_HASH },
      twilio: {
        baseUrl: e.TWILIO_BASE_URL,
        accountSid: e.TWILIO_ACCOUNT_SID ?? '',
        authToken: e.TWILIO_AUTH_TOKEN ?? '',
        from: e.TWILIO_FROM ?? '',
      },
      webhook: { url: e.SMS_WEBHOOK_URL ?? '', secret: e.SMS_WEBHOOK_SECRET ?? '' },
      ...(aliyun ? { aliyun } : {}),
      ...(tencent ? { tencent } : {}),
    },
    code: {
      length: 6,
      ttlSeconds: e.CODE_TTL_SECONDS,
      maxAttempts: e.CODE_MAX_ATTEMPTS,
      failures: { perPhoneIp: e.CODE_FAILURES_PER_PHONE_IP, perIpDaily: e.CODE_FAILURES_PER_IP_DAILY },
    },
    sendCode: {
      intervalSeconds: e.SEND_CODE_INTERVAL_SECONDS,
      perPhoneHourly: e.SEND_CODE_PER_PHONE_HOURLY,
      perPhoneDaily: e.SEND_CODE_PER_PHONE_DAILY,
      perIpHourly: e.SEND_CODE_PER_IP_HOURLY,
    },
    phoneChange: { recoveryDelayHours: e.PHONE_RECOVERY_DELAY_HOURS, perThirtyDays: e.PHONE_CHANGES_PER_30_DAYS },
    smsFraud,
    securityEvents: { retentionDays: e.SECURITY_EVENT_RETENTION_DAYS },
    auditLog: { retentionDays: e.AUDIT_LOG_RETENTION_DAYS },
    loginFailures: { perPhoneIp: e.LOGIN_FAILURES_PER_PHONE_IP, perIpDaily: e.LOGIN_FAILURES_PER_IP_DAILY },
    phoneDormantDays: e.PHONE_DORMANT_DAYS,
    password: { bcryptCost: e.BCRYPT_COST, hashThreads: e.PASSWORD_HASH_THREADS, minLength: 8, maxBytes: 72 },
    tokens: {
      accessTtlSeconds: e.ACCESS_TOKEN_TTL_SECONDS,
      refreshTtlSeconds: e.REFRESH_TOKEN_TTL_SECONDS,
      refreshReuseGraceSeconds: e.REFRESH_REUSE_GRACE_SECONDS,
    },
    avatar: {
      maxBytes: e.AVATAR_MAX_BYTES,
      storage: e.AVATAR_STORAGE,
      s3: {
        bucket: e.S3_BUCKET ?? '',
        region: e.S3_REGION,
        endpoint: e.S3_ENDPOINT,
        accessKeyId: e.S3_ACCESS_KEY_ID,
        secretAccessKey: e.S3_SECRET_ACCESS_KEY,
        forcePathStyle: e.S3_FORCE_PATH_STYLE,
        prefix: e.S3_PREFIX,
      },
    },
    internalApiKey: e.INTERNAL_API_KEY,
    graphqlExplorer: e.GRAPHQL_EXPLORER ?? (e.NODE_ENV === 'production' ? 'off' : 'graphiql'),
    graphqlTrustedDocuments: commaList(e.GRAPHQL_TRUSTED_DOCUMENTS ?? ''),
    console: e.CONSOLE === 'on',
    metricsPort: metricsPort(e),
    corsOrigins: origins,
    trustProxy: parseTrustProxy(e.TRUST_PROXY)!,
    redis: e.REDIS_URL ? { url: e.REDIS_URL, keyPrefix: e.REDIS_KEY_PREFIX } : undefined,
    live: { transport: e.LIVE_EVENTS_TRANSPORT, maxConnections: e.WS_MAX_CONNECTIONS, keepAliveSeconds: e.WS_KEEPALIVE_SECONDS },
    tracing,
    webhooks,
    mfa: {
      encryptionKey: e.MFA_ENCRYPTION_KEY === undefined ? undefined : mfaKeyBytes(e.MFA_ENCRYPTION_KEY)?.toString('hex'),
      totpIssuer: e.MFA_TOTP_ISSUER,
      failuresPerAccountHourly: e.MFA_FAILURES_PER_ACCOUNT_HOURLY,
    },
    webauthn: { rpId: e.WEBAUTHN_RP_ID, rpName: e.WEBAUTHN_RP_NAME, origins: webauthnOrigins },
    identity,
  });
}

/** The settings that only make sense together: a pooler needs PostgreSQL behind it, and forbids named statements. */
function checkDatabase(e: Environment, problems: string[]): void {
  if (!e.DATABASE_URL && e.DATABASE_POOL_MODE === 'transaction') {
    problems.push('DATABASE_POOL_MODE: transaction is for DATABASE_URL pointing at a transaction-mode pooler; the embedded database (no DATABASE_URL) has none');
  }
  if (!e.DATABASE_URL && e.DATABASE_DIRECT_URL) {
    problems.push('DATABASE_DIRECT_URL: only used with DATABASE_URL (the direct connection to the PostgreSQL behind its pooler)');
  }
  if (e.LIVE_EVENTS_TRANSPORT === 'redis' && !e.REDIS_URL) problems.push('LIVE_EVENTS_TRANSPORT: redis needs REDIS_URL');
  if (e.LIVE_EVENTS_TRANSPORT === 'postgres' && !e.DATABASE_URL) problems.push('LIVE_EVENTS_TRANSPORT: postgres needs DATABASE_URL (the embedded database delivers within its process: leave it unset)');
  if (e.LIVE_EVENTS_TRANSPORT === 'postgres' && e.DATABASE_POOL_MODE === 'transaction' && !e.DATABASE_DIRECT_URL) {
    problems.push('LIVE_EVENTS_TRANSPORT: postgres behind a transaction-mode pooler needs DATABASE_DIRECT_URL (a LISTEN holds a session, which the pooler does not keep)');
  }
  if (e.DATABASE_POOL_MODE === 'transaction' && e.DATABASE_PREPARED_STATEMENTS === true) {
    problems.push('DATABASE_PREPARED_STATEMENTS: named prepared statements cannot work with DATABASE_POOL_MODE=transaction (the pooler hands each transaction another server connection); leave it unset');
  }
}

/** A comma-separated list of web origins; each entry that is not one is a problem. */
function originList(name: string, value: string, problems: string[]): string[] {
  const origins = commaList(value);
  for (const origin of origins) {
    if (!/^https?:\/\/[^/\s]+$/.test(origin)) problems.push(`${name}: ${origin} is not an origin (scheme://host[:port])`);
  }
  return origins;
}

/** 32 bytes from 64 hex digits or from base64 / base64url; undefined for anything else. */
function mfaKeyBytes(value: string): Buffer | undefined {
  const v = value.trim();
  const bytes = /^[0-9a-f]{64}$/i.test(v) ? Buffer.from(v, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(v) ? Buffer.from(v, 'base64') : undefined;
  return bytes?.length === 32 ? bytes : undefined;
}

function metricsPort(e: Environment): number | undefined {
  const port = e.METRICS_PORT ?? (e.NODE_ENV === 'test' ? 'off' : DEFAULT_METRICS_PORT);
  return port === 'off' ? undefined : port;
}

/** What a client gets to send its request headers unless HEADERS_TIMEOUT_MS (or a shorter REQUEST_TIMEOUT_MS) says otherwise. */
const DEFAULT_HEADERS_TIMEOUT_MS = 20_000;

/** The port OpenTelemetry's Prometheus exporter uses too. */
const DEFAULT_METRICS_PORT = 9464;

function parseTrustProxy(value: string): boolean | number | string[] | undefined {
  const v = value.trim();
  if (v === 'false' || v === '0' || v === '') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  const list = commaList(v);
  return list.every((s) => /^[0-9a-fA-F:.]+(\/\d+)?$|^(loopback|linklocal|uniquelocal)$/.test(s)) ? list : undefined;
}

function deepFreeze<T>(value: T): Readonly<T> {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
