import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export interface ServiceProcess {
  url: string;
  pid: number;
  outbox: string;
  stop(): Promise<void>;
}

const root = fileURLToPath(new URL('../../..', import.meta.url));

/** A fresh database next to `adminUrl` (the machine's PostgreSQL); returns its URL. */
export async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.query(`create database "${name}"`);
  await admin.end();
  return Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();
}

/** Starts the built service (dist/) as its own process, so its memory can be measured alone. */
export async function startService(env: Record<string, string>, port: number): Promise<ServiceProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'meeting-accounts-bench-'));
  const outbox = join(dataDir, 'sms.jsonl');
  const child: ChildProcess = spawn(process.execPath, [join(root, 'dist/src/main.js')], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      JWT_SECRET: 'benchmark-secret-that-is-at-least-32-characters',
      SMS_PROVIDER: 'file',
      SMS_OUTBOX_FILE: outbox,
      LOG_LEVEL: 'warn',
      SEND_CODE_PER_IP_HOURLY: '1000000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode} during start-up`);
    const ok = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error('the service did not become ready in 30 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    pid: child.pid!,
    outbox,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Signs in a new account by SMS code and returns its access token. */
export async function signIn(service: ServiceProcess, phone: string): Promise<string> {
  const post = (path: string, body: unknown) =>
    fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const sent = await post('/api/v1/auth/send-code', { phone });
  if (!sent.ok) throw new Error(`send-code: ${sent.status} ${await sent.text()}`);
  const line = readFileSync(service.outbox, 'utf8').trim().split('\n').reverse().find((l) => l.includes(phone))!;
  const login = await post('/api/v1/auth/login', { phone, code: (JSON.parse(line) as { code: string }).code });
  if (!login.ok) throw new Error(`login: ${login.status} ${await login.text()}`);
  return ((await login.json()) as { accessToken: string }).accessToken;
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
  value: string;
  target: string;
  pass: boolean;
}

export function printTable(rows: Row[]): void {
  const header = ['case', 'measured', 'target', 'result'];
  const lines = rows.map((r) => [r.case, r.value, r.target, r.pass ? 'PASS' : 'FAIL']);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  process.stdout.write(`${[fmt(header), fmt(widths.map((w) => '-'.repeat(w))), ...lines.map(fmt)].join('\n')}\n`);
}
