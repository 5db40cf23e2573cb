// The per-request path against baselines in the same run: REST GET /api/v1/users/me against a
// minimal Express + jsonwebtoken + pg server, GraphQL { me } against a bare Apollo Server, both
// running the service's session-check SQL on a pool of the same size, as processes of their own.
import { compare, log, sideBySide, type Comparison } from './load.js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALL_CPUS, LOAD_CPUS, pin, root, SERVER_CPU, signIn, startProcess, startService, type ChildServer, type Row, type ServiceProcess } from './support.js';

/** e.g. BENCH_BASELINE_NODE_ARGS=--cpu-prof to profile the baselines too. */
const baselineNodeArgs = process.env.BENCH_BASELINE_NODE_ARGS?.split(' ').filter(Boolean);
/** BENCH_SIDE_BY_SIDE=1: load both servers at once instead of in turn (see sideBySide); the targets are checked on the default. */
const SIDE_BY_SIDE = process.env.BENCH_SIDE_BY_SIDE === '1';
const measure = SIDE_BY_SIDE ? sideBySide : compare;
const REST_TARGET = 0.7;
const GRAPHQL_TARGET = 0.8;

export interface HttpBenchOptions {
  service: ServiceProcess;
  databaseUrl: string;
  poolSize: number;
  jwtSecret: string;
}

/** Environment of a baseline: the service's database, pool size and JWT secret. */
const baselineEnv = ({ databaseUrl, poolSize, jwtSecret }: HttpBenchOptions) => ({
  DATABASE_URL: databaseUrl,
  DATABASE_POOL_SIZE: String(poolSize),
  JWT_SECRET: jwtSecret,
});

export async function restBench(options: HttpBenchOptions): Promise<Row[]> {
  const token = await signIn(options.service, '+8613600136000');
  return [await restCase(options.service, baselineEnv(options), { authorization: `Bearer ${token}` })];
}

/**
 * REST GET /users/me with access tokens signed by ES256 or EdDSA: a service of its own signing with a
 * key file made by `npm run keys -- add`, against the Express baseline verifying with the same
 * algorithm, library and key.
 */
export async function restAlgorithmBench(options: HttpBenchOptions, alg: 'ES256' | 'EdDSA', port: number): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'meeting-accounts-bench-keys-'));
  const keys = { JWT_ALGORITHM: alg, JWT_PRIVATE_KEYS_FILE: join(dir, 'keys.json') };
  try {
    execFileSync(process.execPath, [join(root, 'dist/src/keys.js'), 'add'], { env: { ...process.env, ...keys }, stdio: 'ignore' });
    const service = await startService({ DATABASE_URL: options.databaseUrl, DATABASE_POOL_SIZE: String(options.poolSize), ...keys }, port);
    try {
      const token = await signIn(service, alg === 'ES256' ? '+8613600136003' : '+8613600136004');
      const baseline = alg === 'ES256' ? 'Express + jsonwebtoken + pg' : 'Express + jose + pg';
      return [await restCase(service, { ...baselineEnv(options), ...keys }, { authorization: `Bearer ${token}` }, `REST GET /api/v1/users/me, ${alg} vs ${baseline}, ${alg}`)];
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function graphqlBench(options: HttpBenchOptions): Promise<Row[]> {
  const token = await signIn(options.service, '+8613600136001');
  return [await graphqlCase(options.service, baselineEnv(options), { authorization: `Bearer ${token}` })];
}

async function restCase(
  service: ServiceProcess,
  env: Record<string, string>,
  auth: Record<string, string>,
  name = 'REST GET /api/v1/users/me vs Express + jsonwebtoken + pg',
): Promise<Row> {
  const express = await startProcess('dist/bench/baselines/express-jwt-pg.js', env, 4720, '/healthz', baselineNodeArgs);
  try {
    const me = [{ method: 'GET' as const, path: '/api/v1/users/me', headers: auth }];
    const expectBody = await sameAnswer(express.url, service.url, '/api/v1/users/me', { headers: auth });
    const rest = await pinned(service, express, () =>
      measure({ url: express.url, pid: express.pid, requests: me, expectBody }, { url: service.url, pid: service.pid, requests: me, expectBody }, 'REST /users/me'),
    );
    return row(name, rest, REST_TARGET);
  } finally {
    await express.stop();
  }
}

async function graphqlCase(service: ServiceProcess, env: Record<string, string>, auth: Record<string, string>): Promise<Row> {
  const apollo = await startProcess('dist/bench/baselines/apollo-bare.js', env, 4721, '/healthz', baselineNodeArgs);
  try {
    const me = [
      {
        method: 'POST' as const,
        path: '/graphql',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ me { id phone nickname } }' }),
      },
    ];
    const expectBody = await sameAnswer(apollo.url, service.url, '/graphql', { method: 'POST', headers: me[0]!.headers, body: me[0]!.body });
    if (!(JSON.parse(expectBody) as { data?: { me?: { id?: string } } }).data?.me?.id) throw new Error(`GraphQL me answered ${expectBody}`);
    const graphql = await pinned(service, apollo, () =>
      measure({ url: apollo.url, pid: apollo.pid, requests: me, expectBody }, { url: service.url, pid: service.pid, requests: me, expectBody }, 'GraphQL me'),
    );
    return row('GraphQL { me { id phone nickname } } vs bare Apollo Server 5', graphql, GRAPHQL_TARGET);
  } finally {
    await apollo.stop();
  }
}

/** Runs `work` with both servers on one CPU and this process (the load generator) on the others. */
export async function pinned<T>(service: ServiceProcess, baseline: ChildServer, work: () => Promise<T>): Promise<T> {
  const ok = pin([service.pid, baseline.pid], SERVER_CPU) && pin([process.pid], LOAD_CPUS);
  log(ok ? `servers pinned to CPU ${SERVER_CPU}, load generator to CPU ${LOAD_CPUS}` : 'CPU pinning not available: servers and load generator float');
  try {
    return await work();
  } finally {
    if (ok) pin([service.pid, process.pid], ALL_CPUS);
  }
}

/** Both servers must give the same answer, or the comparison is meaningless; returns it. */
async function sameAnswer(baselineUrl: string, serviceUrl: string, path: string, init: RequestInit): Promise<string> {
  const [b, s] = await Promise.all([baselineUrl, serviceUrl].map(async (url) => {
    const res = await fetch(`${url}${path}`, init);
    if (!res.ok) throw new Error(`${url}${path} answered ${res.status}: ${await res.text()}`);
    return res.text();
  }));
  if (b !== s) throw new Error(`the baseline and the service answer differently:\n  ${b}\n  ${s}`);
  return s!;
}

function row(name: string, c: Comparison, target: number): Row {
  log(`${name}: ratios per round ${c.rounds.map((r) => (r.service.rps / r.baseline.rps).toFixed(2)).join(', ')}`);
  return {
    case: name,
    rps: c.service.rps,
    p50: c.service.p50,
    p99: c.service.p99,
    baselineRps: c.baseline.rps,
    ratio: c.ratio,
    value: `${SIDE_BY_SIDE ? 'side by side; ' : ''}baseline p50/p99 ${c.baseline.p50.toFixed(1)}/${c.baseline.p99.toFixed(1)} ms`,
    target: `ratio >= ${target.toFixed(2)}`,
    pass: c.ratio >= target,
  };
}
