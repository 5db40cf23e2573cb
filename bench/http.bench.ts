// The per-request path against baselines in the same run: REST GET /api/v1/users/me against a
// minimal Express + jsonwebtoken + pg server, GraphQL { me } against the same Express server and
// against a bare Apollo Server, the baselines running the service's session-check SQL for each
// request on a pool of the same size, as processes of their own. The load is that of many clients
// of one account: each request carries the token of one of SESSIONS sessions, at random.
import { compare, comparisonRow, log, sideBySide, type Comparison, type LoadOptions } from './load.js';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ALL_CPUS, anySession, LOAD_CPUS, pin, root, SERVER_CPU, signInSessions, startProcess, startService, type ChildServer, type Row, type ServiceProcess } from './support.js';

/** e.g. BENCH_BASELINE_NODE_ARGS=--cpu-prof to profile the baselines too. */
const baselineNodeArgs = process.env.BENCH_BASELINE_NODE_ARGS?.split(' ').filter(Boolean);
/** BENCH_SIDE_BY_SIDE=1: load both servers at once instead of in turn (see sideBySide); the targets are checked on the default. */
const SIDE_BY_SIDE = process.env.BENCH_SIDE_BY_SIDE === '1';
const measure = SIDE_BY_SIDE ? sideBySide : compare;
/** REST /users/me against the Express baseline. */
const REST_TARGET = 1.2;
/** GraphQL { me } against the same Express baseline, and against a bare Apollo Server. */
const GRAPHQL_TARGET = 1.0;
/** Sessions of the account the load signs in with (one per client). */
const SESSIONS = 50;
/** References of the `_entities` case: a gateway resolving the hosts of a page of meetings. */
const ENTITY_REFERENCES = 50;

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
  const tokens = await signInSessions(options.service, '+8613600136000', SESSIONS);
  return [await restCase(options.service, baselineEnv(options), tokens)];
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
      const tokens = await signInSessions(service, alg === 'ES256' ? '+8613600136003' : '+8613600136004', SESSIONS);
      const baseline = alg === 'ES256' ? 'Express + jsonwebtoken + pg' : 'Express + jose + pg';
      return [await restCase(service, { ...baselineEnv(options), ...keys }, tokens, `REST GET /api/v1/users/me, ${alg} vs ${baseline}, ${alg}`)];
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function graphqlBench(options: HttpBenchOptions): Promise<Row[]> {
  const tokens = await signInSessions(options.service, '+8613600136001', SESSIONS);
  const env = baselineEnv(options);
  const rows = [await graphqlCase(options.service, env, tokens)];
  const express = await startProcess('dist/bench/baselines/express-jwt-pg.js', env, 4720, '/healthz', baselineNodeArgs);
  try {
    const rest = { url: express.url, pid: express.pid, requests: [meOverRest(tokens)], expectBody: await answer(express.url, meOverRest(tokens)) };
    const me = graphqlRequest(tokens, '{ me { id phone nickname } }');
    rows.push(row('GraphQL { me { id phone nickname } } vs Express + jsonwebtoken + pg (REST /users/me)', await against(options.service, express, rest, me, 'GraphQL me vs REST'), GRAPHQL_TARGET));
    // What a frontend's first screen asks, in one document: the account, its sessions (all fifty
    // listed), its statistics and its second factors. Reported against the one REST call.
    const frontend = graphqlRequest(tokens, FRONTEND_DOCUMENT);
    rows.push(reported(`GraphQL frontend document (me, mySessions of ${SESSIONS}, myStats, myMfa) vs Express REST /users/me`, await against(options.service, express, rest, frontend, 'frontend document')));
    // A gateway resolving the hosts of fifty meetings: fifty accounts in one _entities request.
    const ids = await accounts(options.databaseUrl, ENTITY_REFERENCES);
    const entities = graphqlRequest(tokens, ENTITIES_DOCUMENT, { representations: ids.map((id) => ({ __typename: 'User', id })) });
    rows.push(reported(`GraphQL _entities of ${ENTITY_REFERENCES} User references vs Express REST /users/me`, await against(options.service, express, rest, entities, '_entities')));
  } finally {
    await express.stop();
  }
  return rows;
}

export const FRONTEND_DOCUMENT = `query FirstScreen {
  me { id phone nickname avatarUrl hasPassword createdAt lastLoginAt }
  mySessions { id current createdAt lastUsedAt userAgent ip }
  myStats { activeSessions daysSinceRegistration hostedMeetingMinutes lastLoginAt }
  myMfa { totp passkeys recoveryCodesLeft }
}`;

const ENTITIES_DOCUMENT = 'query Hosts($representations: [_Any!]!) { _entities(representations: $representations) { ... on User { id nickname avatarUrl } } }';

type Request = LoadOptions['requests'][number];

function meOverRest(tokens: readonly string[]): Request {
  return { method: 'GET', path: '/api/v1/users/me', setupRequest: anySession(tokens) } as Request;
}

function graphqlRequest(tokens: readonly string[], query: string, variables?: Record<string, unknown>): Request {
  return {
    method: 'POST',
    path: '/graphql',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, ...(variables && { variables }) }),
    setupRequest: anySession(tokens),
  } as Request;
}

/** The answer to one request of `request`'s kind (with its first session's token). */
async function answer(url: string, request: Request): Promise<string> {
  const { headers } = (request.setupRequest as ReturnType<typeof anySession>)({ headers: request.headers as Record<string, string> });
  const res = await fetch(`${url}${request.path}`, { method: request.method, headers, body: request.body as string | undefined });
  const text = await res.text();
  if (!res.ok || text.includes('"errors"')) throw new Error(`${url}${request.path} answered ${res.status}: ${text.slice(0, 300)}`);
  return text;
}

/** The service under `request` against the Express baseline under REST /users/me. */
async function against(service: ServiceProcess, express: ChildServer, rest: Omit<LoadOptions, 'seconds'> & { pid: number }, request: Request, label: string): Promise<Comparison> {
  await answer(service.url, request);
  // Answers differ from request to request (the current session is marked): each must carry data and no error.
  const accept = (body: string) => body.startsWith('{"data":{') && !body.includes('"errors"');
  return pinned(service, express, () => measure(rest, { url: service.url, pid: service.pid, requests: [request], accept }, label));
}

/** `count` accounts made in the database (as any sign-up makes them, without the codes): their ids. */
async function accounts(databaseUrl: string, count: number): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string }>(
      `insert into users (id, phone, nickname) select gen_random_uuid(), '+8613900' || lpad(i::text, 6, '0'), 'Host ' || i
         from generate_series(1, $1::int) i on conflict (phone) do update set nickname = excluded.nickname returning id`,
      [count],
    );
    return rows.map((r) => r.id);
  } finally {
    await client.end();
  }
}

async function restCase(service: ServiceProcess, env: Record<string, string>, tokens: readonly string[], name = 'REST GET /api/v1/users/me vs Express + jsonwebtoken + pg'): Promise<Row> {
  const express = await startProcess('dist/bench/baselines/express-jwt-pg.js', env, 4720, '/healthz', baselineNodeArgs);
  try {
    const me = [meOverRest(tokens)];
    const expectBody = await answer(express.url, me[0]!);
    if ((await answer(service.url, me[0]!)) !== expectBody) throw new Error(`the baseline and the service answer differently:\n  ${expectBody}\n  ${await answer(service.url, me[0]!)}`);
    const rest = await pinned(service, express, () =>
      measure({ url: express.url, pid: express.pid, requests: me, expectBody }, { url: service.url, pid: service.pid, requests: me, expectBody }, 'REST /users/me'),
    );
    return row(name, rest, REST_TARGET);
  } finally {
    await express.stop();
  }
}

async function graphqlCase(service: ServiceProcess, env: Record<string, string>, tokens: readonly string[]): Promise<Row> {
  const apollo = await startProcess('dist/bench/baselines/apollo-bare.js', env, 4721, '/healthz', baselineNodeArgs);
  try {
    const me = [graphqlRequest(tokens, '{ me { id phone nickname } }')];
    const expectBody = await answer(apollo.url, me[0]!);
    if ((await answer(service.url, me[0]!)) !== expectBody) throw new Error(`the baseline and the service answer differently: ${expectBody}`);
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

function row(name: string, c: Comparison, target: number): Row {
  const value = `${SIDE_BY_SIDE ? 'side by side; ' : ''}baseline p50/p99 ${c.baseline.p50.toFixed(1)}/${c.baseline.p99.toFixed(1)} ms`;
  return comparisonRow(name, c, { value, target: `ratio >= ${target.toFixed(2)}`, pass: c.ratio >= target });
}

/** A row whose ratio is reported, with no target. */
function reported(name: string, c: Comparison): Row {
  return { ...row(name, c, 0), target: 'reported' };
}
