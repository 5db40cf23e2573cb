// Start-up: from spawning `node dist/src/main.js` to the first 200 of /readyz, on a fresh
// PostgreSQL database (migrations included) and on a fresh embedded database (new DATA_DIR).
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { log, ROUNDS } from './load.js';
import { freshDatabase, median, SERVICE_ENV, type Row } from './support.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const PORT = 4730;

/** Milliseconds from spawn to the first 200 of /readyz (polled every 5 ms); then stops the process. */
async function timeToReady(databaseUrl: string | undefined): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'meeting-accounts-bench-start-'));
  const env: NodeJS.ProcessEnv = { ...process.env, ...SERVICE_ENV, PORT: String(PORT), DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'dist/src/main.js')], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
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
    await rm(dataDir, { recursive: true, force: true });
  }
}

export async function startupBench(adminUrl: string): Promise<Row[]> {
  const postgres: number[] = [];
  const embedded: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    postgres.push(await timeToReady(await freshDatabase(adminUrl, 'meeting_accounts_bench_start')));
    embedded.push(await timeToReady(undefined));
    log(`start-up round ${i + 1}: PostgreSQL ${postgres[i]!.toFixed(0)} ms, embedded ${embedded[i]!.toFixed(0)} ms`);
  }
  const pg = median(postgres);
  const pglite = median(embedded);
  return [
    {
      case: 'start to /readyz, fresh PostgreSQL database (median of 3)',
      value: `${(pg / 1000).toFixed(2)} s (${postgres.map((t) => (t / 1000).toFixed(2)).join(', ')})`,
      target: '< 2 s',
      pass: pg < 2000,
    },
    {
      case: 'start to /readyz, fresh embedded database (median of 3)',
      value: `${(pglite / 1000).toFixed(2)} s (${embedded.map((t) => (t / 1000).toFixed(2)).join(', ')})`,
      target: '< 10 s',
      pass: pglite < 10_000,
    },
  ];
}
