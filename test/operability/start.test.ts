// The service as a person starts it: `npm start` (signals reach node through npm), the embedded
// database's DATA_DIR lock, and the log format chosen for a terminal or a collector.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../helpers/wait.js';
import { EMBEDDED_DATABASE_ENV, ROOT, runService, serviceProcessEnv, startService, within } from './support.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'meeting-accounts-start-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const serviceEnv = (sub: string): Record<string, string> => serviceProcessEnv(join(dir, sub));

/** The pids of a process's children, from /proc (Linux). */
async function childrenOf(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return text.split(/\s+/).filter(Boolean).map(Number);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`passes ${signal} to the service, which drains and exits 0, leaving no process behind`, async () => {
      const npm = spawn('npm', ['start', '--silent'], {
        cwd: ROOT,
        // As runService does: on the runner's embedded database (one PGlite session for every
        // connection, which ignores startup parameters) without named statements.
        env: { ...process.env, ...EMBEDDED_DATABASE_ENV, ...serviceEnv(signal), npm_config_update_notifier: 'false' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      npm.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      npm.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        npm.once('exit', (code, sig) => resolve({ code, signal: sig })),
      );
      try {
        expect(await waitFor(() => /listening on http:\/\/\S+/.test(out), 30_000)).toBe(true);
        const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
        expect((await fetch(`${url}/readyz`)).status).toBe(200);
        const service = await childrenOf(npm.pid!);
        expect(service).toHaveLength(1);
        // node itself, not a shell between npm and node that would not pass the signal on
        expect((await readFile(`/proc/${service[0]}/cmdline`, 'utf8')).split('\0')).toContain('dist/src/main.js');

        npm.kill(signal);
        expect(await within(exited, 15_000)).toEqual({ code: 0, signal: null });
        expect(out).toContain(`"signal":"${signal}"`);
        expect(await waitFor(() => !alive(service[0]!), 2_000)).toBe(true);
        await expect(fetch(`${url}/healthz`)).rejects.toThrow();
      } finally {
        if (npm.exitCode === null) npm.kill('SIGKILL');
      }
    }, 60_000);
  }
});

describe('embedded database', () => {
  it('refuses a second process on the same DATA_DIR with a clear message, and opens it once the first has stopped', async () => {
    const env = { ...serviceEnv('embedded'), DATABASE_URL: '' };
    const first = await startService(env, 30_000);
    try {
      const second = runService(env);
      const exit = await within(second.exited, 20_000);
      await second.kill();
      expect(exit).toEqual({ code: 1, signal: null });
      expect(second.stderr()).toContain(`the embedded database in ${join(dir, 'embedded', 'pglite')} is in use by another process`);
      expect(second.stderr()).toMatch(/another DATA_DIR, or set DATABASE_URL/);
      expect(second.stdout()).not.toContain('listening');
      expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    } finally {
      first.child.kill('SIGTERM');
      expect(await within(first.exited, 15_000)).toEqual({ code: 0, signal: null });
    }
    const again = await startService(env, 30_000);
    try {
      expect((await fetch(`${again.url}/readyz`)).status).toBe(200);
    } finally {
      await again.kill();
    }
  }, 90_000);
});

describe('log format', () => {
  it('LOG_FORMAT=pretty writes human-readable lines, not JSON', async () => {
    const service = await startService({ ...serviceEnv('pretty'), LOG_FORMAT: 'pretty' });
    try {
      await (await fetch(`${service.url}/api/v1/auth/config`)).text();
      const line = /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request completed GET \/api\/v1\/auth\/config 200 \d+ms$/m;
      expect(await waitFor(() => line.test(service.stdout()), 5_000)).toBe(true);
      expect(service.stdout()).not.toMatch(/^\{/m);
    } finally {
      await service.kill();
    }
  }, 30_000);

  it('production, and any environment whose output is not a terminal, writes one JSON object per line', async () => {
    const service = await startService({ ...serviceEnv('json'), NODE_ENV: 'production', LOG_FORMAT: '' });
    try {
      await (await fetch(`${service.url}/api/v1/auth/config`)).text();
      expect(await waitFor(() => service.stdout().includes('"/api/v1/auth/config"'), 5_000)).toBe(true);
      const logLines = service.stdout().split('\n').filter((l) => l.startsWith('{'));
      expect(logLines.length).toBeGreaterThan(0);
      for (const line of logLines) expect(() => JSON.parse(line)).not.toThrow();
    } finally {
      await service.kill();
    }
  }, 30_000);
});
