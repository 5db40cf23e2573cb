// After the suite, two searches, each failing the run:
// - the security event log of every worker's database must hold no password, code, token or hash
//   (the events of all tests are still there: test/helpers/server.ts resets by deleting users,
//   which keeps their events);
// - the suite's log (test/helpers/suite-log.ts) must hold no error-level line but from the servers
//   started to provoke faults of the service: client input never causes one (API.md 8.0).
// Self-contained, like global-setup.mjs.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

/** What a secret of this service looks like; an event has no field that should ever match. */
const SECRETS = [
  ['a bcrypt hash', /\$2[aby]\$\d{2}\$/],
  ['a JWT', /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./],
  ['a refresh token or key (43 base64url characters)', /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/],
  ['a SHA-256 or HMAC hex digest', /(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])/],
  ['a verification code (6 digits)', /(?<!\d)\d{6}(?!\d)/],
  ['a password of the suite', /violet-harbor-42|copper-lantern-77|amber-violin-58|not-the-password|guessing-123/],
];
/** Every kind of event: after the whole suite each must have been searched, or the search proves little. */
const TYPES = ['SIGN_IN', 'SIGN_IN_FAILED', 'CODE_SENT', 'REFRESH_REUSE', 'LOGOUT', 'SESSION_REVOKED', 'PASSWORD_CHANGED', 'PASSWORD_RESET', 'PROFILE_CHANGED', 'AVATAR_CHANGED', 'ACCOUNT_DELETED'];
/** Columns with free text (ids, times and the session and request UUIDs hold no secret by type). */
const TEXT_COLUMNS = ['type', 'method', 'phone_masked', 'ip', 'user_agent'];

export default async function globalTeardown(globalConfig) {
  // A run of some files only (npm test -- <path>, -t) may write few kinds of events or lines; the whole suite writes all.
  const wholeSuite = (globalConfig.testPathPatterns?.patterns ?? []).length === 0 && !globalConfig.testNamePattern;
  const failures = [];
  for (const check of [() => searchSecurityEvents(globalConfig, wholeSuite), () => checkSuiteLog(process.env.TEST_LOG_DIR, wholeSuite)]) {
    try {
      process.stdout.write(`\n${await check()}\n`);
    } catch (error) {
      failures.push(error.message);
    }
  }
  if (failures.length > 0) throw new Error(failures.join('\n\n'));
}

async function searchSecurityEvents(globalConfig, wholeSuite) {
  if (!process.env.DATABASE_URL) return 'security_events not searched: no DATABASE_URL';
  const urls = process.env.TEST_EMBEDDED_DATABASE
    ? [process.env.DATABASE_URL]
    : Array.from({ length: Math.max(1, globalConfig.maxWorkers) }, (_, i) => {
        const url = new URL(process.env.DATABASE_URL);
        const base = url.pathname.slice(1) || 'postgres';
        url.pathname = `/${`${base}_w${i + 1}`.replace(/[^a-zA-Z0-9_]/g, '_')}`;
        return url.toString();
      });
  const found = [];
  let rows = 0;
  const types = new Set();
  for (const url of urls) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
    } catch {
      continue; // a worker that never ran
    }
    try {
      if (!(await client.query(`select to_regclass('security_events') as t`)).rows[0].t) continue;
      const result = await client.query(`select id, ${TEXT_COLUMNS.join(', ')}, row_to_json(e)::text as whole from security_events e`);
      rows += result.rows.length;
      for (const row of result.rows) {
        types.add(row.type);
        for (const [what, pattern] of SECRETS) {
          const text = what.startsWith('a verification code') ? TEXT_COLUMNS.map((c) => row[c] ?? '').join(' | ') : row.whole;
          if (pattern.test(text)) found.push(`event ${row.id} holds ${what}: ${row.whole}`);
        }
      }
    } finally {
      await client.end();
    }
  }
  if (found.length > 0) {
    throw new Error(`security_events holds secrets after the suite:\n${found.slice(0, 20).join('\n')}`);
  }
  const missing = TYPES.filter((type) => !types.has(type));
  if (wholeSuite && missing.length > 0) {
    throw new Error(`security_events after the whole suite has no event of ${missing.join(', ')}: the search for secrets did not see them`);
  }
  return `security_events after the suite: ${rows} events of ${types.size} types searched; no password, code, token or hash in them`;
}

/**
 * Reads every line the test servers wrote at warn level or above (one file per worker in `dir`)
 * and fails on an error-level one (level 50 and up) of a server not started with `expectFaults`.
 * After the whole suite it must also have seen lines of both kinds it tells apart, a warn line of
 * an ordinary server and an error line of a server provoking faults, or the search proves little.
 * The directory is removed when the log passes, and kept for reading when it does not.
 */
export function checkSuiteLog(dir, wholeSuite) {
  if (!dir) throw new Error('TEST_LOG_DIR is not set: test/global-setup.mjs makes it, and the suite log cannot be checked without it');
  const counts = { servers: 0, faultServers: 0, warn: 0, error: 0, expectedErrors: 0 };
  const found = [];
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.jsonl')).sort()) {
    for (const text of readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean)) {
      let entry;
      try {
        entry = JSON.parse(text);
      } catch {
        found.push(`${name}: a line that is not JSON, so it could not be checked: ${text.slice(0, 300)}`);
        continue;
      }
      if (entry.server) {
        counts.servers += 1;
        if (entry.expectFaults) counts.faultServers += 1;
        continue;
      }
      const { level, msg, err, requestId } = entry.line ?? {};
      if (level < 50) {
        if (!entry.expectFaults) counts.warn += 1;
        continue;
      }
      counts.error += 1;
      if (entry.expectFaults) {
        counts.expectedErrors += 1;
        continue;
      }
      const cause = err ? ` (${err.type}: ${String(err.message).slice(0, 200)})` : '';
      found.push(`${entry.file} › ${entry.test ?? '(outside a test)'}: level ${level} "${msg}"${cause}${requestId ? ` request ${requestId}` : ''}`);
    }
  }
  if (found.length > 0) {
    throw new Error(
      `error-level log lines from servers not started with { expectFaults: true }; client input must never cause one (the lines are in ${dir}):\n` +
        found.slice(0, 30).join('\n') +
        (found.length > 30 ? `\n… and ${found.length - 30} more` : ''),
    );
  }
  if (wholeSuite && (counts.warn === 0 || counts.expectedErrors === 0)) {
    throw new Error(
      `the suite log after the whole suite holds ${counts.warn} warn lines of ordinary servers and ${counts.expectedErrors} error lines of servers provoking faults: ` +
        `a log that lacks either kind was not collected (${dir})`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  return (
    `suite log: ${counts.servers} test servers (${counts.faultServers} provoking faults) wrote ${counts.warn} warn lines ` +
    `and ${counts.error} error lines, every error line from a server provoking faults`
  );
}
