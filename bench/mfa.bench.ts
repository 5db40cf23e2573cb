// Second factors: password sign-in of accounts with TOTP on (login-password answers MFA_REQUIRED,
// then auth/mfa/verify) against password sign-in without, on the bcrypt cost of production; and the
// latency of the second step alone (TOTP verify) and of a passkey sign-in, on a service whose bcrypt
// is cheap (its hashing then takes no CPU from the step measured). The passkey is a software
// authenticator (ES256, the one of the tests): the browser's part is not in the figure.
import bcrypt from 'bcryptjs';
import { TOTP } from 'otpauth';
import pg from 'pg';
import { log, ROUNDS } from './load.js';
import { ALL_CPUS, LOAD_CPUS, median, pin, SERVER_CPU, signIn, startService, waitIdle, type Row, type ServiceProcess } from './support.js';
import { BCRYPT_COST } from './password.bench.js';
import { SoftAuthenticator } from '../test/helpers/soft-authenticator.js';

const PASSWORD = 'Bench-password-2026!';
const THROUGHPUT_RATIO_TARGET = 0.95;
const VERIFY_P99_TARGET_MS = 10;
/** Concurrent sign-ins in the throughput rounds: enough to keep both bcrypt workers busy. */
const SIGN_IN_WORKERS = 8;
const ROUND_SECONDS = 10;
/**
 * Accounts with TOTP on. A code is accepted once per account and time step (30 s), so each sign-in
 * takes an account not used in the current step: about 6 sign-ins a second at cost 12 need ~180 a step.
 */
const TOTP_ACCOUNTS = 400;
const PLAIN_ACCOUNTS = 8;
/** Second steps timed one after another (after WARM_UP untimed ones): p99 is the 10th slowest. */
const LATENCY_SAMPLES = 1000;
const WARM_UP = 50;
const STEP_MS = 30_000;

interface TotpAccount {
  phone: string;
  totp: TOTP;
  /** The last time step whose code this account used: the service refuses it and earlier ones. */
  lastStep: number;
}

const step = (at = Date.now()) => Math.floor(at / STEP_MS);

/** The accounts just confirmed their enrolment with this step's code: theirs count from the next step. */
const nextStep = () => new Promise((resolve) => setTimeout(resolve, (step() + 1) * STEP_MS - Date.now() + 50));

async function post(service: ServiceProcess, path: string, body: unknown, token?: string, forwardedFor?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }), ...(forwardedFor && { 'x-forwarded-for': forwardedFor }) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Accounts signed in by SMS code, given `passwordHash` in SQL (one bcrypt hash for all, computed once). */
async function accounts(service: ServiceProcess, databaseUrl: string, phones: string[], passwordHash: string): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < phones.length; i += 20) tokens.push(...(await Promise.all(phones.slice(i, i + 20).map((phone) => signIn(service, phone)))));
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query('update users set password_hash = $1 where phone = any($2)', [passwordHash, phones]);
  } finally {
    await db.end();
  }
  return tokens;
}

/** Turns TOTP on for each account (enrol, confirm with the current code). */
async function enrol(service: ServiceProcess, phones: string[], tokens: string[]): Promise<TotpAccount[]> {
  const enrolled: TotpAccount[] = [];
  for (let i = 0; i < phones.length; i++) {
    const started = await post(service, '/api/v1/users/me/mfa/totp', {}, tokens[i]);
    if (started.status !== 200) throw new Error(`enrol: ${started.status} ${JSON.stringify(started.body)}`);
    const totp = new TOTP({ secret: String(started.body.secret), algorithm: 'SHA1', digits: 6, period: 30 });
    const at = Date.now();
    const confirmed = await post(service, '/api/v1/users/me/mfa/totp/confirm', { code: totp.generate({ timestamp: at }) }, tokens[i]);
    if (confirmed.status !== 200) throw new Error(`confirm: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
    enrolled.push({ phone: phones[i]!, totp, lastStep: step(at) });
  }
  return enrolled;
}

/** The first account whose code of this step is unused; reserves the step for it. */
function takeAccount(pool: TotpAccount[], cursor: { next: number }): TotpAccount {
  const now = step();
  for (let tried = 0; tried < pool.length; tried++) {
    const account = pool[cursor.next++ % pool.length]!;
    if (account.lastStep < now) {
      account.lastStep = now;
      return account;
    }
  }
  throw new Error(`all ${pool.length} TOTP accounts used their code of this time step`);
}

/** login-password, and for an account with TOTP the second step; returns the second step's milliseconds. */
async function passwordSignIn(service: ServiceProcess, phone: string, totp?: TotpAccount): Promise<number> {
  const first = await post(service, '/api/v1/auth/login-password', { phone, password: PASSWORD });
  if (!totp) {
    if (first.status !== 200) throw new Error(`login-password: ${first.status} ${JSON.stringify(first.body)}`);
    return 0;
  }
  if (first.status !== 401 || first.body.code !== 'MFA_REQUIRED') throw new Error(`login-password with TOTP: ${first.status} ${JSON.stringify(first.body)}`);
  const started = performance.now();
  const second = await post(service, '/api/v1/auth/mfa/verify', { mfaToken: first.body.mfaToken, code: totp.totp.generate() });
  const ms = performance.now() - started;
  if (second.status !== 200) throw new Error(`mfa/verify: ${second.status} ${JSON.stringify(second.body)}`);
  return ms;
}

/** Complete sign-ins per second over `seconds`, SIGN_IN_WORKERS at a time. */
async function signInRate(seconds: number, signInOnce: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: SIGN_IN_WORKERS }, async () => {
      while (performance.now() < deadline) {
        await signInOnce();
        done++;
      }
    }),
  );
  return (done * 1000) / (performance.now() - started);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** `service` runs with BCRYPT_COST=12 (bench/run.ts). */
export async function mfaThroughputBench(service: ServiceProcess, databaseUrl: string): Promise<Row[]> {
  const hash = bcrypt.hashSync(PASSWORD, BCRYPT_COST);
  const plainPhones = Array.from({ length: PLAIN_ACCOUNTS }, (_, i) => `+86139${String(10000000 + i).slice(-8)}`);
  const totpPhones = Array.from({ length: TOTP_ACCOUNTS }, (_, i) => `+86139${String(20000000 + i).slice(-8)}`);
  await accounts(service, databaseUrl, plainPhones, hash);
  const pool = await enrol(service, totpPhones, await accounts(service, databaseUrl, totpPhones, hash));
  log(`mfa: ${TOTP_ACCOUNTS} accounts with TOTP and ${PLAIN_ACCOUNTS} without, password hash cost ${BCRYPT_COST}`);
  await nextStep();
  const cursor = { next: 0 };
  let plainNext = 0;
  const plain = () => passwordSignIn(service, plainPhones[plainNext++ % plainPhones.length]!);
  const withTotp = () => {
    const account = takeAccount(pool, cursor);
    return passwordSignIn(service, account.phone, account);
  };
  // Warm-up of both paths, then rounds taken in turn (which comes first alternates).
  await signInRate(2, plain);
  await signInRate(2, withTotp);
  await waitIdle(service.pid);
  const ratios: number[] = [];
  const rates: { plain: number; totp: number }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const order = i % 2 === 0 ? (['plain', 'totp'] as const) : (['totp', 'plain'] as const);
    const round = { plain: 0, totp: 0 };
    for (const which of order) {
      round[which] = await signInRate(ROUND_SECONDS, which === 'plain' ? plain : withTotp);
      // A started hash is not cancelled: the next run starts on an empty queue.
      await waitIdle(service.pid);
    }
    rates.push(round);
    ratios.push(round.totp / round.plain);
    log(`mfa round ${i + 1}: password + TOTP ${round.totp.toFixed(2)}/s, password alone ${round.plain.toFixed(2)}/s: ${ratios[i]!.toFixed(2)}`);
  }
  const ratio = median(ratios);
  return [
    {
      case: `password sign-in with TOTP (login-password + mfa/verify) vs without, bcrypt cost ${BCRYPT_COST}, ${SIGN_IN_WORKERS} at a time`,
      rps: median(rates.map((r) => r.totp)),
      baselineRps: median(rates.map((r) => r.plain)),
      ratio,
      value: `sign-ins/s ${rates.map((r) => `${r.totp.toFixed(2)} vs ${r.plain.toFixed(2)}`).join(', ')}`,
      target: `ratio >= ${THROUGHPUT_RATIO_TARGET.toFixed(2)}`,
      pass: ratio >= THROUGHPUT_RATIO_TARGET,
    },
  ];
}

/**
 * A service of its own with cheap hashing: the TOTP second step timed alone, then the passkey
 * sign-in (auth/passkey/login after its options), one at a time.
 */
export async function mfaLatencyBench(databaseUrl: string, port: number): Promise<Row[]> {
  const origin = `http://localhost:${port}`;
  const service = await startService(
    { DATABASE_URL: databaseUrl, BCRYPT_COST: '4', SMS_MIN_CONVERSION: '0', WEBAUTHN_ORIGINS: origin, TRUST_PROXY: 'loopback' },
    port,
  );
  // As in the load comparisons: the service on a core of its own, the client on another, so that
  // neither waits for the other's time slice by the scheduler's chance (PostgreSQL floats).
  const pinned = pin([service.pid], SERVER_CPU) && pin([process.pid], LOAD_CPUS);
  if (!pinned) log('CPU pinning not available: the service and the client float');
  try {
    return [...(await totpLatency(service, databaseUrl)), ...(await passkeyLatency(service, origin))];
  } finally {
    if (pinned) pin([process.pid], ALL_CPUS);
    await service.stop();
  }
}

async function totpLatency(service: ServiceProcess, databaseUrl: string): Promise<Row[]> {
  const phones = Array.from({ length: LATENCY_SAMPLES + WARM_UP }, (_, i) => `+86139${String(30000000 + i).slice(-8)}`);
  const pool = await enrol(service, phones, await accounts(service, databaseUrl, phones, bcrypt.hashSync(PASSWORD, 4)));
  await nextStep();
  const cursor = { next: 0 };
  const times: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES + WARM_UP; i++) {
    const account = takeAccount(pool, cursor);
    const ms = await passwordSignIn(service, account.phone, account);
    if (i >= WARM_UP) times.push(ms);
  }
  const p99 = percentile(times, 99);
  log(`mfa/verify with TOTP: p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`);
  return [
    {
      case: `POST /api/v1/auth/mfa/verify with a TOTP code (session issued), ${LATENCY_SAMPLES} one at a time`,
      p50: percentile(times, 50),
      p99,
      value: `p99 ${p99.toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`,
      target: `p99 < ${VERIFY_P99_TARGET_MS} ms`,
      pass: p99 < VERIFY_P99_TARGET_MS,
    },
  ];
}

/** One account's passkey signs in LATENCY_SAMPLES times; each options call is untimed, the login timed. */
async function passkeyLatency(service: ServiceProcess, origin: string): Promise<Row[]> {
  const token = await signIn(service, '+8613940000000');
  const authenticator = new SoftAuthenticator(origin, 'localhost');
  const options = await post(service, '/api/v1/users/me/passkeys/registration-options', {}, token);
  if (options.status !== 200) throw new Error(`registration-options: ${options.status} ${JSON.stringify(options.body)}`);
  const added = await post(service, '/api/v1/users/me/passkeys', { response: authenticator.register(options.body as never) }, token);
  if (added.status !== 201) throw new Error(`add passkey: ${added.status} ${JSON.stringify(added.body)}`);
  const times: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES + WARM_UP; i++) {
    // Sign-in options are limited per address (30 per 5 minutes): each sign-in comes from an address
    // of its own, told by the loopback proxy this service trusts.
    const challenge = await post(service, '/api/v1/auth/passkey/options', {}, undefined, `10.9.${i >> 8}.${i & 255}`);
    if (challenge.status !== 200) throw new Error(`passkey options: ${challenge.status} ${JSON.stringify(challenge.body)}`);
    const { challengeId, options: requestOptions } = challenge.body as { challengeId: string; options: { challenge: string } };
    const response = authenticator.assert(requestOptions);
    const started = performance.now();
    const login = await post(service, '/api/v1/auth/passkey/login', { challengeId, response });
    const ms = performance.now() - started;
    if (login.status !== 200) throw new Error(`passkey login: ${login.status} ${JSON.stringify(login.body)}`);
    if (i >= WARM_UP) times.push(ms);
  }
  const p99 = percentile(times, 99);
  log(`passkey login: p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`);
  return [
    {
      case: `POST /api/v1/auth/passkey/login (ES256 assertion verified, session issued), ${LATENCY_SAMPLES} one at a time`,
      p50: percentile(times, 50),
      p99,
      value: `p99 ${p99.toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`,
      target: `p99 < ${VERIFY_P99_TARGET_MS} ms`,
      pass: p99 < VERIFY_P99_TARGET_MS,
    },
  ];
}
