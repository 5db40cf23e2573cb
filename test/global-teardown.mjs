// After the whole suite: the security event log of every worker's database must hold no password,
// code, token or hash (the events of all tests are still there: test/helpers/server.ts resets by
// deleting users, which keeps their events). Self-contained, like global-setup.mjs.
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
  if (!process.env.DATABASE_URL) return;
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
  // A run of some files only (npm test -- <path>, -t) may write few kinds of events; the whole suite writes all.
  const wholeSuite = (globalConfig.testPathPatterns?.patterns ?? []).length === 0 && !globalConfig.testNamePattern;
  const missing = TYPES.filter((type) => !types.has(type));
  if (wholeSuite && missing.length > 0) {
    throw new Error(`security_events after the whole suite has no event of ${missing.join(', ')}: the search for secrets did not see them`);
  }
  process.stdout.write(`\nsecurity_events after the suite: ${rows} events of ${types.size} types searched; no password, code, token or hash in them\n`);
}
