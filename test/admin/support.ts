// What the operators' test files share: the two transports and the refusal each answers, accounts
// with a role, and the operators' command-line tool (`npm run admin`, src/admin.ts) run as a process
// of its own on the test worker's database.
import { errorOf } from '../graphql/support.js';
import { registerUser, type Session } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { TEST_JWT_SECRET, type TestServer } from '../helpers/server.js';
import { serviceOutputLog } from '../helpers/suite-log.js';
import { EMBEDDED_DATABASE_ENV, runScript, type ScriptRun } from '../operability/support.js';
import { expectProblem } from '../rest/support.js';

export type Transport = 'REST' | 'GraphQL';
export type Role = 'USER' | 'SUPPORT' | 'ADMIN';
export const TRANSPORTS: Transport[] = ['REST', 'GraphQL'];
/** The HTTP status REST answers with each error code these tests expect. */
const STATUS: Record<string, number> = {
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  FORBIDDEN: 403,
  ACCOUNT_BLOCKED: 403,
  VALIDATION_FAILED: 400,
  INVALID_CODE: 400,
  NOT_FOUND: 404,
  INVALID_PHONE: 400,
  PHONE_TAKEN: 409,
};
/** A well-formed id that no account has. */
export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** Asserts the refusal (with its status on REST); returns the `fields` of a validation failure. */
export function refusal(res: HttpResult, transport: Transport, code: string): Record<string, string> | undefined {
  if (transport === 'REST') return expectProblem(res, STATUS[code]!, code).fields;
  return errorOf(res, code).extensions?.fields as Record<string, string> | undefined;
}

/** A newly registered account with `role`, set by SQL. */
export async function withRole(t: TestServer, role: Role): Promise<Session> {
  const user = await registerUser(t);
  if (role !== 'USER') await t.sql('update users set role = $2 where id = $1', [user.userId, role]);
  return user;
}

/** The environment an operator's shell gives the tool: the test worker's database, the test secret, `dataDir`. */
export function adminToolEnv(dataDir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    NODE_ENV: 'test',
    DATABASE_URL: process.env.TEST_WORKER_DATABASE_URL!,
    DATA_DIR: dataDir,
    JWT_SECRET: TEST_JWT_SECRET,
    ...EMBEDDED_DATABASE_ENV,
  };
}

/** Runs `node dist/src/admin.js` with `args` and exactly the environment of adminToolEnv, plus `env` (undefined: unset). */
export function runAdminTool(args: string[], dataDir: string, env: Record<string, string | undefined> = {}): Promise<ScriptRun> {
  const merged = Object.entries({ ...adminToolEnv(dataDir), ...env }).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return runScript('src/admin.js', args, Object.fromEntries(merged));
}
