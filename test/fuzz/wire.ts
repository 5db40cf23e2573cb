// HTTP/1.1 over a raw TCP socket: the fuzz run writes requests byte for byte (wrong lengths, bad
// chunking, bodies cut off, connections dropped), so no HTTP client may tidy them up.
import { connect } from 'node:net';

/** What the client does once it has written what it sends. */
type Ending =
  /** waits for the answer(s) */
  | 'wait'
  /** half-closes (FIN), then reads what comes */
  | 'half-close'
  /** closes the connection `afterMs` after the last byte */
  | 'destroy'
  /** resets the connection (RST) `afterMs` after the last byte */
  | 'reset';

export interface Delivery {
  /** Bytes of the request sent (all of them when absent). */
  cutAt?: number;
  /** Sent in pieces of `bytes` with `pauseMs` between them: a slow peer. */
  dribble?: { bytes: number; pauseMs: number };
  ending: Ending;
  afterMs?: number;
  /** Answers to wait for (2 for a request followed by a second one on the connection); 1 unless given. */
  answers?: number;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The whole body arrived (by Content-Length, chunking, or the connection's end). */
  complete: boolean;
}

export interface Exchange {
  answers: Answer[];
  /**
   * answered: the expected answers arrived; closed: the server closed before that; timeout: none
   * came in time; abandoned: the client left as planned (answers read before that are kept).
   */
  outcome: 'answered' | 'closed' | 'timeout' | 'abandoned' | 'refused';
  ms: number;
  /** Bytes written. */
  sent: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `raw` to 127.0.0.1:`port` as `delivery` says and reads what comes back, for at most `timeoutMs`. */
export function exchange(port: number, raw: Buffer, delivery: Delivery, timeoutMs: number, head = false): Promise<Exchange> {
  return new Promise((resolve) => {
    const started = Date.now();
    const payload = raw.subarray(0, Math.min(delivery.cutAt ?? raw.length, raw.length));
    const wanted = delivery.answers ?? 1;
    const socket = connect({ port, host: '127.0.0.1' });
    const chunks: Buffer[] = [];
    let sent = 0;
    let connected = false;
    let leaving = false;
    let done = false;
    const finish = (outcome: Exchange['outcome']) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const answers = parseAnswers(Buffer.concat(chunks), head, true);
      resolve({ answers, outcome: outcome === 'closed' && answers.length >= wanted ? 'answered' : outcome, ms: Date.now() - started, sent });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (leaving) return;
      const answers = parseAnswers(Buffer.concat(chunks), head, false);
      if (answers.length >= wanted && answers.every((a) => a.complete)) finish('answered');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish(leaving ? 'abandoned' : connected ? 'closed' : 'refused'));
    socket.on('connect', () => {
      connected = true;
      void (async () => {
        const piece = delivery.dribble?.bytes ?? payload.length;
        for (let offset = 0; offset < payload.length && !done; offset += piece) {
          const part = payload.subarray(offset, offset + piece);
          const flushed = socket.write(part);
          sent += part.length;
          if (delivery.dribble && offset + piece < payload.length) await sleep(delivery.dribble.pauseMs);
          else if (!flushed) await new Promise((r) => socket.once('drain', r).once('close', r));
        }
        if (done) return;
        if (delivery.ending === 'half-close') socket.end();
        if (delivery.ending === 'destroy' || delivery.ending === 'reset') {
          if (delivery.afterMs) await sleep(delivery.afterMs);
          if (done) return;
          leaving = true;
          if (delivery.ending === 'reset') socket.resetAndDestroy();
          else socket.destroy();
        }
      })();
    });
  });
}

/** The answers in `data`, in order; the last one may be incomplete (a connection that `ended` completes a body without a length). */
function parseAnswers(data: Buffer, head: boolean, ended: boolean): Answer[] {
  const answers: Answer[] = [];
  let offset = 0;
  while (offset < data.length) {
    const end = data.indexOf('\r\n\r\n', offset);
    if (end < 0) break;
    const lines = data.subarray(offset, end).toString('latin1').split('\r\n');
    const status = Number(lines[0]!.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
    }
    let start = end + 4;
    if (status >= 100 && status < 200) {
      offset = start;
      continue;
    }
    if (head || status === 204 || status === 304) {
      answers.push({ status, headers, body: Buffer.alloc(0), complete: true });
      offset = start;
      continue;
    }
    if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
      const parts: Buffer[] = [];
      let complete = false;
      for (;;) {
        const lineEnd = data.indexOf('\r\n', start);
        if (lineEnd < 0) break;
        const size = Number.parseInt(data.subarray(start, lineEnd).toString('latin1'), 16);
        if (!Number.isFinite(size)) break;
        if (size === 0) {
          const trailerEnd = data.indexOf('\r\n\r\n', lineEnd);
          complete = trailerEnd >= 0 || data.indexOf('\r\n', lineEnd + 2) === lineEnd + 2;
          start = complete ? (trailerEnd >= 0 ? trailerEnd + 4 : lineEnd + 4) : data.length;
          break;
        }
        if (data.length < lineEnd + 2 + size + 2) break;
        parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
        start = lineEnd + 2 + size + 2;
      }
      answers.push({ status, headers, body: Buffer.concat(parts), complete });
      if (!complete) break;
      offset = start;
      continue;
    }
    if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      const body = data.subarray(start, start + length);
      const complete = body.length === length;
      answers.push({ status, headers, body, complete });
      if (!complete) break;
      offset = start + length;
      continue;
    }
    answers.push({ status, headers, body: data.subarray(start), complete: ended });
    break;
  }
  return answers;
}
