import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signInWithCode, requestCode } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';
import { freePort } from '../operability/support.js';

const PROMETHEUS = '/usr/bin/prometheus';
// CI installs Debian's prometheus package, so there a missing server fails the test; elsewhere it is skipped, saying so.
const skipPrometheus = !existsSync(PROMETHEUS) && !process.env.CI;
if (skipPrometheus) console.warn(`${PROMETHEUS} not found: the scrape by a real Prometheus is skipped (apt-get install prometheus to run it)`);
const withPrometheus = skipPrometheus ? it.skip : it;

const t = useTestServer({ METRICS_PORT: '0' });


/** Asks `read` every 250 ms until it returns something, for at most `ms`. */
async function eventually<T>(what: string, ms: number, read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('metrics: scraped by a real Prometheus', () => {
  withPrometheus('reads back the sign-ins the test made through the query API', async () => {
    if (!existsSync(PROMETHEUS)) throw new Error(`${PROMETHEUS} is missing: CI must install it (apt-get install -y prometheus)`);
    await signInWithCode(t);
    await signInWithCode(t);
    const phone = newPhone();
    await requestCode(t, phone);
    expectProblem(await t.http.post('/api/v1/auth/login', { phone, code: '000000' }), 400, 'INVALID_CODE');

    const target = new URL(t.server.metricsUrl!);
    const dir = mkdtempSync(join(tmpdir(), 'meeting-accounts-prometheus-'));
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 1s',
        'scrape_configs:',
        '  - job_name: meeting-accounts',
        '    scrape_interval: 1s',
        '    scrape_timeout: 1s',
        '    static_configs:',
        `      - targets: ['${target.host}']`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    const prometheus = spawn(
      PROMETHEUS,
      [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    prometheus.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const exited = once(prometheus, 'exit');
    const api = `http://127.0.0.1:${port}/api/v1`;
    try {
      const health = await eventually('the target to be up', 30_000, async () => {
        const body = (await (await fetch(`${api}/targets`)).json()) as { data: { activeTargets: { health: string; scrapeUrl: string; lastError: string }[] } };
        const active = body.data.activeTargets[0];
        return active?.health === 'up' ? active : undefined;
      });
      expect(health.scrapeUrl).toBe(t.server.metricsUrl);

      const query = async (promql: string) => {
        const body = (await (await fetch(`${api}/query?query=${encodeURIComponent(promql)}`)).json()) as {
          status: string;
          data: { result: { metric: Record<string, string>; value: [number, string] }[] };
        };
        expect(body.status).toBe('success');
        return body.data.result;
      };
      const success = await eventually('the sign-ins in Prometheus', 15_000, async () => {
        const result = await query('auth_sign_ins_total{method="code",outcome="success"}');
        return result.length > 0 ? result : undefined;
      });
      expect(success).toHaveLength(1);
      expect(success[0]!.metric).toMatchObject({ job: 'meeting-accounts', instance: target.host, method: 'code', outcome: 'success' });
      expect(success[0]!.value[1]).toBe('2');
      const wrong = await query('auth_sign_ins_total{method="code",outcome="INVALID_CODE"}');
      expect(wrong.map((r) => r.value[1])).toEqual(['1']);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nprometheus said:\n${log}`, { cause: error });
    } finally {
      prometheus.kill('SIGTERM');
      const timer = setTimeout(() => prometheus.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
