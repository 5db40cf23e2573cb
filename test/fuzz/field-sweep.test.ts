// A deterministic sweep of every field of every REST route (path, query, JSON body, nested fields
// too) and every GraphQL root field (arguments and input fields, as variables and as literals),
// against a freshly started service process: a good request, signed in as a real ADMIN of the run
// and naming real ids, with ONE field changed at a time, sent one at a time. The changes: text that
// PostgreSQL cannot store (U+0000, lone surrogates), control characters, 10,000 characters; each
// id-like field spelled in upper and mixed case (and percent-encoded on a path), the caller's own id
// and another account's; JSON values 40 to 20,000 levels deep and thousands wide; and, for every
// root field whose answer has fields that take arguments, a selection with one of them out of range.
// Every request: no 5xx, no INTERNAL, no error-level log line, a refusal only with a code of the
// catalogue; a VALIDATION_FAILED (or FORBIDDEN, NOT_FOUND) answer changed nothing (row counts of
// every table, the webhook outbox, the audit log, the accounts' role, block and nickname); every
// audit entry, security event and outbox row it wrote names ids in lower case; an id answers the
// same whatever its spelling; and what the contract settles (API.md 9.0) holds. At the end the
// process is alive and ready. Each finding is printed with its request, then a summary.
import { afterAll, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noise, solid } from '../avatar/fixtures.js';
import { freshRateLimits, startService, type ServiceProcess } from '../operability/support.js';
import { startReceiver, webhookEnv, type Receiver } from '../webhooks/support.js';
import type { GenContext } from './draft.js';
import { Rng } from './random.js';
import { describeFindings, Findings, logLines, summary } from './report.js';
import { mayHaveSucceeded, send, type Sent, type Service } from './run.js';
import { AVATAR_MAX_BYTES, fuzzService, INTERNAL_KEY, makeAdmin } from './service.js';
import { Sessions } from './sessions.js';
import { textCases, type Case, type SweepContext } from './sweep-cases.js';
import { Fixtures, PASSKEY_ORIGIN } from './sweep-fixtures.js';
import { idCases } from './sweep-ids.js';
import { Judge } from './sweep-judge.js';
import { depthCases, nestedArgumentCases } from './sweep-nesting.js';
import { StateProbe } from './sweep-state.js';
import { discoverTargets } from './targets.js';

const SEED = 20_261_126;
/** A file to write every request's case and answer to, for a closer look (none unless given). */
const DUMP = process.env.SWEEP_DUMP;
const dir = mkdtempSync(join(tmpdir(), 'meeting-accounts-sweep-'));
let service: ServiceProcess | undefined;
let receiver: Receiver | undefined;
let probe: StateProbe | undefined;

afterAll(async () => {
  await service?.kill();
  await probe?.close();
  await receiver?.close();
  await rm(dir, { recursive: true, force: true });
  await freshRateLimits();
});

const out = (text: string) => process.stdout.write(text);

it(
  'sweeps every field of every route and operation with one odd value at a time: no fault, a refusal changes nothing, ids are one whatever their spelling',
  async () => {
    const started = Date.now();
    receiver = await startReceiver();
    const { env, outbox } = fuzzService(dir, { ...webhookEnv([receiver.url]), WEBAUTHN_ORIGINS: PASSKEY_ORIGIN });
    service = await startService(env);
    const proc = service;
    let diedAt: number | undefined;
    void proc.exited.then(() => (diedAt = Date.now()));

    const { targets } = await discoverTargets(proc.url);
    const sessions = new Sessions(proc.url, outbox, new Rng(SEED ^ 0x5e55), makeAdmin);
    const fx = new Fixtures(proc.url, sessions, new Rng(SEED ^ 0x9e61));
    await fx.start();
    const g: GenContext = {
      rng: new Rng(SEED),
      known: { userId: fx.main.userId, phone: fx.main.phone, sid: fx.main.sid, forged: { userId: fx.other.userId, sid: fx.other.sid } },
      images: [await solid(8, 8, 'png')],
      internalKey: INTERNAL_KEY,
      tooLarge: AVATAR_MAX_BYTES,
    };
    Object.assign(g.known, await sessions.knownValues(await noise(64, 64, 'jpeg')));
    probe = await StateProbe.open(process.env.TEST_WORKER_DATABASE_URL!);
    const live: Service = { port: Number(new URL(proc.url).port), sessions, timeoutMs: 10_000 };
    const ctx: SweepContext = { g, fx };
    const uncovered: string[] = [];
    const cases: Case[] = [...textCases(targets, ctx), ...idCases(targets, ctx, uncovered), ...depthCases(targets, ctx), ...nestedArgumentCases(targets, ctx)];
    const setupMs = Date.now() - started;
    out(`\nfield sweep: ${targets.length} targets, ${cases.length} requests planned; tables compared: ${probe.tables.join(', ')}\n`);

    const findings = new Findings();
    const sent: Sent[] = [];
    const unbuilt: string[] = [];
    const judge = new Judge(probe, findings);
    const msByFamily = new Map<string, number>();
    for (const [index, c] of cases.entries()) {
      if (diedAt !== undefined) break;
      const t0 = Date.now();
      const built = await c.build().catch((error: unknown) => {
        unbuilt.push(`${c.target.name} [${c.variant}]: ${String(error).slice(0, 300)}`);
        return undefined;
      });
      if (!built) continue;
      const before = await probe.snapshot();
      const s = await send(`#${index}`, { target: c.target, family: c.family, variant: c.variant, draft: built.draft }, live, { as: built.as });
      const after = await probe.snapshot();
      if (built.spare && mayHaveSucceeded(s.exchange)) sessions.spent(built.as);
      sent.push(s);
      await judge.judge(c, s, before, after, diedAt !== undefined);
      msByFamily.set(c.family, (msByFamily.get(c.family) ?? 0) + Date.now() - t0);
    }
    const sendingMs = Date.now() - started - setupMs;

    // The log: every line at error level or above is a finding, by the request id of the answer.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const lines = logLines(proc.stdout());
    findings.fromLog(lines, sent);
    const alive = diedAt === undefined;
    const ready = alive ? await fetch(`${proc.url}/readyz`, { signal: AbortSignal.timeout(5000) }).then((r) => r.status, () => 0) : 0;
    if (!alive) findings.add({ kind: 'process died', target: 'the service', status: 'dead', message: proc.stderr().trim().split('\n').slice(-8).join(' | ') });
    else if (ready !== 200) findings.add({ kind: 'not ready after the run', target: 'GET /readyz', status: String(ready), message: '/readyz did not answer 200' });
    const stderr = proc.stderr().trim();
    if (stderr) findings.add({ kind: 'output on stderr', target: 'the service', status: 'stderr', message: stderr.split('\n').slice(0, 8).join(' | ') });

    if (DUMP) {
      const rows = sent.map((x) => ({ id: x.id, family: x.planned.family, target: x.planned.target.name, variant: x.planned.variant, answer: x.exchange.answers[0]?.body.subarray(0, 300).toString('utf8'), status: x.exchange.answers[0]?.status }));
      await writeFile(DUMP, rows.map((r) => JSON.stringify(r)).join('\n'));
    }
    const list = findings.list();
    const families = [...msByFamily.entries()].map(([family, ms]) => `${family} ${(ms / 1000).toFixed(1)} s`).join(', ');
    out(
      `\nfield sweep summary (seed ${SEED}): ${((Date.now() - started) / 1000).toFixed(1)} s in all (${(setupMs / 1000).toFixed(1)} s to start and make the fixtures, ${(sendingMs / 1000).toFixed(1)} s sweeping: ${families})\n` +
        summary(sent, [
          `fixtures: ${fx.made.admins} throwaway admins, ${fx.made.users} new accounts, ${fx.made.passkeys} passkeys, ${fx.made.registerCodes} register codes; ${sessions.signIns} sign-ins (${sessions.failedSignIns} failed)`,
          `id-like fields the sweep has no real value for: ${uncovered.join(', ') || 'none'}`,
          `requests that could not be built: ${unbuilt.length}${unbuilt.length > 0 ? `\n  ${unbuilt.slice(0, 10).join('\n  ')}` : ''}`,
          `service log: ${lines.length} lines, ${lines.filter((l) => l.level >= 50).length} at error level or above; /readyz at the end: ${ready}; process ${alive ? 'alive' : 'dead'}`,
        ]) +
        `\n${describeFindings(list)}`,
    );
    expect({ unbuilt, findings: list.map((f) => `${f.kind} on ${f.target}: ${f.status} - ${f.message}`) }).toEqual({ unbuilt: [], findings: [] });
  },
  300_000,
);
