// Start-up: from spawning `node dist/src/main.js` to the first 200 of /readyz, on a fresh
// PostgreSQL database (migrations included) and on a fresh embedded database (new DATA_DIR); then
// as a person runs it, `npm start` (incremental build included) on an embedded database started
// before, and `npm start` with a bad configuration, to its message.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { log, ROUNDS } from './load.js';
import { freshDatabase, median, root, SERVICE_ENV, type Row } from './support.js';

const PORT = 4730;

interface Start {
  databaseUrl?: string;
  /** Reuse this DATA_DIR (kept afterwards) instead of a new one. */
  dataDir?: string;
  /** Through `npm start` (prestart's incremental build included) instead of node directly. */
  npm?: boolean;
}

function spawnService({ databaseUrl, dataDir, npm }: Start, extraEnv: NodeJS.ProcessEnv = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, ...SERVICE_ENV, PORT: String(PORT), DATA_DIR: dataDir, ...extraEnv };
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  return npm
    ? spawn('npm', ['start', '--silent'], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn(process.execPath, [join(root, 'dist/src/main.js')], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Milliseconds from spawn to the first 200 of /readyz (polled every 5 ms); then stops the process. */
async function timeToReady(start: Start): Promise<number> {
  const dataDir = start.dataDir ?? mkdtempSync(join(tmpdir(), 'meeting-accounts-bench-start-'));
  const started = performance.now();
  const child = spawnService({ ...start, dataDir });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode} during start-up`);
      if (await fetch(`http://127.0.0.1:${PORT}/readyz`).then((r) => r.ok, () => false)) return performance.now() - started;
      if (performance.now() - started > 60_000) throw new Error('the service did not become ready in 60 s');
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
    if (!start.dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

/** Milliseconds from spawning `npm start` with PORT=abc to its exit, which must name PORT. */
async function timeToConfigError(): Promise<number> {
  const started = performance.now();
  const child = spawnService({ npm: true }, { PORT: 'abc' });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  const ms = performance.now() - started;
  if (code === 0 || !/- PORT: must be a number/.test(stderr)) throw new Error(`npm start with PORT=abc: exit ${code}\n${stderr}`);
  return ms;
}

export async function startupBench(adminUrl: string): Promise<Row[]> {
  const postgres: number[] = [];
  const embedded: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    postgres.push(await timeToReady({ databaseUrl: await freshDatabase(adminUrl, 'meeting_accounts_bench_start') }));
    embedded.push(await timeToReady({}));
    log(`start-up round ${i + 1}: PostgreSQL ${postgres[i]!.toFixed(0)} ms, embedded ${embedded[i]!.toFixed(0)} ms`);
  }
  // A person's second `npm start`: dist is up to date and the embedded database exists.
  const dataDir = mkdtempSync(join(tmpdir(), 'meeting-accounts-bench-restart-'));
  const restarts: number[] = [];
  const configErrors: number[] = [];
  try {
    await timeToReady({ npm: true, dataDir });
    for (let i = 0; i < ROUNDS; i++) {
      restarts.push(await timeToReady({ npm: true, dataDir }));
      configErrors.push(await timeToConfigError());
      log(`npm start round ${i + 1}: ready again in ${restarts[i]!.toFixed(0)} ms, bad configuration reported in ${configErrors[i]!.toFixed(0)} ms`);
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
  return [
    timingRow('start to /readyz, fresh PostgreSQL database', postgres, 2000),
    timingRow('start to /readyz, fresh embedded database', embedded, 10_000),
    timingRow('npm start again on the embedded database, dist up to date', restarts, 3000),
    timingRow('npm start with PORT=abc to its message and exit', configErrors, 1000),
  ];
}

/** A row of milliseconds samples: their median against `targetMs`, every sample shown in seconds. */
function timingRow(name: string, samples: number[], targetMs: number): Row {
  const value = median(samples);
  const seconds = (ms: number) => (ms / 1000).toFixed(2);
  return {
    case: `${name} (median of ${samples.length})`,
    value: `${seconds(value)} s (${samples.map(seconds).join(', ')})`,
    target: `< ${targetMs / 1000} s`,
    pass: value < targetMs,
  };
}
