// The suite's log: every test server (in this process, or a service process of its own) writes its
// warn- and error-level lines to a file of this worker under TEST_LOG_DIR (made by
// test/global-setup.mjs), each tagged with the test file, the test, and whether the server was
// started to provoke faults of the service. test/global-teardown.mjs fails the run on an error-level
// line of any other server: client input must never cause one.
import { expect } from '@jest/globals';
import { appendFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { levels, multistream, type DestinationStream, type StreamEntry } from 'pino';
import { createLogger, type Logger } from '../../src/shared/logger.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIR = process.env.TEST_LOG_DIR;
const FILE = DIR ? join(DIR, `worker-${process.env.JEST_WORKER_ID ?? '1'}-${process.pid}.jsonl`) : undefined;

/** Where a test server's own log goes, besides the suite's: lines of `level` and above, to `stream`. */
export interface OwnLog {
  level: string;
  stream: DestinationStream;
}

/**
 * The logger of a test server: its own log when it has one (else none), and, when the suite
 * collects them, its warn and error lines to this worker's file. `expectFaults` marks the server
 * as one a test started to provoke faults of the service (a database stopped, a provider down):
 * its error-level lines are expected, and only they are.
 */
export function testServerLogger(own: OwnLog | undefined, expectFaults: boolean): Logger {
  const suite = suiteLog(expectFaults);
  if (!suite) return own ? createLogger(own.level, own.stream) : createLogger('silent');
  const streams: StreamEntry[] = [{ level: 'warn', stream: { write: suite } }];
  if (!own || own.level === 'silent') return createLogger('warn', multistream(streams));
  streams.push({ level: own.level as StreamEntry['level'], stream: own.stream });
  return createLogger(levels.values[own.level]! < levels.values.warn! ? own.level : 'warn', multistream(streams));
}

/**
 * For a service run as a process of its own (test/operability): takes what it writes to standard
 * output and keeps its JSON log lines of warn level and above in the suite's log, tagged as for a
 * test server; other output (the start-up summary) is skipped.
 */
export function serviceOutputLog(expectFaults: boolean): (chunk: string) => void {
  const suite = suiteLog(expectFaults);
  let partial = '';
  return (chunk) => {
    if (!suite) return;
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (/^\{.*"level":([4-9]\d)\b/.test(line)) suite(line);
    }
  };
}

/** Writes a line of a server to this worker's file, once the server's start is recorded; undefined when the suite collects no log. */
function suiteLog(expectFaults: boolean): ((line: string) => void) | undefined {
  if (!FILE) return undefined;
  const { testPath } = expect.getState();
  const tags = `"file":${JSON.stringify(testPath ? relative(ROOT, testPath) : null)},"expectFaults":${expectFaults}`;
  // Synchronous writes: a worker that exits right after its last test still leaves every line behind.
  appendFileSync(FILE, `{${tags},"server":"started"}\n`);
  return (line) => appendFileSync(FILE, `{${tags},"test":${JSON.stringify(expect.getState().currentTestName ?? null)},"line":${line.trimEnd()}}\n`);
}
