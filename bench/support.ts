import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export interface ServiceProcess {
  url: string;
  pid: number;
  outbox: string;
  stop(): Promise<void>;
}

export const root = fileURLToPath(new URL('../..', import.meta.url));

/** A fresh database next to `adminUrl` (the machine's PostgreSQL); returns its URL. */
export async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.query(`create database "${name}"`);
  await admin.end();
  return Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
}

/** Environment of every service process the benchmark starts; `env` of a case overrides it. */
export const SERVICE_ENV = {
  NODE_ENV: 'development',
  HOST: '127.0.0.1',
  JWT_SECRET: 'benchmark-secret-that-is-at-least-32-characters',
  LOG_LEVEL: 'warn',
  SEND_CODE_PER_IP_HOURLY: '1000000',
  // Services run side by side: none listens on the default metrics port unless its case asks.
  METRICS_PORT: 'off',
} as const;

/**
 * Starts the built service (dist/) as its own process, so its memory can be measured alone; from
 * another checkout's build with `checkout` (bench/builds.ts); `nodeArgs` go to its Node.
 */
export async function startService(env: Record<string, string>, port: number, checkout = root, nodeArgs: string[] = []): Promise<ServiceProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'meeting-accounts-bench-'));
  const outbox = join(dataDir, 'sms.jsonl');
  const child = await startProcess(
    join(checkout, 'dist/src/main.js'),
    { ...SERVICE_ENV, DATA_DIR: dataDir, SMS_PROVIDER: 'file', SMS_OUTBOX_FILE: outbox, ...env },
    port,
    '/readyz',
    // e.g. BENCH_SERVICE_NODE_ARGS=--cpu-prof to profile the service under the benchmark's load.
    [...nodeArgs, ...(process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? [])],
  );
  return {
    ...child,
    outbox,
    async stop() {
      await child.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ChildServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Runs `script` (relative to the package root, from dist/, or absolute) on this Node as its own process on
 * `port` and waits until `readyPath` answers 200. Services and baselines start the same way, so
 * they run on the same Node and compete for the same CPU.
 */
export async function startProcess(script: string, env: Record<string, string>, port: number, readyPath: string, nodeArgs: string[] = []): Promise<ChildServer> {
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, resolve(root, script)], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode} during start-up`);
    const ok = await fetch(`${url}${readyPath}`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${script} did not become ready in 30 s`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** POSTs `body` as JSON to the service; the answer's JSON, or an error naming the path and status. */
async function postJson<T>(service: ServiceProcess, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Sends a code to `phone` for `purpose` and reads it from the file SMS provider's outbox. */
async function codeSentTo(service: ServiceProcess, phone: string, purpose: string): Promise<string> {
  await postJson(service, '/api/v1/auth/send-code', { phone, purpose });
  const line = readFileSync(service.outbox, 'utf8').trim().split('\n').reverse().find((l) => l.includes(phone));
  if (!line) throw new Error(`no code was sent to ${phone}`);
  return (JSON.parse(line) as { code: string }).code;
}

/** Signs in a new account by SMS code and returns its access token. */
export async function signIn(service: ServiceProcess, phone: string): Promise<string> {
  const code = await codeSentTo(service, phone, 'login');
  return (await postJson<{ accessToken: string }>(service, '/api/v1/auth/login', { phone, code })).accessToken;
}

/**
 * Signs in new accounts by SMS code, `batch` at a time: each batch's codes are sent together and read
 * from the outbox in one pass (a read per code would read the growing file thousands of times).
 * Their access tokens, in the order of `phones`.
 */
export async function signInAll(service: ServiceProcess, phones: readonly string[], batch = 50): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < phones.length; i += batch) {
    const some = phones.slice(i, i + batch);
    await Promise.all(some.map((phone) => postJson(service, '/api/v1/auth/send-code', { phone, purpose: 'login' })));
    const codes = new Map<string, string>();
    for (const line of readFileSync(service.outbox, 'utf8').trim().split('\n')) {
      const sent = JSON.parse(line) as { phone: string; code: string };
      codes.set(sent.phone, sent.code);
    }
    const signedIn = await Promise.all(
      some.map((phone) => {
        const code = codes.get(phone);
        if (!code) throw new Error(`no code was sent to ${phone}`);
        return postJson<{ accessToken: string }>(service, '/api/v1/auth/login', { phone, code });
      }),
    );
    tokens.push(...signedIn.map((s) => s.accessToken));
  }
  return tokens;
}

/** Registers a new account with `password` (by SMS code) and returns its access token. */
export async function register(service: ServiceProcess, phone: string, password: string): Promise<string> {
  const code = await codeSentTo(service, phone, 'register');
  return (await postJson<{ accessToken: string }>(service, '/api/v1/auth/register', { phone, code, password })).accessToken;
}

/**
 * `count` sessions of one new account (registered, then signed in by password), as that many
 * clients of it would hold: their access tokens. One account, so that every answer is the same.
 */
export async function signInSessions(service: ServiceProcess, phone: string, count: number): Promise<string[]> {
  const password = 'bench-sessions-password-1';
  const tokens = [await register(service, phone, password)];
  while (tokens.length < count) {
    // A few at a time: password checks in flight for one phone reserve its failure allowance.
    const batch = Math.min(3, count - tokens.length);
    const signedIn = await Promise.all(Array.from({ length: batch }, () => postJson<{ accessToken: string }>(service, '/api/v1/auth/login-password', { phone, password })));
    tokens.push(...signedIn.map((s) => s.accessToken));
  }
  return tokens;
}

/**
 * An autocannon `setupRequest` that gives each request the token of one of `tokens` at random, as
 * requests of many clients arrive: no two requests in flight need share a session.
 */
export function anySession(tokens: readonly string[]): (request: { headers?: Record<string, string> }) => { headers?: Record<string, string> } {
  return (request) => ({ ...request, headers: { ...request.headers, authorization: `Bearer ${tokens[Math.floor(Math.random() * tokens.length)]}` } });
}

/** CPU time (user + system, all threads) a process has used so far, in clock ticks, from /proc. */
export function cpuTicksOf(pid: number): number {
  // Fields after the parenthesised command name: state is 3rd, utime 14th, stime 15th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Waits until `pid` is idle: at most one clock tick (10 ms) of CPU in a quarter of a second (a
 * started bcrypt hash is not cancelled when its client goes, so a server can be busy after its load
 * ended).
 * Gives up after `maxMs` and says so.
 */
export async function waitIdle(pid: number, maxMs = 15_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  let before = cpuTicksOf(pid);
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    const now = cpuTicksOf(pid);
    if (now - before <= 1) return;
    if (Date.now() > deadline) throw new Error(`process ${pid} still busy after ${maxMs} ms`);
    before = now;
  }
}

/** Resident set size of a process in bytes, from /proc. */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface Row {
  case: string;
  /** Load cases: requests per second, latency percentiles (ms), and the baseline's req/s. */
  rps?: number;
  p50?: number;
  p99?: number;
  baselineRps?: number;
  ratio?: number;
  /** What was measured, in words (for cases that are not a load test, or extra detail). */
  value: string;
  target: string;
  pass: boolean;
}

const num = (v: number | undefined, digits = 0) => (v === undefined ? '' : v.toFixed(digits));
/** Request rates: whole numbers, but two decimals for slow cases such as bcrypt logins. */
const rate = (v: number | undefined) => (v === undefined ? '' : v.toFixed(v < 100 ? 2 : 0));

export function printTable(rows: Row[]): void {
  const header = ['case', 'req/s', 'p50 ms', 'p99 ms', 'baseline req/s', 'ratio', 'measured', 'target', 'result'];
  const lines = rows.map((r) => [
    r.case,
    rate(r.rps),
    num(r.p50, 1),
    num(r.p99, 1),
    rate(r.baselineRps),
    r.ratio === undefined ? '' : r.ratio.toFixed(2),
    r.value,
    r.target,
    r.pass ? 'PASS' : 'FAIL',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  process.stdout.write(`${[fmt(header), fmt(widths.map((w) => '-'.repeat(w))), ...lines.map(fmt)].join('\n')}\n`);
}

/** The machine's CPUs, counted before anything is pinned (the count follows this process's affinity). */
export const CPUS = availableParallelism();

/**
 * Pins processes (all their threads) to CPUs with taskset; returns false where that is not possible
 * (one CPU, no taskset). The comparisons run both servers on the last CPU and the load generator on
 * the others, so that neither server shares its core with the load generator by the scheduler's
 * chance (which moved identical servers' ratios by up to ±15% per round here).
 */
export function pin(pids: number[], cpus: string): boolean {
  if (CPUS < 2) return false;
  try {
    for (const pid of pids) execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** All CPUs, in taskset's list syntax. */
export const ALL_CPUS = `0-${CPUS - 1}`;
/** The CPU the compared servers share during a comparison. */
export const SERVER_CPU = String(CPUS - 1);
/** The CPUs left to the load generator. */
export const LOAD_CPUS = CPUS > 2 ? `0-${CPUS - 2}` : '0';
