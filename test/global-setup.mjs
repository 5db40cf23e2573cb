// Gives each jest worker its own fresh database, so test files in parallel never share rows, and
// the suite a directory for its log (TEST_LOG_DIR, read by test/helpers/suite-log.ts and checked by
// test/global-teardown.mjs). Self-contained on purpose: jest does not apply moduleNameMapper to global setup.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export default async function globalSetup(globalConfig) {
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL must be set (npm test sets it)');
  // Workers start after global setup and inherit its environment.
  process.env.TEST_LOG_DIR = mkdtempSync(join(tmpdir(), 'meeting-accounts-suite-log-'));
  if (process.env.TEST_EMBEDDED_DATABASE) return; // one embedded database, one worker
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  try {
    const base = new URL(process.env.DATABASE_URL).pathname.slice(1) || 'postgres';
    for (let worker = 1; worker <= Math.max(1, globalConfig.maxWorkers); worker++) {
      const name = `${base}_w${worker}`.replace(/[^a-zA-Z0-9_]/g, '_');
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.query(`create database "${name}"`);
    }
  } finally {
    await admin.end();
  }
}
