// The service process of the fuzz runs: the built service, started fresh on a loopback port with the
// file SMS provider, the test key, a JSON log on standard output, and the limits per address raised
// (every request comes from 127.0.0.1, and the per-address limits would soon answer everything with
// 429 and hide what lies behind).
import { join } from 'node:path';
import pg from 'pg';
import { TEST_JWT_SECRET } from '../helpers/server.js';

export const INTERNAL_KEY = 'fuzz-run-internal-key-of-forty-characters';
export const AVATAR_MAX_BYTES = 64 * 1024;

/** Where a run's service keeps its data and writes its SMS (under `dir`), and its environment; `env` adds or overrides. */
export function fuzzService(dir: string, env: Record<string, string> = {}): { env: Record<string, string>; outbox: string; dataDir: string } {
  const outbox = join(dir, 'sms.jsonl');
  const dataDir = join(dir, 'data');
  return {
    outbox,
    dataDir,
    env: {
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      DATABASE_URL: process.env.TEST_WORKER_DATABASE_URL!,
      DATABASE_POOL_SIZE: process.env.TEST_EMBEDDED_DATABASE ? '1' : '5',
      DATA_DIR: dataDir,
      JWT_SECRET: TEST_JWT_SECRET,
      SMS_PROVIDER: 'file',
      SMS_OUTBOX_FILE: outbox,
      BCRYPT_COST: '4',
      PASSWORD_HASH_THREADS: '1',
      INTERNAL_API_KEY: INTERNAL_KEY,
      AVATAR_MAX_BYTES: String(AVATAR_MAX_BYTES),
      SMS_ALLOWED_COUNTRIES: '*',
      // The per-phone limits stay as they are (a run reuses few phones).
      SEND_CODE_PER_IP_HOURLY: '1000000',
      LOGIN_FAILURES_PER_IP_DAILY: '1000000',
      // A deletion race asks a new user's delete-account code right after their sign-in code.
      SEND_CODE_INTERVAL_SECONDS: '0',
      CODE_FAILURES_PER_IP_DAILY: '1000000',
      // The conversion breaker answers 503 by policy once many codes go unused, as they do here.
      SMS_MIN_CONVERSION: '0',
      ...env,
    },
  };
}

/** Makes an account an ADMIN (by SQL, as `npm run admin -- grant` would), so that the operators' routes answer past their role check. */
export async function makeAdmin(userId: string): Promise<void> {
  const db = new pg.Client({ connectionString: process.env.TEST_WORKER_DATABASE_URL });
  await db.connect();
  await db.query(`update users set role = 'ADMIN' where id = $1`, [userId]).finally(() => db.end());
}
