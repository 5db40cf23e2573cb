// A bounded fuzz run against a freshly started service process (loopback only): malformed and
// truncated bodies, odd encodings, parameter floods (forms, JSON, query strings, multipart parts),
// aborted and slow connections, to every REST route of the OpenAPI document and every GraphQL root
// field of the introspected schema. It fails on any 5xx, any GraphQL server fault, any log line at
// error level or above, output on stderr, the process dying, an upload left staged, or the service
// not ready at the end; each distinct finding is printed with a request that shows it (found by
// sending likely ones again alone when a log line has no request id, and shortened by dropping the
// header lines it does not need), then a summary of what was sent.
// FUZZ_SEED and FUZZ_SECONDS (default 60) choose the run, and the seed is printed; FUZZ_DUMP names
// a file for every request's outcome and every log line.
import { afterAll, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noise, solid } from '../avatar/fixtures.js';
import { freshRateLimits, startService, type ServiceProcess } from '../operability/support.js';
import type { GenContext } from './draft.js';
import { minimise } from './minimise.js';
import { coldStart, randomPick, sweep, type Planned } from './plan.js';
import { Rng } from './random.js';
import { describeFindings, Findings, logLines, logMessage, normalise, summary, type Finding, type LogLine } from './report.js';
import { pool, replay, send, type Sent, type Service } from './run.js';
import { deletionRace, slowPeers } from './scenarios.js';
import { AVATAR_MAX_BYTES, fuzzService, INTERNAL_KEY, makeAdmin } from './service.js';
import { Sessions } from './sessions.js';
import { acceptedSpellings, usedValueSpellings } from './spellings.js';
import { discoverTargets } from './targets.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_124);
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 60);
/** A file to write every request's outcome and every log line to, for a closer look (none unless given). */
const DUMP = process.env.FUZZ_DUMP;
const CONCURRENCY = 8;

const dir = mkdtempSync(join(tmpdir(), 'meeting-accounts-fuzz-'));
let service: ServiceProcess | undefined;

afterAll(async () => {
  await service?.kill();
  await rm(dir, { recursive: true, force: true });
  // The run's counters for 127.0.0.1 are far above the default limits: they go with the run.
  await freshRateLimits();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const out = (text: string) => process.stdout.write(text);

it(
  'answers malformed, truncated, aborted and slow requests to every route and operation without a 5xx, an error log line or dying',
  async () => {
    const runStarted = Date.now();
    out(`\nfuzz: seed ${SEED} (FUZZ_SEED), ${SECONDS} s of requests (FUZZ_SECONDS), ${CONCURRENCY} at a time\n`);
    const { env, outbox, dataDir } = fuzzService(dir);
    service = await startService(env);
    const proc = service;
    const url = proc.url;
    const port = Number(new URL(url).port);
    let diedAt: number | undefined;
    void proc.exited.then(() => (diedAt = Date.now()));

    // Cold start: the first requests the process serves are the fuzz run's own (discovery, sign-in).
    const { targets } = await discoverTargets(url);
    const sessions = new Sessions(url, outbox, new Rng(SEED ^ 0x5e55), makeAdmin);
    await sessions.start();
    const live: Service = { port, sessions, timeoutMs: 10_000 };
    const images = await Promise.all((['png', 'jpeg', 'gif', 'webp'] as const).map((f) => solid(8, 8, f)));
    const g: GenContext = {
      rng: new Rng(SEED),
      known: { userId: sessions.main.userId, phone: sessions.main.phone, sid: sessions.main.sid, forged: await sessions.signIn() },
      images,
      internalKey: INTERNAL_KEY,
      tooLarge: AVATAR_MAX_BYTES,
    };
    const sent: Sent[] = [];
    const findings = new Findings();
    const deadline = runStarted + SECONDS * 1000;
    let stop = false;
    let index = 0;
    const record = (s: Sent) => {
      sent.push(s);
      findings.fromAnswer(s, diedAt !== undefined && s.ended >= diedAt);
    };
    /** Sends `list`, then random requests until `until`; stops early if the process dies. */
    const run = (list: Planned[], until: number) => {
      const first = index;
      return pool(CONCURRENCY, () => {
        if (diedAt !== undefined) return undefined;
        let planned: Planned;
        if (index - first < list.length) planned = list[index - first]!;
        else if (Date.now() < until) planned = randomPick(targets, g);
        else return undefined;
        const id = `#${index++}`;
        return async () => record(await send(id, planned, live));
      });
    };

    // Cold start: broken uploads all at once, before anything was ever staged.
    await run(coldStart(targets, g), 0);
    Object.assign(g.known, await sessions.knownValues(await noise(150, 150, 'jpeg')).catch(() => ({})));
    const plan = sweep(targets, g);
    out(
      `fuzz: ${targets.length} targets (${targets.filter((t) => t.transport === 'rest').length} REST, ${targets.filter((t) => t.transport === 'graphql').length} GraphQL); ` +
        `${index} cold-start uploads, a sweep of ${plan.length} requests, then random ones\n`,
    );

    // Liveness beside the run: /healthz answered within 5 s all along (slow peers included).
    const health = { polls: 0, failures: 0, maxMs: 0 };
    const healthLoop = (async () => {
      while (!stop) {
        const t0 = Date.now();
        const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5000) })
          .then((r) => r.status === 200)
          .catch(() => false);
        health.polls += 1;
        if (!ok) health.failures += 1;
        health.maxMs = Math.max(health.maxMs, Date.now() - t0);
        await sleep(500);
      }
    })();
    const keepAlive = (async () => {
      while (!stop) {
        await sleep(2000);
        if (!stop && diedAt === undefined) await sessions.keepMainAlive().catch(() => undefined);
      }
    })();
    // Scenarios on their own random streams, so that the plan's stays the seed's.
    const side = (salt: number): GenContext => ({ ...g, rng: new Rng(SEED ^ salt) });
    const slow = slowPeers(targets, side(0x510e), live, Math.min(15_000, SECONDS * 300));
    const raceRounds = { run: 0, failed: [] as string[] };
    const races = (async () => {
      const requests: Sent[] = [];
      const raceContext = side(0x4ace);
      for (let round = 0; round < 9 && !stop; round++) {
        await sleep((SECONDS * 1000) / 10);
        if (stop || diedAt !== undefined) break;
        raceRounds.run += 1;
        const sentInRound = await deletionRace(targets, raceContext, live, round).catch((error: unknown) => {
          raceRounds.failed.push(String(error).slice(0, 200));
          return [];
        });
        requests.push(...sentInRound);
      }
      return requests;
    })();
    // Values that may be used once, used, then sent again in every other spelling (spellings.ts).
    const spellingRun = { failed: '' };
    const spellings = usedValueSpellings(targets, side(0x5be1), live, url).catch((error: unknown) => {
      spellingRun.failed = String(error).slice(0, 200);
      return [] as Sent[];
    });

    await run(plan, deadline);
    const sendingMs = Date.now() - runStarted;
    stop = true;
    const spelled = await spellings;
    for (const s of [...(await slow), ...(await races), ...spelled]) record(s);
    for (const s of acceptedSpellings(spelled)) {
      findings.add({ kind: 'accepted what the contract refuses', target: s.planned.target.name, status: String(s.exchange.answers[0]!.status), message: `another spelling of a value that may be used once: ${s.planned.variant}` }, [s]);
    }
    if (spellingRun.failed) findings.add({ kind: 'scenario could not run', target: 'used-value spellings', status: 'could not start', message: spellingRun.failed });
    await Promise.all([healthLoop, keepAlive]);

    // The log so far; then each log finding without a request id gets its likeliest requests sent
    // again, one at a time, until one writes the same line; then each finding's request is sent
    // again without one header line at a time, for a shorter reproduction (all bounded to 25 s).
    await sleep(1500);
    const lines = logLines(proc.stdout());
    findings.fromLog(lines, sent);
    const replayUntil = Date.now() + 25_000;
    let replays = 0;
    /** Sends `raw` alone, as `s` was sent: whether `finding` shows again (in the answer, or as a new log line). */
    const showsAgain = async (finding: Finding, s: Sent, raw = s.raw, cutAt = s.delivery.cutAt): Promise<boolean> => {
      const before = proc.stdout().length;
      const again: Sent = { ...s, raw, delivery: { ...s.delivery, cutAt } };
      const exchange = await replay(again, live);
      replays += 1;
      if (finding.kind === 'error-level log line') {
        await sleep(300);
        return logLines(proc.stdout().slice(before)).some((l) => l.level >= 50 && normalise(logMessage(l)) === normalise(finding.message));
      }
      const check = new Findings();
      check.fromAnswer({ ...again, exchange });
      return check.list().some((f) => f.kind === finding.kind && normalise(f.message) === normalise(finding.message));
    };
    for (const finding of findings.list().filter((f) => f.attribution === 'candidates' && f.kind === 'error-level log line')) {
      for (const candidate of finding.examples) {
        if (diedAt !== undefined || Date.now() > replayUntil) break;
        if (await showsAgain(finding, candidate)) {
          Object.assign(finding, { examples: [candidate], attribution: 'replayed' });
          break;
        }
      }
    }
    const SHORTENED: Finding['kind'][] = ['server error (5xx)', 'GraphQL server fault', 'error-level log line'];
    for (const finding of findings.list()) {
      const example = finding.examples[0];
      if (!example || diedAt !== undefined || !SHORTENED.includes(finding.kind) || !['certain', 'replayed'].includes(finding.attribution)) continue;
      // A race is not one request, and a slow peer's bytes take seconds to send.
      if (example.planned.family === 'deletion race' || example.planned.family === 'slow peer') continue;
      finding.examples = [await minimise(example, (raw, cutAt) => showsAgain(finding, example, raw, cutAt), replayUntil)];
    }

    // What the process says after the storm: still there, ready, nothing left staged.
    const ready = diedAt === undefined ? await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5000) }).then((r) => r.status, () => 0) : 0;
    let staged: string[] = [];
    for (let i = 0; i < 10; i++) {
      staged = await readdir(join(dataDir, 'tmp')).catch(() => []);
      if (staged.length === 0) break;
      await sleep(300);
    }
    const alive = diedAt === undefined;
    await proc.kill();
    const exit = await proc.exited;
    if (DUMP) await dump(DUMP, sent, lines);
    if (!alive) {
      const inFlight = sent.filter((s) => s.started <= diedAt! && s.ended >= diedAt! - 50).slice(0, 5);
      findings.add({ kind: 'process died', target: 'the service', status: `exit ${exit.code ?? exit.signal}`, message: proc.stderr().trim().split('\n').slice(-8).join(' | ') }, inFlight, 'candidates');
    } else if (ready !== 200) {
      findings.add({ kind: 'not ready after the run', target: 'GET /readyz', status: String(ready), message: '/readyz did not answer 200' });
    }
    if (staged.length > 0) findings.add({ kind: 'upload left staged', target: 'upload staging', status: `${staged.length} file(s)`, message: `left in DATA_DIR/tmp: ${staged.slice(0, 5).join(', ')}` });
    const stderr = proc.stderr().trim();
    if (alive && stderr) findings.add({ kind: 'output on stderr', target: 'the service', status: 'stderr', message: stderr.split('\n').slice(0, 8).join(' | ') });
    if (health.failures > 0 || health.maxMs > 5000) {
      findings.add({ kind: 'service unresponsive', target: 'GET /healthz', status: `${health.failures} failed polls`, message: `slowest poll ${health.maxMs} ms` });
    }

    const list = findings.list();
    out(
      `\nfuzz summary (seed ${SEED}): ${((Date.now() - runStarted) / 1000).toFixed(1)} s in all, ${(sendingMs / 1000).toFixed(1)} s sending; ` +
        `${index} planned requests (sweep ${plan.length}), ${sessions.signIns} sign-ins of the run's own (${sessions.failedSignIns} failed)\n` +
        summary(sent, [
          `used-value spellings: ${spelled.length} requests, ${acceptedSpellings(spelled).length} accepted${spellingRun.failed ? ` (could not start: ${spellingRun.failed})` : ''}`,
          `deletion races: ${raceRounds.run} rounds${raceRounds.failed.length > 0 ? `, ${raceRounds.failed.length} could not start (${raceRounds.failed.join('; ')})` : ''}`,
          `/healthz beside the run: ${health.polls} polls, ${health.failures} failed, slowest ${health.maxMs} ms`,
          `service log: ${lines.length} lines, ${lines.filter((l) => l.level >= 50).length} at error level or above; ${replays} requests sent again (to find the one behind a log line, to shorten reproductions); /readyz at the end: ${ready}; process ${alive ? 'alive' : 'dead'}`,
        ]) +
        `\n${describeFindings(list)}`,
    );
    expect(list.map((f) => `${f.kind} on ${f.target}: ${f.status} - ${f.message}`)).toEqual([]);
  },
  (SECONDS + 120) * 1000,
);

/** Every request's outcome and every log line, one JSON object a line, for a closer look (FUZZ_DUMP). */
async function dump(file: string, sent: Sent[], lines: LogLine[]): Promise<void> {
  const requests = sent.map((s) => ({
    id: s.id,
    kind: `${s.planned.family}: ${s.planned.variant}`,
    target: s.planned.target.name,
    started: s.started,
    ended: s.ended,
    outcome: s.exchange.outcome,
    sent: `${s.exchange.sent}/${s.raw.length}`,
    answers: s.exchange.answers.map((a) => `${a.status} ${a.headers['x-request-id'] ?? ''} ${a.body.subarray(0, 160).toString('utf8')}`),
    head: s.raw.subarray(0, 200).toString('latin1'),
  }));
  await writeFile(file, [...requests, ...lines].map((x) => JSON.stringify(x)).join('\n'));
}
