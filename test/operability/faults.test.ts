// Issue 7, part 4: PostgreSQL goes away and comes back. The test owns a PostgreSQL cluster (initdb
// in a temporary directory) and stops it (fast, then immediate shutdown), then freezes it (SIGSTOP)
// under a running service: requests that need the database answer 503 SERVICE_UNAVAILABLE in a
// bounded time, /readyz is 503, /healthz stays 200, and the service recovers by itself once the
// database is back. The service runs as its
// own process (dist/src/main.js): inside jest's module sandbox Node's network errors come from
// another realm, which graphql-js does not recognise as errors (they would surface as INTERNAL).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HttpClient, type HttpResult } from '../helpers/http.js';
import { newPhone, TEST_JWT_SECRET } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';
import { waitFor } from '../helpers/wait.js';
import { freePort, signInByOutbox, startService, timed, type ServiceProcess } from './support.js';

const run = promisify(execFile);

/** The newest PostgreSQL server installed (/usr/lib/postgresql/<version>/bin). */
function postgresBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base).filter((v) => existsSync(join(base, v, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(base, versions[0], 'bin');
}

const bin = postgresBin();
let root: string;
let dataDir: string;
let port: number;
let service: ServiceProcess;
let http: HttpClient;
let user: { accessToken: string; userId: string };
/** Cluster processes stopped with SIGSTOP, to be continued whatever happens. */
let frozen: string[] = [];

const asPostgres = (tool: string, args: string[]) => run('runuser', ['-u', 'postgres', '--', join(bin!, tool), ...args], { timeout: 20_000 });
const pgStart = () =>
  asPostgres('pg_ctl', ['-D', dataDir, '-l', join(root, 'server.log'), '-o', `-p ${port} -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off`, '-w', 'start']);
const pgStop = (mode: 'fast' | 'immediate') => asPostgres('pg_ctl', ['-D', dataDir, '-m', mode, '-w', 'stop']);

beforeAll(async () => {
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql');
  root = mkdtempSync(join(tmpdir(), 'meeting-accounts-pg-'));
  dataDir = join(root, 'data');
  await run('install', ['-d', '-o', 'postgres', '-g', 'postgres', '-m', '0700', dataDir]);
  await run('chown', ['postgres:postgres', root]);
  await asPostgres('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '--no-instructions']);
  port = await freePort();
  await pgStart();
  service = await startService({
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/postgres`,
    DATABASE_POOL_SIZE: '4',
    DATA_DIR: join(root, 'service'),
    JWT_SECRET: TEST_JWT_SECRET,
    SMS_PROVIDER: 'file',
    SMS_OUTBOX_FILE: join(root, 'sms.jsonl'),
    BCRYPT_COST: '4',
  });
  http = new HttpClient(service.url);
  user = await signInByOutbox(service.url, join(root, 'sms.jsonl'), newPhone());
}, 40_000);

afterAll(async () => {
  if (frozen.length > 0) await run('kill', ['-CONT', ...frozen]).catch(() => undefined);
  await service?.kill();
  if (dataDir && existsSync(join(dataDir, 'postmaster.pid'))) await pgStop('immediate').catch(() => undefined);
  if (root) await rm(root, { recursive: true, force: true });
}, 15_000);

/** The requests of a user that each need the database, over both transports. */
function needingTheDatabase(token: string): Record<string, () => Promise<HttpResult>> {
  return {
    'GET /api/v1/users/me': () => http.get('/api/v1/users/me', { token }),
    'POST /api/v1/auth/send-code': () => http.post('/api/v1/auth/send-code', { phone: '+8613912345678' }),
    'POST /api/v1/auth/login-password': () => http.post('/api/v1/auth/login-password', { phone: '+8613912345678', password: 'violet-harbor-42' }),
    // A refresh token in canonical form (its last character's unused bits zero), which is looked up; any other is refused before.
    'POST /api/v1/auth/refresh': () => http.post('/api/v1/auth/refresh', { refreshToken: `${'x'.repeat(42)}A` }),
  };
}

async function expectUnavailable(): Promise<void> {
  expect((await http.get('/healthz')).status).toBe(200);
  const ready = await timed(() => http.get('/readyz'));
  expectProblem(ready.result, 503, 'SERVICE_UNAVAILABLE');
  expect(ready.ms).toBeLessThan(5_000);
  for (const [label, request] of Object.entries(needingTheDatabase(user.accessToken))) {
    const { result, ms } = await timed(request);
    expect({ label, status: result.status, code: result.body?.code }).toEqual({ label, status: 503, code: 'SERVICE_UNAVAILABLE' });
    expectProblem(result, 503, 'SERVICE_UNAVAILABLE');
    expect({ label, fast: ms < 5_000 }).toEqual({ label, fast: true });
  }
  const { result: gql, ms } = await timed(() => http.post('/graphql', { query: '{ me { id } }' }, { token: user.accessToken }));
  expect(gql.body.errors?.map((e: any) => e.extensions?.code)).toEqual(['SERVICE_UNAVAILABLE']);
  expect(ms).toBeLessThan(5_000);
  expect((await http.get('/healthz')).status).toBe(200);
}

/** The database is back: readiness returns on its own and requests work with the old token. */
async function expectRecovered(): Promise<void> {
  const recovered = await waitFor(async () => (await http.get('/readyz')).status === 200, 10_000, 100);
  expect(recovered).toBe(true);
  const me = await http.get('/api/v1/users/me', { token: user.accessToken });
  expect({ status: me.status, id: me.body.id }).toEqual({ status: 200, id: user.userId });
  const gql = await http.post('/graphql', { query: '{ me { id } }' }, { token: user.accessToken });
  expect(gql.body).toEqual({ data: { me: { id: user.userId } } });
  await signInByOutbox(service.url, join(root, 'sms.jsonl'), newPhone());
}

describe('PostgreSQL unreachable', () => {
  it('serves readiness and requests while the database is up', async () => {
    expect((await http.get('/readyz')).status).toBe(200);
    expect((await http.get('/api/v1/users/me', { token: user.accessToken })).status).toBe(200);
  });

  it.each(['fast', 'immediate'] as const)(
    'answers 503 SERVICE_UNAVAILABLE within 5 s after a %s shutdown, keeps /healthz 200, and recovers on restart',
    async (mode) => {
      await pgStop(mode);
      try {
        await expectUnavailable();
      } finally {
        await pgStart();
      }
      await expectRecovered();
    },
    30_000,
  );

  it('answers 503 SERVICE_UNAVAILABLE within the query timeout (10 s) while the database is frozen, and recovers when it resumes', async () => {
    // Warm the pool: idle connections whose server will stop answering mid-conversation.
    await Promise.all([1, 2, 3].map(() => http.get('/api/v1/users/me', { token: user.accessToken })));
    const pids = await clusterPids();
    expect(pids.length).toBeGreaterThan(1);
    frozen = pids;
    await run('kill', ['-STOP', ...pids]);
    try {
      const requests = { ...needingTheDatabase(user.accessToken), 'GET /readyz': () => http.get('/readyz') };
      const results = await Promise.all(Object.entries(requests).map(async ([label, request]) => ({ label, ...(await timed(request)) })));
      expect((await http.get('/healthz')).status).toBe(200);
      for (const { label, result, ms } of results) {
        expect({ label, status: result.status, code: result.body?.code }).toEqual({ label, status: 503, code: 'SERVICE_UNAVAILABLE' });
        expect({ label, bounded: ms < 12_000 }).toEqual({ label, bounded: true });
      }
    } finally {
      await run('kill', ['-CONT', ...pids]);
      frozen = [];
    }
    await expectRecovered();
  }, 30_000);
});

/** The postmaster and its children. */
async function clusterPids(): Promise<string[]> {
  const postmaster = (await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]!.trim();
  const children = await run('pgrep', ['-P', postmaster]).then((r) => r.stdout.split('\n').filter(Boolean), () => []);
  return [postmaster, ...children];
}
