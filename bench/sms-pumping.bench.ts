// A simulated SMS pumping attack: 10,000 send-code requests for 500 numbers of one range (+86 171,
// a virtual-operator range of the kind such attacks rent), from 200 addresses spoofed through
// X-Forwarded-For (TRUST_PROXY on, as behind a proxy that appends what it is sent), 50 in flight at a
// time. No code is ever used. Counts the SMS that went out, against the service with its defaults
// and, for comparison, with the conversion breaker off. The attackers' numbers are of a region the
// service serves (its default), so the region rules do not stop them: the breaker has to.
import { readFileSync } from 'node:fs';
import { log } from './load.js';
import { freshDatabase, startService, type Row } from './support.js';

const REQUESTS = 10_000;
const NUMBERS = 500;
const ADDRESSES = 200;
const IN_FLIGHT = 50;
const TARGET = 200;

interface AttackResult {
  sms: number;
  answers: Map<string, number>;
  seconds: number;
}

/** Each attack on a fresh database next to `adminUrl`, so that the first leaves the second no counters. */
export async function smsPumpingBench(adminUrl: string, port: number): Promise<Row[]> {
  const defended = await attack(await freshDatabase(adminUrl, 'meeting_accounts_bench_pumping'), port, {});
  const undefended = await attack(await freshDatabase(adminUrl, 'meeting_accounts_bench_pumping'), port, { SMS_MIN_CONVERSION: '0' });
  return [
    {
      case: `SMS pumping: ${REQUESTS} send-codes, ${NUMBERS} numbers of +86171, ${ADDRESSES} spoofed addresses`,
      value: `${defended.sms} SMS sent (breaker off: ${undefended.sms}); answers ${byStatus(defended.answers)} in ${defended.seconds.toFixed(1)} s`,
      target: `< ${TARGET} SMS`,
      pass: defended.sms < TARGET,
    },
  ];
}

async function attack(databaseUrl: string, port: number, env: Record<string, string>): Promise<AttackResult> {
  const service = await startService({ DATABASE_URL: databaseUrl, TRUST_PROXY: 'true', SEND_CODE_PER_IP_HOURLY: '20', ...env }, port);
  try {
    const answers = new Map<string, number>();
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      for (let i = next++; i < REQUESTS; i = next++) {
        const phone = `+86171${String(i % NUMBERS).padStart(8, '0')}`;
        const address = `203.0.113.${i % ADDRESSES}`;
        const res = await fetch(`${service.url}/api/v1/auth/send-code`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
          body: JSON.stringify({ phone }),
        });
        const body = (await res.json()) as { code?: string; detail?: string };
        const answer = res.status === 200 ? '200' : `${res.status} ${body.code}: ${body.detail}`;
        answers.set(answer, (answers.get(answer) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const seconds = (performance.now() - started) / 1000;
    const sms = readFileSync(service.outbox, 'utf8').split('\n').filter(Boolean).length;
    log(`SMS pumping${env.SMS_MIN_CONVERSION === '0' ? ' (breaker off)' : ''}: ${sms} SMS sent in ${seconds.toFixed(1)} s; ${describe(answers)}`);
    return { sms, answers, seconds };
  } finally {
    await service.stop();
  }
}

/** "6000 x 429, 3898 x 503, 102 x 200". */
function byStatus(answers: Map<string, number>): string {
  const statuses = new Map<string, number>();
  for (const [answer, count] of answers) statuses.set(answer.slice(0, 3), (statuses.get(answer.slice(0, 3)) ?? 0) + count);
  return [...statuses.entries()].sort((a, b) => b[1] - a[1]).map(([status, count]) => `${count} x ${status}`).join(', ');
}

function describe(answers: Map<string, number>): string {
  return [...answers.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([answer, count]) => `${count} x ${answer}`)
    .join('; ');
}
