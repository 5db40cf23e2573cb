// What the fuzz run found and what it did: findings from answers and from the service's log,
// grouped by (route, status, message), each with the request that shows it; and the counts.
import { header } from './draft.js';
import type { Sent } from './run.js';

/** The service's own JSON log line (pino), as far as the findings need it. */
export interface LogLine {
  level: number;
  time: number;
  msg?: string;
  requestId?: string;
  req?: { method?: string; path?: string };
  method?: string;
  path?: string | unknown[];
  err?: { type?: string; message?: string; stack?: string };
}

export interface Finding {
  kind:
    | 'server error (5xx)'
    | 'GraphQL server fault'
    | 'error-level log line'
    | 'no answer to a complete request'
    | 'process died'
    | 'not ready after the run'
    | 'upload left staged'
    | 'output on stderr'
    | 'service unresponsive'
    | 'scenario could not run'
    // The field sweep's (field-sweep.test.ts): what a single changed field must and must not do.
    | 'refusal changed state'
    | 'accepted what the contract refuses'
    | 'answer not in the contract'
    | 'answer depends on the id spelling'
    | 'id not canonical in what was written';
  /** Route template or GraphQL field (or what the log line says when no request is known). */
  target: string;
  status: string;
  message: string;
  count: number;
  /** The request that showed it first, or the ones that may have (a log line without a request id). */
  examples: Sent[];
  /**
   * Which requests the examples are: certain (by request id), replayed (a candidate sent again alone
   * wrote the same line), or candidates (in flight to that path then, the likeliest first).
   */
  attribution: 'certain' | 'replayed' | 'candidates' | 'none';
}

/** GraphQL error codes that mean a fault of the service, whatever the HTTP status. */
export const SERVER_CODES = new Set(['INTERNAL', 'INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE', 'SMS_DELIVERY_FAILED']);

export const normalise = (text: string) =>
  text
    // Node's HTTP parser says what was malformed ("Parse Error: Invalid character in chunk size"): one finding.
    .replace(/Parse Error: .*/, 'Parse Error')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/\d{3,}/g, '<n>')
    .slice(0, 240);

export class Findings {
  private readonly byKey = new Map<string, Finding>();

  add(f: Omit<Finding, 'count' | 'examples' | 'attribution'>, examples: Sent[] = [], attribution: Finding['attribution'] = examples.length > 0 ? 'certain' : 'none'): void {
    const key = `${f.kind}|${f.target}|${f.status}|${normalise(f.message)}`;
    const known = this.byKey.get(key);
    if (known) {
      known.count += 1;
      if (known.attribution !== 'certain' && attribution === 'certain') Object.assign(known, { examples, attribution });
      return;
    }
    this.byKey.set(key, { ...f, count: 1, examples, attribution });
  }

  list(): Finding[] {
    return [...this.byKey.values()];
  }

  /** Looks at an answer: 5xx, a GraphQL server fault, no answer where one was due (unless the process had died by then). */
  fromAnswer(sent: Sent, processDead = false): void {
    const { exchange, planned } = sent;
    const target = planned.target.name;
    for (const answer of exchange.answers) {
      const body = answer.body.toString('utf8');
      let json: any;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      if (answer.status >= 500) {
        const message = json?.code ? `${json.code}: ${json.detail ?? json.title ?? ''}` : json?.errors?.[0]?.message ?? body.slice(0, 200);
        this.add({ kind: 'server error (5xx)', target, status: String(answer.status), message }, [sent]);
      }
      // A GraphQL answer of 200 (or 4xx) that carries a fault of the service; a 5xx is one already.
      for (const error of answer.status < 500 && Array.isArray(json?.errors) ? json.errors : []) {
        const code = error?.extensions?.code;
        if (SERVER_CODES.has(code)) this.add({ kind: 'GraphQL server fault', target, status: `${answer.status} ${code}`, message: String(error.message) }, [sent]);
      }
    }
    // Sent whole, and the client waited: the server owes an answer (one that closed the connection
    // while the request was still coming in may have refused it early). A close without one counts
    // only for a small request framed by its Content-Length: Node refuses bad framing and closes, and
    // a close with a large body unread resets the connection, the answer lost on the way.
    const complete = planned.draft.delivery.ending === 'wait' && exchange.sent === sent.raw.length;
    const framed = planned.draft.framing === 'auto' && !header(planned.draft, 'transfer-encoding') && sent.raw.length < 65_536;
    if (complete && exchange.answers.length === 0 && !processDead && (exchange.outcome === 'timeout' || framed)) {
      this.add({ kind: 'no answer to a complete request', target, status: exchange.outcome, message: `${planned.family}: ${planned.variant}` }, [sent]);
    }
  }

  /** Looks at the service's log: every line at error level or above is a finding. */
  fromLog(lines: LogLine[], sent: Sent[]): void {
    const byRequestId = new Map<string, Sent>();
    for (const s of sent) {
      for (const answer of s.exchange.answers) if (answer.headers['x-request-id']) byRequestId.set(answer.headers['x-request-id'], s);
    }
    const accessLine = new Map<string, LogLine>();
    for (const line of lines) if (line.requestId && line.req?.path) accessLine.set(line.requestId, line);
    for (const line of lines) {
      if (line.level < 50) continue;
      const message = logMessage(line);
      const known = line.requestId ? byRequestId.get(line.requestId) : undefined;
      if (known) {
        this.add({ kind: 'error-level log line', target: known.planned.target.name, status: `level ${line.level}`, message }, [known]);
        continue;
      }
      const access = line.requestId ? accessLine.get(line.requestId) : undefined;
      const method = access?.req?.method ?? line.method;
      const path = access?.req?.path ?? (typeof line.path === 'string' ? line.path : undefined);
      // Without a request id (no answer was read): the requests to that path around that moment,
      // those left without an answer first, then by how close their end was to the line.
      const inFlight = sent.filter((s) => s.started - 100 <= line.time && line.time <= s.ended + 5000);
      const samePath = inFlight.filter((s) => s.planned.draft.method === method && requestPath(s) === path);
      // (An answer without a request id is Node's own, to a request it could not parse.)
      const answeredByService = (s: Sent) => s.exchange.answers.some((a) => a.headers['x-request-id']);
      const rank = (s: Sent) => (answeredByService(s) ? 1e9 : 0) + Math.abs(line.time - s.ended);
      const candidates = (samePath.length > 0 ? samePath : inFlight).sort((a, b) => rank(a) - rank(b)).slice(0, 4);
      // The route, not a GraphQL field: which operation the body held is not known.
      const route = samePath.find((s) => s.planned.target.transport === 'rest')?.planned.target.name;
      const target = route ?? (method && path ? `${method} ${path}` : 'unknown');
      this.add({ kind: 'error-level log line', target, status: `level ${line.level}`, message }, candidates, candidates.length > 0 ? 'candidates' : 'none');
    }
  }
}

/** The JSON log lines in a service's standard output (the start-up summary is plain text). */
export function logLines(stdout: string): LogLine[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

/** What a log line says, as findings name it. */
export function logMessage(line: LogLine): string {
  return `${line.msg ?? ''}${line.err ? ` - ${line.err.type ?? ''}: ${line.err.message ?? ''}` : ''}`;
}

/** The path a request was sent to, without its query string (as the access log writes it). */
function requestPath(s: Sent): string {
  const line = s.raw.subarray(0, Math.max(0, s.raw.indexOf('\r\n'))).toString('utf8');
  return (line.split(' ')[1] ?? '').split('?')[0]!;
}

/** A request in a form that can be replayed by hand: the head as text, the body's start escaped. */
function reproduction(s: Sent): string {
  const headEnd = s.raw.indexOf('\r\n\r\n');
  const head = s.raw.subarray(0, headEnd < 0 ? s.raw.length : headEnd).toString('utf8');
  const body = headEnd < 0 ? Buffer.alloc(0) : s.raw.subarray(headEnd + 4);
  const clip = (line: string) => (line.length > 200 ? `${line.slice(0, 200)}… (${line.length} chars)` : line);
  const d = s.planned.draft;
  const how =
    s.exchange.sent < s.raw.length
      ? `sent ${s.exchange.sent} of ${s.raw.length} bytes`
      : `sent all ${s.raw.length} bytes`;
  const ending = { wait: 'then waited for the answer', 'half-close': 'then half-closed (FIN)', destroy: `then closed the connection after ${d.delivery.afterMs ?? 0} ms`, reset: `then reset the connection (RST) after ${d.delivery.afterMs ?? 0} ms` }[d.delivery.ending];
  const answers = s.exchange.answers.map((a) => `${a.status} ${clip(a.body.toString('utf8').replace(/\s+/g, ' '))}`).join(' | ') || '(none)';
  return [
    `    request ${s.id} [${s.planned.family}: ${s.planned.variant}] -> ${s.planned.target.name}`,
    ...head.split('\r\n').map((l) => `      ${clip(l)}`),
    `      body (${body.length} bytes): ${clip(JSON.stringify(body.subarray(0, 300).toString('latin1')))}`,
    `      ${how}${d.delivery.dribble ? ` in pieces of ${d.delivery.dribble.bytes} every ${d.delivery.dribble.pauseMs} ms` : ''}, ${ending}; outcome ${s.exchange.outcome} after ${s.exchange.ms} ms`,
    `      answer: ${answers}`,
    ...(s.planned.family === 'deletion race' ? ['      (sent at the same moment as the deletion of this user and their requests to every other signed-in route and operation)'] : []),
  ].join('\n');
}

/** The findings, each with its reproduction. */
export function describeFindings(findings: Finding[]): string {
  if (findings.length === 0) return 'no findings\n';
  const out = [`${findings.length} distinct finding(s):`];
  findings.forEach((f, i) => {
    out.push(`\n[${i + 1}] ${f.kind} on ${f.target}: ${f.status} - ${f.message} (seen ${f.count} time(s))`);
    if (f.attribution === 'replayed') out.push('    (no request id; this request, sent again alone, wrote the same line)');
    if (f.attribution === 'candidates') out.push('    (no request id, and no candidate wrote the line again when sent alone: the likeliest requests in flight to that path then)');
    for (const example of f.attribution === 'candidates' ? f.examples.slice(0, 2) : f.examples) out.push(reproduction(example));
  });
  return `${out.join('\n')}\n`;
}

function tally(values: Iterable<string>): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');
}

/** What the run sent and saw, in counts. */
export function summary(sent: Sent[], extra: string[]): string {
  const families = new Map<string, Sent[]>();
  for (const s of sent) families.set(s.planned.family, [...(families.get(s.planned.family) ?? []), s]);
  const lines = [
    `requests: ${sent.length}, ${sent.reduce((n, s) => n + s.exchange.sent, 0)} bytes sent`,
    `outcomes: ${tally(sent.map((s) => s.exchange.outcome))}`,
    `statuses: ${tally(sent.flatMap((s) => s.exchange.answers.map((a) => String(a.status))))}`,
    'by kind (requests; variants used; statuses):',
    ...[...families.entries()].map(([family, list]) => {
      const variants = new Set(list.map((s) => s.planned.variant.split(' + ')[0]));
      return `  ${family}: ${list.length}; ${variants.size} variants; ${tally(list.flatMap((s) => (s.exchange.answers.length > 0 ? s.exchange.answers.map((a) => String(a.status)) : [s.exchange.outcome])))}`;
    }),
    'by target:',
    ...tally(sent.map((s) => s.planned.target.name))
      .split(', ')
      .map((t) => `  ${t}`),
    ...extra,
  ];
  return `${lines.join('\n')}\n`;
}
