// The latency path: many accounts, each request carrying a random account's token, at 1 connection
// (one request at a time, what a user in front of a frontend waits for: nothing in flight to share)
// and at 50, REST /users/me and GraphQL { me } against the Express + jsonwebtoken + pg baseline, and
// a frontend's first-screen document with the statements it costs, counted on the wire.
import { compare, comparisonRow, log, roundRatios, sideBySide, type Comparison, type LoadOptions } from './load.js';
import { FRONTEND_DOCUMENT, pinned } from './http.bench.js';
import pg from 'pg';
import { statementCounter } from './statement-counter.js';
import { signInAll, startProcess, startService, type ChildServer, type Row, type ServiceProcess } from './support.js';

const ACCOUNTS = 300;
/** BENCH_SIDE_BY_SIDE=1: both servers loaded at once (see sideBySide); the targets are checked on the default. */
const measure = process.env.BENCH_SIDE_BY_SIDE === '1' ? sideBySide : compare;
/** Ratios to the Express baseline, by connections: REST /users/me, GraphQL { me }. */
const TARGETS = {
  1: { rest: 1.0, graphql: 1.0 },
  50: { rest: 2.0, graphql: 1.5 },
} as const;
/** The first screen against one plain REST call, at one connection, and the statements it may cost. */
const FIRST_SCREEN_TARGET = 0.25;
const FIRST_SCREEN_STATEMENTS = 4;
/** Documents sent one at a time to count statements. */
const COUNTED = 50;

export interface LatencyBenchOptions {
  service: ServiceProcess;
  databaseUrl: string;
  baselineEnv: Record<string, string>;
  serviceEnv: Record<string, string>;
  counterPort: number;
}

type Request = LoadOptions['requests'][number];

export async function latencyBench({ service, databaseUrl, baselineEnv, serviceEnv, counterPort }: LatencyBenchOptions): Promise<Row[]> {
  const phones = Array.from({ length: ACCOUNTS }, (_, i) => `+86137${String(100_000_000 + i).slice(1)}`);
  log(`latency: signing in ${ACCOUNTS} accounts`);
  const tokens = await signInAll(service, phones);
  await analyze(databaseUrl);
  const rest: Request = { method: 'GET', path: '/api/v1/users/me', setupRequest: anyAccount(tokens) } as Request;
  const me = graphql(tokens, '{ me { id phone nickname } }');
  const firstScreen = graphql(tokens, FRONTEND_DOCUMENT);
  const restAnswer = (body: string) => body.startsWith('{"id":"') && body.includes('"phone":"+86137');
  const dataAnswer = (body: string) => body.startsWith('{"data":{"me":{"id":"') && !body.includes('"errors"');
  const express = await startProcess('dist/bench/baselines/express-jwt-pg.js', baselineEnv, 4720, '/healthz');
  const rows: Row[] = [];
  try {
    const baseline = (connections: number) => ({ url: express.url, pid: express.pid, connections, requests: [rest], accept: restAnswer });
    const of = (request: Request, connections: number) => ({ url: service.url, pid: service.pid, connections, requests: [request], accept: request === rest ? restAnswer : dataAnswer });
    for (const connections of [1, 50] as const) {
      const label = `${ACCOUNTS} accounts, ${connections} conn.`;
      const target = TARGETS[connections];
      const r = await against(service, express, () => measure(baseline(connections), of(rest, connections), `REST me, ${label}`));
      rows.push(row(`REST GET /api/v1/users/me vs Express + jsonwebtoken + pg, ${label}`, r, target.rest));
      const g = await against(service, express, () => measure(baseline(connections), of(me, connections), `GraphQL me, ${label}`));
      rows.push(row(`GraphQL { me { id phone nickname } } vs Express (REST /users/me), ${label}`, g, target.graphql));
    }
    const statements = await statementsPerDocument(databaseUrl, serviceEnv, counterPort, tokens);
    const f = await against(service, express, () => measure(baseline(1), of(firstScreen, 1), `first screen, ${ACCOUNTS} accounts, 1 conn.`));
    log(`first screen: ${statements} statements a document`);
    const fast = f.ratio >= FIRST_SCREEN_TARGET;
    rows.push(
      comparisonRow(`GraphQL first screen (me, mySessions, myStats, myMfa) vs Express REST /users/me, ${ACCOUNTS} accounts, 1 conn.`, f, {
        value: `${statements} statements a document; rounds ${roundRatios(f)}`,
        target: `ratio >= ${FIRST_SCREEN_TARGET.toFixed(2)}, <= ${FIRST_SCREEN_STATEMENTS} statements`,
        pass: fast && statements <= FIRST_SCREEN_STATEMENTS,
      }),
    );
  } finally {
    await express.stop();
  }
  return rows;
}

/**
 * Statistics of the tables the load reads, as autovacuum gathers them within a minute of the sign-ins
 * on a default PostgreSQL. A machine whose PostgreSQL runs without autovacuum (this one's did) would
 * otherwise plan every statement for empty tables: the batched session check of 50 requests then
 * took 2.1 ms instead of 0.8.
 */
async function analyze(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('analyze');
  } finally {
    await client.end();
  }
}

/** A random account's token on each request, as many users' requests arrive. */
function anyAccount(tokens: readonly string[]): Request['setupRequest'] {
  return (request) => ({ ...request, headers: { ...request.headers, authorization: `Bearer ${tokens[Math.floor(Math.random() * tokens.length)]}` } });
}

function graphql(tokens: readonly string[], query: string): Request {
  return { method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }), setupRequest: anyAccount(tokens) } as Request;
}

async function against(service: ServiceProcess, express: ChildServer, work: () => Promise<Comparison>): Promise<Comparison> {
  return pinned(service, express, work);
}

/**
 * The statements one first-screen document costs: a second service on the same database, reached
 * through a relay that counts them, answers COUNTED documents one at a time (each of another
 * account); the count, less what the idle service sent over as long, divided by COUNTED.
 */
async function statementsPerDocument(databaseUrl: string, serviceEnv: Record<string, string>, port: number, tokens: readonly string[]): Promise<number> {
  const counter = await statementCounter(databaseUrl);
  const service = await startService({ ...serviceEnv, DATABASE_URL: counter.url }, port);
  try {
    const send = (token: string) =>
      fetch(`${service.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: FRONTEND_DOCUMENT }),
      }).then(async (res) => {
        const body = await res.text();
        if (!res.ok || body.includes('"errors"')) throw new Error(`first screen answered ${res.status}: ${body.slice(0, 300)}`);
      });
    await send(tokens[0]!); // the first request of a process prepares what later ones reuse
    const idleFrom = counter.statements;
    const idleStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idlePerMs = (counter.statements - idleFrom) / (performance.now() - idleStarted);
    const from = counter.statements;
    const started = performance.now();
    for (let i = 1; i <= COUNTED; i++) await send(tokens[i % tokens.length]!);
    const idle = idlePerMs * (performance.now() - started);
    return Math.round(((counter.statements - from - idle) / COUNTED) * 10) / 10;
  } finally {
    await service.stop();
    await counter.close();
  }
}

function row(name: string, c: Comparison, target: number): Row {
  return comparisonRow(name, c, {
    // (autocannon's percentiles are whole milliseconds: at one connection, 0 or 1)
    value: `rounds ${roundRatios(c)}`,
    target: `ratio >= ${target.toFixed(2)}`,
    pass: c.ratio >= target,
  });
}
