// The load generator of the benchmark: autocannon, run in this process against a server process.
import autocannon from 'autocannon';
import { cpuTicksOf, median, type Row } from './support.js';

/** Concurrent connections of a load; BENCH_CONNECTIONS=1 or 4 shows the per-request path with little to batch. */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = 10;
export const ROUNDS = 3;

export interface LoadOptions {
  url: string;
  connections?: number;
  seconds?: number;
  /** Requests per second over all connections; unlimited when absent. */
  rate?: number;
  requests: autocannon.Request[];
  /** Every response must have exactly this body (e.g. GraphQL answers errors with 200). */
  expectBody?: string;
  /** Or, where answers differ (each request in its own session), every response body must pass this. */
  accept?: (body: string) => boolean;
}

export interface LoadResult {
  /** Responses per second over the whole run. */
  rps: number;
  /** Responses per second between the first and the last response (no ramp-up, no cut-off tail). */
  steadyRps: number;
  p50: number;
  p99: number;
  responses: number;
  seconds: number;
}

/** One autocannon run; fails when any response was not 2xx or a connection failed. */
export async function load({ url, connections = CONNECTIONS, seconds = SECONDS, rate, requests, expectBody, accept }: LoadOptions): Promise<LoadResult> {
  // (autocannon's own expectBody does not work together with `requests`)
  let mismatches = 0;
  let unexpected = '';
  const checked = expectBody !== undefined || accept
    ? requests.map((r) => ({
        ...r,
        onResponse: (_status: number, body: string) => {
          if (expectBody !== undefined ? body === expectBody : accept!(body)) return;
          mismatches++;
          unexpected ||= body.slice(0, 300);
        },
      }))
    : requests;
  const run = autocannon({ url, connections, duration: seconds, overallRate: rate, requests: checked, timeout: 30 }) as unknown as autocannon.Instance &
    Promise<autocannon.Result>;
  let first = 0;
  let last = 0;
  let responses = 0;
  run.on('response', () => {
    last = performance.now();
    if (responses++ === 0) first = last;
  });
  const result = await run;
  const sent = result.requests.total;
  if (result.non2xx > 0 || result.errors > 0 || mismatches > 0 || sent === 0) {
    throw new Error(
      `${url}${requests[0]?.path ?? ''}: ${result.non2xx} non-2xx, ${mismatches} unexpected bodies, ${result.errors} errors, ${result.timeouts} timeouts of ${sent} requests${unexpected && `; first unexpected body: ${unexpected}`}`,
    );
  }
  const steadyRps = responses > 1 && last > first ? ((responses - 1) * 1000) / (last - first) : sent / result.duration;
  return { rps: sent / result.duration, steadyRps, p50: result.latency.p50, p99: result.latency.p99, responses: sent, seconds: result.duration };
}

/** Medians of several results, each figure on its own. */
export function medianOf(results: LoadResult[]): LoadResult {
  return {
    responses: median(results.map((r) => r.responses)),
    seconds: median(results.map((r) => r.seconds)),
    rps: median(results.map((r) => r.rps)),
    steadyRps: median(results.map((r) => r.steadyRps)),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
  };
}

export interface Comparison {
  service: LoadResult;
  baseline: LoadResult;
  /** Median of the per-round ratios service/baseline. */
  ratio: number;
  rounds: { service: LoadResult; baseline: LoadResult }[];
}

/**
 * Load each server gets before the rounds: enough for V8 to optimise the whole request path (after a
 * 1-s warm-up the GraphQL service's ratio still rose from round to round, 0.69, 0.77, 0.83).
 */
const WARM_UP_SECONDS = 5;

/** Each round gives both servers SECONDS of load, in slices of this many seconds taken in turn. */
const SLICE_SECONDS = 2;

/**
 * Warms both servers up (WARM_UP_SECONDS each), then runs ROUNDS rounds; in each, baseline and
 * service get SECONDS of load each, delivered in alternating slices (B S S B B S …), so that load
 * from other processes on the machine falls on both alike instead of on one 10-s window. A round's req/s is its
 * responses over its time; latency percentiles are the medians of the slices' ones.
 */
export async function compare(baseline: Omit<LoadOptions, 'seconds'>, service: Omit<LoadOptions, 'seconds'>, label: string): Promise<Comparison> {
  await load({ ...baseline, seconds: WARM_UP_SECONDS });
  await load({ ...service, seconds: WARM_UP_SECONDS });
  const rounds: Comparison['rounds'] = [];
  const slices = Math.round(SECONDS / SLICE_SECONDS);
  for (let i = 0; i < ROUNDS; i++) {
    const b: LoadResult[] = [];
    const s: LoadResult[] = [];
    for (let j = 0; j < slices; j++) {
      const baselineFirst = (i * slices + j) % 2 === 0;
      for (const which of baselineFirst ? ['b', 's'] : ['s', 'b']) {
        if (which === 'b') b.push(await load({ ...baseline, seconds: SLICE_SECONDS }));
        else s.push(await load({ ...service, seconds: SLICE_SECONDS }));
      }
    }
    const round = { baseline: combine(b), service: combine(s) };
    rounds.push(round);
    log(`${label} round ${i + 1}: service ${round.service.rps.toFixed(0)} req/s, baseline ${round.baseline.rps.toFixed(0)} req/s`);
  }
  return summarise(rounds);
}

/**
 * The other way to compare (BENCH_SIDE_BY_SIDE=1): both servers under load at the same time, on the
 * same CPU, CONNECTIONS connections each, ROUNDS rounds of SECONDS. Whatever slows the machine then
 * slows both alike, so the ratio moves far less from round to round than in compare() on a VM whose
 * speed drifts; it is the share of one CPU each server wins, so it tracks the inverse ratio of their
 * CPU time per request, which is logged too (from /proc). Used to tell whether a change helps.
 */
export async function sideBySide(
  baseline: Omit<LoadOptions, 'seconds'> & { pid: number },
  service: Omit<LoadOptions, 'seconds'> & { pid: number },
  label: string,
): Promise<Comparison> {
  await Promise.all([load({ ...baseline, seconds: WARM_UP_SECONDS }), load({ ...service, seconds: WARM_UP_SECONDS })]);
  const rounds: Comparison['rounds'] = [];
  const cpuUsPerRequest = (pid: number, ticksBefore: number, result: LoadResult) => ((cpuTicksOf(pid) - ticksBefore) * 10_000) / result.responses;
  for (let i = 0; i < ROUNDS; i++) {
    const ticks = [cpuTicksOf(baseline.pid), cpuTicksOf(service.pid)] as const;
    const [b, s] = await Promise.all([load({ ...baseline, seconds: SECONDS }), load({ ...service, seconds: SECONDS })]);
    rounds.push({ baseline: b, service: s });
    log(
      `${label} side by side, round ${i + 1}: service ${s.rps.toFixed(0)} req/s, ${cpuUsPerRequest(service.pid, ticks[1], s).toFixed(0)} us CPU a request; ` +
        `baseline ${b.rps.toFixed(0)} req/s, ${cpuUsPerRequest(baseline.pid, ticks[0], b).toFixed(0)} us`,
    );
  }
  return summarise(rounds);
}

/** Medians over the rounds, and the median of the per-round ratios. */
function summarise(rounds: Comparison['rounds']): Comparison {
  return {
    service: medianOf(rounds.map((r) => r.service)),
    baseline: medianOf(rounds.map((r) => r.baseline)),
    ratio: median(rounds.map((r) => r.service.rps / r.baseline.rps)),
    rounds,
  };
}

/** Slices of one round as one result: responses over time, and the slices' median percentiles. */
function combine(slices: LoadResult[]): LoadResult {
  const responses = slices.reduce((sum, r) => sum + r.responses, 0);
  const seconds = slices.reduce((sum, r) => sum + r.seconds, 0);
  return { ...medianOf(slices), rps: responses / seconds, responses, seconds };
}

/** The ratio of each round, service over baseline, as printed in logs and tables. */
export function roundRatios(c: Comparison): string {
  return c.rounds.map((r) => (r.service.rps / r.baseline.rps).toFixed(2)).join(', ');
}

/** The table row of a comparison (the service's figures, the baseline's rate, the median ratio), its rounds logged. */
export function comparisonRow(name: string, c: Comparison, verdict: Pick<Row, 'value' | 'target' | 'pass'>): Row {
  log(`${name}: ratios per round ${roundRatios(c)}`);
  return { case: name, rps: c.service.rps, p50: c.service.p50, p99: c.service.p99, baselineRps: c.baseline.rps, ratio: c.ratio, ...verdict };
}

/** Progress on stderr, so that stdout carries only the table. */
export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}
