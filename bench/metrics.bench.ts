// What metrics cost a request: REST GET /api/v1/users/me on the same build with METRICS_PORT on and
// off, two services on one database, both pinned to the same CPU and loaded in turn (or at once with
// BENCH_SIDE_BY_SIDE=1). Target: on/off >= 0.95.
import { compare, log, roundRatios, sideBySide } from './load.js';
import { ALL_CPUS, LOAD_CPUS, pin, SERVER_CPU, signIn, startService, type Row, type ServiceProcess } from './support.js';

const TARGET = 0.95;
const SIDE_BY_SIDE = process.env.BENCH_SIDE_BY_SIDE === '1';
const measure = SIDE_BY_SIDE ? sideBySide : compare;
const METRICS_PORT = 4717;

/** `off`: the benchmark's service (METRICS_PORT=off); a second one like it is started with metrics on. */
export async function metricsBench(off: ServiceProcess, env: Record<string, string>, port: number): Promise<Row[]> {
  const on = await startService({ ...env, METRICS_PORT: String(METRICS_PORT) }, port);
  try {
    const token = await signIn(off, '+8613600136005');
    const me = [{ method: 'GET' as const, path: '/api/v1/users/me', headers: { authorization: `Bearer ${token}` } }];
    const answers = await Promise.all([off, on].map(async (s) => (await fetch(`${s.url}/api/v1/users/me`, { headers: me[0]!.headers })).text()));
    if (answers[0] !== answers[1] || !answers[0]!.includes('"id"')) throw new Error(`the services answer differently: ${answers.join(' / ')}`);
    const pinned = pin([off.pid, on.pid], SERVER_CPU) && pin([process.pid], LOAD_CPUS);
    log(pinned ? `services pinned to CPU ${SERVER_CPU}, load generator to CPU ${LOAD_CPUS}` : 'CPU pinning not available: services and load generator float');
    let c;
    try {
      c = await measure({ url: off.url, pid: off.pid, requests: me, expectBody: answers[0] }, { url: on.url, pid: on.pid, requests: me, expectBody: answers[0] }, 'metrics on/off');
    } finally {
      if (pinned) pin([off.pid, on.pid, process.pid], ALL_CPUS);
    }
    // The service with metrics on did count them: its histogram holds the requests of the load.
    const scrape = await (await fetch(`http://127.0.0.1:${METRICS_PORT}/metrics`)).text();
    const counted = Number(/^http_server_request_duration_seconds_count\{method="GET",route="\/api\/v1\/users\/me",status="200"\} (\d+)$/m.exec(scrape)?.[1] ?? 0);
    if (counted < c.service.rps) throw new Error(`the service with metrics on counted only ${counted} requests`);
    log(`metrics on/off: ratios per round ${roundRatios(c)}; ${counted} requests in the histogram`);
    return [
      {
        case: 'REST GET /api/v1/users/me, METRICS_PORT on vs off',
        rps: c.service.rps,
        p50: c.service.p50,
        p99: c.service.p99,
        baselineRps: c.baseline.rps,
        ratio: c.ratio,
        value: `${SIDE_BY_SIDE ? 'side by side; ' : ''}off p50/p99 ${c.baseline.p50.toFixed(1)}/${c.baseline.p99.toFixed(1)} ms`,
        target: `ratio >= ${TARGET.toFixed(2)}`,
        pass: c.ratio >= TARGET,
      },
    ];
  } finally {
    await on.stop();
  }
}
