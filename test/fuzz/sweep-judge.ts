// How the field sweep judges one answer (field-sweep.test.ts): a refusal is a code of the catalogue
// (a 4xx on REST); VALIDATION_FAILED, and an operator's FORBIDDEN or NOT_FOUND, changed nothing; what
// the contract settles for the case holds; an id answers as its lower-case spelling does; and every
// audit entry, security event and outbox row the request wrote names ids in lower case.
import { ErrorCode } from '../../src/shared/errors/app-error.js';
import { SERVER_CODES, type Finding, type Findings } from './report.js';
import type { Sent } from './run.js';
import type { Case } from './sweep-cases.js';
import { nonCanonicalIds, type Snapshot, type StateProbe } from './sweep-state.js';
import type { Target } from './targets.js';

interface Answer {
  status: number;
  /** The error codes of the answer (REST: the problem's; GraphQL: every error's). */
  codes: string[];
  accepted: boolean;
}

const CATALOGUE = new Set<string>(Object.values(ErrorCode));

function answerOf(s: Sent): Answer | undefined {
  const answer = s.exchange.answers[0];
  if (!answer) return undefined;
  let body: any;
  try {
    body = JSON.parse(answer.body.toString('utf8'));
  } catch {
    body = undefined;
  }
  if (s.planned.target.transport === 'graphql') {
    const errors: any[] = Array.isArray(body?.errors) ? body.errors : [];
    return { status: answer.status, codes: errors.map((e) => String(e?.extensions?.code)), accepted: answer.status < 300 && errors.length === 0 };
  }
  // A problem document; the explorer's files answer as GraphQL does.
  const accepted = answer.status < 300;
  return { status: answer.status, codes: accepted ? [] : [String(body?.code ?? body?.errors?.[0]?.extensions?.code)], accepted };
}

const label = (a: Answer) => `${a.status}${a.codes.length > 0 ? ` ${[...new Set(a.codes)].join(', ')}` : ''}`;

/**
 * Whether nothing may have changed after an answer with these codes: VALIDATION_FAILED never changes
 * anything (API.md 9.0); an operator's call refused for a role too low or an unknown account writes
 * nothing either (README, "The operators' API").
 */
const changesNothing = (t: Target, codes: string[]) =>
  codes.includes(ErrorCode.VALIDATION_FAILED) || (/admin/i.test(t.name) && codes.some((code) => code === ErrorCode.FORBIDDEN || code === ErrorCode.NOT_FOUND));

/** A WebAuthn response that does not verify has spent its challenge (README, "Passkeys"): the one change such a refusal makes. */
const spendsChallenge = (t: Target) => /passkeys$|passkey\/login$|addPasskey$|loginWithPasskey$/.test(t.name);

export class Judge {
  /** The answer of each group's lower-case spelling. */
  private readonly canonical = new Map<string, string>();

  constructor(
    private readonly probe: StateProbe,
    private readonly findings: Findings,
  ) {}

  /** Judges `s`, sent for `c` between the snapshots `before` and `after` (the process dead by its end or not); adds what is wrong to the findings. */
  async judge(c: Case, s: Sent, before: Snapshot, after: Snapshot, processDead: boolean): Promise<void> {
    this.findings.fromAnswer(s, processDead);
    const answer = answerOf(s);
    const add = (kind: Finding['kind'], message: string) =>
      this.findings.add({ kind, target: c.target.name, status: answer ? label(answer) : s.exchange.outcome, message: `[${c.variant}] ${message}` }, [s]);
    if (answer) {
      // A 5xx or a server's code (INTERNAL) is a finding of fromAnswer already.
      const fault = answer.status >= 500 || answer.codes.some((code) => SERVER_CODES.has(code));
      // GraphQL answers a resolver's refusal with HTTP 200 (README), REST with its 4xx.
      const rest = c.target.transport === 'rest';
      if (!answer.accepted && !fault && ((rest && answer.status < 400) || answer.codes.some((code) => !CATALOGUE.has(code)))) {
        add('answer not in the contract', `a refusal is ${rest ? 'a 4xx ' : ''}with a code of the catalogue, not ${label(answer)}`);
      }
      if (changesNothing(c.target, answer.codes)) {
        const spent = (table: string, from: number, to: number) => spendsChallenge(c.target) && table === 'webauthn_challenges' && to === from - 1;
        const changes = await this.probe.changes(before, after, spent);
        if (changes.length > 0) add('refusal changed state', changes.join(' | '));
      }
      if (c.expect && !fault && answer.accepted) {
        add('accepted what the contract refuses', `answered ${label(answer)} where the contract says ${c.expect === 'refused' ? 'it is refused (it names nothing)' : 'VALIDATION_FAILED'}`);
      } else if (c.expect === 'VALIDATION_FAILED' && !fault && !answer.codes.every((code) => code === ErrorCode.VALIDATION_FAILED)) {
        add('answer not in the contract', `answered ${label(answer)} where the contract says VALIDATION_FAILED`);
      }
      if (c.group) {
        const first = this.canonical.get(c.group);
        if (first === undefined) this.canonical.set(c.group, label(answer));
        else if (first !== label(answer)) add('answer depends on the id spelling', `answered ${label(answer)} where the lower-case id answers ${first}`);
      }
    }
    for (const row of await this.probe.written(before, after)) {
      const ids = nonCanonicalIds(row);
      if (ids.length > 0) add('id not canonical in what was written', `wrote ${ids.join(', ')}: ${row.slice(0, 400)}`);
    }
  }
}
