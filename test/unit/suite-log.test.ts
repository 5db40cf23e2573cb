// The check of the suite's log that test/global-teardown.mjs runs after the suite: it must be able to
// fail, on an error line of client input and on a log that was not collected.
import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSuiteLog } from '../global-teardown.mjs';

const server = (expectFaults: boolean) => ({ file: 'test/x.test.ts', expectFaults, server: 'started' });
const line = (expectFaults: boolean, level: number, msg: string, err?: { type: string; message: string }) => ({
  file: 'test/x.test.ts',
  expectFaults,
  test: 'x does y',
  line: { level, msg, requestId: 'r-1', ...(err && { err }) },
});

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A directory as test/helpers/suite-log.ts leaves it: one file per worker, one JSON object a line. */
function suiteLog(...workers: unknown[][]): string {
  const dir = mkdtempSync(join(tmpdir(), 'suite-log-test-'));
  made.push(dir);
  workers.forEach((entries, i) => writeFileSync(join(dir, `worker-${i + 1}.jsonl`), entries.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))).join('\n') + '\n'));
  return dir;
}

const ordinary = [server(false), line(false, 40, 'request completed')];
const faulty = [server(true), line(true, 50, 'request failed', { type: 'DatabaseError', message: 'relation "users" does not exist' })];

describe('the check of the suite log', () => {
  it('passes warn lines, and error lines of servers provoking faults; it counts what it saw and removes the directory', () => {
    const dir = suiteLog(ordinary, faulty);
    expect(checkSuiteLog(dir, true)).toBe('suite log: 2 test servers (1 provoking faults) wrote 1 warn lines and 1 error lines, every error line from a server provoking faults');
    expect(existsSync(dir)).toBe(false);
  });

  it('fails on an error line of any other server, naming the test, the message and the cause, and keeps the directory', () => {
    const dir = suiteLog(ordinary, [...faulty, line(false, 50, 'request failed', { type: 'URIError', message: "Failed to decode param '%ZZ'" })]);
    expect(() => checkSuiteLog(dir, false)).toThrow(
      `test/x.test.ts › x does y: level 50 "request failed" (URIError: Failed to decode param '%ZZ') request r-1`,
    );
    expect(existsSync(dir)).toBe(true);
  });

  it('fails on a fatal line as well, and on a line it cannot read', () => {
    expect(() => checkSuiteLog(suiteLog([...ordinary, line(false, 60, 'crashed')]), false)).toThrow(/level 60 "crashed"/);
    expect(() => checkSuiteLog(suiteLog([...ordinary, '{"file":"test/x.test.ts","line":{"lev']), false)).toThrow(/not JSON/);
  });

  it('fails after the whole suite when the log lacks warn lines or expected error lines: it was not collected', () => {
    expect(() => checkSuiteLog(suiteLog(faulty), true)).toThrow(/0 warn lines of ordinary servers/);
    expect(() => checkSuiteLog(suiteLog(ordinary), true)).toThrow(/0 error lines of servers provoking faults/);
    expect(() => checkSuiteLog(suiteLog([]), true)).toThrow(/was not collected/);
    // A run of some files only may have neither.
    expect(checkSuiteLog(suiteLog(ordinary), false)).toMatch(/^suite log: 1 test servers/);
  });

  it('fails without a directory to read', () => {
    expect(() => checkSuiteLog(undefined, false)).toThrow(/TEST_LOG_DIR is not set/);
  });
});
