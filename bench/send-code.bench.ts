// send-code for distinct phones: every request asks a code for a phone never seen before, so the
// per-phone limits never refuse; the per-IP limit is raised by configuration for the run.
import { load, log, medianOf, ROUNDS, type LoadResult } from './load.js';
import type { Row, ServiceProcess } from './support.js';

const TARGET = 500;

export async function sendCodeBench(service: ServiceProcess): Promise<Row[]> {
  let next = 0;
  const sendCode = {
    url: service.url,
    requests: [
      {
        method: 'POST' as const,
        path: '/api/v1/auth/send-code',
        headers: { 'content-type': 'application/json' },
        // +86 138 followed by 8 digits: a valid mobile number of China, a new one for every request.
        setupRequest: (req: object) => ({ ...req, body: JSON.stringify({ phone: `+86138${String(10_000_000 + next++).slice(-8)}` }) }),
      },
    ],
  };
  await load({ ...sendCode, seconds: 1 }); // warm-up
  const rounds: LoadResult[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    rounds.push(await load(sendCode));
    log(`send-code round ${i + 1}: ${rounds[i]!.rps.toFixed(0)} req/s, p99 ${rounds[i]!.p99} ms`);
  }
  const m = medianOf(rounds);
  return [
    {
      case: 'POST /api/v1/auth/send-code, distinct phones (file SMS provider)',
      rps: m.rps,
      p50: m.p50,
      p99: m.p99,
      value: `rounds ${rounds.map((r) => r.rps.toFixed(0)).join(', ')} req/s`,
      target: `>= ${TARGET} req/s`,
      pass: m.rps >= TARGET,
    },
  ];
}
